/// @file contact_energy.hpp
/// One vertex's contact and lagged-friction energy E(x; x^n, k, mu) (softgrad/contact.hpp),
/// generic in the scalar types so that the element AD differentiates it. Obstacles enter
/// through their distance and normal with derivatives at the point of evaluation: a local
/// second-order model of d and a first-order model of n there, exact for every derivative the
/// simulator and the adjoint take.
#pragma once

#include <cmath>
#include <memory>
#include <type_traits>
#include <vector>

#include "softgrad/contact.hpp"
#include "softgrad/detail/ad/tape.hpp"

namespace softgrad::detail {

/// IPC barrier b(d) = -(d - dhat)^2 log(d / dhat) on (0, dhat), and its derivative.
template <class T>
T barrier(const T& d, double dhat) {
  using std::log;
  return -(d - dhat) * (d - dhat) * log(d / dhat);
}
template <class T>
T barrier_derivative(const T& d, double dhat) {
  using std::log;
  return -2.0 * (d - dhat) * log(d / dhat) - (d - dhat) * (d - dhat) / d;
}

/// The penalty k/2 d^2 for d <= -delta, made C2 by a cubic band up to d = +delta (Newton
/// converges quadratically through contact changes instead of cycling at the kink):
///   W = k/2 d^2 + k delta^2 / 6  (d <= -delta),   k (delta - d)^3 / (12 delta)  (|d| < delta).
template <class T>
T penalty(const T& d, double delta) {
  if (ad::value_of(d) <= -delta) return 0.5 * d * d + delta * delta / 6.0;
  const T r = delta - d;
  return r * r * r / (12.0 * delta);
}
/// -dW/dd / k: the normal force per unit stiffness.
template <class T>
T penalty_force(const T& d, double delta) {
  if (ad::value_of(d) <= -delta) return -d;
  const T r = delta - d;
  return r * r / (4.0 * delta);
}

/// Lagged friction's normal force at distance dn (from x^n): the contact force magnitude there.
template <class P>
P lagged_normal_force(const P& k, const P& dn, double dhat, bool is_barrier) {
  return is_barrier ? P(-(k * barrier_derivative(dn, dhat))) : P(k * penalty_force(dn, dhat));
}

/// IPC's smoothed |u| as a function of s = |u|^2: y for y >= eps, a cubic with matching value
/// and slope below (zero slope at 0: sticking).
template <class T>
T smoothed_norm(const T& s, double eps) {
  using std::sqrt;
  if (ad::value_of(s) <= 0.0) return eps / 3.0 + s / eps;  // the cubic's y^3 term vanishes
  const T y = sqrt(s);
  if (ad::value_of(y) >= eps) return y;
  return -(s * y) / (3.0 * eps * eps) + s / eps + eps / 3.0;
}

/// d(y) = d0 + g . dy + 1/2 dy^T H dy with dy = y - y0, y0 the value of y: the obstacle's
/// distance at y with its first and second derivatives there.
template <class T>
T local_distance(const Obstacle& ob, const T* y, int dim) {
  double y0[3] = {0.0, 0.0, 0.0};
  for (int i = 0; i < dim; ++i) y0[i] = ad::value_of(y[i]);
  const double d0 = ob.distance(y0, dim);
  if constexpr (std::is_same_v<T, double>) {
    return d0;
  } else {
    double g[3], H[9];
    ob.distance_derivatives(y0, dim, g, H);
    T dy[3];
    for (int i = 0; i < dim; ++i) dy[i] = y[i] - y0[i];
    T d = T(d0);
    for (int i = 0; i < dim; ++i) {
      T Hdy = T(0.0);
      for (int j = 0; j < dim; ++j) Hdy = Hdy + H[i * dim + j] * dy[j];
      d = d + (g[i] + 0.5 * Hdy) * dy[i];
    }
    return d;
  }
}

/// n(y) = n0 + J dy: the obstacle's unit normal at y with its Jacobian there.
template <class T>
void local_normal(const Obstacle& ob, const T* y, int dim, T* n) {
  double y0[3] = {0.0, 0.0, 0.0}, n0[3], J[9];
  for (int i = 0; i < dim; ++i) y0[i] = ad::value_of(y[i]);
  if constexpr (std::is_same_v<T, double>) {
    ob.normal(y0, dim, n);
  } else {
    ob.normal(y0, dim, n0, J);
    for (int i = 0; i < dim; ++i) {
      n[i] = T(n0[i]);
      for (int j = 0; j < dim; ++j) n[i] = n[i] + J[i * dim + j] * (y[j] - y0[j]);
    }
  }
}

/// One contact sphere's energy against every obstacle: the barrier or penalty of d(y) - r at
/// its centre y, and lagged friction mu lambda f0(|u|) on the material point that touches the
/// obstacle, its normal force lambda and the obstacle's normal n from the centre y^n at the
/// start of the step. `slip(n, u)` writes that point's displacement over the step into u (dim
/// values, type T): a vertex's x - x^n, a rolling body's contact point's. r = 0: a vertex.
template <class T, class P, class Slip>
T sphere_energy(const ContactOptions& o, int dim, double eps, bool is_barrier, const P& k,
                const P& mu, const T* y, const P* yn, double r, const Slip& slip) {
  const double dhat = o.activation_distance;
  T e = T(0.0);
  for (const auto& ob : o.obstacles) {
    const T d = local_distance(*ob, y, dim) - r;
    if (ad::value_of(d) < dhat) e = e + k * (is_barrier ? barrier(d, dhat) : penalty(d, dhat));
    if (eps <= 0.0) continue;
    const P dn = local_distance(*ob, yn, dim) - r;
    if (!(ad::value_of(dn) < dhat)) continue;
    const P lambda = lagged_normal_force(k, dn, dhat, is_barrier);
    P n[3];
    local_normal(*ob, yn, dim, n);
    T u[3] = {T(0.0), T(0.0), T(0.0)};
    slip(n, u);
    T un = T(0.0);
    for (int i = 0; i < dim; ++i) un = un + u[i] * n[i];
    T s = T(0.0);
    for (int i = 0; i < dim; ++i) {
      const T t = u[i] - un * n[i];
      s = s + t * t;
    }
    e = e + mu * lambda * smoothed_norm(s, eps);
  }
  return e;
}

/// E(x; q), q = (x^n (dim values), k, mu): the function the AD sees.
struct VertexEnergy {
  const ContactOptions* o = nullptr;
  int dim = 3;
  double eps = 0.0;  ///< friction smoothing eps_v dt; 0: no friction
  bool is_barrier = true;

  template <class T, class P>
  T operator()(const T* x, const P* q) const {
    const auto slip = [&](const P*, T* u) {
      for (int i = 0; i < dim; ++i) u[i] = x[i] - q[i];
    };
    return sphere_energy(*o, dim, eps, is_barrier, q[dim], q[dim + 1], x, q, 0.0, slip);
  }

  /// The energy, its gradient and (if H is given) its Hessian (row-major dim x dim) in closed
  /// form, for the penalty model against half-spaces only (the creatures' ground): the AD's
  /// numbers at a fraction of the cost. Tests compare the two.
  void derivatives(const double* x, const double* q, double& e, double* g, double* H) const;
};

}  // namespace softgrad::detail
