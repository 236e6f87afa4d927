#include "solvers/cuda/device_csr_matrix.hpp"

#include "softgrad/errors.hpp"
#include "solvers/cuda/cuda_check.hpp"
#include "solvers/cuda/vector_kernels.hpp"

namespace softgrad::cuda {

// cuSPARSE descriptors of the matrix and of the two dense vectors of y = A x.
struct DeviceCsrMatrix::Descriptors {
  cusparseSpMatDescr_t A = nullptr;
  cusparseDnVecDescr_t x = nullptr;
  cusparseDnVecDescr_t y = nullptr;
};

DeviceCsrMatrix::DeviceCsrMatrix(const Context& context)
    : context_(context), desc_(std::make_unique<Descriptors>()) {}

DeviceCsrMatrix::~DeviceCsrMatrix() { release_descriptors(); }

void DeviceCsrMatrix::release_descriptors() {
  // Never throws: destroying a descriptor only frees host memory.
  if (desc_->A) cusparseDestroySpMat(desc_->A);
  if (desc_->x) cusparseDestroyDnVec(desc_->x);
  if (desc_->y) cusparseDestroyDnVec(desc_->y);
  *desc_ = Descriptors{};
}

void DeviceCsrMatrix::set_pattern(const Eigen::SparseMatrix<double>& A) {
  if (A.rows() != A.cols()) throw InputError("DeviceCsrMatrix: the matrix is not square");
  if (!A.isCompressed()) throw InputError("DeviceCsrMatrix: the matrix is not compressed");
  release_descriptors();
  rows_ = static_cast<int>(A.rows());
  nnz_ = static_cast<int>(A.nonZeros());
  row_ptr_.assign(A.outerIndexPtr(), static_cast<std::size_t>(rows_) + 1);
  cols_.assign(A.innerIndexPtr(), static_cast<std::size_t>(nnz_));
  vals_.assign(A.valuePtr(), static_cast<std::size_t>(nnz_));
  // Descriptors: the matrix, and placeholders for x and y (rebound per product).
  SOFTGRAD_CUDA_CHECK(cusparseCreateCsr(&desc_->A, rows_, rows_, nnz_, row_ptr_.data(),
                                        cols_.data(), vals_.data(), CUSPARSE_INDEX_32I,
                                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  DeviceArray<double> probe(static_cast<std::size_t>(rows_ > 0 ? rows_ : 1));
  SOFTGRAD_CUDA_CHECK(cusparseCreateDnVec(&desc_->x, rows_, probe.data(), CUDA_R_64F));
  SOFTGRAD_CUDA_CHECK(cusparseCreateDnVec(&desc_->y, rows_, probe.data(), CUDA_R_64F));
  const double alpha = 1.0;
  const double beta = 0.0;
  std::size_t bytes = 0;
  SOFTGRAD_CUDA_CHECK(cusparseSpMV_bufferSize(context_.cusparse(), CUSPARSE_OPERATION_NON_TRANSPOSE,
                                              &alpha, desc_->A, desc_->x, &beta, desc_->y,
                                              CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
  spmv_buffer_.resize(bytes > 0 ? bytes : 1);
}

void DeviceCsrMatrix::set_values(const Eigen::SparseMatrix<double>& A) {
  SOFTGRAD_CHECK(A.rows() == rows_ && A.nonZeros() == nnz_ && A.isCompressed(),
                 "DeviceCsrMatrix::set_values: the pattern differs from set_pattern's");
  detail::copy_to_device(vals_.data(), A.valuePtr(),
                         static_cast<std::size_t>(nnz_) * sizeof(double));
}

void DeviceCsrMatrix::multiply(const DeviceVector& x, DeviceVector& y) const {
  SOFTGRAD_CHECK(desc_->A != nullptr, "DeviceCsrMatrix::multiply before set_pattern");
  SOFTGRAD_ASSERT(x.size() == rows_ && y.size() == rows_);
  // cuSPARSE only reads x; its descriptor type is not const-qualified.
  SOFTGRAD_CUDA_CHECK(cusparseDnVecSetValues(desc_->x, const_cast<double*>(x.data())));
  SOFTGRAD_CUDA_CHECK(cusparseDnVecSetValues(desc_->y, y.data()));
  const double alpha = 1.0;
  const double beta = 0.0;
  SOFTGRAD_CUDA_CHECK(cusparseSpMV(context_.cusparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                   desc_->A, desc_->x, &beta, desc_->y, CUDA_R_64F,
                                   CUSPARSE_SPMV_ALG_DEFAULT, spmv_buffer_.data()));
}

void DeviceCsrMatrix::diagonal(DeviceVector& d) const {
  d.resize(context_, rows_);
  kernels::csr_diagonal(rows_, row_ptr_.data(), cols_.data(), vals_.data(), d.data());
}

}  // namespace softgrad::cuda
