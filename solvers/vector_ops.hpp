/// @file vector_ops.hpp
/// The vector operations the CG template (cg.hpp) needs, as free functions overloaded per vector
/// type. This header gives the Eigen::VectorXd overloads; another backend (e.g. a CUDA device
/// vector in namespace softgrad::cuda) declares the same functions next to its vector type, where
/// argument-dependent lookup finds them when the template is instantiated.
///
/// Contract for every overload: no allocation, and the sizes must match (asserted in Debug).
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstddef>

#include "softgrad/errors.hpp"

namespace softgrad {

/// Number of entries of v.
inline std::ptrdiff_t vector_size(const Eigen::VectorXd& v) { return v.size(); }

/// Euclidean inner product a^T b.
inline double dot(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  SOFTGRAD_ASSERT(a.size() == b.size());
  return a.dot(b);
}

/// Euclidean norm ||v||_2.
inline double norm(const Eigen::VectorXd& v) { return v.norm(); }

/// y <- alpha x + y.
inline void axpy(double alpha, const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  SOFTGRAD_ASSERT(x.size() == y.size());
  y.noalias() += alpha * x;
}

/// y <- alpha x + beta y.
inline void axpby(double alpha, const Eigen::VectorXd& x, double beta, Eigen::VectorXd& y) {
  SOFTGRAD_ASSERT(x.size() == y.size());
  y = alpha * x + beta * y;
}

/// dst <- src (sizes must already match: no allocation).
inline void copy(const Eigen::VectorXd& src, Eigen::VectorXd& dst) {
  SOFTGRAD_ASSERT(src.size() == dst.size());
  dst = src;
}

/// v <- 0.
inline void set_zero(Eigen::VectorXd& v) { v.setZero(); }

/// True if every entry of v is finite (no NaN or Inf).
inline bool all_finite(const Eigen::VectorXd& v) { return v.allFinite(); }

}  // namespace softgrad
