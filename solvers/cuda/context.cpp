#include "solvers/cuda/context.hpp"

#include <sstream>

#include "softgrad/errors.hpp"
#include "solvers/cuda/cuda_check.hpp"

namespace softgrad::cuda {

namespace detail {

void throw_cuda_error(const char* call, const std::string& what, const char* file, int line) {
  std::ostringstream os;
  os << "softgrad CUDA backend: call '" << call << "' failed at " << file << ":" << line << ": "
     << what;
  throw InternalError(os.str());
}

}  // namespace detail

int device_count(std::string* why) {
  int n = 0;
  const cudaError_t status = cudaGetDeviceCount(&n);
  if (status != cudaSuccess) {
    if (why) *why = std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
    cudaGetLastError();  // clear the sticky error so later queries start clean
    return 0;
  }
  if (n == 0 && why) *why = "cudaGetDeviceCount found 0 devices";
  return n;
}

void require_device(const std::string& who) {
  std::string why;
  if (device_count(&why) > 0) return;
  throw InputError(who + ": no CUDA device is available (" + why +
                   "); run on a machine with an NVIDIA GPU, or choose a CPU linear solver "
                   "(cholmod, pcg, matfree)");
}

std::string device_description() {
  require_device("CUDA backend");
  cudaDeviceProp prop{};
  SOFTGRAD_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::ostringstream os;
  os.precision(4);
  os << prop.name << ", compute capability " << prop.major << "." << prop.minor << ", "
     << static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0) << " GiB";
  return os.str();
}

Context::Context() {
  require_device("CUDA backend");
  SOFTGRAD_CUDA_CHECK(cudaSetDevice(0));
  SOFTGRAD_CUDA_CHECK(cublasCreate(&cublas_));
  try {
    SOFTGRAD_CUDA_CHECK(cusparseCreate(&cusparse_));
  } catch (...) {
    cublasDestroy(cublas_);
    throw;
  }
}

Context::~Context() {
  // Destructors must not throw: errors while tearing down are ignored.
  if (cusparse_) cusparseDestroy(cusparse_);
  if (cublas_) cublasDestroy(cublas_);
}

void Context::synchronize() const { SOFTGRAD_CUDA_CHECK(cudaDeviceSynchronize()); }

}  // namespace softgrad::cuda
