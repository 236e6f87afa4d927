/// @file gmsh_data.hpp
/// Internal: what the Gmsh readers (ASCII, gmsh_reader.cpp; binary, gmsh_binary_reader.cpp)
/// read from a .msh file, and the step both share that turns it into a Mesh.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "orient_elements.hpp"
#include "softgrad/mesh.hpp"

namespace softgrad::detail {

/// The sections' contents, before node tags are turned into indices.
struct GmshData {
  int version = 0;      ///< 2 or 4
  bool binary = false;  ///< places below are byte offsets, not line numbers
  bool has_nodes = false, has_elements = false;
  long long elements_place = 0;        ///< where $Elements starts
  std::vector<int> node_tags;          ///< file order
  std::vector<double> coords;          ///< 3 per node
  std::vector<long long> node_places;  ///< where each node was read, for error messages
  std::vector<int> corners[2];  ///< node tags, dim+1 per element: [0] triangles, [1] tetrahedra
  std::vector<ElementOrigin> origins[2];
  /// The first element of a type softgrad does not read, by the dimension of its shape: [0]
  /// surface (quadrangles, higher-order triangles), [1] volume (hexahedra, prisms, pyramids,
  /// higher-order tetrahedra) or a type not known. Points and lines are skipped.
  struct Unread {
    bool seen = false;
    long long type = 0;
    long long place = 0;
  } unread[2];
};

/// Records an element of a type gmsh_simplex_dim does not read (the first of its kind).
void note_unread_element(GmshData& data, long long type, long long place);

/// The simplex types read: 2 and 9 (triangles), 4 and 11 (tetrahedra). Returns the simplex
/// dimension (2 or 3) and sets the type's node count, or returns 0 for any other type.
int gmsh_simplex_dim(long long type, int& n_nodes);

/// Throws InputError "<path>:<line>: <message>" (or "<path>: byte <offset>: ..." for binary).
[[noreturn]] void gmsh_fail(const GmshData& data, const std::string& path, long long where,
                            std::string_view message);

/// True if `path` begins with a $MeshFormat section declaring binary MSH 4.1 ("4.1 1 8").
bool is_binary_msh41(const std::string& path);

/// Reads the sections of a binary MSH 4.1 file. @throws InputError "<path>: byte <offset>: ..."
/// for a malformed or truncated file (every count is checked against the bytes left).
GmshData read_gmsh_binary(const std::string& path);

/// The Mesh of the tetrahedra if there are any, else of the triangles (then every node must lie
/// in the plane z = 0), positively oriented, every element's nodes defined, no tag twice.
/// @throws InputError naming the place in the file.
Mesh gmsh_mesh(const GmshData& data, const std::string& path);

}  // namespace softgrad::detail
