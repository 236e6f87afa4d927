// Gmsh .msh reader: MSH 2.x and 4.1, ASCII. Reads $MeshFormat, $Nodes and $Elements and skips
// every other section.
#include <algorithm>
#include <climits>
#include <cmath>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "line_reader.hpp"
#include "orient_elements.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/io.hpp"

namespace softgrad {
namespace {

using detail::ElementOrigin;
using detail::LineReader;

// What the sections hold, before node tags are turned into indices.
struct GmshData {
  int version = 0;  // 2 or 4
  bool has_nodes = false, has_elements = false;
  int elements_line = 0;        // where $Elements starts
  std::vector<int> node_tags;   // file order
  std::vector<double> coords;   // 3 per node
  std::vector<int> node_lines;  // for error messages
  std::vector<int> corners[2];  // node tags, dim+1 per element: [0] triangles, [1] tetrahedra
  std::vector<ElementOrigin> origins[2];
};

// The element types we read: 2 and 9 (triangles), 4 and 11 (tetrahedra). Returns the
// simplex dimension and sets the node count, or returns 0 for any other type.
int simplex_dim(long long type, int& n_nodes) {
  switch (type) {
    case 2:
      n_nodes = 3;
      return 2;
    case 9:
      n_nodes = 6;
      return 2;
    case 4:
      n_nodes = 4;
      return 3;
    case 11:
      n_nodes = 10;
      return 3;
    default:
      return 0;
  }
}

// Reads the next line, which must be exactly `end` (e.g. "$EndNodes").
void expect_end_marker(LineReader& in, const char* end) {
  in.require_line(end);
  const std::string_view t = in.token(end);
  if (t != end) {
    in.fail(std::string("expected ") + end + ", got '" + std::string(t) +
            "' (does the count in the section header match its contents?)");
  }
  in.expect_end(end);
}

// $MeshFormat: "version file-type data-size". Only ASCII 2.x and 4.1.
void read_format(LineReader& in, GmshData& data) {
  in.require_line("the $MeshFormat line 'version file-type data-size'");
  const std::string_view version = in.token("the MSH version");
  if (version == "2" || version.starts_with("2.")) {
    data.version = 2;
  } else if (version == "4.1") {
    data.version = 4;
  } else {
    in.fail("unsupported MSH version '" + std::string(version) +
            "'; save the mesh as MSH 2.2 or 4.1 ASCII");
  }
  if (in.read_int("the file type (0 = ASCII, 1 = binary)") != 0) {
    in.fail("binary .msh files are not supported; save as ASCII (Gmsh: Mesh.Binary = 0)");
  }
  in.read_int("the data size");
  in.expect_end("the $MeshFormat line");
  expect_end_marker(in, "$EndMeshFormat");
}

// One node's "x y z" (plus `extra` parametric values, ignored).
void read_coords(LineReader& in, GmshData& data, int extra) {
  for (int k = 0; k < 3; ++k) {
    const double c = in.read_double("a node coordinate");
    if (!std::isfinite(c)) in.fail("non-finite node coordinate");
    data.coords.push_back(c);
  }
  for (int k = 0; k < extra; ++k) in.read_double("a parametric coordinate");
  in.expect_end("the node coordinates");
}

// Room for `n` nodes, up to a bound, so that a corrupt count fails as a parse error instead.
void reserve_nodes(GmshData& data, int n) {
  const size_t capped = static_cast<size_t>(std::min(n, 1 << 24));
  data.node_tags.reserve(capped);
  data.node_lines.reserve(capped);
  data.coords.reserve(3 * capped);
}

// $Nodes, MSH 2: "n", then n lines "tag x y z".
void read_nodes_v2(LineReader& in, GmshData& data) {
  in.require_line("the node count");
  const int n = in.read_int_in("node count", 0, INT_MAX);
  in.expect_end("the node count");
  reserve_nodes(data, n);
  for (int i = 0; i < n; ++i) {
    in.require_line("a node line 'tag x y z'");
    data.node_tags.push_back(in.read_int_in("node tag", 0, INT_MAX));
    data.node_lines.push_back(in.line_number());
    read_coords(in, data, 0);
  }
}

// $Nodes, MSH 4.1: "n_blocks n_nodes min_tag max_tag", then per block
// "entity_dim entity_tag parametric n", n tag lines, n coordinate lines.
void read_nodes_v4(LineReader& in, GmshData& data) {
  in.require_line("the $Nodes header 'n_blocks n_nodes min_tag max_tag'");
  const int n_blocks = in.read_int_in("block count", 0, INT_MAX);
  const int n_nodes = in.read_int_in("node count", 0, INT_MAX);
  reserve_nodes(data, n_nodes);
  for (int b = 0; b < n_blocks; ++b) {
    in.require_line("a node block header 'entity_dim entity_tag parametric n'");
    const int entity_dim = in.read_int_in("entity dimension", 0, 3);
    in.read_int("entity tag");
    const int parametric = in.read_int_in("parametric flag", 0, 1);
    const int n = in.read_int_in("nodes in block", 0,
                                 n_nodes - static_cast<long long>(data.node_tags.size()));
    in.expect_end("the node block header");
    for (int i = 0; i < n; ++i) {
      in.require_line("a node tag");
      data.node_tags.push_back(in.read_int_in("node tag", 0, INT_MAX));
      in.expect_end("the node tag");
    }
    for (int i = 0; i < n; ++i) {
      in.require_line("a node coordinate line 'x y z'");
      data.node_lines.push_back(in.line_number());
      read_coords(in, data, parametric ? entity_dim : 0);
    }
  }
  if (static_cast<int>(data.node_tags.size()) != n_nodes) {
    in.fail("the $Nodes header announces " + std::to_string(n_nodes) + " nodes, the blocks hold " +
            std::to_string(data.node_tags.size()));
  }
}

// The node list of one element of `type`, after its id (and tags), into data.corners.
void read_element_nodes(LineReader& in, GmshData& data, long long id, long long type) {
  int n_nodes = 0;
  const int dim = simplex_dim(type, n_nodes);
  if (dim == 0) return;  // not a simplex we use: ignore the rest of the line
  const char* name = dim == 3 ? "a tetrahedron" : "a triangle";
  const int count = in.count_tokens();
  if (count != n_nodes) {
    in.fail("expected " + std::to_string(n_nodes) + " node indices for " + name +
            " (element type " + std::to_string(type) + "), got " + std::to_string(count));
  }
  for (int k = 0; k < n_nodes; ++k) {
    const int tag = in.read_int_in("node tag", 0, INT_MAX);
    if (k <= dim) data.corners[dim - 2].push_back(tag);
  }
  data.origins[dim - 2].push_back({in.line_number(), id});
}

// $Elements, MSH 2: "n", then n lines "id type n_tags tags... nodes...".
void read_elements_v2(LineReader& in, GmshData& data) {
  in.require_line("the element count");
  const int n = in.read_int_in("element count", 0, INT_MAX);
  in.expect_end("the element count");
  for (int i = 0; i < n; ++i) {
    in.require_line("an element line 'id type n_tags tags... nodes...'");
    const long long id = in.read_int("element id");
    const long long type = in.read_int("element type");
    const int n_tags = in.read_int_in("tag count", 0, INT_MAX);
    for (int k = 0; k < n_tags; ++k) in.read_int("element tag");
    read_element_nodes(in, data, id, type);
  }
}

// $Elements, MSH 4.1: "n_blocks n_elems min_tag max_tag", then per block
// "entity_dim entity_tag type n" and n lines "id nodes...".
void read_elements_v4(LineReader& in, GmshData& data) {
  in.require_line("the $Elements header 'n_blocks n_elems min_tag max_tag'");
  const int n_blocks = in.read_int_in("block count", 0, INT_MAX);
  const int n_elems = in.read_int_in("element count", 0, INT_MAX);
  long long seen = 0;
  for (int b = 0; b < n_blocks; ++b) {
    in.require_line("an element block header 'entity_dim entity_tag type n'");
    in.read_int("entity dimension");
    in.read_int("entity tag");
    const long long type = in.read_int("element type");
    const int n = in.read_int_in("elements in block", 0, n_elems - seen);
    in.expect_end("the element block header");
    for (int i = 0; i < n; ++i) {
      in.require_line("an element line 'id nodes...'");
      read_element_nodes(in, data, in.read_int("element id"), type);
    }
    seen += n;
  }
  if (seen != n_elems) {
    in.fail("the $Elements header announces " + std::to_string(n_elems) +
            " elements, the blocks hold " + std::to_string(seen));
  }
}

// Walks the sections of the file.
GmshData read_sections(const std::string& path) {
  LineReader in(path, '\0');
  GmshData data;
  while (in.next_line()) {
    const std::string section(in.token("a section"));
    in.expect_end(section);
    const bool is_data = section == "$Nodes" || section == "$Elements";
    if (section == "$MeshFormat") {
      read_format(in, data);
    } else if (is_data && data.version == 0) {
      in.fail(section + " before $MeshFormat: not a Gmsh MSH 2.x or 4.1 file");
    } else if (is_data && (section == "$Nodes" ? data.has_nodes : data.has_elements)) {
      in.fail("a second " + section + " section; only one is supported");
    } else if (section == "$Nodes") {
      data.version == 2 ? read_nodes_v2(in, data) : read_nodes_v4(in, data);
      expect_end_marker(in, "$EndNodes");
      data.has_nodes = true;
    } else if (section == "$Elements") {
      data.elements_line = in.line_number();
      data.version == 2 ? read_elements_v2(in, data) : read_elements_v4(in, data);
      expect_end_marker(in, "$EndElements");
      data.has_elements = true;
    } else if (section.size() > 1 && section[0] == '$') {
      // Any other section: skip to its end marker.
      const std::string end = "$End" + section.substr(1);
      do {
        in.require_line(end);
      } while (in.line() != end);
    } else {
      in.fail("expected a section such as $MeshFormat, $Nodes or $Elements, got '" + section + "'");
    }
  }
  if (data.version == 0) in.fail("not a Gmsh .msh file: no $MeshFormat section");
  if (!data.has_nodes || !data.has_elements) {
    in.fail(std::string("unexpected end of file: no ") + (data.has_nodes ? "$Elements" : "$Nodes") +
            " section");
  }
  return data;
}

// Maps node tags to 0-based indices in file order: a table when tags are dense enough, a hash
// map otherwise. Duplicate tags are an error.
class NodeIndex {
 public:
  NodeIndex(const GmshData& data, const std::string& path) {
    const int n = static_cast<int>(data.node_tags.size());
    const int max_tag = n ? *std::max_element(data.node_tags.begin(), data.node_tags.end()) : 0;
    dense_ = max_tag <= 4LL * n + 1024;
    if (dense_) table_.assign(static_cast<size_t>(max_tag) + 1, -1);
    for (int i = 0; i < n; ++i) {
      const int tag = data.node_tags[i];
      int& slot = dense_ ? table_[tag] : map_.try_emplace(tag, -1).first->second;
      if (slot != -1) {
        detail::fail_at(path, data.node_lines[i],
                        "node tag " + std::to_string(tag) + " is defined twice");
      }
      slot = i;
    }
  }
  /// The index of `tag`, or -1 if no node has it.
  int operator()(int tag) const {
    if (dense_) return tag < static_cast<int>(table_.size()) ? table_[tag] : -1;
    const auto it = map_.find(tag);
    return it == map_.end() ? -1 : it->second;
  }

