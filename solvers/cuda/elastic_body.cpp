#include "solvers/cuda/elastic_body.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

#include "softgrad/errors.hpp"
#include "solvers/cuda/elastic_kernels.hpp"
#include "solvers/cuda/vector_kernels.hpp"

namespace softgrad::cuda {

namespace {
constexpr int kN = 12;  // dofs of a tetrahedron

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}
}  // namespace

std::vector<std::string> DeviceElasticBody::device_materials() { return kernels::material_names(); }

DeviceElasticBody::DeviceElasticBody(const Context& context, const MaterialModel& material,
                                     const ElementBatch& batch)
    : context_(context), material_name_(material.name()) {
  material_ = kernels::material_index(material_name_);
  if (material_ < 0)
    throw InputError("material '" + material_name_ +
                     "' has no CUDA element kernels; materials with device kernels: " +
                     joined(device_materials()));
  if (batch.dim != 3)
    throw InputError("CUDA element kernels: material '" + material_name_ +
                     "' in 2D; the device kernels are for tetrahedra (3D) only");
  const int n_params = kernels::material_param_count(material_);
  SOFTGRAD_CHECK(n_params == material.n_params(),
                 "material '" << material_name_ << "': " << material.n_params()
                              << " parameters on the host, " << n_params << " on the device");
  n_elems_ = batch.n_elems;
  const auto n = static_cast<std::size_t>(n_elems_);
  elems_host_.assign(batch.elems, batch.elems + 4 * n);
  elems_.assign(batch.elems, 4 * n);
  Dm_inv_.assign(batch.Dm_inv, 9 * n);
  volume_.assign(batch.volume, n);
  params_.assign(batch.params, static_cast<std::size_t>(n_params) * n);
  per_elem_.resize(n);
  partial_.resize(1025);
  counters_.resize(3);
}

int* DeviceElasticBody::reset_counters() {
  const int init[3] = {0, 0, INT_MAX};
  counters_.assign(init, 3);
  return counters_.data();
}

BatchReport DeviceElasticBody::read_counters() const {
  int c[3] = {0, 0, 0};
  counters_.copy_to(c);
  BatchReport r;
  r.n_inverted = c[0];
  r.n_failed = c[1];
  r.first_inverted = c[0] > 0 ? c[2] : -1;
  return r;
}

namespace {
kernels::DeviceElements view(int n, const DeviceArray<int>& elems, const DeviceArray<double>& Dm,
                             const DeviceArray<double>& vol, const DeviceArray<double>& p) {
  return {n, elems.data(), Dm.data(), vol.data(), p.data()};
}
}  // namespace

double DeviceElasticBody::energy(const DeviceVector& x, BatchReport* report) {
  int* counters = reset_counters();
  kernels::element_energies(material_, view(n_elems_, elems_, Dm_inv_, volume_, params_), x.data(),
                            per_elem_.data(), counters);
  kernels::sum(n_elems_, per_elem_.data(), partial_.data(), partial_.data() + 1024);
  double total = 0.0;
  detail::copy_to_host(&total, partial_.data() + 1024, sizeof(double));
  if (report) *report = read_counters();
  return total;
}

BatchReport DeviceElasticBody::add_gradient(const DeviceVector& x, DeviceVector& g) {
  int* counters = reset_counters();
  kernels::add_gradient(material_, view(n_elems_, elems_, Dm_inv_, volume_, params_), x.data(),
                        g.data(), counters);
  return read_counters();
}

void DeviceElasticBody::bind_pattern(const Eigen::SparseMatrix<double>& pattern) {
  SOFTGRAD_CHECK(pattern.isCompressed(), "bind_pattern: the pattern must be compressed");
  // Full symmetric storage: column c of the CSC arrays is row c of the CSR matrix.
  const int* outer = pattern.outerIndexPtr();
  const int* inner = pattern.innerIndexPtr();
  std::vector<int> slots(static_cast<std::size_t>(n_elems_) * kN * kN);
#pragma omp parallel for schedule(static)
  for (int e = 0; e < n_elems_; ++e) {
    const int* v = elems_host_.data() + 4 * static_cast<std::size_t>(e);
    for (int r = 0; r < kN; ++r) {
      const int row = v[r / 3] * 3 + r % 3;
      for (int c = 0; c < kN; ++c) {
        const int col = v[c / 3] * 3 + c % 3;
        const int* begin = inner + outer[row];
        const int* end = inner + outer[row + 1];
        const int* it = std::lower_bound(begin, end, col);
        slots[(static_cast<std::size_t>(e) * kN + r) * kN + c] =
            it != end && *it == col ? static_cast<int>(it - inner) : -1;
      }
    }
  }
  const auto missing = std::find(slots.begin(), slots.end(), -1);
  if (missing != slots.end())
    throw InputError("CUDA element kernels: element " +
                     std::to_string((missing - slots.begin()) / (kN * kN)) +
                     " has Hessian entries outside the matrix pattern");
  slots_.assign(slots.data(), slots.size());
  slots_rows_ = static_cast<int>(pattern.rows());
}

BatchReport DeviceElasticBody::add_hessian(const DeviceVector& x, bool project, DeviceCsrMatrix& H,
                                           double scale) {
  SOFTGRAD_CHECK(slots_rows_ == H.rows(), "DeviceElasticBody::add_hessian before bind_pattern");
  int* counters = reset_counters();
  kernels::add_hessian(material_, view(n_elems_, elems_, Dm_inv_, volume_, params_), x.data(),
                       project, scale, slots_.data(), H.values(), counters);
  return read_counters();
}

BatchReport DeviceElasticBody::add_hessian_vector_product(const DeviceVector& x,
                                                          const DeviceVector& u,
                                                          DeviceVector& out) {
  int* counters = reset_counters();
  kernels::add_hessian_vector_product(material_, view(n_elems_, elems_, Dm_inv_, volume_, params_),
                                      x.data(), u.data(), out.data(), counters);
  return read_counters();
}

BatchReport DeviceElasticBody::add_hessian_diagonal(const DeviceVector& x, bool project,
                                                    DeviceVector& d) {
  int* counters = reset_counters();
  kernels::add_hessian_diagonal(material_, view(n_elems_, elems_, Dm_inv_, volume_, params_),
                                x.data(), project, d.data(), counters);
  return read_counters();
}

}  // namespace softgrad::cuda
