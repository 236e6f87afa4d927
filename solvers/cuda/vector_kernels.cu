// The small kernels of the CUDA linear-algebra layer; see vector_kernels.hpp.
#include <climits>

#include "solvers/cuda/cuda_check.hpp"
#include "solvers/cuda/vector_kernels.hpp"

namespace softgrad::cuda::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kSumBlocks = 1024;

int blocks_for(std::ptrdiff_t n) {
  const std::ptrdiff_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < 1 ? 1 : (b > 65535 * 32 ? 65535 * 32 : b));
}

// Grid-stride loops: any n with a bounded grid.
__global__ void axpby_kernel(std::ptrdiff_t n, double alpha, const double* x, double beta,
                             double* y) {
  for (std::ptrdiff_t i = blockIdx.x * std::ptrdiff_t(blockDim.x) + threadIdx.x; i < n;
       i += std::ptrdiff_t(gridDim.x) * blockDim.x)
    y[i] = beta == 0.0 ? alpha * x[i] : alpha * x[i] + beta * y[i];
}

__global__ void multiply_kernel(std::ptrdiff_t n, const double* d, const double* in, double* out) {
  for (std::ptrdiff_t i = blockIdx.x * std::ptrdiff_t(blockDim.x) + threadIdx.x; i < n;
       i += std::ptrdiff_t(gridDim.x) * blockDim.x)
    out[i] = d[i] * in[i];
}

__global__ void masked_combine_kernel(std::ptrdiff_t n, const double* f, const double* in,
                                      double* out) {
  for (std::ptrdiff_t i = blockIdx.x * std::ptrdiff_t(blockDim.x) + threadIdx.x; i < n;
       i += std::ptrdiff_t(gridDim.x) * blockDim.x)
    out[i] = f[i] != 0.0 ? out[i] : in[i];
}

__global__ void add_to_diagonal_kernel(int rows, const int* slot, const double* d, double* vals) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) vals[slot[i]] += d[i];
}

__global__ void apply_dirichlet_kernel(int rows, const int* row_ptr, const int* cols,
                                       const double* f, double* vals) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
    if (f[i] == 0.0 || f[cols[k]] == 0.0) vals[k] = cols[k] == i ? 1.0 : 0.0;
}

__global__ void reciprocal_kernel(std::ptrdiff_t n, const double* d, double* out) {
  for (std::ptrdiff_t i = blockIdx.x * std::ptrdiff_t(blockDim.x) + threadIdx.x; i < n;
       i += std::ptrdiff_t(gridDim.x) * blockDim.x)
    out[i] = 1.0 / d[i];
}

__global__ void count_non_finite_kernel(std::ptrdiff_t n, const double* v, int* count) {
  for (std::ptrdiff_t i = blockIdx.x * std::ptrdiff_t(blockDim.x) + threadIdx.x; i < n;
       i += std::ptrdiff_t(gridDim.x) * blockDim.x)
    if (!isfinite(v[i])) atomicAdd(count, 1);
}

__global__ void csr_diagonal_kernel(int rows, const int* row_ptr, const int* cols,
                                    const double* vals, double* diag) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  double d = 0.0;
  for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
    if (cols[k] == i) d = vals[k];
  diag[i] = d;
}

// Inverts the SPD 3x3 block by Cholesky, B = L L^T, B^-1 = L^-T L^-1.
__device__ bool invert_spd3(const double B[9], double inv[9]) {
  double L[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int j = 0; j < 3; ++j) {
    double s = B[j * 3 + j];
    for (int k = 0; k < j; ++k) s -= L[j * 3 + k] * L[j * 3 + k];
    if (!(s > 0.0)) return false;
    L[j * 3 + j] = sqrt(s);
    for (int i = j + 1; i < 3; ++i) {
      double t = B[i * 3 + j];
      for (int k = 0; k < j; ++k) t -= L[i * 3 + k] * L[j * 3 + k];
      L[i * 3 + j] = t / L[j * 3 + j];
    }
  }
  // Columns of L^-1 by forward substitution, then inv = L^-T L^-1.
  double Li[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int c = 0; c < 3; ++c)
    for (int i = c; i < 3; ++i) {
      double t = i == c ? 1.0 : 0.0;
      for (int k = c; k < i; ++k) t -= L[i * 3 + k] * Li[k * 3 + c];
      Li[i * 3 + c] = t / L[i * 3 + i];
    }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double t = 0.0;
      for (int k = 0; k < 3; ++k) t += Li[k * 3 + i] * Li[k * 3 + j];
      inv[i * 3 + j] = t;
    }
  return true;
}

__global__ void block_jacobi_kernel(int n_blocks, const int* row_ptr, const int* cols,
                                    const double* vals, double* inv, int* n_bad, int* first_bad) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= n_blocks) return;
  double B[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int r = 0; r < 3; ++r) {
    const int row = 3 * b + r;
    for (int k = row_ptr[row]; k < row_ptr[row + 1]; ++k) {
      const int c = cols[k] - 3 * b;
      if (c >= 0 && c < 3) B[r * 3 + c] = vals[k];
    }
  }
  // Symmetrise against round-off in the assembled values.
  for (int r = 0; r < 3; ++r)
    for (int c = r + 1; c < 3; ++c)
      B[r * 3 + c] = B[c * 3 + r] = 0.5 * (B[r * 3 + c] + B[c * 3 + r]);
  double* out = inv + 9 * static_cast<std::ptrdiff_t>(b);
  if (!invert_spd3(B, out)) {
    atomicAdd(n_bad, 1);
    atomicMin(first_bad, b);
    for (int k = 0; k < 9; ++k) out[k] = k % 4 == 0 ? 1.0 : 0.0;
  }
}

