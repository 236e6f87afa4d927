/// @file derivatives.hpp
/// Every derivative the simulator and the adjoint need, from ONE templated element energy
///
///     E(x; p):   x in R^N (the element's vertex positions), p in R^M (its parameters).
///
/// The energy is any callable `f(const T* x, const P* p) -> T` that is generic in T (the
/// position scalar) and P (the parameter scalar; either double or T), e.g. a generic lambda.
///
/// How (and why this is the fast choice): a reverse sweep over a stack tape gives the gradient
/// of the scalar energy with respect to all inputs at once. For second derivatives the same
/// tape is recorded over dual numbers (forward-over-reverse): with L tangent lanes one forward
/// pass plus one reverse sweep yields L Hessian-vector products. The dense N x N Hessian uses
/// L = N lanes, i.e. O(ops * N) work, against O(ops * N^2) for forward-mode dense Hessians
/// (hyper-duals/TinyAD) and N separate sweeps for scalar forward-over-reverse. Hessian-vector
/// products and mixed parameter products use L = 1 and never form the Hessian.
///
/// Where N (or the parameter count M) is small the tape's bookkeeping outweighs that: the
/// forward-mode versions (forward_gradient on dual.hpp's numbers; forward_hessian and
/// parameter_derivatives_forward on the nested duals of nested_dual.hpp) store no nodes.
/// density.hpp uses them for an invariant density's gradient and Hessian (N = 3) and for a
/// material's mixed parameter products (M <= 4).
///
/// All functions are allocation-free and exception-free (device-compatible). If the energy
/// needs more than `Cap` tape nodes, the derivatives come back as NaN and `ok` is false.
#pragma once

#include <limits>

#include "softgrad/detail/ad/nested_dual.hpp"
#include "softgrad/detail/ad/tape.hpp"

