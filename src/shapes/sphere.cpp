// The ball: distance, time of impact and closed-form mass properties.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "shape_helpers.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/shapes.hpp"

namespace softgrad {

Sphere::Sphere(std::string name, const Eigen::Vector3d& center, double radius)
    : Shape(std::move(name)), center_(center), radius_(radius) {}

void Sphere::validate(int) const { shape_detail::check_positive(*this, "radius", radius_, "m"); }

double Sphere::distance(const double* x, int dim) const {
  double s = 0.0;
  for (int k = 0; k < dim; ++k) s += (x[k] - center_[k]) * (x[k] - center_[k]);
  return std::sqrt(s) - radius_;
}

void Sphere::distance_derivatives(const double* x, int dim, double* g, double* H) const {
  normal(x, dim, g, H);
}

void Sphere::normal(const double* x, int dim, double* n, double* J) const {
  double r[3] = {0.0, 0.0, 0.0}, s = 0.0;
  for (int k = 0; k < dim; ++k) {
    r[k] = x[k] - center_[k];
    s += r[k] * r[k];
  }
  shape_detail::radial(r, dim, std::sqrt(s), n, J);
}

double Sphere::time_of_impact(const double* x, const double* dx, int dim) const {
  // |r + t dx|^2 = R^2, r = x - c: the smaller root in [0, 1].
  double a = 0.0, b = 0.0, c = -radius_ * radius_;
  for (int k = 0; k < dim; ++k) {
    const double r = x[k] - center_[k];
    a += dx[k] * dx[k];
    b += 2.0 * r * dx[k];
    c += r * r;
  }
  const double disc = b * b - 4.0 * a * c;
  if (a == 0.0 || disc < 0.0) return 1.0;
  const double t = (-b - std::sqrt(disc)) / (2.0 * a);
  return t >= 0.0 && t <= 1.0 ? t : 1.0;
}

MassProperties Sphere::mass_properties(double density) const {
  validate(3);
  const double r = radius_, volume = 4.0 / 3.0 * std::numbers::pi * r * r * r;
  return shape_detail::uniform_solid(*this, density, volume,
                                     volume * r * r / 5.0 * Eigen::Matrix3d::Identity(), center_);
}

void Sphere::surface_mesh(int resolution, Eigen::MatrixXd& V, Eigen::MatrixXi& F) const {
  validate(3);
  shape_detail::check_resolution(*this, resolution);
  shape_detail::round_surface(radius_, 0.0, resolution, V, F);
  shape_detail::translate(V, center_);
}

void Sphere::contact_spheres(std::vector<Eigen::Vector3d>& centers,
                             std::vector<double>& radii) const {
  validate(3);
  centers.assign(1, center_);
  radii.assign(1, radius_);
}

double Sphere::bounding_radius() const {
  validate(3);
  return center_.norm() + radius_;
}

}  // namespace softgrad
