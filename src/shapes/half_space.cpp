// The half-space: the free side of a plane.
#include <algorithm>
#include <cmath>

#include "shape_helpers.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/shapes.hpp"

namespace softgrad {

HalfSpace::HalfSpace(std::string name, const Eigen::Vector3d& point, const Eigen::Vector3d& normal)
    : Shape(std::move(name)), point_(point), normal_(normal) {}

void HalfSpace::validate(int dim) const {
  if (std::abs(normal_.norm() - 1.0) > 1e-9 || (dim == 2 && normal_[2] != 0.0))
    shape_detail::fail(*this, "the normal must be a unit vector (with z = 0 in 2D)");
}

double HalfSpace::distance(const double* x, int dim) const {
  double d = (x[0] - point_[0]) * normal_[0];
  for (int k = 1; k < dim; ++k) d = d + (x[k] - point_[k]) * normal_[k];
  return d;
}

void HalfSpace::distance_derivatives(const double* x, int dim, double* g, double* H) const {
  normal(x, dim, g, H);
}

void HalfSpace::normal(const double*, int dim, double* n, double* J) const {
  for (int k = 0; k < dim; ++k) n[k] = normal_[k];
  shape_detail::zero(J, dim * dim);
}

double HalfSpace::time_of_impact(const double* x, const double* dx, int dim) const {
  double d = 0.0, rate = 0.0;
  for (int k = 0; k < dim; ++k) {
    d += (x[k] - point_[k]) * normal_[k];
    rate += dx[k] * normal_[k];
  }
  return rate < 0.0 && d + rate <= 0.0 ? std::max(0.0, d / -rate) : 1.0;
}

}  // namespace softgrad
