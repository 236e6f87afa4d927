/// @file elastic_body.hpp
/// DeviceElasticBody: one body's tetrahedra, material parameters and element kernels on the GPU.
/// The kernels are compiled from the same templated material code and element AD as the CPU
/// (ad/hyperelastic.hpp), for the built-in hyperelastic materials: a material written as a
/// templated psi(F) runs on the device without GPU code of its own once it is listed in
/// elastic_kernels.cu. Energy, gradient, (PSD-projected) element Hessians written straight
/// into the values of a DeviceCsrMatrix through a slot map built once on the host, Hessian
/// diagonals, and element Hessian-vector products for matrix-free CG.
#pragma once

#include <Eigen/SparseCore>
#include <string>
#include <vector>

#include "softgrad/material_model.hpp"
#include "solvers/cuda/device_array.hpp"
#include "solvers/cuda/device_csr_matrix.hpp"
#include "solvers/cuda/device_vector.hpp"

namespace softgrad::cuda {

class DeviceElasticBody {
 public:
  /// Scene names of the materials with device kernels (the built-in hyperelastic ones).
  static std::vector<std::string> device_materials();

  /// Uploads the batch (tetrahedra only) of a body made of `material`.
  /// @throws InputError if the material has no device kernels (the message lists those that
  ///         do), if the batch is not 3D, or if its parameter count does not match.
  DeviceElasticBody(const Context& context, const MaterialModel& material,
                    const ElementBatch& batch);

  int n_elems() const { return n_elems_; }
  const std::string& material() const { return material_name_; }

  /// Per-element energies on the device; returns their sum [J] (+infinity if an element is
  /// inverted and the material forbids it) and, if `report` is set, the inverted elements.
  double energy(const DeviceVector& x, BatchReport* report = nullptr);
  /// g += dE/dx. @return the report (inverted elements contribute nothing).
  BatchReport add_gradient(const DeviceVector& x, DeviceVector& g);
  /// Builds the element-to-CSR slot map for H's pattern (host, once per pattern).
  /// @throws InputError if some element entry is not in the pattern.
  void bind_pattern(const Eigen::SparseMatrix<double>& pattern);
  /// H.values += scale * element Hessians (PSD-projected if `project`), in place on the device.
  /// @pre bind_pattern() with H's pattern (InternalError otherwise).
  BatchReport add_hessian(const DeviceVector& x, bool project, DeviceCsrMatrix& H,
                          double scale = 1.0);
  /// out += H(x) u by element Hessian-vector products (forward-over-reverse AD; exact H).
  BatchReport add_hessian_vector_product(const DeviceVector& x, const DeviceVector& u,
                                         DeviceVector& out);
  /// d += diag of the element Hessians (PSD-projected if `project`).
  BatchReport add_hessian_diagonal(const DeviceVector& x, bool project, DeviceVector& d);

 private:
  int* reset_counters();
  BatchReport read_counters() const;

  const Context& context_;
  std::string material_name_;
  int material_ = -1;
  int n_elems_ = 0;
  std::vector<int> elems_host_;
  DeviceArray<int> elems_;
  DeviceArray<double> Dm_inv_;
  DeviceArray<double> volume_;
  DeviceArray<double> params_;
  DeviceArray<double> per_elem_;
  DeviceArray<double> partial_;
  DeviceArray<int> slots_;
  int slots_rows_ = -1;
  DeviceArray<int> counters_;
};

}  // namespace softgrad::cuda
