// The obstacle shapes: distances, their derivatives and normals (closed forms; the height field
// through the element AD), and times of impact.
#include "softgrad/obstacles.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <type_traits>

#include "softgrad/detail/ad/derivatives.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {
namespace {

void fail(const Obstacle& o, const std::string& what) {
  throw InputError("obstacle '" + o.name() + "': " + what);
}

/// g = n, H = J = (I - n n^T) / r: the derivatives of a distance r - R to a point or edge.
void radial(const double* r, int dim, double len, double* g, double* H) {
  for (int i = 0; i < dim; ++i) g[i] = r[i] / len;
  if (H)
    for (int i = 0; i < dim; ++i)
      for (int j = 0; j < dim; ++j) H[i * dim + j] = ((i == j ? 1.0 : 0.0) - g[i] * g[j]) / len;
}

void zero(double* a, int n) {
  if (a) std::fill(a, a + n, 0.0);
}

}  // namespace

// ---- half-space ------------------------------------------------------------------------------

HalfSpace::HalfSpace(std::string name, const Eigen::Vector3d& point, const Eigen::Vector3d& normal)
    : Obstacle(std::move(name)), point_(point), normal_(normal) {}

void HalfSpace::validate(int dim) const {
  if (std::abs(normal_.norm() - 1.0) > 1e-9 || (dim == 2 && normal_[2] != 0.0))
    fail(*this, "the normal must be a unit vector (with z = 0 in 2D)");
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
  zero(J, dim * dim);
}

double HalfSpace::time_of_impact(const double* x, const double* dx, int dim) const {
  double d = 0.0, rate = 0.0;
  for (int k = 0; k < dim; ++k) {
    d += (x[k] - point_[k]) * normal_[k];
    rate += dx[k] * normal_[k];
  }
  return rate < 0.0 && d + rate <= 0.0 ? std::max(0.0, d / -rate) : 1.0;
}

// ---- sphere ----------------------------------------------------------------------------------

Sphere::Sphere(std::string name, const Eigen::Vector3d& center, double radius)
    : Obstacle(std::move(name)), center_(center), radius_(radius) {}

void Sphere::validate(int) const {
  if (!(radius_ > 0.0) || !std::isfinite(radius_)) fail(*this, "the radius must be positive");
}

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
  radial(r, dim, std::sqrt(s), n, J);
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

// ---- box -------------------------------------------------------------------------------------

Box::Box(std::string name, const Eigen::Vector3d& center, const Eigen::Vector3d& half_extents)
    : Obstacle(std::move(name)), center_(center), half_extents_(half_extents) {}

void Box::validate(int dim) const {
  if (!(half_extents_.head(dim).minCoeff() > 0.0) || !half_extents_.allFinite())
    fail(*this, "the half extents must be positive");
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
  zero(J, dim * dim);
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

// ---- capsule ---------------------------------------------------------------------------------

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
    : Obstacle(std::move(name)), center_(center), length_(length), radius_(radius) {}

void Capsule::validate(int) const {
  if (!(radius_ > 0.0) || !std::isfinite(radius_)) fail(*this, "the radius must be positive");
  if (!(length_ >= 0.0) || !std::isfinite(length_))
    fail(*this, "the length must be finite and >= 0");
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
    zero(J, dim * dim);
    for (int k = 0; k < dim; ++k) n[k] = k == 0 ? 1.0 : 0.0;
    return;
  }
  const double len = std::sqrt(s);
  radial(r, dim, len, n, J);
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

// ---- height field ----------------------------------------------------------------------------

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
    : Obstacle(std::move(name)), grid_(std::move(grid)) {}

void HeightField::validate(int dim) const {
  const Grid& g = grid_;
  if (g.nx < 2 || !(g.spacing > 0.0) || (dim == 3 && g.nz < 2) ||
      g.heights.size() != static_cast<size_t>(g.nx) * (dim == 3 ? g.nz : 1))
    fail(*this,
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
