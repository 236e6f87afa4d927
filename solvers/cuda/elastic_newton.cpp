#include "solvers/cuda/elastic_newton.hpp"

#include <cmath>
#include <limits>

#include "softgrad/errors.hpp"
#include "solvers/cuda/device_csr_matrix.hpp"
#include "solvers/cuda/vector_kernels.hpp"

namespace softgrad::cuda {

DeviceElasticNewton::DeviceElasticNewton(const Context& context,
                                         std::vector<DeviceElasticBody*> bodies,
                                         const Eigen::SparseMatrix<double>& pattern,
                                         const Eigen::VectorXd& mass, const Eigen::VectorXd& force,
                                         const std::vector<int>& fixed_dofs,
                                         const DeviceNewtonOptions& options)
    : context_(context), bodies_(std::move(bodies)), options_(options) {
  const auto n = mass.size();
  SOFTGRAD_CHECK(force.size() == n && pattern.rows() == n, "DeviceElasticNewton: sizes differ");
  Eigen::SparseMatrix<double> A = pattern;
  A.makeCompressed();
  // Diagonal slots (full symmetric storage: column i of the CSC arrays is row i of the CSR).
  std::vector<int> slots(static_cast<std::size_t>(n), -1);
  for (Eigen::Index i = 0; i < n; ++i)
    for (int k = A.outerIndexPtr()[i]; k < A.outerIndexPtr()[i + 1]; ++k)
      if (A.innerIndexPtr()[k] == i) slots[static_cast<std::size_t>(i)] = k;
  for (Eigen::Index i = 0; i < n; ++i)
    if (slots[static_cast<std::size_t>(i)] < 0)
      throw InputError("DeviceElasticNewton: the pattern has no diagonal entry in row " +
                       std::to_string(i));
  diagonal_slots_.assign(slots.data(), slots.size());
  pcg_ = std::make_unique<CudaPcgSolver>(CudaPreconditioner::Jacobi, options_.cg);
  pcg_->analyze(A);
  for (DeviceElasticBody* b : bodies_) b->bind_pattern(A);
  Eigen::VectorXd free = Eigen::VectorXd::Ones(n);
  for (int i : fixed_dofs) {
    SOFTGRAD_CHECK(i >= 0 && i < n, "DeviceElasticNewton: fixed dof " << i << " out of range");
    free[i] = 0.0;
  }
  const double dt2 = options_.dt * options_.dt;
  for (DeviceVector* v :
       {&mass_, &mass_dt2_, &force_, &free_, &xhat_, &y_, &y_try_, &g_, &dx_, &work_, &scaled_})
    v->resize(context, n);
  mass_.upload(mass);
  mass_dt2_.upload(mass / dt2);
  force_.upload(force);
  free_.upload(free);
}

DeviceElasticNewton::~DeviceElasticNewton() = default;

double DeviceElasticNewton::potential(const DeviceVector& y) {
  // Inertia 1/(2 dt^2) (y - xhat)^T M (y - xhat), external work -f^T y, elastic energies.
  copy(y, work_);
  axpy(-1.0, xhat_, work_);
  kernels::multiply(work_.size(), mass_dt2_.data(), work_.data(), scaled_.data());
  double phi = 0.5 * dot(work_, scaled_) - dot(force_, y);
  for (DeviceElasticBody* b : bodies_) phi += b->energy(y);
  return phi;
}

void DeviceElasticNewton::gradient(const DeviceVector& y, DeviceVector& g) {
  copy(y, work_);
  axpy(-1.0, xhat_, work_);
  kernels::multiply(work_.size(), mass_dt2_.data(), work_.data(), g.data());
  axpy(-1.0, force_, g);
  for (DeviceElasticBody* b : bodies_) b->add_gradient(y, g);
  kernels::multiply(g.size(), free_.data(), g.data(), g.data());  // fixed dofs do not move
}

void DeviceElasticNewton::hessian(const DeviceVector& y) {
  DeviceCsrMatrix& H = pcg_->device_matrix();
  H.set_values_zero();
  for (DeviceElasticBody* b : bodies_) b->add_hessian(y, true, H);
  kernels::add_to_diagonal(H.rows(), diagonal_slots_.data(), mass_dt2_.data(), H.values());
  kernels::apply_dirichlet(H.rows(), H.row_offsets(), H.columns(), free_.data(), H.values());
}

DeviceNewtonReport DeviceElasticNewton::step(DeviceVector& x, DeviceVector& v) {
  DeviceNewtonReport r;
  const double dt = options_.dt;
  const double tol = options_.tolerance * options_.length_scale * dt;
  // xhat = x + dt v (fixed dofs have v = 0); the initial guess is xhat.
  copy(x, xhat_);
  axpy(dt, v, xhat_);
  copy(xhat_, y_);
  double phi = potential(y_);
  if (!std::isfinite(phi)) {  // the inertial prediction inverts an element: start from x
    copy(x, y_);
    phi = potential(y_);
  }
  for (; r.iterations < options_.max_iterations; ++r.iterations) {
    gradient(y_, g_);
    hessian(y_);
    const LinearSolveReport f = pcg_->factorize_device();
    if (!f.ok()) throw ConvergenceError("DeviceElasticNewton: " + f.message);
    // dx = -H^-1 g: solve H dx = g, then negate.
    set_zero(dx_);
    const LinearSolveReport s = pcg_->solve(g_, dx_);
    r.cg_iterations += s.iterations;
    axpby(0.0, g_, -1.0, dx_);
    r.step_norm = max_abs(dx_);
    const double slope = dot(g_, dx_);
    if (r.step_norm <= tol) {
      axpy(1.0, dx_, y_);
      r.converged = true;
      ++r.iterations;
      break;
    }
    // Backtracking on Phi: sufficient decrease and a finite (feasible) value.
    double alpha = 1.0;
    int k = 0;
    for (; k < options_.max_line_search; ++k, alpha *= 0.5) {
      copy(y_, y_try_);
      axpy(alpha, dx_, y_try_);
      const double e = potential(y_try_);
      if (std::isfinite(e) && e <= phi + 1e-4 * alpha * slope) {
        phi = e;
        break;
      }
    }
    if (k == options_.max_line_search) break;  // no decrease: not converged
    copy(y_try_, y_);
    r.step_norm *= alpha;
  }
  // v = (y - x) / dt, x = y.
  copy(y_, v);
  axpy(-1.0, x, v);
  axpby(0.0, x, 1.0 / dt, v);
  copy(y_, x);
  return r;
}

}  // namespace softgrad::cuda
