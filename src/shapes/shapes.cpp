// The shape interface's defaults (an unbounded shape has no mass, surface or contact spheres)
// and what the shapes share.
#include "softgrad/shapes.hpp"

#include <cmath>
#include <numbers>
#include <sstream>

#include "shape_helpers.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {
namespace shape_detail {

void fail(const Shape& shape, const std::string& what) {
  std::string where = shape.type();
  if (!shape.name().empty()) where += " '" + shape.name() + "'";
  throw InputError(where + ": " + what);
}

void check_positive(const Shape& shape, const char* name, double value, const char* unit) {
  if (value > 0 && std::isfinite(value)) return;
  std::ostringstream os;
  os << name << " " << value << " " << unit << " must be positive and finite";
  fail(shape, os.str());
}

MassProperties uniform_solid(const Shape& shape, double density, double volume,
                             const Eigen::Matrix3d& second, const Eigen::Vector3d& center) {
  check_positive(shape, "density", density, "kg/m^3");
  MassProperties mp;
  mp.volume = volume;
  mp.second_moment = second;
  mp.second_moment *= density;
  mp.mass = density * volume;
  mp.center = center;
  return mp;
}

// Ring points (rho sin phi, y, rho cos phi) make the top fan (pole, j, j + 1) point up, so every
// triangle below is listed the same way round.
void revolve(double top, const std::vector<Eigen::Vector2d>& rings, double bottom, int n,
             Eigen::MatrixXd& V, Eigen::MatrixXi& F) {
  constexpr double kPi = std::numbers::pi;
  const int n_rings = static_cast<int>(rings.size());
  const int last = n_rings * n + 1;
  V.resize(last + 1, 3);
  F.resize(2 * n * n_rings, 3);
  V.row(0) << 0.0, top, 0.0;
  V.row(last) << 0.0, bottom, 0.0;
  for (int k = 0; k < n_rings; ++k)
    for (int j = 0; j < n; ++j) {
      const double phi = 2.0 * kPi * j / n;
      V.row(1 + k * n + j) << rings[k][1] * std::sin(phi), rings[k][0], rings[k][1] * std::cos(phi);
    }
  const auto at = [n](int k, int j) { return 1 + k * n + j % n; };
  int t = 0;
  for (int j = 0; j < n; ++j) {
    F.row(t++) << 0, at(0, j), at(0, j + 1);
    for (int k = 0; k + 1 < n_rings; ++k) {
      F.row(t++) << at(k, j), at(k + 1, j), at(k + 1, j + 1);
      F.row(t++) << at(k, j), at(k + 1, j + 1), at(k, j + 1);
    }
    F.row(t++) << last, at(n_rings - 1, j + 1), at(n_rings - 1, j);
  }
}

// resolution segments around, 2h latitude steps over the two hemispheres (h = resolution / 4
// rounded), the capsule's equator ring doubled at +-L/2.
void round_surface(double r, double length, int resolution, Eigen::MatrixXd& V,
                   Eigen::MatrixXi& F) {
  constexpr double kPi = std::numbers::pi;
  const int h = std::max(1, (resolution + 2) / 4);
  std::vector<Eigen::Vector2d> rings;
  for (int k = 1; k < 2 * h; ++k) {
    const double theta = kPi * k / (2 * h);
    const double y = r * std::cos(theta), rho = r * std::sin(theta);
    if (k <= h) rings.emplace_back(0.5 * length + y, rho);
    if (k >= h && (k > h || length > 0)) rings.emplace_back(-0.5 * length + y, rho);
  }
  revolve(0.5 * length + r, rings, -0.5 * length - r, resolution, V, F);
}

void check_resolution(const Shape& shape, int resolution) {
  if (resolution < 3)
    fail(shape, "resolution " + std::to_string(resolution) +
                    " is too small for a surface (it needs at least 3 segments around)");
}

void translate(Eigen::MatrixXd& V, const Eigen::Vector3d& center) {
  if (!center.isZero(0.0)) V.rowwise() += center.transpose();  // keeps -0 vertices bitwise
}

}  // namespace shape_detail

MassProperties Shape::mass_properties(double) const {
  shape_detail::fail(*this, "an unbounded shape has no mass (it can be an obstacle only)");
}

void Shape::surface_mesh(int, Eigen::MatrixXd&, Eigen::MatrixXi&) const {
  shape_detail::fail(*this,
                     "an unbounded shape has no closed surface (it can be an obstacle only)");
}

void Shape::contact_spheres(std::vector<Eigen::Vector3d>&, std::vector<double>&) const {
  shape_detail::fail(*this,
                     "an unbounded shape has no contact spheres (it can be an obstacle only)");
}

double Shape::bounding_radius() const {
  shape_detail::fail(*this,
                     "an unbounded shape has no bounding radius (it can be an obstacle only)");
}

}  // namespace softgrad
