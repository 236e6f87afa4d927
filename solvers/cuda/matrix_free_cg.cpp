#include "solvers/cuda/matrix_free_cg.hpp"

#include "softgrad/errors.hpp"
#include "solvers/cuda/vector_kernels.hpp"

namespace softgrad::cuda {

DeviceElasticHessian::DeviceElasticHessian(const Context& context,
                                           std::vector<DeviceElasticBody*> bodies,
                                           const Eigen::VectorXd& mass_over_dt2,
                                           const std::vector<int>& fixed_dofs)
    : context_(context), bodies_(std::move(bodies)) {
  mass_.resize(context, mass_over_dt2.size());
  mass_.upload(mass_over_dt2);
  Eigen::VectorXd free = Eigen::VectorXd::Ones(mass_over_dt2.size());
  for (int i : fixed_dofs) {
    SOFTGRAD_CHECK(i >= 0 && i < free.size(),
                   "DeviceElasticHessian: fixed dof " << i << " out of range");
    free[i] = 0.0;
  }
  free_.resize(context, free.size());
  free_.upload(free);
  ones_.resize(context, free.size());
  ones_.upload(Eigen::VectorXd::Ones(free.size()));
  masked_.resize(context, free.size());
}

void DeviceElasticHessian::apply(const DeviceVector& in, DeviceVector& out) const {
  SOFTGRAD_CHECK(x_ != nullptr, "DeviceElasticHessian::apply before set_point");
  const std::ptrdiff_t n = size();
  // Fixed dofs: zero columns (mask the input), identity rows (copy the input back).
  kernels::multiply(n, free_.data(), in.data(), masked_.data());
  kernels::multiply(n, mass_.data(), masked_.data(), out.data());
  for (DeviceElasticBody* body : bodies_)
    failures_ += body->add_hessian_vector_product(*x_, masked_, out).n_failed;
  kernels::masked_combine(n, free_.data(), in.data(), out.data());
}

void DeviceElasticHessian::diagonal(DeviceVector& d) const {
  SOFTGRAD_CHECK(x_ != nullptr, "DeviceElasticHessian::diagonal before set_point");
  d.resize(context_, size());
  copy(mass_, d);
  for (DeviceElasticBody* body : bodies_) body->add_hessian_diagonal(*x_, true, d);
  // Fixed dofs have the identity's diagonal.
  kernels::masked_combine(size(), free_.data(), ones_.data(), d.data());
}

LinearSolveReport DeviceMatrixFreeCg::solve(const DeviceElasticHessian& H, const DeviceVector& b,
                                            DeviceVector& x) {
  const Context& context = b.context();
  for (DeviceVector* v : {&scratch_.r, &scratch_.z, &scratch_.p, &scratch_.q})
    v->resize(context, b.size());
  H.diagonal(diagonal_);
  const LinearSolveReport pre = jacobi_.set_diagonal(diagonal_);
  if (!pre.ok()) return pre;
  return conjugate_gradient(H, jacobi_, b, x, scratch_, options_);
}

}  // namespace softgrad::cuda
