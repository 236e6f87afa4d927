/// @file device_vector.hpp
/// DeviceVector: a vector of doubles in device memory bound to a Context, with the free
/// functions the CG template needs (vector_size, dot, norm, axpy, axpby, copy, set_zero; see
/// solvers/vector_ops.hpp), found by argument-dependent lookup. dot and norm use cuBLAS and
/// return to the host (they synchronise); the others queue device work and return at once.
#pragma once

#include <Eigen/Core>
#include <cstddef>

#include "solvers/cuda/context.hpp"
#include "solvers/cuda/device_array.hpp"

namespace softgrad::cuda {

class DeviceVector {
 public:
  DeviceVector() = default;
  /// n zeros on the context's device.
  DeviceVector(const Context& context, std::ptrdiff_t n);

  /// Binds to `context` and resizes (zeroed when the size changes).
  void resize(const Context& context, std::ptrdiff_t n);
  std::ptrdiff_t size() const { return static_cast<std::ptrdiff_t>(values_.size()); }
  double* data() { return values_.data(); }
  const double* data() const { return values_.data(); }
  /// @pre the vector was sized with a context.
  const Context& context() const;

  /// Copies v in (resizing to v.size()).
  void upload(const Eigen::VectorXd& v);
  /// Copies the values out (v is resized to size()).
  void download(Eigen::VectorXd& v) const;

 private:
  const Context* context_ = nullptr;
  DeviceArray<double> values_;
};

std::ptrdiff_t vector_size(const DeviceVector& v);
/// a^T b (cuBLAS Ddot).
double dot(const DeviceVector& a, const DeviceVector& b);
/// ||v||_2 (cuBLAS Dnrm2).
double norm(const DeviceVector& v);
/// y <- alpha x + y (cuBLAS Daxpy).
void axpy(double alpha, const DeviceVector& x, DeviceVector& y);
/// y <- alpha x + beta y (one kernel).
void axpby(double alpha, const DeviceVector& x, double beta, DeviceVector& y);
/// dst <- src (sizes must match).
void copy(const DeviceVector& src, DeviceVector& dst);
/// v <- 0.
void set_zero(DeviceVector& v);
/// max_i |v_i| (cuBLAS Idamax); 0 for an empty vector.
double max_abs(const DeviceVector& v);
/// True if every entry is finite.
bool all_finite(const DeviceVector& v);

}  // namespace softgrad::cuda
