/// @file device_csr_matrix.hpp
/// A square sparse matrix on the device in CSR form with a cuSPARSE SpMV (generic API). The
/// pattern is uploaded once; the values are uploaded per Newton iteration, or written in place by
/// device kernels (the element Hessians of elastic_body.hpp).
///
/// softgrad's SparseMatrix is column-major with both triangles stored (full symmetric storage),
/// so its CSC arrays are the CSR arrays of the same matrix: they are uploaded as they are.
#pragma once

#include <Eigen/SparseCore>
#include <memory>

#include "solvers/cuda/context.hpp"
#include "solvers/cuda/device_array.hpp"
#include "solvers/cuda/device_vector.hpp"

namespace softgrad::cuda {

class DeviceCsrMatrix {
 public:
  explicit DeviceCsrMatrix(const Context& context);
  ~DeviceCsrMatrix();
  DeviceCsrMatrix(const DeviceCsrMatrix&) = delete;
  DeviceCsrMatrix& operator=(const DeviceCsrMatrix&) = delete;

  /// Uploads the pattern and the values of A (compressed; full symmetric storage).
  /// @throws InputError if A is not square or not compressed.
  void set_pattern(const Eigen::SparseMatrix<double>& A);
  /// Uploads the values of A. @pre A has the pattern given to set_pattern (InternalError if
  /// its size or number of nonzeros differ).
  void set_values(const Eigen::SparseMatrix<double>& A);

  /// Sets every stored value to zero (before device kernels accumulate into values()).
  void set_values_zero() { vals_.set_zero(); }
  /// Copies the nnz() values to host memory, in the order of the pattern.
  void copy_values_to(double* host) const { vals_.copy_to(host); }

  int rows() const { return rows_; }
  int nnz() const { return nnz_; }
  const int* row_offsets() const { return row_ptr_.data(); }
  const int* columns() const { return cols_.data(); }
  double* values() { return vals_.data(); }
  const double* values() const { return vals_.data(); }

  /// y <- A x (cusparseSpMV). @pre x and y have rows() entries and do not alias.
  void multiply(const DeviceVector& x, DeviceVector& y) const;
  /// d <- diag(A).
  void diagonal(DeviceVector& d) const;

 private:
  void release_descriptors();

  const Context& context_;
  int rows_ = 0;
  int nnz_ = 0;
  DeviceArray<int> row_ptr_;
  DeviceArray<int> cols_;
  DeviceArray<double> vals_;
  mutable DeviceArray<char> spmv_buffer_;
  struct Descriptors;
  std::unique_ptr<Descriptors> desc_;
};

/// The Operator of conjugate_gradient() for a DeviceCsrMatrix.
struct DeviceCsrOperator {
  const DeviceCsrMatrix* A = nullptr;
  void apply(const DeviceVector& in, DeviceVector& out) const { A->multiply(in, out); }
};

}  // namespace softgrad::cuda
