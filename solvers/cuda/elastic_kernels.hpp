/// @file elastic_kernels.hpp
/// Host launchers of the device element kernels (elastic_kernels.cu): tetrahedral elements of a
/// built-in hyperelastic material, evaluated on the GPU by the same templated material code and
/// element AD (ad/hyperelastic.hpp) as on the CPU. One thread per element; global outputs are
/// accumulated with atomics. All pointers are device pointers. Internal to solvers/cuda/.
#pragma once

#include <string>
#include <vector>

namespace softgrad::cuda::kernels {

/// Device pointers of one body's tetrahedra (the ElementBatch layout of material_model.hpp).
struct DeviceElements {
  int n_elems = 0;
  const int* elems = nullptr;      ///< n_elems x 4
  const double* Dm_inv = nullptr;  ///< n_elems x 9
  const double* volume = nullptr;  ///< n_elems
  const double* params = nullptr;  ///< n_elems x n_params
};

/// Device counters the kernels update: counts[0] inverted elements, counts[1] failed AD
/// evaluations, counts[2] lowest inverted element (initialised to INT_MAX by the caller).
using Counters = int*;

/// The materials compiled for the device, by scene name.
std::vector<std::string> material_names();
/// Index of `name` in material_names(), or -1.
int material_index(const std::string& name);
/// Number of parameters of material `m`.
int material_param_count(int m);

/// per_elem[e] <- V psi(F_e) (+infinity for a forbidden inverted element).
void element_energies(int m, const DeviceElements& el, const double* x, double* per_elem,
                      Counters counters);
/// g += dE/dx (scattered).
void add_gradient(int m, const DeviceElements& el, const double* x, double* g, Counters counters);
/// csr_values[slots[144 e + k]] += scale * H_e[k] for the (optionally PSD-projected) element
/// Hessians, row-major 12 x 12.
void add_hessian(int m, const DeviceElements& el, const double* x, bool project, double scale,
                 const int* slots, double* csr_values, Counters counters);
/// out += H u, element by element, without forming H (forward-over-reverse AD).
void add_hessian_vector_product(int m, const DeviceElements& el, const double* x, const double* u,
                                double* out, Counters counters);
/// d += diag(H) of the (optionally projected) element Hessians.
void add_hessian_diagonal(int m, const DeviceElements& el, const double* x, bool project, double* d,
                          Counters counters);

}  // namespace softgrad::cuda::kernels
