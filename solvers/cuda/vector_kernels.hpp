/// @file vector_kernels.hpp
/// Host launchers of the small CUDA kernels of the linear-algebra layer (vector_kernels.cu):
/// element-wise vector updates, CSR diagonal extraction and the (block-)Jacobi preconditioners.
/// All pointers are device pointers; launches are queued on the default stream and checked
/// (InternalError naming the kernel on a launch failure). Internal to solvers/cuda/.
#pragma once

#include <cstddef>

namespace softgrad::cuda::kernels {

/// y <- alpha x + beta y (beta == 0 overwrites y, even if it holds NaN).
void axpby(std::ptrdiff_t n, double alpha, const double* x, double beta, double* y);
/// out <- d .* in.
void multiply(std::ptrdiff_t n, const double* d, const double* in, double* out);
/// out <- f .* out + (1 - f) .* in: keeps out where f = 1, copies in where f = 0.
void masked_combine(std::ptrdiff_t n, const double* f, const double* in, double* out);
/// vals[diag_slot[i]] += d[i] for every row i.
void add_to_diagonal(int rows, const int* diag_slot, const double* d, double* vals);
/// Dirichlet rows and columns of a CSR matrix: entries in a row or column i with f[i] == 0
/// become those of the identity.
void apply_dirichlet(int rows, const int* row_ptr, const int* cols, const double* f, double* vals);
/// *count <- number of NaN/Inf entries of v.
void count_non_finite(std::ptrdiff_t n, const double* v, int* count);
/// diag[i] <- A(i, i) of a CSR matrix (0 if not stored).
void csr_diagonal(int rows, const int* row_ptr, const int* cols, const double* vals, double* diag);
/// out <- 1 / d (element-wise).
void reciprocal(std::ptrdiff_t n, const double* d, double* out);
/// inv[9 b ...] <- inverse of the 3x3 diagonal block b of a CSR matrix with 3 n_blocks rows.
/// A block that is not symmetric positive definite (Cholesky fails) is counted in *n_bad and
/// its lowest index written to *first_bad (which the caller initialises to INT_MAX); its
/// inverse is left as the identity.
void block_jacobi_inverse(int n_blocks, const int* row_ptr, const int* cols, const double* vals,
                          double* inv, int* n_bad, int* first_bad);
/// out[3b..3b+2] <- inv_b in[3b..3b+2] for every 3x3 block b.
void block_multiply(int n_blocks, const double* inv, const double* in, double* out);
/// *result <- sum of v, deterministically (fixed two-pass tree); `partial` holds >= 1024 doubles.
void sum(std::ptrdiff_t n, const double* v, double* partial, double* result);

}  // namespace softgrad::cuda::kernels