__global__ void block_multiply_kernel(int n_blocks, const double* inv, const double* in,
                                      double* out) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= n_blocks) return;
  const double* M = inv + 9 * static_cast<std::ptrdiff_t>(b);
  const double* x = in + 3 * static_cast<std::ptrdiff_t>(b);
  double* y = out + 3 * static_cast<std::ptrdiff_t>(b);
  const double x0 = x[0], x1 = x[1], x2 = x[2];
  for (int r = 0; r < 3; ++r) y[r] = M[r * 3] * x0 + M[r * 3 + 1] * x1 + M[r * 3 + 2] * x2;
}

// Block tree reduction: each block sums a grid-stride slice in shared memory.
__global__ void sum_kernel(std::ptrdiff_t n, const double* v, double* out) {
  __shared__ double s[kThreads];
  double t = 0.0;
  for (std::ptrdiff_t i = blockIdx.x * std::ptrdiff_t(blockDim.x) + threadIdx.x; i < n;
       i += std::ptrdiff_t(gridDim.x) * blockDim.x)
    t += v[i];
  s[threadIdx.x] = t;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

}  // namespace

void axpby(std::ptrdiff_t n, double alpha, const double* x, double beta, double* y) {
  if (n == 0) return;
  axpby_kernel<<<blocks_for(n), kThreads>>>(n, alpha, x, beta, y);
  SOFTGRAD_CUDA_CHECK_LAUNCH("axpby_kernel");
}

void multiply(std::ptrdiff_t n, const double* d, const double* in, double* out) {
  if (n == 0) return;
  multiply_kernel<<<blocks_for(n), kThreads>>>(n, d, in, out);
  SOFTGRAD_CUDA_CHECK_LAUNCH("multiply_kernel");
}

void masked_combine(std::ptrdiff_t n, const double* f, const double* in, double* out) {
  if (n == 0) return;
  masked_combine_kernel<<<blocks_for(n), kThreads>>>(n, f, in, out);
  SOFTGRAD_CUDA_CHECK_LAUNCH("masked_combine_kernel");
}

void add_to_diagonal(int rows, const int* diag_slot, const double* d, double* vals) {
  if (rows == 0) return;
  add_to_diagonal_kernel<<<blocks_for(rows), kThreads>>>(rows, diag_slot, d, vals);
  SOFTGRAD_CUDA_CHECK_LAUNCH("add_to_diagonal_kernel");
}

void apply_dirichlet(int rows, const int* row_ptr, const int* cols, const double* f, double* vals) {
  if (rows == 0) return;
  apply_dirichlet_kernel<<<blocks_for(rows), kThreads>>>(rows, row_ptr, cols, f, vals);
  SOFTGRAD_CUDA_CHECK_LAUNCH("apply_dirichlet_kernel");
}

void reciprocal(std::ptrdiff_t n, const double* d, double* out) {
  if (n == 0) return;
  reciprocal_kernel<<<blocks_for(n), kThreads>>>(n, d, out);
  SOFTGRAD_CUDA_CHECK_LAUNCH("reciprocal_kernel");
}

void count_non_finite(std::ptrdiff_t n, const double* v, int* count) {
  if (n == 0) return;
  count_non_finite_kernel<<<blocks_for(n), kThreads>>>(n, v, count);
  SOFTGRAD_CUDA_CHECK_LAUNCH("count_non_finite_kernel");
}

void csr_diagonal(int rows, const int* row_ptr, const int* cols, const double* vals, double* diag) {
  if (rows == 0) return;
  csr_diagonal_kernel<<<blocks_for(rows), kThreads>>>(rows, row_ptr, cols, vals, diag);
  SOFTGRAD_CUDA_CHECK_LAUNCH("csr_diagonal_kernel");
}

void block_jacobi_inverse(int n_blocks, const int* row_ptr, const int* cols, const double* vals,
                          double* inv, int* n_bad, int* first_bad) {
  if (n_blocks == 0) return;
  block_jacobi_kernel<<<blocks_for(n_blocks), kThreads>>>(n_blocks, row_ptr, cols, vals, inv, n_bad,
                                                          first_bad);
  SOFTGRAD_CUDA_CHECK_LAUNCH("block_jacobi_kernel");
}

void block_multiply(int n_blocks, const double* inv, const double* in, double* out) {
  if (n_blocks == 0) return;
  block_multiply_kernel<<<blocks_for(n_blocks), kThreads>>>(n_blocks, inv, in, out);
  SOFTGRAD_CUDA_CHECK_LAUNCH("block_multiply_kernel");
}

void sum(std::ptrdiff_t n, const double* v, double* partial, double* result) {
  const int blocks = n <= 0 ? 1 : (blocks_for(n) < kSumBlocks ? blocks_for(n) : kSumBlocks);
  sum_kernel<<<blocks, kThreads>>>(n, v, partial);
  SOFTGRAD_CUDA_CHECK_LAUNCH("sum_kernel (pass 1)");
  sum_kernel<<<1, kThreads>>>(blocks, partial, result);
  SOFTGRAD_CUDA_CHECK_LAUNCH("sum_kernel (pass 2)");
}

}  // namespace softgrad::cuda::kernels
