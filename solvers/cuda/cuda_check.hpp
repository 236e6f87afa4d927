/// @file cuda_check.hpp
/// SOFTGRAD_CUDA_CHECK(call): the one macro that wraps every CUDA runtime, cuBLAS and cuSPARSE
/// call of the CUDA backend. A failed call throws InternalError naming the call (its source
/// text), the file and line, and the library's error name and description (STYLE.md §6).
/// Internal to solvers/cuda/: it includes the CUDA headers, which the public headers avoid.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <string>

namespace softgrad::cuda::detail {

/// Throws InternalError "CUDA call 'call' failed at file:line: what".
[[noreturn]] void throw_cuda_error(const char* call, const std::string& what, const char* file,
                                   int line);

inline void check_call(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess)
    throw_cuda_error(call,
                     std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status),
                     file, line);
}

inline void check_call(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw_cuda_error(call, std::string("cuBLAS: ") + cublasGetStatusString(status), file, line);
}

inline void check_call(cusparseStatus_t status, const char* call, const char* file, int line) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw_cuda_error(call, std::string("cuSPARSE: ") + cusparseGetErrorString(status), file, line);
}

}  // namespace softgrad::cuda::detail

/// Checks a CUDA runtime / cuBLAS / cuSPARSE status; throws InternalError naming the call.
#define SOFTGRAD_CUDA_CHECK(call) \
  ::softgrad::cuda::detail::check_call((call), #call, __FILE__, __LINE__)

/// Checks the launch of the last kernel (configuration errors; execution errors surface at the
/// next synchronising call, which is checked too).
#define SOFTGRAD_CUDA_CHECK_LAUNCH(kernel_name) \
  ::softgrad::cuda::detail::check_call(cudaGetLastError(), kernel_name, __FILE__, __LINE__)
