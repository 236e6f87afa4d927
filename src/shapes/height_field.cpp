// The height-field terrain: distances and normals through the element AD, times of impact by
// marching and bisection.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "shape_helpers.hpp"
#include "softgrad/detail/ad/derivatives.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/shapes.hpp"

namespace softgrad {

namespace {

/// Height and slopes at (x, z), bilinear in the cell containing the point, in any AD scalar.
template <class T>
void bilinear(const HeightField::Grid& o, const T& x, const T& z, int dim, T& h, T& hx, T& hz) {
  const double fx = (ad::value_of(x) - o.x0) / o.spacing;
  const int ix = std::clamp(static_cast<int>(std::floor(fx)), 0, std::max(o.nx - 2, 0));
  const T u = (x - o.x0) / o.spacing - double(ix);
  if (dim == 2 || o.nz < 2) {
    const double a = o.heights[ix], b = o.heights[ix + 1];
    h = a + (b - a) * u;
    hx = T((b - a) / o.spacing);
    hz = T(0.0);
    return;
  }
  const double fz = (ad::value_of(z) - o.z0) / o.spacing;
  const int iz = std::clamp(static_cast<int>(std::floor(fz)), 0, o.nz - 2);
  const T w = (z - o.z0) / o.spacing - double(iz);
  const double h00 = o.heights[iz * o.nx + ix], h10 = o.heights[iz * o.nx + ix + 1];
  const double h01 = o.heights[(iz + 1) * o.nx + ix], h11 = o.heights[(iz + 1) * o.nx + ix + 1];
  h = h00 * (1.0 - u) * (1.0 - w) + h10 * u * (1.0 - w) + h01 * (1.0 - u) * w + h11 * u * w;
  hx = ((h10 - h00) * (1.0 - w) + (h11 - h01) * w) / o.spacing;
  hz = ((h01 - h00) * (1.0 - u) + (h11 - h10) * u) / o.spacing;
}

template <class T>
T terrain_distance(const HeightField::Grid& o, const T* x, int dim) {
  using std::sqrt;
  T h, hx, hz;
  bilinear(o, x[0], dim == 3 ? x[2] : T(0.0), dim, h, hx, hz);
  return (x[1] - h) / sqrt(1.0 + hx * hx + hz * hz);
}

template <class T>
void terrain_normal(const HeightField::Grid& o, const T* x, int dim, T* n) {
  using std::sqrt;
  T h, hx, hz;
  bilinear(o, x[0], dim == 3 ? x[2] : T(0.0), dim, h, hx, hz);
  const T len = sqrt(1.0 + hx * hx + hz * hz);
  n[0] = -hx / len;
  n[1] = T(1.0) / len;
  if (dim == 3) n[2] = -hz / len;
}

}  // namespace

HeightField::HeightField(std::string name, Grid grid)
    : Shape(std::move(name)), grid_(std::move(grid)) {}

void HeightField::validate(int dim) const {
  const Grid& g = grid_;
  if (g.nx < 2 || !(g.spacing > 0.0) || (dim == 3 && g.nz < 2) ||
      g.heights.size() != static_cast<size_t>(g.nx) * (dim == 3 ? g.nz : 1))
    shape_detail::fail(
        *this,
        "a height field needs nx >= 2 (and nz >= 2 in 3D) samples, nx * nz heights and "
        "a positive spacing");
}

void HeightField::height(double x, double z, int dim, double& h, double& hx, double& hz) const {
  bilinear(grid_, x, z, dim, h, hx, hz);
}

double HeightField::distance(const double* x, int dim) const {
  return terrain_distance(grid_, x, dim);
}

// The AD runs on three coordinates (z = 0 and unused in 2D); the dim x dim block is the answer.

void HeightField::distance_derivatives(const double* x, int dim, double* g, double* H) const {
  const auto f = [&](const auto* y, const auto*) { return terrain_distance(grid_, y, dim); };
  const double none = 0.0, y[3] = {x[0], x[1], dim == 3 ? x[2] : 0.0};
  double value = 0.0, g3[3], H3[9];
  SOFTGRAD_CHECK((ad::hessian<3, 1>(f, y, &none, value, g3, H3)), "height field AD failed");
  for (int i = 0; i < dim; ++i) {
    g[i] = g3[i];
    for (int j = 0; j < dim; ++j) H[i * dim + j] = H3[i * 3 + j];
  }
}

void HeightField::normal(const double* x, int dim, double* n, double* J) const {
  // Reverse mode, one sweep per component: n_i and row i of dn/dx.
  const double none = 0.0;
  for (int i = 0; i < dim; ++i) {
    const auto f = [&](const auto* y, const auto*) {
      std::remove_cvref_t<decltype(y[0])> m[3];
      terrain_normal(grid_, y, dim, m);
      return m[i];
    };
    const double y[3] = {x[0], x[1], dim == 3 ? x[2] : 0.0};
    double g[3];
    SOFTGRAD_CHECK((ad::gradient<3, 1>(f, y, &none, n[i], g)), "height field AD failed");
    if (J)
      for (int j = 0; j < dim; ++j) J[i * dim + j] = g[j];
  }
}

double HeightField::time_of_impact(const double* x, const double* dx, int dim) const {
  // March in 64 pieces, then bisect the first crossing.
  double p[3];
  const auto outside = [&](double t) {
    for (int k = 0; k < dim; ++k) p[k] = x[k] + t * dx[k];
    return distance(p, dim) > 0.0;
  };
  double prev = 0.0;
  for (int i = 1; i <= 64; ++i) {
    const double t = i / 64.0;
    if (outside(t)) {
      prev = t;
      continue;
    }
    double lo = prev, hi = t;
    for (int j = 0; j < 30; ++j) {
      const double mid = 0.5 * (lo + hi);
      (outside(mid) ? lo : hi) = mid;
    }
    return lo;
  }
  return 1.0;
}

}  // namespace softgrad