namespace softgrad::ad {

/// Tape nodes per evaluation unless an energy asks for more.
inline constexpr int kDefaultTapeCapacity = 256;

namespace detail {
SOFTGRAD_HD inline double quiet_nan() { return std::numeric_limits<double>::quiet_NaN(); }
SOFTGRAD_HD inline double infinity() { return std::numeric_limits<double>::infinity(); }
}  // namespace detail

/// E(x; p) with plain doubles.
template <int N, int M, class Fn>
SOFTGRAD_HD double value(const Fn& f, const double* x, const double* p) {
  return f(x, p);
}

/// Value and gradient g = dE/dx (N entries). Returns false if the tape overflowed.
template <int N, int M, int Cap = kDefaultTapeCapacity, class Fn>
SOFTGRAD_HD bool gradient(const Fn& f, const double* x, const double* p, double& value, double* g) {
  Node<double> nodes[Cap];
  Tape<double> tape(nodes, Cap);
  Var<double> xv[N];
  for (int i = 0; i < N; ++i) xv[i] = tape.input(x[i]);
  const Var<double> e = f(static_cast<const Var<double>*>(xv), p);
  value = e.val;
  if (tape.overflowed() || !e.tape) {
    // No tape on the output means E does not depend on x: the gradient is zero.
    for (int i = 0; i < N; ++i) g[i] = tape.overflowed() ? detail::quiet_nan() : 0.0;
    return !tape.overflowed();
  }
  tape.reverse(e.idx, N);
  for (int i = 0; i < N; ++i) g[i] = tape.adjoint(xv[i].idx);
  return true;
}

/// The value and gradient of gradient(), in first-order forward mode: one evaluation on
/// Dual<N> numbers (N tangent lanes), no tape. Its work grows with N per operation, so it is for
/// functions of few inputs: an invariant density's three (density.hpp), where the tape's
/// recording and reverse sweep cost several times the arithmetic.
template <int N, int M, class Fn>
SOFTGRAD_HD void forward_gradient(const Fn& f, const double* x, const double* p, double& value,
                                  double* g) {
  using R = Dual<N>;
  R xv[N];
  for (int i = 0; i < N; ++i) {
    xv[i] = R(x[i]);
    xv[i].d[1 + i] = 1.0;
  }
  const R e = f(static_cast<const R*>(xv), p);
  value = e.d[0];
  for (int i = 0; i < N; ++i) g[i] = e.d[1 + i];
}

/// Value, gradient and the dense Hessian H (N x N, row-major, symmetric).
template <int N, int M, int Cap = kDefaultTapeCapacity, class Fn>
SOFTGRAD_HD bool hessian(const Fn& f, const double* x, const double* p, double& value, double* g,
                         double* H) {
  using R = Dual<N>;
  Node<R> nodes[Cap];
  Tape<R> tape(nodes, Cap);
  Var<R> xv[N];
  for (int i = 0; i < N; ++i) {
    R seed(x[i]);
    seed.d[1 + i] = 1.0;
    xv[i] = tape.input(seed);
  }
  const Var<R> e = f(static_cast<const Var<R>*>(xv), p);
  value = e.val.d[0];
  if (tape.overflowed() || !e.tape) {
    const double fill = tape.overflowed() ? detail::quiet_nan() : 0.0;
    for (int i = 0; i < N; ++i) g[i] = fill;
    for (int i = 0; i < N * N; ++i) H[i] = fill;
    return !tape.overflowed();
  }
  tape.reverse(e.idx, N);
  for (int i = 0; i < N; ++i) {
    const R& a = tape.adjoint(xv[i].idx);
    g[i] = a.d[0];
    for (int k = 0; k < N; ++k) H[i * N + k] = a.d[1 + k];
  }
  // Exact arithmetic gives a symmetric matrix; remove the rounding asymmetry.
  for (int i = 0; i < N; ++i)
    for (int k = i + 1; k < N; ++k) {
      const double s = 0.5 * (H[i * N + k] + H[k * N + i]);
      H[i * N + k] = s;
      H[k * N + i] = s;
    }
  return true;
}

/// The value, gradient and Hessian of hessian(), in second-order forward mode: one evaluation
/// on NestedDual<N, N> numbers (nested_dual.hpp), no tape. Its work grows with N^2 per operation,
/// so it is for functions of few inputs: an invariant density's three (density.hpp), where it
/// costs about half the tape's.
template <int N, int M, class Fn>
SOFTGRAD_HD void forward_hessian(const Fn& f, const double* x, const double* p, double& value,
                                 double* g, double* H) {
  using R = NestedDual<N, N>;
  R xv[N];
  for (int i = 0; i < N; ++i) {
    xv[i] = R(x[i]);
    xv[i].d[0].d[1 + i] = 1.0;
    xv[i].d[1 + i].d[0] = 1.0;
  }
  const R e = f(static_cast<const R*>(xv), p);
  value = e.d[0].d[0];
  for (int i = 0; i < N; ++i) {
    g[i] = e.d[1 + i].d[0];
    for (int k = 0; k < N; ++k) H[i * N + k] = e.d[1 + i].d[1 + k];
  }
  // Exact arithmetic gives a symmetric matrix; remove the rounding asymmetry.
  for (int i = 0; i < N; ++i)
    for (int k = i + 1; k < N; ++k) {
      const double s = 0.5 * (H[i * N + k] + H[k * N + i]);
      H[i * N + k] = s;
      H[k * N + i] = s;
    }
}

/// Hessian-vector product Hu = (d^2E/dx^2) u without forming the Hessian; optionally the
/// gradient too (g may be null).
template <int N, int M, int Cap = kDefaultTapeCapacity, class Fn>
SOFTGRAD_HD bool hessian_vector_product(const Fn& f, const double* x, const double* p,
                                        const double* u, double* Hu, double* g = nullptr) {
  using R = Dual<1>;
  Node<R> nodes[Cap];
  Tape<R> tape(nodes, Cap);
  Var<R> xv[N];
  for (int i = 0; i < N; ++i) {
    R seed(x[i]);
    seed.d[1] = u[i];
    xv[i] = tape.input(seed);
  }
  const Var<R> e = f(static_cast<const Var<R>*>(xv), p);
  if (tape.overflowed() || !e.tape) {
    const double fill = tape.overflowed() ? detail::quiet_nan() : 0.0;
    for (int i = 0; i < N; ++i) {
      Hu[i] = fill;
      if (g) g[i] = fill;
    }
    return !tape.overflowed();
  }
  tape.reverse(e.idx);
  for (int i = 0; i < N; ++i) {
    const R& a = tape.adjoint(xv[i].idx);
    Hu[i] = a.d[1];
    if (g) g[i] = a.d[0];
  }
  return true;
}

/// Parameter gradient dE/dp (M entries) and the mixed product
///     mixed = d/dp (lambda . dE/dx)   (M entries),
/// the term the adjoint needs for every parameter. One forward pass with the x-tangent set
/// to lambda and one reverse sweep: the adjoints of p carry dE/dp in their values and the
/// mixed product in their tangents. Either output may be null.
template <int N, int M, int Cap = kDefaultTapeCapacity, class Fn>
SOFTGRAD_HD bool parameter_derivatives(const Fn& f, const double* x, const double* p,
                                       const double* lambda, double* dE_dp, double* mixed) {
  static_assert(M >= 1, "parameter derivatives need at least one parameter");
  using R = Dual<1>;
  Node<R> nodes[Cap];
  Tape<R> tape(nodes, Cap);
  Var<R> xv[N];
  Var<R> pv[M];
  for (int i = 0; i < N; ++i) {
    R seed(x[i]);
    seed.d[1] = lambda ? lambda[i] : 0.0;
    xv[i] = tape.input(seed);
  }
  for (int j = 0; j < M; ++j) pv[j] = tape.input(R(p[j]));
  const Var<R> e = f(static_cast<const Var<R>*>(xv), static_cast<const Var<R>*>(pv));
  if (tape.overflowed() || !e.tape) {
    const double fill = tape.overflowed() ? detail::quiet_nan() : 0.0;
    for (int j = 0; j < M; ++j) {
      if (dE_dp) dE_dp[j] = fill;
      if (mixed) mixed[j] = fill;
    }
    return !tape.overflowed();
  }
  tape.reverse(e.idx);
  for (int j = 0; j < M; ++j) {
    const R& a = tape.adjoint(pv[j].idx);
    if (dE_dp) dE_dp[j] = a.d[0];
    if (mixed) mixed[j] = a.d[1];
  }
  return true;
}

/// The same dE/dp and mixed product as parameter_derivatives, in forward mode: one evaluation
/// of f on MixedDual<M> numbers (nested_dual.hpp), x carrying lambda as its t-derivative and
/// p_j the unit e_j. No tape, so nothing can overflow; the work grows with M, where the reverse
/// sweep's does not, so the reverse version stays the choice for many parameters.
template <int N, int M, class Fn>
SOFTGRAD_HD void parameter_derivatives_forward(const Fn& f, const double* x, const double* p,
                                               const double* lambda, double* dE_dp, double* mixed) {
  static_assert(M >= 1, "parameter derivatives need at least one parameter");
  using R = MixedDual<M>;
  R xv[N];
  R pv[M];
  for (int i = 0; i < N; ++i) {
    xv[i] = R(x[i]);
    xv[i].d[0].d[1] = lambda ? lambda[i] : 0.0;
  }
  for (int j = 0; j < M; ++j) {
    pv[j] = R(p[j]);
    pv[j].d[1 + j].d[0] = 1.0;
  }
  const R e = f(static_cast<const R*>(xv), static_cast<const R*>(pv));
  for (int j = 0; j < M; ++j) {
    if (dE_dp) dE_dp[j] = e.d[1 + j].d[0];
    if (mixed) mixed[j] = e.d[1 + j].d[1];
  }
}

/// The parameter Jacobian-vector product of the gradient,
///     jvp = (d^2E / dx dp) dp   (N entries),
/// what forward (tangent) sensitivities need per parameter direction dp. One forward pass with
/// the p-tangent set to dp and one reverse sweep: the adjoints of x carry dE/dx in their values
/// and the product in their tangents. g (N entries) may be null.
template <int N, int M, int Cap = kDefaultTapeCapacity, class Fn>
SOFTGRAD_HD bool gradient_parameter_jvp(const Fn& f, const double* x, const double* p,
                                        const double* dp, double* g, double* jvp) {
  static_assert(M >= 1, "a parameter JVP needs at least one parameter");
  using R = Dual<1>;
  Node<R> nodes[Cap];
  Tape<R> tape(nodes, Cap);
  Var<R> xv[N];
  Var<R> pv[M];
  for (int i = 0; i < N; ++i) xv[i] = tape.input(R(x[i]));
  for (int j = 0; j < M; ++j) {
    R seed(p[j]);
    seed.d[1] = dp[j];
    pv[j] = tape.input(seed);
  }
  const Var<R> e = f(static_cast<const Var<R>*>(xv), static_cast<const Var<R>*>(pv));
  if (tape.overflowed() || !e.tape) {
    const double fill = tape.overflowed() ? detail::quiet_nan() : 0.0;
    for (int i = 0; i < N; ++i) {
      if (g) g[i] = fill;
      jvp[i] = fill;
    }
    return !tape.overflowed();
  }
  tape.reverse(e.idx);
  for (int i = 0; i < N; ++i) {
    const R& a = tape.adjoint(xv[i].idx);
    if (g) g[i] = a.d[0];
    jvp[i] = a.d[1];
  }
  return true;
}

/// Number of tape nodes one evaluation of f records (for choosing `Cap`; host use).
template <int N, int M, int Cap = 4096, class Fn>
int tape_size(const Fn& f, const double* x, const double* p) {
  Node<double> nodes[Cap];
  Tape<double> tape(nodes, Cap);
  Var<double> xv[N];
  Var<double> pv[M > 0 ? M : 1];
  for (int i = 0; i < N; ++i) xv[i] = tape.input(x[i]);
  for (int j = 0; j < M; ++j) pv[j] = tape.input(p[j]);
  (void)f(static_cast<const Var<double>*>(xv), static_cast<const Var<double>*>(pv));
  return tape.overflowed() ? -1 : tape.size();
}

}  // namespace softgrad::ad
