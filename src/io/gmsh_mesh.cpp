// The step both Gmsh readers share: node tags to indices, and the Mesh (gmsh_data.hpp).
#include <algorithm>
#include <climits>
#include <cmath>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>

#include "gmsh_data.hpp"
#include "softgrad/errors.hpp"

namespace softgrad::detail {
namespace {

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
        gmsh_fail(data, path, data.node_places[i],
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
      gmsh_fail(data, path, data.node_places[i], os.str());
    }
  }
}

}  // namespace

int gmsh_simplex_dim(long long type, int& n_nodes) {
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

void note_unread_element(GmshData& data, long long type, long long place) {
  static const std::set<long long> points_and_lines = {1, 8, 15, 26, 27, 28};
  static const std::set<long long> surfaces = {3, 10, 16, 20, 21, 22, 23, 24, 25};
  if (points_and_lines.count(type)) return;  // boundary curves, corners: not part of the mesh
  GmshData::Unread& first = data.unread[surfaces.count(type) ? 0 : 1];
  if (!first.seen) first = {true, type, place};
}

void gmsh_fail(const GmshData& data, const std::string& path, long long where,
               std::string_view message) {
  throw InputError(place_text(path, where, data.binary) + ": " + std::string(message));
}

Mesh gmsh_mesh(const GmshData& data, const std::string& path) {
  Mesh mesh;
  mesh.source = path;
  mesh.dim = data.origins[1].empty() ? 2 : 3;
  const std::vector<int>& corners = data.corners[mesh.dim - 2];
  const std::vector<ElementOrigin>& origins = data.origins[mesh.dim - 2];
  // Elements that would be dropped: a volume of hexahedra beside tetrahedra, quadrangles in a
  // 2D mesh (in a 3D one, surface elements are its boundary, not part of the volume).
  for (const int k : {1, 0}) {
    const GmshData::Unread& u = data.unread[k];
    if (u.seen && (k == 1 || mesh.dim == 2))
      gmsh_fail(data, path, u.place,
                "element type " + std::to_string(u.type) + " (" +
                    (k == 1 ? "a hexahedron, prism, pyramid, higher-order tetrahedron or "
                              "unknown type"
                            : "a quadrangle or higher-order triangle") +
                    ") is not read: softgrad reads tetrahedra (types 4 and 11) and, in 2D, "
                    "triangles (2 and 9); mesh the " +
                    (k == 1 ? "volume" : "surface") +
                    " with them (in Gmsh: no recombination, element order 1 or 2)");
  }
  if (origins.empty()) {
    gmsh_fail(data, path, data.elements_place,
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
        gmsh_fail(data, path, origins[e].line,
                  "element " + std::to_string(origins[e].id) + " refers to node " +
                      std::to_string(tag) + ", which $Nodes does not define");
      }
      mesh.elems(e, k) = v;
    }
  }
  orient_elements(mesh, origins, path);
  return mesh;
}

}  // namespace softgrad::detail
