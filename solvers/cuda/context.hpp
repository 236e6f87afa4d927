/// @file context.hpp
/// The CUDA device the backend runs on (device 0) and the cuBLAS and cuSPARSE handles every
/// device object shares. Free of CUDA headers, so host code can include it.
#pragma once

#include <memory>
#include <string>

struct cublasContext;
struct cusparseContext;

namespace softgrad::cuda {

/// Number of CUDA devices (0 when there is none, or no driver). Never throws; when it returns
/// 0 and `why` is not null, *why says what the CUDA runtime reported.
int device_count(std::string* why = nullptr);

/// Throws InputError "<who>: no CUDA device is available (<why>); ..." unless device_count() > 0.
void require_device(const std::string& who);

/// "NVIDIA H200, compute capability 9.0, 139.8 GiB" for device 0.
/// @throws InputError when there is no device.
std::string device_description();

/// Device 0 with one cuBLAS and one cuSPARSE handle, on the default stream. Not thread-safe.
class Context {
 public:
  /// Selects device 0 and creates the handles.
  /// @throws InputError when there is no CUDA device; InternalError when a handle cannot be made.
  Context();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  cublasContext* cublas() const { return cublas_; }
  cusparseContext* cusparse() const { return cusparse_; }
  /// Waits for all queued device work; throws InternalError if any of it failed.
  void synchronize() const;

 private:
  cublasContext* cublas_ = nullptr;
  cusparseContext* cusparse_ = nullptr;
};

}  // namespace softgrad::cuda
