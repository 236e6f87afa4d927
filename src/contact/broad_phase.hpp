/// @file broad_phase.hpp
/// Candidate primitive pairs of a collision surface whose boxes overlap: each primitive's box
/// spans its vertices at x (and at x + dx when a step is swept), grown by `inflation`. A uniform
/// hash grid over the boxes, rebuilt at each call; pairs that share a vertex, and pairs within
/// one body without self-contact, are never candidates. The output is sorted (deterministic).
#pragma once

#include <Eigen/Core>
#include <array>
#include <cstddef>
#include <vector>

#include "softgrad/mesh_contact.hpp"

namespace softgrad::collision {

/// A candidate: point-triangle (3D), edge-edge (3D) or point-edge (2D).
struct Candidate {
  enum class Kind : int { PointTriangle, EdgeEdge, PointEdge } kind;
  int a;  ///< surface vertex index (point kinds) or edge index (edge-edge)
  int b;  ///< face index, edge index
  bool operator<(const Candidate& o) const {
    return std::array<int, 3>{static_cast<int>(kind), a, b} <
           std::array<int, 3>{static_cast<int>(o.kind), o.a, o.b};
  }
  bool operator==(const Candidate& o) const { return kind == o.kind && a == o.a && b == o.b; }
};

/// Reusable buffers of the hash grid (one per rollout: nothing is allocated once they are
/// grown).
class BroadPhase {
 public:
  /// The candidates for point positions x (surface_points), swept to x + dx when dx is not
  /// null.
  void find(const CollisionSurface& surface, bool self_contact, const Eigen::VectorXd& x,
            const Eigen::VectorXd* dx, double inflation, std::vector<Candidate>& out);

 private:
  struct Box {
    Eigen::Vector3d lo, hi;
  };
  void vertex_boxes(const CollisionSurface& s, const Eigen::VectorXd& x, const Eigen::VectorXd* dx,
                    double inflation);
  Box span(const int* verts, int n) const;
  void build_grid(const std::vector<Box>& boxes);
  /// A box's cell range; false if it spans more than kMaxCellsPerBox cells or is not finite.
  bool cells(const Box& box, Eigen::Array3d& lo, Eigen::Array3d& hi) const;
  static constexpr double kMaxCellsPerBox = 512.0;
  template <class Visit>
  void query(const Box& box, const Visit& visit);
  std::size_t bucket(long long key) const {
    return static_cast<std::size_t>(static_cast<unsigned long long>(key) * 0x9E3779B97F4A7C15ULL >>
                                    17) &
           mask_;
  }

  std::vector<Box> vertex_box_;   ///< per surface vertex (inflated, swept)
  std::vector<int> vertex_slot_;  ///< model vertex -> surface vertex (-1: not on the surface)
  std::vector<Box> edge_box_, face_box_;
  double cell_ = 1.0;
  /// The grid as a hash table in CSR form (counting sort, no comparison sort): bucket b holds
  /// entries [start_[b], start_[b + 1]) of grid_, each (cell key, primitive).
  std::vector<std::pair<long long, int>> entries_, grid_;
  std::vector<int> start_;
  std::vector<int> big_;  ///< primitives whose boxes span too many cells: met by every query
  std::size_t mask_ = 0;
  std::vector<int> seen_;  ///< per primitive: the last query that met it
  int query_id_ = 0;
};

}  // namespace softgrad::collision
