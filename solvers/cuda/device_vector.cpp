#include "solvers/cuda/device_vector.hpp"

#include <cmath>

#include "softgrad/errors.hpp"
#include "solvers/cuda/cuda_check.hpp"
#include "solvers/cuda/vector_kernels.hpp"

namespace softgrad::cuda {

DeviceVector::DeviceVector(const Context& context, std::ptrdiff_t n) { resize(context, n); }

void DeviceVector::resize(const Context& context, std::ptrdiff_t n) {
  SOFTGRAD_CHECK(n >= 0, "DeviceVector: negative size " << n);
  context_ = &context;
  values_.resize(static_cast<std::size_t>(n));
}

const Context& DeviceVector::context() const {
  SOFTGRAD_CHECK(context_ != nullptr, "DeviceVector used before it was sized with a Context");
  return *context_;
}

void DeviceVector::upload(const Eigen::VectorXd& v) {
  values_.assign(v.data(), static_cast<std::size_t>(v.size()));
}

void DeviceVector::download(Eigen::VectorXd& v) const {
  v.resize(size());
  values_.copy_to(v.data());
}

namespace {
int as_int(std::ptrdiff_t n) {
  SOFTGRAD_CHECK(n <= 0x7fffffff, "DeviceVector: " << n << " entries exceed cuBLAS's int range");
  return static_cast<int>(n);
}
}  // namespace

std::ptrdiff_t vector_size(const DeviceVector& v) { return v.size(); }

double dot(const DeviceVector& a, const DeviceVector& b) {
  SOFTGRAD_ASSERT(a.size() == b.size());
  double result = 0.0;
  SOFTGRAD_CUDA_CHECK(
      cublasDdot(a.context().cublas(), as_int(a.size()), a.data(), 1, b.data(), 1, &result));
  return result;
}

double norm(const DeviceVector& v) {
  double result = 0.0;
  SOFTGRAD_CUDA_CHECK(cublasDnrm2(v.context().cublas(), as_int(v.size()), v.data(), 1, &result));
  return result;
}

void axpy(double alpha, const DeviceVector& x, DeviceVector& y) {
  SOFTGRAD_ASSERT(x.size() == y.size());
  SOFTGRAD_CUDA_CHECK(
      cublasDaxpy(x.context().cublas(), as_int(x.size()), &alpha, x.data(), 1, y.data(), 1));
}

void axpby(double alpha, const DeviceVector& x, double beta, DeviceVector& y) {
  SOFTGRAD_ASSERT(x.size() == y.size());
  kernels::axpby(x.size(), alpha, x.data(), beta, y.data());
}

void copy(const DeviceVector& src, DeviceVector& dst) {
  SOFTGRAD_CHECK(src.size() == dst.size(),
                 "DeviceVector copy: sizes " << src.size() << " and " << dst.size() << " differ");
  detail::copy_on_device(dst.data(), src.data(),
                         static_cast<std::size_t>(src.size()) * sizeof(double));
}

void set_zero(DeviceVector& v) {
  detail::device_zero(v.data(), static_cast<std::size_t>(v.size()) * sizeof(double));
}

double max_abs(const DeviceVector& v) {
  if (v.size() == 0) return 0.0;
  int index = 0;  // 1-based
  SOFTGRAD_CUDA_CHECK(cublasIdamax(v.context().cublas(), as_int(v.size()), v.data(), 1, &index));
  double value = 0.0;
  detail::copy_to_host(&value, v.data() + (index - 1), sizeof(double));
  return std::abs(value);
}

bool all_finite(const DeviceVector& v) {
  DeviceArray<int> count(1);
  kernels::count_non_finite(v.size(), v.data(), count.data());
  int n = 0;
  count.copy_to(&n);
  return n == 0;
}

}  // namespace softgrad::cuda
