#include "solvers/cuda/device_array.hpp"

#include "solvers/cuda/cuda_check.hpp"

namespace softgrad::cuda::detail {

void* device_alloc(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  const cudaError_t status = cudaMalloc(&p, bytes);
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw_cuda_error("cudaMalloc",
                     std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status) +
                         " (asked for " + std::to_string(bytes) + " bytes)",
                     __FILE__, __LINE__);
  }
  return p;
}

void device_free(void* p) noexcept {
  if (p) cudaFree(p);
}

void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  if (bytes > 0) SOFTGRAD_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}

void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  if (bytes > 0) SOFTGRAD_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}

void copy_on_device(void* dst, const void* src, std::size_t bytes) {
  if (bytes > 0) SOFTGRAD_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
}

void device_zero(void* p, std::size_t bytes) {
  if (bytes > 0) SOFTGRAD_CUDA_CHECK(cudaMemset(p, 0, bytes));
}

}  // namespace softgrad::cuda::detail
