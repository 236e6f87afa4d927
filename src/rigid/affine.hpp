/// @file affine.hpp
/// Internal: points and directions of an affine body from its 12 dofs b = (p, a1, a2, a3),
/// generic in the scalar type (the element AD differentiates the energies built on them).
#pragma once

namespace softgrad::detail {

/// y = p + A X.
template <class T>
void body_point(const T* b, const double* X, T* y) {
  for (int i = 0; i < 3; ++i) y[i] = b[i] + b[3 + i] * X[0] + b[6 + i] * X[1] + b[9 + i] * X[2];
}

/// y = A n.
template <class T>
void body_direction(const T* b, const double* n, T* y) {
  for (int i = 0; i < 3; ++i) y[i] = b[3 + i] * n[0] + b[6 + i] * n[1] + b[9 + i] * n[2];
}

template <class T>
T dot3(const T* a, const T* b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

}  // namespace softgrad::detail
