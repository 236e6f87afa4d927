// What the shapes share: their error messages, the derivatives of a radial distance, and the
// surfaces of revolution that draw spheres, capsules and cylinders.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <string>
#include <vector>

#include "softgrad/shapes.hpp"

namespace softgrad::shape_detail {

/// @throws InputError "<type> '<name>': <what>" ("<type>: <what>" for an unnamed shape).
[[noreturn]] void fail(const Shape& shape, const std::string& what);

/// A length [m] or density that must be positive and finite (NaN fails `> 0`).
void check_positive(const Shape& shape, const char* name, double value, const char* unit);

/// The mass properties of a solid of `volume` and second moment `second` at density 1 about its
/// centre `center`, filled with `density`.
/// @throws InputError for a density that is not positive and finite.
MassProperties uniform_solid(const Shape& shape, double density, double volume,
                             const Eigen::Matrix3d& second, const Eigen::Vector3d& center);

/// g = n, H = J = (I - n n^T) / r: the derivatives of a distance r - R to a point or edge.
inline void radial(const double* r, int dim, double len, double* g, double* H) {
  for (int i = 0; i < dim; ++i) g[i] = r[i] / len;
  if (H)
    for (int i = 0; i < dim; ++i)
      for (int j = 0; j < dim; ++j) H[i * dim + j] = ((i == j ? 1.0 : 0.0) - g[i] * g[j]) / len;
}

inline void zero(double* a, int n) {
  if (a) std::fill(a, a + n, 0.0);
}

/// A surface of revolution about y: a top pole, rings of (y, ring radius) from the top down,
/// a bottom pole; `n` segments around.
void revolve(double top, const std::vector<Eigen::Vector2d>& rings, double bottom, int n,
             Eigen::MatrixXd& V, Eigen::MatrixXi& F);

/// A UV sphere (length 0) or capsule about the origin.
void round_surface(double r, double length, int resolution, Eigen::MatrixXd& V, Eigen::MatrixXi& F);

/// @throws InputError for a resolution below 3 (a curved shape's surface).
void check_resolution(const Shape& shape, int resolution);

/// Moves surface vertices or contact-sphere centres by `center`.
void translate(Eigen::MatrixXd& V, const Eigen::Vector3d& center);

}  // namespace softgrad::shape_detail
