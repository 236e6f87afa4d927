/// @file joint_energy.hpp
/// Internal: the joint and motor energies of softgrad/joints.hpp as functions generic in the
/// scalar type, over a stencil of the parent's and the child's 12 affine dofs each (p, a1, a2,
/// a3; a world parent's slots are unused and the world frame is the identity). The element AD
/// differentiates them; the sensors differentiate the joint coordinate the same way.
#pragma once

#include <cmath>
#include <numbers>

#include "../contact/contact_energy.hpp"
#include "affine.hpp"
#include "softgrad/detail/ad/tape.hpp"
#include "softgrad/joints.hpp"

namespace softgrad::detail {

/// A joint's frames as plain arrays, for the energies.
struct JointGeometry {
  JointType type = JointType::Hinge;
  bool world = true;  ///< the parent is the world
  bool limited = false;
  double ap[3], ac[3];  ///< anchor in the parent's and the child's frame
  double np[3], nc[3];  ///< axis
  double rp[3], rc[3];  ///< reference direction (hinge angle zero)
  double wp[3];         ///< np x rp
  double C[9];          ///< relative orientation at rest, row-major
  double lower = 0.0, upper = 0.0;
  double k = 0.0, kr = 0.0, kl = 0.0;
};

/// A Model joint's geometry.
JointGeometry joint_geometry(const Joint& joint);

/// The limits' penalty band [rad or m].
inline constexpr double kLimitBand = 1e-3;

/// The parent's dofs in a joint stencil: its slots, or the world's identity frame.
template <class T>
void parent_dofs(const JointGeometry& g, const T* x, T* b) {
  for (int i = 0; i < 12; ++i) b[i] = g.world ? T((i >= 3 && (i - 3) % 4 == 0) ? 1.0 : 0.0) : x[i];
}

/// The joint coordinate: the hinge angle in (-pi, pi], the slider displacement.
template <class T>
T joint_coordinate(const JointGeometry& g, const T* x) {
  using std::atan2;
  T b[12];
  parent_dofs(g, x, b);
  const T* c = x + 12;
  if (g.type == JointType::Slider) {
    T yp[3], yc[3], n[3], e[3];
    body_point(b, g.ap, yp);
    body_point(c, g.ac, yc);
    body_direction(b, g.np, n);
    for (int i = 0; i < 3; ++i) e[i] = yc[i] - yp[i];
    return dot3(e, n);
  }
  T u[3], w[3], uc[3];
  body_direction(b, g.rp, u);
  body_direction(b, g.wp, w);
  body_direction(c, g.rc, uc);
  return atan2(dot3(uc, w), dot3(uc, u));
}

/// q - r for two joint coordinates, a hinge's wrapped into (-pi, pi] (a constant shift of 2 pi
/// leaves the derivatives alone).
template <class T, class P>
T coordinate_difference(const JointGeometry& g, const T& q, const P& r) {
  T d = q - r;
  if (g.type != JointType::Hinge) return d;
  constexpr double kPi = std::numbers::pi, kTwoPi = 2.0 * std::numbers::pi;
  const double v = ad::value_of(d);
  if (!std::isfinite(v)) return d;  // the step's finiteness check reports it
  // A target many turns away (up to 1e300 rad) is brought within a turn in one shift; turning
  // by 2 pi at a time took a step forever. Within two turns, the turns below give the same
  // bits as always.
  if (std::abs(v) > 2.0 * kTwoPi) d = d - (v - std::remainder(v, kTwoPi));
  for (int turn = 0; turn < 2 && ad::value_of(d) > kPi; ++turn) d = d - kTwoPi;
  for (int turn = 0; turn < 2 && ad::value_of(d) <= -kPi; ++turn) d = d + kTwoPi;
  return d;
}

/// The joint's constraint and limit energy.
template <class T>
T joint_energy(const JointGeometry& g, const T* x) {
  T b[12];
  parent_dofs(g, x, b);
  const T* c = x + 12;
  T yp[3], yc[3], e[3];
  body_point(b, g.ap, yp);
  body_point(c, g.ac, yc);
  for (int i = 0; i < 3; ++i) e[i] = yc[i] - yp[i];
  T energy = T(0.0);
  if (g.type == JointType::Slider) {
    T n[3];
    body_direction(b, g.np, n);
    const T en = dot3(e, n);
    for (int i = 0; i < 3; ++i) e[i] = e[i] - en * n[i];
  }
  energy = energy + 0.5 * g.k * dot3(e, e);
  if (g.type == JointType::Hinge) {
    T np[3], nc[3];
    body_direction(b, g.np, np);
    body_direction(c, g.nc, nc);
    for (int i = 0; i < 3; ++i) e[i] = nc[i] - np[i];
    energy = energy + 0.5 * g.kr * dot3(e, e);
  }
  if (g.type == JointType::Slider || g.type == JointType::Fixed) {
    // |A_c - A_p C|_F^2, column by column: column j of A_p C is A_p (C e_j).
    for (int j = 0; j < 3; ++j) {
      const double Cj[3] = {g.C[j], g.C[3 + j], g.C[6 + j]};
      T col[3];
      body_direction(b, Cj, col);
      for (int i = 0; i < 3; ++i) e[i] = c[3 + 3 * j + i] - col[i];
      energy = energy + 0.5 * g.kr * dot3(e, e);
    }
  }
  if (g.limited) {
    // The penalty is active within its band of a limit (and beyond it).
    const T q = joint_coordinate(g, x);
    const T to_upper = g.upper - q, to_lower = q - g.lower;
    if (ad::value_of(to_upper) < kLimitBand) energy = energy + g.kl * penalty(to_upper, kLimitBand);
    if (ad::value_of(to_lower) < kLimitBand) energy = energy + g.kl * penalty(to_lower, kLimitBand);
  }
  return energy;
}

/// tau^2/K log cosh(K e / tau): a spring of stiffness K whose force saturates at tau, in a form
/// that does not overflow (log cosh z = |z| + log(1 + exp(-2|z|)) - log 2).
template <class T>
T saturating_spring(const T& e, double K, double tau) {
  using std::exp;
  using std::log;
  if (!(tau < 1e300)) return 0.5 * K * e * e;
  const T z = (K / tau) * e;
  const T a = ad::value_of(z) < 0.0 ? T(-z) : z;
  return (tau * tau / K) * (a + log(1.0 + exp(-2.0 * a)) - std::numbers::ln2);
}

/// A motor's energy over one step; q = (the stencil's positions at the start of the step, 24
/// values; this step's target).
struct MotorEnergy {
  const JointGeometry* g = nullptr;
  MotorMode mode = MotorMode::Position;
  double gain = 0.0, damping = 0.0, max_force = 0.0, dt = 0.0;

  template <class T, class P>
  T operator()(const T* x, const P* q) const {
    const T qx = joint_coordinate(*g, x);
    const P qn = joint_coordinate(*g, q);
    const P& u = q[24];
    const T step = coordinate_difference(*g, qx, qn);
    if (mode == MotorMode::Force) {
      P f = u;
      if (ad::value_of(f) > max_force) f = P(max_force);
      if (ad::value_of(f) < -max_force) f = P(-max_force);
      return -(f * step);
    }
    if (mode == MotorMode::Velocity) {
      const double K = gain / dt;
      return saturating_spring(T(step - dt * u), K, max_force);
    }
    const double K = gain + damping / dt;
    const T e = (gain * coordinate_difference(*g, qx, u) + (damping / dt) * step) / K;
    return saturating_spring(e, K, max_force);
  }
};

}  // namespace softgrad::detail
