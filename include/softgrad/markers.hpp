/// @file markers.hpp
/// Markers: points of a body that a recording tracks (motion-capture markers, or mesh vertices).
/// A marker is embedded in the rest mesh by the barycentric coordinates of the element that
/// contains it, so it moves with the element: p(x) = sum_a w_a x_{v_a}. Markers need not be
/// vertices.
#pragma once

#include <Eigen/Core>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "softgrad/model.hpp"

namespace softgrad {

struct Marker {
  std::string name;
  Eigen::VectorXd rest;             ///< rest position [m] (dim entries)
  std::array<int, 4> verts{};       ///< model vertices of the containing element
  std::array<double, 4> weights{};  ///< barycentric weights (sum 1)
  int n = 0;                        ///< vertices used (dim + 1, or 1 for a vertex marker)
};

class MarkerSet {
 public:
  MarkerSet() = default;
  /// Embeds named rest points in the model's meshes.
  /// @throws InputError naming a marker outside every element (with the distance to the
  ///         nearest one), a duplicate name, or a point of the wrong dimension.
  MarkerSet(const Model& model, const std::vector<std::pair<std::string, Eigen::VectorXd>>& points);
  /// One marker per listed vertex (all vertices if empty), named "v<index>": for recordings of
  /// full per-vertex trajectories.
  static MarkerSet vertices(const Model& model, std::vector<int> verts = {});

  int size() const { return static_cast<int>(markers_.size()); }
  int dim() const { return dim_; }
  const Marker& operator[](int i) const { return markers_[i]; }
  /// Index of the marker called `name`, or -1.
  int find(const std::string& name) const;
  /// Position of marker i for positions x (flat, n_dofs).
  Eigen::VectorXd position(int i, const Eigen::VectorXd& x) const;
  /// bar += scale * (dp_i/dx)^T r: the transpose of position() applied to r (dim entries).
  void add_transpose(int i, const Eigen::VectorXd& r, double scale, Eigen::VectorXd& bar) const;

 private:
  int dim_ = 3;
  std::vector<Marker> markers_;
};

}  // namespace softgrad
