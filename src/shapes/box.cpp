// The axis-aligned box: exact signed distance, slab time of impact, closed-form mass
// properties.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "shape_helpers.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/shapes.hpp"

namespace softgrad {

Box::Box(std::string name, const Eigen::Vector3d& center, const Eigen::Vector3d& half_extents)
    : Shape(std::move(name)), center_(center), half_extents_(half_extents) {}

void Box::validate(int dim) const {
  if (half_extents_.head(dim).minCoeff() > 0.0 && half_extents_.allFinite()) return;
  std::ostringstream os;
  const Eigen::Vector3d size = 2.0 * half_extents_;
  os << "size (" << size[0] << ", " << size[1] << ", " << size[2]
     << ") m must be positive and finite";
  shape_detail::fail(*this, os.str());
}

// q = |x - c| - h; outside: |max(q, 0)|, inside: max_k q_k (negative).
double Box::distance(const double* x, int dim) const {
  double q[3] = {0.0, 0.0, 0.0}, s = 0.0;
  int n_out = 0, last_out = 0, k_max = 0;
  for (int k = 0; k < dim; ++k) {
    q[k] = std::abs(x[k] - center_[k]) - half_extents_[k];
    if (q[k] > 0.0) {
      ++n_out;
      last_out = k;
      s += q[k] * q[k];
    }
    if (q[k] > q[k_max]) k_max = k;
  }
  if (n_out == 0) return q[k_max];
  if (n_out == 1) return q[last_out];  // a face region: no square root
  return std::sqrt(s);
}

void Box::distance_derivatives(const double* x, int dim, double* g, double* H) const {
  normal(x, dim, g, H);
}

void Box::normal(const double* x, int dim, double* n, double* J) const {
  double q[3] = {0.0, 0.0, 0.0}, sign[3], s = 0.0;
  int n_out = 0, k_max = 0;
  for (int k = 0; k < dim; ++k) {
    sign[k] = x[k] - center_[k] >= 0.0 ? 1.0 : -1.0;
    q[k] = sign[k] * (x[k] - center_[k]) - half_extents_[k];
    if (q[k] > 0.0) {
      ++n_out;
      s += q[k] * q[k];
    }
    if (q[k] > q[k_max]) k_max = k;
  }
  shape_detail::zero(J, dim * dim);
  if (n_out <= 1) {  // inside or in a face region: the nearest face's normal, constant
    for (int k = 0; k < dim; ++k) n[k] = k == k_max ? sign[k] : 0.0;
    return;
  }
  // An edge or corner region: radial from the nearest point on the box, in the outside axes.
  const double len = std::sqrt(s);
  for (int k = 0; k < dim; ++k) n[k] = q[k] > 0.0 ? sign[k] * q[k] / len : 0.0;
  if (J)
    for (int i = 0; i < dim; ++i)
      for (int j = 0; j < dim; ++j)
        if (q[i] > 0.0 && q[j] > 0.0) J[i * dim + j] = ((i == j ? 1.0 : 0.0) - n[i] * n[j]) / len;
}

double Box::time_of_impact(const double* x, const double* dx, int dim) const {
  // Slab test of the segment against the box.
  double t_in = 0.0, t_out = 1.0;
  for (int k = 0; k < dim; ++k) {
    const double lo = center_[k] - half_extents_[k], hi = center_[k] + half_extents_[k];
    if (dx[k] == 0.0) {
      if (x[k] < lo || x[k] > hi) return 1.0;
      continue;
    }
    double t0 = (lo - x[k]) / dx[k], t1 = (hi - x[k]) / dx[k];
    if (t0 > t1) std::swap(t0, t1);
    t_in = std::max(t_in, t0);
    t_out = std::min(t_out, t1);
    if (t_in > t_out) return 1.0;
  }
  return t_in;
}

MassProperties Box::mass_properties(double density) const {
  validate(3);
  const Eigen::Vector3d size = 2.0 * half_extents_;
  const double volume = size.prod();
  const Eigen::Matrix3d second = (volume / 12.0 * size.cwiseProduct(size)).asDiagonal();
  return shape_detail::uniform_solid(*this, density, volume, second, center_);
}

// The 8 corners (bit 0: +x, bit 1: +y, bit 2: +z) and 12 outward triangles.
void Box::surface_mesh(int, Eigen::MatrixXd& V, Eigen::MatrixXi& F) const {
  validate(3);
  V.resize(8, 3);
  for (int i = 0; i < 8; ++i)
    for (int c = 0; c < 3; ++c) V(i, c) = (i >> c) & 1 ? half_extents_[c] : -half_extents_[c];
  F.resize(12, 3);
  F << 0, 4, 6, 0, 6, 2,  // -x
      1, 3, 7, 1, 7, 5,   // +x
      0, 1, 5, 0, 5, 4,   // -y
      2, 6, 7, 2, 7, 3,   // +y
      0, 2, 3, 0, 3, 1,   // -z
      4, 5, 7, 4, 7, 6;   // +z
  shape_detail::translate(V, center_);
}

void Box::contact_spheres(std::vector<Eigen::Vector3d>& centers, std::vector<double>& radii) const {
  validate(3);
  centers.clear();
  for (int i = 0; i < 8; ++i)
    centers.push_back(center_ + Eigen::Vector3d((i & 1) ? half_extents_[0] : -half_extents_[0],
                                                (i & 2) ? half_extents_[1] : -half_extents_[1],
                                                (i & 4) ? half_extents_[2] : -half_extents_[2]));
  radii.assign(8, 0.0);
}

double Box::bounding_radius() const {
  validate(3);
  return center_.norm() + half_extents_.norm();
}

}  // namespace softgrad
