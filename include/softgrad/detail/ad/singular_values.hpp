/// @file singular_values.hpp
/// tr S = sum of the signed singular values of F, where F = R S is the rotation-variant polar
/// decomposition (det R = +1). Corotated and ARAP-type energies are written with it, since
/// ||F - R||^2 = ||F||^2 - 2 tr S + d. Its gradient is R, its Hessian the polar rotation's
/// differential; in 3D both come from a closed form recorded as one AD primitive, so that the
/// tape never differentiates through an iterative eigen-solver.
#pragma once

#include <cmath>
#include <type_traits>

#include "softgrad/detail/ad/nested_dual.hpp"
#include "softgrad/detail/ad/tape.hpp"
#include "softgrad/detail/polar.hpp"
#include "softgrad/detail/small_matrix.hpp"

namespace softgrad {

/// 2D: (sigma_1 + sigma_2)^2 = ||F||^2 + 2 det F, for any scalar type.
template <class T>
SOFTGRAD_HD T sum_of_singular_values(const Mat<T, 2, 2>& F) {
  using std::sqrt;
  return sqrt(squared_norm(F) + 2.0 * det(F));
}

namespace ad {
namespace detail {
/// d(tr S)/dF_ij = R_ij as duals whose tangents are dR[dF_k] for each lane k.
template <int L>
SOFTGRAD_HD void rotation_partials(const Mat<double, 3, 3>& R, const Mat<double, 3, 3>& S,
                                   const Var<Dual<L>>* F, Dual<L>* out) {
  for (int ij = 0; ij < 9; ++ij) out[ij] = Dual<L>(R.a[ij]);
  for (int k = 0; k < L; ++k) {
    Mat<double, 3, 3> dF;
    for (int ij = 0; ij < 9; ++ij) dF.a[ij] = F[ij].val.d[1 + k];
    const Mat<double, 3, 3> dR = polar_rotation_differential(R, S, dF);
    for (int ij = 0; ij < 9; ++ij) out[ij].d[1 + k] = dR.a[ij];
  }
}
}  // namespace detail

/// 3D tr S as one tape primitive: value tr S, partials R (and dR for dual tapes). The nine
/// partials are recorded as a chain of two-operand nodes ending in the result.
template <class R>
SOFTGRAD_HD Var<R> sum_of_singular_values(const Mat<Var<R>, 3, 3>& F) {
  Mat<double, 3, 3> F0;
  Tape<R>* tape = nullptr;
  for (int ij = 0; ij < 9; ++ij) {
    F0.a[ij] = primal(F.a[ij].val);
    if (!tape) tape = F.a[ij].tape;
  }
  Mat<double, 3, 3> Rot;
  Mat<double, 3, 3> S;
  polar_decomposition(F0, Rot, S);
  R partial[9];
  if constexpr (std::is_same_v<R, double>) {
    for (int ij = 0; ij < 9; ++ij) partial[ij] = Rot.a[ij];
  } else {
    detail::rotation_partials(Rot, S, F.a, partial);
  }
  // Value (and, for duals, its tangent R : dF per lane).
  R value(trace(S));
  if constexpr (!std::is_same_v<R, double>) {
    for (int ij = 0; ij < 9; ++ij)
      for (int k = 1; k < static_cast<int>(sizeof(value.d) / sizeof(double)); ++k)
        value.d[k] += Rot.a[ij] * F.a[ij].val.d[k];
  }
  if (!tape) return Var<R>(value, 0, nullptr);
  int node = tape->push(F.a[0].idx, partial[0], 0, R(0.0));
  for (int ij = 1; ij < 9; ++ij) node = tape->push(node, R(1.0), F.a[ij].idx, partial[ij]);
  return Var<R>(value, node, tape);
}

/// 3D tr S in forward mode (nested_dual.hpp). Its derivative along any direction is R : dF, so
/// lane k is R : F_k and its t_l-derivative dR[F_tl] : F_k + R : F_k,tl.
template <int K, int L>
SOFTGRAD_HD NestedDual<K, L> sum_of_singular_values(const Mat<NestedDual<K, L>, 3, 3>& F) {
  Mat<double, 3, 3> F0;
  for (int ij = 0; ij < 9; ++ij) F0.a[ij] = F.a[ij].d[0].d[0];
  Mat<double, 3, 3> Rot;
  Mat<double, 3, 3> S;
  polar_decomposition(F0, Rot, S);
  NestedDual<K, L> c(trace(S));
  for (int k = 0; k <= K; ++k)
    for (int ij = 0; ij < 9; ++ij) c.d[k].d[0] += (k == 0 ? 0.0 : Rot.a[ij] * F.a[ij].d[k].d[0]);
  for (int l = 1; l <= L; ++l) {
    Mat<double, 3, 3> Ft;
    for (int ij = 0; ij < 9; ++ij) Ft.a[ij] = F.a[ij].d[0].d[l];
    const Mat<double, 3, 3> dR = polar_rotation_differential(Rot, S, Ft);
    for (int ij = 0; ij < 9; ++ij) c.d[0].d[l] += Rot.a[ij] * Ft.a[ij];
    for (int k = 1; k <= K; ++k)
      for (int ij = 0; ij < 9; ++ij)
        c.d[k].d[l] += dR.a[ij] * F.a[ij].d[k].d[0] + Rot.a[ij] * F.a[ij].d[k].d[l];
  }
  return c;
}
}  // namespace ad

using ad::sum_of_singular_values;

}  // namespace softgrad
