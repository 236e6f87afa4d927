// TetGen .node/.ele reader (also reads 2D Triangle meshes, which share the format).
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "line_reader.hpp"
#include "orient_elements.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/io.hpp"

namespace softgrad {
namespace {

std::string simplex_name(int dim, bool plural) {
  if (dim == 2) return plural ? "triangles" : "triangle";
  return plural ? "tetrahedra" : "tetrahedron";
}

// Strips a trailing ".node" or ".ele", leaving the base path shared by the two files.
std::string base_path(const std::string& path) {
  for (const std::string ext : {".node", ".ele"}) {
    if (path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0)
      return path.substr(0, path.size() - ext.size());
  }
  return path;
}

// Fails if data lines follow the `count` records that the header announced.
void expect_eof(detail::LineReader& in, long long count, const char* records) {
  if (in.next_line()) {
    in.fail("unexpected data after the " + std::to_string(count) + " " + records +
            " that the header announces (is the count in the header right?)");
  }
}

// Reads the .node file into mesh.dim and mesh.X; returns the index base (0 or 1).
int read_nodes(const std::string& path, Mesh& mesh) {
  detail::LineReader in(path, '#');
  in.require_line("the .node header 'n_verts dim n_attributes n_boundary_markers'");
  const int n = in.read_int_in("vertex count", 1, INT_MAX);
  mesh.dim = in.read_int_in("dimension", 2, 3);
  const int n_attr = in.has_token() ? in.read_int_in("attribute count", 0, 1 << 20) : 0;
  const int n_marker = in.has_token() ? in.read_int_in("boundary marker flag", 0, 1) : 0;
  in.expect_end("the .node header");
  const int n_values = mesh.dim + n_attr + n_marker;

  // The rows grow as they are read: the header's count is not trusted with an allocation.
  std::vector<double> coordinates;
  int base = 0;
  for (int i = 0; i < n; ++i) {
    if (!in.next_line()) {
      in.fail("unexpected end of file: the header announces " + std::to_string(n) +
              " vertices, found " + std::to_string(i));
    }
    const long long id = in.read_int("vertex id");
    if (i == 0 && id != 0 && id != 1) {
      in.fail("the first vertex id must be 0 or 1 (it sets the index base), got " +
              std::to_string(id));
    }
    if (i == 0) base = static_cast<int>(id);
    if (id != base + i) {
      in.fail("vertex id " + std::to_string(id) + " out of sequence, expected " +
              std::to_string(base + i));
    }
    const int count = in.count_tokens();
    if (count != n_values) {
      in.fail("expected " + std::to_string(n_values) + " values after the vertex id (" +
              std::to_string(mesh.dim) + " coordinates, " + std::to_string(n_attr) +
              " attributes, " + std::to_string(n_marker) + " markers), got " +
              std::to_string(count));
    }
    for (int k = 0; k < mesh.dim; ++k) {
      const double c = in.read_double("a coordinate");
      if (!std::isfinite(c))
        in.fail("vertex " + std::to_string(id) + " has a non-finite coordinate");
      coordinates.push_back(c);
    }
  }
  expect_eof(in, n, "vertices");
  mesh.X.resize(n, mesh.dim);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < mesh.dim; ++k)
      mesh.X(i, k) = coordinates[static_cast<size_t>(i) * mesh.dim + k];
  return base;
}

// Reads the .ele file into mesh.elems (0-based); returns where each element came from.
std::vector<detail::ElementOrigin> read_elements(const std::string& path, int base, Mesh& mesh) {
  detail::LineReader in(path, '#');
  in.require_line("the .ele header 'n_elems nodes_per_elem n_attributes'");
  const int n = in.read_int_in("element count", 1, INT_MAX);
  const int d1 = mesh.dim + 1;
  const int per_elem = static_cast<int>(in.read_int("nodes per element"));
  const int quadratic = mesh.dim == 2 ? 6 : 10;
  if (per_elem != d1 && per_elem != quadratic) {
    in.fail("nodes per " + simplex_name(mesh.dim, false) + " must be " + std::to_string(d1) +
            " or " + std::to_string(quadratic) + ", got " + std::to_string(per_elem));
  }
  const int n_attr = in.has_token() ? in.read_int_in("attribute count", 0, 1 << 20) : 0;
  in.expect_end("the .ele header");

  const int n_verts = mesh.n_verts();
  std::vector<int> vertices;  // grows as read, like the .node rows
  std::vector<detail::ElementOrigin> origins;
  for (int e = 0; e < n; ++e) {
    if (!in.next_line()) {
      in.fail("unexpected end of file: the header announces " + std::to_string(n) + " " +
              simplex_name(mesh.dim, true) + ", found " + std::to_string(e));
    }
    origins.push_back({in.line_number(), in.read_int("element id")});
    const int count = in.count_tokens();
    if (count < per_elem) {
      in.fail("expected " + std::to_string(per_elem) + " node indices for a " +
              simplex_name(mesh.dim, false) + ", got " + std::to_string(count));
    }
    if (count != per_elem + n_attr) {
      in.fail("expected " + std::to_string(per_elem) + " node indices and " +
              std::to_string(n_attr) + " attributes after the element id, got " +
              std::to_string(count) + " values");
    }
    for (int k = 0; k < per_elem; ++k) {
      const int v = in.read_int_in("vertex index", base, base + n_verts - 1L);
      if (k < d1) vertices.push_back(v - base);
    }
  }
  expect_eof(in, n, simplex_name(mesh.dim, true).c_str());
  mesh.elems.resize(n, d1);
  for (int e = 0; e < n; ++e)
    for (int k = 0; k < d1; ++k) mesh.elems(e, k) = vertices[static_cast<size_t>(e) * d1 + k];
  return origins;
}

}  // namespace

Mesh read_tetgen(const std::string& node_or_ele_path) {
  const std::string base = base_path(node_or_ele_path);
  Mesh mesh;
  mesh.source = node_or_ele_path;
  const int index_base = read_nodes(base + ".node", mesh);
  const std::string ele_path = base + ".ele";
  const std::vector<detail::ElementOrigin> origins = read_elements(ele_path, index_base, mesh);
  detail::orient_elements(mesh, origins, ele_path);
  validate_mesh(mesh);
  return mesh;
}

}  // namespace softgrad
