#include "softgrad/detail/ad/psd_projection.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <cmath>

namespace softgrad::ad {

namespace {

/// The projection of the row-major symmetric n x n matrix at H, with Matrix's storage.
/// Matrix is fixed-size for the small blocks and one dynamic-size type with at most 12 rows
/// for the larger ones: each instantiation of Eigen's LDL^T and eigen-solver costs ~9 s of
/// compile time, and at 9 and 12 rows the fixed sizes run only 1-9% faster (at 4 and 6 rows
/// 15-30%), so the two larger sizes share one.
template <class Matrix>
bool project(double* H, int n) {
  Eigen::Map<
      Eigen::Matrix<double, Matrix::RowsAtCompileTime, Matrix::ColsAtCompileTime, Eigen::RowMajor,
                    Matrix::MaxRowsAtCompileTime, Matrix::MaxColsAtCompileTime>>
      A(H, n, n);
  bool dominant = true;
  for (int i = 0; i < n && dominant; ++i) {
    double off = 0.0;
    for (int j = 0; j < n; ++j)
      if (j != i) off += std::abs(A(i, j));
    dominant = A(i, i) >= off;
  }
  if (dominant) return false;
  // Most element Hessians are already PSD (with the null space of rigid motions): a pivoted
  // LDL^T, ~n^3/3 flops, proves it far more cheaply than an eigen-decomposition.
  // Round-off is judged against A's entries, not D's: on an indefinite block with a (near-)zero
  // diagonal (a contact pair's Hessian has such rows) Eigen's LDL^T may pivot on round-off and
  // return D entries far larger than A's, or stop at a zero block and report success; the
  // factors must then also reproduce A.
  const Eigen::LDLT<Matrix> ldlt(A);
  if (ldlt.info() == Eigen::Success) {
    const auto D = ldlt.vectorD();
    const double scale = A.cwiseAbs().maxCoeff();
    if (D.minCoeff() >= -1e-10 * scale && D.maxCoeff() <= 2.0 * scale &&
        (ldlt.reconstructedMatrix() - A).cwiseAbs().maxCoeff() <= 1e-10 * scale)
      return false;
  }
  Eigen::SelfAdjointEigenSolver<Matrix> eig(A);
  auto lambda = eig.eigenvalues();
  if (lambda.minCoeff() >= 0.0) return false;
  for (int i = 0; i < n; ++i) lambda[i] = lambda[i] > 0.0 ? lambda[i] : 0.0;
  A = eig.eigenvectors() * lambda.asDiagonal() * eig.eigenvectors().transpose();
  return true;
}

using UpTo12 = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor, 12, 12>;

}  // namespace

template <int N>
bool project_psd(double* H) {
  if constexpr (N <= 6)
    return project<Eigen::Matrix<double, N, N, Eigen::RowMajor>>(H, N);
  else
    return project<UpTo12>(H, N);
}

template bool project_psd<4>(double*);
template bool project_psd<6>(double*);
template bool project_psd<9>(double*);
template bool project_psd<12>(double*);

}  // namespace softgrad::ad
