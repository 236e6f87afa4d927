/// @file material.hpp
/// The material contract. A material is a small struct with
///   1. `static constexpr const char* kName`: its scene key (snake_case);
///   2. `static constexpr ParamInfo kParams[]`: its parameters, with SI units, valid ranges and
///      defaults (the scene loader validates against this table);
///   3. one member function template, the strain-energy density psi(F; p) [J/m^3]:
///
///        template <class T, class P, int d>
///        SOFTGRAD_HD static T psi(const Mat<T, d, d>& F, const P* p);
///
///      T is the scalar of F (double or an AD variable), P that of the parameters (double or T),
///      d is 2 (plane strain triangles) or 3 (tetrahedra). Call math functions unqualified after
///      `using std::log;` etc.
///   4. `static constexpr bool kAllowsInversion`: false when psi is undefined for det F <= 0
///      (log-based models); the library then reports those elements as inverted, and the
///      line search rejects steps that invert them.
///   5. optionally, for an isotropic density, the same density in the invariants of
///      ad/invariants.hpp (I_C = ||F||^2, II_C = ||F^T F||^2, J = det F; in 2D those of the
///      plane-strain 3 x 3 gradient, so one formula serves both dimensions):
///
///        template <class T, class P>
///        SOFTGRAD_HD static T psi_invariants(const T& I_C, const T& II_C, const T& J, const P* p);
///
///      The library then differentiates this function of three variables instead of psi(F) of
///      d^2 (two to three times faster gradients and Hessians) and applies the fixed derivatives of
///      the invariants itself; psi(F) stays the definition (values; the tests check both agree).
///   6. optionally, with 5, psi_invariants' derivatives in closed form:
///
///        SOFTGRAD_HD static void psi_invariant_derivatives(const double* I, const double* p,
///                                                          double& psi, double* dpsi,
///                                                          double* d2psi);  // d2psi may be null
///
///      used for psi, P and dP/dF instead of AD (parameter derivatives stay AD); for a built-in
///      hot path (Neo-Hookean), with a test against AD.
///   7. optionally, `static constexpr bool kIsotropic = true` when psi(R F Q) = psi(F) for all
///      rotations R, Q without an invariant form (implied by 5): PSD-projected Hessians then come
///      from the eigensystem in F's singular frame (ad/isotropic_projection.hpp), several times
///      cheaper than an eigen-solver on the element Hessian.
///   8. optionally, `static constexpr bool kConvex = true` when psi is convex in F for every
///      parameter set in the ranges of kParams (linear elasticity): d^2 psi / dF^2 is then PSD,
///      and the PSD projection leaves it as it is without testing it (the conformance tests
///      check the claim). Elements whose parameters have left those ranges are projected.
/// Everything else (gradients, Hessians, projections, parameter derivatives, assembly, GPU) is
/// shared code: see hyperelastic_model.hpp and materials/README.md.
#pragma once

#include <limits>

#include "softgrad/detail/small_matrix.hpp"

namespace softgrad {

/// One material parameter: key, SI unit, open/closed valid range, default, description.
struct ParamInfo {
  const char* key;
  const char* unit;
  double min;
  double max;
  bool min_inclusive;
  bool max_inclusive;
  double default_value;
  const char* description;

  /// NaN-safe: a NaN is never in range.
  SOFTGRAD_HD constexpr bool in_range(double v) const {
    const bool lo = min_inclusive ? (v >= min) : (v > min);
    const bool hi = max_inclusive ? (v <= max) : (v < max);
    return lo && hi;
  }
};

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// Young's modulus E [Pa], E > 0.
inline constexpr ParamInfo kYoungsParam{"youngs", "Pa",  0.0, kInfinity,
                                        false,    false, 1e5, "Young's modulus"};
/// Poisson's ratio nu [1], -1 < nu < 1/2.
inline constexpr ParamInfo kPoissonParam{"poisson", "1",   -1.0, 0.5,
                                         false,     false, 0.3,  "Poisson's ratio"};

/// The parameters of a material given by Young's modulus and Poisson's ratio themselves (most
/// built-in ones): deriving from it gives the table and the scenes' youngs/poisson mapping. A
/// material with other parameters may define its own `from_youngs_poisson` (Mooney-Rivlin does).
struct YoungsPoissonParameters {
  static constexpr ParamInfo kParams[] = {kYoungsParam, kPoissonParam};
  static void from_youngs_poisson(double youngs, double poisson, double* p) {
    p[0] = youngs;
    p[1] = poisson;
  }
};

/// Lamé's second parameter (shear modulus) mu = E / (2 (1 + nu)) [Pa].
template <class P>
SOFTGRAD_HD P lame_mu(const P& youngs, const P& poisson) {
  return youngs / (2.0 * (1.0 + poisson));
}
/// Lamé's first parameter lambda = E nu / ((1 + nu)(1 - 2 nu)) [Pa].
template <class P>
SOFTGRAD_HD P lame_lambda(const P& youngs, const P& poisson) {
  return youngs * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson));
}
/// Young's modulus from Lamé parameters, E = mu (3 lambda + 2 mu) / (lambda + mu).
inline double youngs_from_lame(double mu, double lambda) {
  return mu * (3.0 * lambda + 2.0 * mu) / (lambda + mu);
}
/// Poisson's ratio from Lamé parameters, nu = lambda / (2 (lambda + mu)).
inline double poisson_from_lame(double mu, double lambda) { return lambda / (2.0 * (lambda + mu)); }

}  // namespace softgrad
