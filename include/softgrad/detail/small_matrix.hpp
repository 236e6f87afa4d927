/// @file small_matrix.hpp
/// A fixed-size matrix over any scalar type (double, AD variables), usable in CUDA device code.
/// Material energies are written with it: `Mat<T, 3, 3> F`, `det(F)`, `trace(transpose(F) * F)`.
/// Deliberately tiny: Eigen does not run inside our AD types nor on the device.
#pragma once

#include "softgrad/errors.hpp"

namespace softgrad {

/// R x C matrix of scalars T, stored row-major. `m(i, j)` is row i, column j.
template <class T, int R, int C = R>
struct Mat {
  T a[R * C];

  SOFTGRAD_HD T& operator()(int i, int j) { return a[i * C + j]; }
  SOFTGRAD_HD const T& operator()(int i, int j) const { return a[i * C + j]; }
  SOFTGRAD_HD T& operator[](int k) { return a[k]; }
  SOFTGRAD_HD const T& operator[](int k) const { return a[k]; }
  static constexpr int rows() { return R; }
  static constexpr int cols() { return C; }
};

template <class T, int d>
using SquareMat = Mat<T, d, d>;

/// All entries equal to `value`.
template <class T, int R, int C = R>
SOFTGRAD_HD Mat<T, R, C> filled(const T& value) {
  Mat<T, R, C> m;
  for (int k = 0; k < R * C; ++k) m.a[k] = value;
  return m;
}

/// The d x d identity.
template <class T, int d>
SOFTGRAD_HD Mat<T, d, d> identity() {
  Mat<T, d, d> m = filled<T, d, d>(T(0.0));
  for (int i = 0; i < d; ++i) m(i, i) = T(1.0);
  return m;
}

/// Entrywise conversion, e.g. from double to an AD type.
template <class U, class T, int R, int C>
SOFTGRAD_HD Mat<U, R, C> cast(const Mat<T, R, C>& m) {
  Mat<U, R, C> out;
  for (int k = 0; k < R * C; ++k) out.a[k] = U(m.a[k]);
  return out;
}

template <class T, int R, int C>
SOFTGRAD_HD Mat<T, C, R> transpose(const Mat<T, R, C>& m) {
  Mat<T, C, R> t;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) t(j, i) = m(i, j);
  return t;
}

template <class T, int R, int C>
SOFTGRAD_HD Mat<T, R, C> operator+(const Mat<T, R, C>& x, const Mat<T, R, C>& y) {
  Mat<T, R, C> z;
  for (int k = 0; k < R * C; ++k) z.a[k] = x.a[k] + y.a[k];
  return z;
}

template <class T, int R, int C>
SOFTGRAD_HD Mat<T, R, C> operator-(const Mat<T, R, C>& x, const Mat<T, R, C>& y) {
  Mat<T, R, C> z;
  for (int k = 0; k < R * C; ++k) z.a[k] = x.a[k] - y.a[k];
  return z;
}

/// Scalar times matrix; S may be double or T.
template <class S, class T, int R, int C>
SOFTGRAD_HD Mat<T, R, C> operator*(const S& s, const Mat<T, R, C>& x) {
  Mat<T, R, C> z;
  for (int k = 0; k < R * C; ++k) z.a[k] = s * x.a[k];
  return z;
}

template <class T, int R, int K, int C>
SOFTGRAD_HD Mat<T, R, C> operator*(const Mat<T, R, K>& x, const Mat<T, K, C>& y) {
  Mat<T, R, C> z;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      T s = x(i, 0) * y(0, j);
      for (int k = 1; k < K; ++k) s = s + x(i, k) * y(k, j);
      z(i, j) = s;
    }
  return z;
}

template <class T, int d>
SOFTGRAD_HD T trace(const Mat<T, d, d>& m) {
  T s = m(0, 0);
  for (int i = 1; i < d; ++i) s = s + m(i, i);
  return s;
}

/// Frobenius inner product sum_ij x_ij y_ij.
template <class T, int R, int C>
SOFTGRAD_HD T ddot(const Mat<T, R, C>& x, const Mat<T, R, C>& y) {
  T s = x.a[0] * y.a[0];
  for (int k = 1; k < R * C; ++k) s = s + x.a[k] * y.a[k];
  return s;
}

/// Squared Frobenius norm ||m||^2.
template <class T, int R, int C>
SOFTGRAD_HD T squared_norm(const Mat<T, R, C>& m) {
  T s = m.a[0] * m.a[0];
  for (int k = 1; k < R * C; ++k) s = s + m.a[k] * m.a[k];
  return s;
}

template <class T>
SOFTGRAD_HD T det(const Mat<T, 2, 2>& m) {
  return m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0);
}

template <class T>
SOFTGRAD_HD T det(const Mat<T, 3, 3>& m) {
  return m(0, 0) * (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1)) -
         m(0, 1) * (m(1, 0) * m(2, 2) - m(1, 2) * m(2, 0)) +
         m(0, 2) * (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0));
}

/// Cofactor matrix: cof(m) = det(m) m^{-T}, the derivative of det(m).
template <class T>
SOFTGRAD_HD Mat<T, 2, 2> cofactor(const Mat<T, 2, 2>& m) {
  Mat<T, 2, 2> c;
  c(0, 0) = m(1, 1);
  c(0, 1) = -m(1, 0);
  c(1, 0) = -m(0, 1);
  c(1, 1) = m(0, 0);
  return c;
}

template <class T>
SOFTGRAD_HD Mat<T, 3, 3> cofactor(const Mat<T, 3, 3>& m) {
  Mat<T, 3, 3> c;
  c(0, 0) = m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1);
  c(0, 1) = m(1, 2) * m(2, 0) - m(1, 0) * m(2, 2);
  c(0, 2) = m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0);
  c(1, 0) = m(0, 2) * m(2, 1) - m(0, 1) * m(2, 2);
  c(1, 1) = m(0, 0) * m(2, 2) - m(0, 2) * m(2, 0);
  c(1, 2) = m(0, 1) * m(2, 0) - m(0, 0) * m(2, 1);
  c(2, 0) = m(0, 1) * m(1, 2) - m(0, 2) * m(1, 1);
  c(2, 1) = m(0, 2) * m(1, 0) - m(0, 0) * m(1, 2);
  c(2, 2) = m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0);
  return c;
}

/// Inverse through the cofactor matrix. @pre det(m) != 0 (not checked: device code).
template <class T, int d>
SOFTGRAD_HD Mat<T, d, d> inverse(const Mat<T, d, d>& m) {
  return (T(1.0) / det(m)) * transpose(cofactor(m));
}

}  // namespace softgrad
