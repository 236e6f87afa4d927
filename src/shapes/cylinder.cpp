// The cylinder: a 2D box in (distance from the axis, |y|), carried into 3D by the chain rule;
// time of impact as the entry into the slab and the infinite cylinder together.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "shape_helpers.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/shapes.hpp"

namespace softgrad {
namespace {

// The distance D(q) of the 2D box in q = (rho - radius, |y| - length / 2), its gradient dq and
// Hessian Mq (2 x 2, row-major).
double box_2d(const double q[2], double dq[2], double Mq[4]) {
  std::fill(Mq, Mq + 4, 0.0);
  if (q[0] > 0.0 && q[1] > 0.0) {  // beyond the rim: radial from the rim circle
    const double len = std::hypot(q[0], q[1]);
    dq[0] = q[0] / len;
    dq[1] = q[1] / len;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) Mq[2 * i + j] = ((i == j ? 1.0 : 0.0) - dq[i] * dq[j]) / len;
    return len;
  }
  const int k = q[0] >= q[1] ? 0 : 1;  // beside the side, or over a face (or nearer it inside)
  dq[0] = k == 0 ? 1.0 : 0.0;
  dq[1] = k == 1 ? 1.0 : 0.0;
  return q[k];
}

}  // namespace

Cylinder::Cylinder(std::string name, const Eigen::Vector3d& center, double length, double radius)
    : Shape(std::move(name)), center_(center), length_(length), radius_(radius) {}

void Cylinder::validate(int) const {
  shape_detail::check_positive(*this, "radius", radius_, "m");
  shape_detail::check_positive(*this, "length", length_, "m");
}

double Cylinder::distance(const double* x, int dim) const {
  const double rho = std::hypot(x[0] - center_[0], dim == 3 ? x[2] - center_[2] : 0.0);
  const double q[2] = {rho - radius_, std::abs(x[1] - center_[1]) - 0.5 * length_};
  double dq[2], Mq[4];
  return box_2d(q, dq, Mq);
}

void Cylinder::distance_derivatives(const double* x, int dim, double* g, double* H) const {
  normal(x, dim, g, H);
}

// g = D_0 u + D_1 s e_y, with u = grad rho (radial in x-z) and s = sign(y); H adds the 2D
// Hessian through u and s e_y and D_0 times rho's own Hessian (P_xz - u u^T) / rho.
void Cylinder::normal(const double* x, int dim, double* n, double* J) const {
  const double r[3] = {x[0] - center_[0], x[1] - center_[1], dim == 3 ? x[2] - center_[2] : 0.0};
  const double rho = std::hypot(r[0], r[2]);
  const double q[2] = {rho - radius_, std::abs(r[1]) - 0.5 * length_};
  double dq[2], Mq[4];
  box_2d(q, dq, Mq);
  const double s = r[1] >= 0.0 ? 1.0 : -1.0;
  // On the axis every radial direction is as near: take x (and no curvature).
  const double u[3] = {rho > 0.0 ? r[0] / rho : 1.0, 0.0, rho > 0.0 ? r[2] / rho : 0.0};
  const double e[3] = {0.0, s, 0.0};
  for (int i = 0; i < dim; ++i) n[i] = dq[0] * u[i] + dq[1] * e[i];
  if (!J) return;
  for (int i = 0; i < dim; ++i)
    for (int j = 0; j < dim; ++j) {
      double h = Mq[0] * u[i] * u[j] + Mq[1] * (u[i] * e[j] + e[i] * u[j]) + Mq[3] * e[i] * e[j];
      if (rho > 0.0 && i != 1 && j != 1) h += dq[0] * ((i == j ? 1.0 : 0.0) - u[i] * u[j]) / rho;
      J[i * dim + j] = h;
    }
}

double Cylinder::time_of_impact(const double* x, const double* dx, int dim) const {
  if (!(distance(x, dim) > 0.0)) return 0.0;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double h = 0.5 * length_;
  // The slab |y| <= h.
  double t0 = -kInf, t1 = kInf;
  const double y = x[1] - center_[1];
  if (dx[1] == 0.0) {
    if (std::abs(y) > h) return 1.0;
  } else {
    t0 = (-h - y) / dx[1];
    t1 = (h - y) / dx[1];
    if (t0 > t1) std::swap(t0, t1);
  }
  // The infinite cylinder |r_xz + t d_xz| <= radius.
  double a = 0.0, b = 0.0, c = -radius_ * radius_;
  for (int k = 0; k < dim; k += 2) {
    const double rk = x[k] - center_[k];
    a += dx[k] * dx[k];
    b += 2.0 * rk * dx[k];
    c += rk * rk;
  }
  double s0 = -kInf, s1 = kInf;
  if (a == 0.0) {
    if (c > 0.0) return 1.0;
  } else {
    const double disc = b * b - 4.0 * a * c;
    if (disc < 0.0) return 1.0;
    s0 = (-b - std::sqrt(disc)) / (2.0 * a);
    s1 = (-b + std::sqrt(disc)) / (2.0 * a);
  }
  const double enter = std::max(t0, s0), leave = std::min(t1, s1);
  return enter <= leave && enter >= 0.0 && enter <= 1.0 ? enter : 1.0;
}

// Volume pi r^2 L; about the centre, int y^2 = V L^2 / 12 and int x^2 = int z^2 = V r^2 / 4.
MassProperties Cylinder::mass_properties(double density) const {
  validate(3);
  const double r = radius_, L = length_, volume = std::numbers::pi * r * r * L;
  const Eigen::Vector3d second(volume * r * r / 4.0, volume * L * L / 12.0, volume * r * r / 4.0);
  return shape_detail::uniform_solid(*this, density, volume, second.asDiagonal(), center_);
}

void Cylinder::surface_mesh(int resolution, Eigen::MatrixXd& V, Eigen::MatrixXi& F) const {
  validate(3);
  shape_detail::check_resolution(*this, resolution);
  const double h = 0.5 * length_;
  shape_detail::revolve(h, {{h, radius_}, {-h, radius_}}, -h, resolution, V, F);
  shape_detail::translate(V, center_);
}

void Cylinder::contact_spheres(std::vector<Eigen::Vector3d>& centers,
                               std::vector<double>& radii) const {
  validate(3);
  centers.clear();
  radii.clear();
  const double h = 0.5 * length_, span = h - radius_;
  if (span >= 0.0) {  // spheres of the radius from face to face, 2 radius apart at most
    const int gaps = static_cast<int>(std::ceil(span / radius_ - 1e-12));
    for (int k = 0; k <= gaps; ++k) {
      const double y = gaps == 0 ? 0.0 : -span + 2.0 * span * k / gaps;
      centers.push_back(center_ + Eigen::Vector3d(0.0, y, 0.0));
      radii.push_back(radius_);
    }
  }
  constexpr int kRimPoints = 16;
  for (const double y : {h, -h})
    for (int j = 0; j < kRimPoints; ++j) {
      const double phi = 2.0 * std::numbers::pi * j / kRimPoints;
      centers.push_back(center_ +
                        Eigen::Vector3d(radius_ * std::sin(phi), y, radius_ * std::cos(phi)));
      radii.push_back(0.0);
    }
}

double Cylinder::bounding_radius() const {
  validate(3);
  return center_.norm() + std::hypot(0.5 * length_, radius_);
}

}  // namespace softgrad
