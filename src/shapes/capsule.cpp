// The capsule: distance to its segment, exact time of impact, closed-form mass properties.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "shape_helpers.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/shapes.hpp"

namespace softgrad {

namespace {

/// The smaller root t of |r + t dx|^2 = R^2 over the components k with use[k], if it is in
/// [0, 1] (the first time a straight motion from r, outside, meets the ball or slab); else 2.
double entry_time(const double* r, const double* dx, const bool* use, int dim, double R) {
  double a = 0.0, b = 0.0, c = -R * R;
  for (int k = 0; k < dim; ++k)
    if (use[k]) {
      a += dx[k] * dx[k];
      b += 2.0 * r[k] * dx[k];
      c += r[k] * r[k];
    }
  const double disc = b * b - 4.0 * a * c;
  if (a == 0.0 || disc < 0.0) return 2.0;
  const double t = (-b - std::sqrt(disc)) / (2.0 * a);
  return t >= 0.0 && t <= 1.0 ? t : 2.0;
}

}  // namespace

Capsule::Capsule(std::string name, const Eigen::Vector3d& center, double length, double radius)
    : Shape(std::move(name)), center_(center), length_(length), radius_(radius) {}

void Capsule::validate(int) const {
  shape_detail::check_positive(*this, "radius", radius_, "m");
  if (!(length_ >= 0.0) || !std::isfinite(length_)) {
    std::ostringstream os;
    os << "length " << length_ << " m must be finite and >= 0";
    shape_detail::fail(*this, os.str());
  }
}

bool Capsule::offset(const double* x, int dim, double* r) const {
  for (int k = 0; k < dim; ++k) r[k] = x[k] - center_[k];
  const double half = 0.5 * length_;
  const bool beside = std::abs(r[1]) < half;
  r[1] -= std::clamp(r[1], -half, half);
  return beside;
}

double Capsule::distance(const double* x, int dim) const {
  double r[3] = {0.0, 0.0, 0.0}, s = 0.0;
  offset(x, dim, r);
  for (int k = 0; k < dim; ++k) s += r[k] * r[k];
  return std::sqrt(s) - radius_;
}

void Capsule::distance_derivatives(const double* x, int dim, double* g, double* H) const {
  normal(x, dim, g, H);
}

void Capsule::normal(const double* x, int dim, double* n, double* J) const {
  double r[3] = {0.0, 0.0, 0.0}, s = 0.0;
  const bool beside = offset(x, dim, r);
  for (int k = 0; k < dim; ++k) s += r[k] * r[k];
  if (!(s > 0.0)) {  // on the segment itself: every direction is as near; take x
    shape_detail::zero(J, dim * dim);
    for (int k = 0; k < dim; ++k) n[k] = k == 0 ? 1.0 : 0.0;
    return;
  }
  const double len = std::sqrt(s);
  shape_detail::radial(r, dim, len, n, J);
  // Beside the segment the nearest point slides along the axis with x: no curvature along y.
  if (J && beside) J[dim + 1] -= 1.0 / len;
}

double Capsule::time_of_impact(const double* x, const double* dx, int dim) const {
  if (!(distance(x, dim) > 0.0)) return 0.0;
  // The capsule is the union of its cylinder and its end balls: the motion enters it when it
  // first enters one of them (through the cylinder's side; its flat ends lie in the balls).
  double r[3] = {0.0, 0.0, 0.0};
  for (int k = 0; k < dim; ++k) r[k] = x[k] - center_[k];
  const bool lateral[3] = {true, false, true}, all[3] = {true, true, true};
  double t = entry_time(r, dx, lateral, dim, radius_);
  if (t <= 1.0 && std::abs(r[1] + t * dx[1]) > 0.5 * length_) t = 2.0;
  for (const double end : {-0.5 * length_, 0.5 * length_}) {
    const double re[3] = {r[0], r[1] - end, r[2]};
    t = std::min(t, entry_time(re, dx, all, dim, radius_));
  }
  return std::min(t, 1.0);
}

namespace {

// Capsule of radius r, length L along y, density 1, about its centre (the origin); by symmetry
// S is diagonal. Cylinder (volume Vc = pi r^2 L): int y^2 = Vc L^2 / 12, int x^2 = Vc r^2 / 4.
// Hemisphere (volume Vh = 2/3 pi r^3) about the centre of its flat face: int x^2 = int y^2 =
// Vh r^2 / 5 (half the ball's), and int y = Vh 3r/8 (its centroid). Moved by L/2 along its
// axis, y -> y + L/2: int y^2 = Vh (r^2/5 + 3rL/8 + L^2/4); x^2 and z^2 do not change. The
// two hemispheres contribute equally, and S adds over the parts (all about the same origin).
Eigen::Matrix3d capsule_second_moment(double r, double L) {
  constexpr double kPi = std::numbers::pi;
  const double vc = kPi * r * r * L, vh = 2.0 / 3.0 * kPi * r * r * r;
  const double across = vc * r * r / 4.0 + 2.0 * vh * r * r / 5.0;
  const double along =
      vc * L * L / 12.0 + 2.0 * vh * (r * r / 5.0 + 3.0 * r * L / 8.0 + L * L / 4.0);
  return Eigen::Vector3d(across, along, across).asDiagonal();
}

}  // namespace

MassProperties Capsule::mass_properties(double density) const {
  validate(3);
  constexpr double kPi = std::numbers::pi;
  const double r = radius_, volume = kPi * r * r * length_ + 4.0 / 3.0 * kPi * r * r * r;
  return shape_detail::uniform_solid(*this, density, volume, capsule_second_moment(r, length_),
                                     center_);
}

void Capsule::surface_mesh(int resolution, Eigen::MatrixXd& V, Eigen::MatrixXi& F) const {
  validate(3);
  shape_detail::check_resolution(*this, resolution);
  shape_detail::round_surface(radius_, length_, resolution, V, F);
  shape_detail::translate(V, center_);
}

void Capsule::contact_spheres(std::vector<Eigen::Vector3d>& centers,
                              std::vector<double>& radii) const {
  validate(3);
  centers = {center_ + Eigen::Vector3d(0.0, 0.5 * length_, 0.0),
             center_ + Eigen::Vector3d(0.0, -0.5 * length_, 0.0)};
  radii.assign(2, radius_);
}

double Capsule::bounding_radius() const {
  validate(3);
  return center_.norm() + 0.5 * length_ + radius_;
}

}  // namespace softgrad
