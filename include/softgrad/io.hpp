/// @file io.hpp
/// Mesh readers (TetGen .node/.ele, Gmsh .msh 2.2 and 4.1 ASCII) and VTK writers (.vtu frames,
/// binary or ASCII, and the .pvd collection that lists them, for ParaView).
///
/// Readers stream the file line by line. Every problem in the input is an InputError of the form
/// "<path>:<line>: <what is wrong>", and the returned mesh has positively oriented elements
/// (readers swap two vertices of an inverted element) and passes validate_mesh.
#pragma once

#include <Eigen/Core>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "softgrad/mesh.hpp"

namespace softgrad {

/// Reads a TetGen mesh (or a 2D Triangle mesh) from `foo.node` and `foo.ele`.
/// `node_or_ele_path` is either file or the common base path `foo`.
/// Formats: .node header "n_verts dim n_attr n_bmarker", then "id x y [z] [attrs] [marker]";
/// .ele header "n_elems nodes_per_elem n_attr", then "id v0 v1 ... [attrs]". '#' starts a
/// comment; blank lines are skipped; ids are 0- or 1-based as the first node id says; elements
/// with more than dim+1 nodes (10-node tets) keep their first dim+1 (corner) nodes.
/// @throws InputError "<file>:<line>: ..." for a missing file, bad header, malformed number,
/// wrong value count, out-of-range index, non-finite coordinate or degenerate element.
Mesh read_tetgen(const std::string& node_or_ele_path);

/// Reads a Gmsh mesh, MSH 2.x or 4.1 ASCII. Uses the tetrahedra (element types 4, and 11 whose
/// first 4 nodes are the corners) if there are any: a 3D mesh. Otherwise the triangles (types 2
/// and 9): a 2D mesh, whose nodes must lie in the plane z = 0. Other element types are ignored;
/// node tags may be sparse and are renumbered 0..n_verts-1 in file order.
/// @throws InputError "<file>:<line>: ..." for a missing file, binary or unsupported version,
/// truncated section, malformed number, unknown node tag, non-planar 2D mesh or degenerate
/// element.
Mesh read_gmsh(const std::string& path);

/// A triangulated surface (vertices and triangles, 0-based), what tetrahedralise() fills.
struct SurfaceMesh {
  Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor> X;
  Eigen::Matrix<int, Eigen::Dynamic, 3, Eigen::RowMajor> triangles;
  std::string source;  ///< the file, for messages
};

/// Reads a surface: OBJ ("v" and "f" records; polygons are fanned into triangles; texture and
/// normal indices ignored), OFF, or STL (binary or ASCII; coincident vertices merged).
/// @throws InputError "<file>:<line>: ..." for a missing file, a malformed record, a
///         non-finite coordinate, an index out of range, a triangle repeating a vertex, or
///         fewer than 4 vertices or triangles.
SurfaceMesh read_surface_mesh(const std::string& path);

/// TetGen's quality and size bounds for tetrahedralise().
struct TetrahedraliseOptions {
  double max_radius_edge = 1.5;  ///< bound on circumradius / shortest edge (TetGen -q), >= 1.1
  double max_volume = 0.0;       ///< bound on a tetrahedron's volume [m^3] (-a); 0: none
};

/// True when this build has TetGen (Debian's libtet1.5-dev; AGPL-licensed).
bool has_tetgen();

/// The checks tetrahedralise() makes before it fills a surface, for a surface used as it is (a
/// rigid body's shape): coordinates within 1e100; every vertex on a triangle, no two vertices
/// closer than 1e-10 of its size, no triangle without area or given twice, every edge on two
/// triangles traversed once each way, one fan of triangles around each vertex; and, where the
/// build has TetGen, no two triangles crossing (TetGen's exact check, in a child process).
/// @throws InputError naming the surface and the place, by coordinates.
void check_surface(const SurfaceMesh& surface);

/// Fills a closed, non-self-intersecting surface with quality tetrahedra (TetGen, boundary
/// preserved up to added Steiner points). The surface is checked first: every vertex on a
/// triangle, no two vertices closer than 1e-10 of its size, no triangle without area or given
/// twice, every edge on two triangles traversed once each way, one fan of triangles around each
/// vertex; then TetGen's exact self-intersection check (-d). TetGen runs in a child process with a
/// budget (45 s, 8 GiB more than this process uses), so that a crash or a runaway refinement on a
/// bad surface is an error here, never the end of the program; a max_volume that would make more
/// than 2 million tetrahedra in the enclosed volume, or coordinates beyond 1e100, are refused
/// before.
/// @throws InputError naming the surface (and the place, by coordinates) when it fails a
///         check, is open, intersects itself, makes TetGen
///         crash or exceed its budget, or when the build has no TetGen.
Mesh tetrahedralise(const SurfaceMesh& surface, const TetrahedraliseOptions& options = {});

/// Reads a mesh, choosing the reader by extension: .msh -> read_gmsh; .node, .ele, or no
/// extension with `path.node` present -> read_tetgen; .obj, .off, .stl -> read_surface_mesh,
/// then tetrahedralise with `surface`.
/// @throws InputError for an unknown extension, or what the reader throws.
Mesh read_mesh(const std::string& path, const TetrahedraliseOptions& surface = {});

/// A mesh from arrays (a scene's inline "vertices" and "elements", NumPy arrays from Python):
/// `vertices` holds n * dim coordinates ([x0 y0 (z0) x1 ...]), `elements` (dim + 1) vertex
/// indices per element, 0-based. Elements are oriented and checked as the file readers do theirs,
/// so the mesh equals the same mesh read from a file.
/// @throws InputError "<source>/vertices: ..." or "<source>/elements: ..." for counts that are
///         not multiples of dim and dim + 1, an index out of range, a non-finite coordinate, a
///         degenerate or repeated element.
Mesh mesh_from_arrays(int dim, const std::vector<double>& vertices,
                      const std::vector<int>& elements, const std::string& source);

/// A per-vertex array written into a .vtu file. `values` holds n_verts * components numbers,
/// vertex-major ([v0c0 v0c1 ... v1c0 ...], the layout of x). In 2D, a 2-component field is
/// written as a 3-component vector with zero z so that ParaView treats it as a vector.
struct PointField {
  std::string name;  ///< array name shown in ParaView; must not contain < > & " '
  int components = 1;
  Eigen::VectorXd values;  ///< n_verts * components numbers, vertex-major
};

/// A per-element array, n_elems * components numbers, element-major. Same rules as PointField.
struct CellField {
  std::string name;  ///< array name shown in ParaView; must not contain < > & " '
  int components = 1;
  Eigen::VectorXd values;  ///< n_elems * components numbers, element-major
};

/// How .vtu files store their arrays: `zlib` (the default) and `raw` append the Float64 values
/// in binary after the XML (zlib-compressed in 32 KiB blocks, or as they are), which is exact
/// and about a quarter of the ASCII size; `ascii` writes 9 significant digits as text, for
/// reading by eye.
enum class VtuEncoding { zlib, raw, ascii };
/// "zlib", "raw" or "ascii". @throws InputError naming the value and the choices.
VtuEncoding parse_vtu_encoding(std::string_view name);
const char* to_string(VtuEncoding encoding);

/// Writes the deformed mesh as a VTK XML UnstructuredGrid (.vtu). `x` is the flat current
/// position vector (n_dofs = n_verts * dim). 2D meshes are written with z = 0 as
/// VTK_TRIANGLE (5), tetrahedra as VTK_TETRA (10). The file is written to a temporary file and
/// renamed, so a reader never sees half of it.
/// @throws InputError naming the path if the file cannot be written, or naming the argument if
/// x or a field has the wrong size, a field has components < 1 or an invalid name.
void write_vtu(const std::string& path, const Mesh& mesh, const Eigen::VectorXd& x,
               const std::vector<PointField>& fields = {},
               const std::vector<CellField>& cell_fields = {},
               VtuEncoding encoding = VtuEncoding::zlib);

/// Writes a triangle surface in 3D (V: vertices x 3, F: triangles x 3) as a .vtu of
/// VTK_TRIANGLE cells, like write_vtu (rigid bodies' surfaces). @throws as write_vtu, and for a
/// triangle that refers to no vertex.
void write_surface_vtu(const std::string& path, const Eigen::MatrixXd& V, const Eigen::MatrixXi& F,
                       const std::vector<PointField>& fields = {},
                       const std::vector<CellField>& cell_fields = {},
                       VtuEncoding encoding = VtuEncoding::zlib);

/// Writes a ParaView collection (.pvd) listing .vtu frames with their times. The file is
/// rewritten (to a temporary file, then renamed) on construction and after every add_frame, so
/// a run that stops early still leaves a valid collection of the frames written so far.
class PvdWriter {
 public:
  /// Creates the collection at `pvd_path` with no frames.
  /// @throws InputError naming the path if it cannot be written.
  explicit PvdWriter(std::string pvd_path);

  /// Appends a frame at time `time` [s]; `vtu_file` is relative to the .pvd's folder (or
  /// absolute). Rewrites the collection.
  /// @throws InputError naming the path if it cannot be written, or if `vtu_file` is empty or
  /// contains < > & " '.
  /// `part` numbers the datasets of one time (ParaView reads several as one multiblock).
  void add_frame(double time, const std::string& vtu_file, int part = 0);

  /// The collection's path, as given.
  const std::string& path() const { return path_; }
  /// Frames added so far, as (time, file).
  const std::vector<std::pair<double, std::string>>& frames() const { return frames_; }

 private:
  void write() const;

  std::string path_;
  std::vector<std::pair<double, std::string>> frames_;
  std::vector<int> parts_;  ///< per frame
};

}  // namespace softgrad