 private:
  bool dense_ = true;
  std::vector<int> table_;
  std::unordered_map<int, int> map_;
};

// A mesh without tetrahedra is 2D: every node must lie in the plane z = 0.
void check_planar(const GmshData& data, const std::string& path) {
  double scale = 0;
  for (size_t i = 0; i < data.coords.size(); i += 3)
    scale = std::max({scale, std::abs(data.coords[i]), std::abs(data.coords[i + 1])});
  for (size_t i = 0; i < data.node_tags.size(); ++i) {
    const double z = data.coords[3 * i + 2];
    if (!(std::abs(z) <= 1e-9 * scale)) {
      std::ostringstream os;
      os << "node " << data.node_tags[i] << " has z = " << z
         << " but the mesh has no tetrahedra, so it is read as 2D (triangles) and must lie in "
            "the plane z = 0";
      detail::fail_at(path, data.node_lines[i], os.str());
    }
  }
}

// Builds the Mesh from the tetrahedra if there are any, else from the triangles.
Mesh assemble(const GmshData& data, const std::string& path) {
  Mesh mesh;
  mesh.source = path;
  mesh.dim = data.origins[1].empty() ? 2 : 3;
  const std::vector<int>& corners = data.corners[mesh.dim - 2];
  const std::vector<ElementOrigin>& origins = data.origins[mesh.dim - 2];
  if (origins.empty()) {
    detail::fail_at(path, data.elements_line,
                    "$Elements has no tetrahedra (type 4 or 11) and no triangles (type 2 or 9)");
  }
  if (mesh.dim == 2) check_planar(data, path);

  const int n = static_cast<int>(data.node_tags.size());
  mesh.X.resize(n, mesh.dim);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < mesh.dim; ++k) mesh.X(i, k) = data.coords[3 * i + k];

  const NodeIndex index(data, path);
  const int d1 = mesh.dim + 1;
  mesh.elems.resize(static_cast<int>(origins.size()), d1);
  for (int e = 0; e < mesh.n_elems(); ++e) {
    for (int k = 0; k < d1; ++k) {
      const int tag = corners[static_cast<size_t>(e) * d1 + k];
      const int v = index(tag);
      if (v < 0) {
        detail::fail_at(path, origins[e].line,
                        "element " + std::to_string(origins[e].id) + " refers to node " +
                            std::to_string(tag) + ", which $Nodes does not define");
      }
      mesh.elems(e, k) = v;
    }
  }
  detail::orient_elements(mesh, origins, path);
  return mesh;
}

}  // namespace

Mesh read_gmsh(const std::string& path) {
  Mesh mesh = assemble(read_sections(path), path);
  validate_mesh(mesh);
  return mesh;
}

}  // namespace softgrad
