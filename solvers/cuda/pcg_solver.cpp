#include "solvers/cuda/pcg_solver.hpp"

#include <sstream>

#include "softgrad/errors.hpp"
#include "solvers/cuda/context.hpp"
#include "solvers/cuda/device_csr_matrix.hpp"
#include "solvers/cuda/device_vector.hpp"
#include "solvers/cuda/preconditioners.hpp"

namespace softgrad::cuda {

struct CudaPcgSolver::Impl {
  Context context;
  DeviceCsrMatrix A{context};
  SparseMatrix pattern;  // host copy of the analysed pattern (values unused)
  DeviceJacobiPreconditioner jacobi;
  DeviceBlockJacobiPreconditioner block_jacobi;
  CgScratch<DeviceVector> scratch;
  DeviceVector b;
  DeviceVector x;
  LinearSolveReport factor_report;
  bool analyzed = false;
  bool factorized = false;
};

CudaPcgSolver::CudaPcgSolver(CudaPreconditioner preconditioner, const CgOptions& options)
    : impl_(std::make_unique<Impl>()), preconditioner_(preconditioner), options_(options) {}

CudaPcgSolver::~CudaPcgSolver() = default;

std::string CudaPcgSolver::name() const {
  return preconditioner_ == CudaPreconditioner::Jacobi ? "cuda_pcg(jacobi)"
                                                       : "cuda_pcg(block_jacobi)";
}

void CudaPcgSolver::analyze(const SparseMatrix& A) {
  softgrad::detail::check_symmetric_input(A, "CudaPcgSolver::analyze");
  Impl& s = *impl_;
  s.pattern = A;
  s.pattern.makeCompressed();
  s.A.set_pattern(s.pattern);
  const auto n = static_cast<std::ptrdiff_t>(A.rows());
  for (DeviceVector* v : {&s.scratch.r, &s.scratch.z, &s.scratch.p, &s.scratch.q, &s.b, &s.x})
    v->resize(s.context, n);
  s.analyzed = true;
  s.factorized = false;
}

LinearSolveReport CudaPcgSolver::factorize(const SparseMatrix& A) {
  softgrad::detail::check_symmetric_input(A, "CudaPcgSolver::factorize");
  Impl& s = *impl_;
  if (!s.analyzed || !A.isCompressed() || !softgrad::detail::same_pattern(A, s.pattern)) {
    analyze(A);  // uploads the values too
  } else {
    s.A.set_values(A);
  }
  return factorize_device();
}

DeviceCsrMatrix& CudaPcgSolver::device_matrix() { return impl_->A; }

LinearSolveReport CudaPcgSolver::factorize_device() {
  Impl& s = *impl_;
  if (!s.analyzed) throw InputError("CudaPcgSolver::factorize_device() called before analyze()");
  s.factor_report = preconditioner_ == CudaPreconditioner::Jacobi ? s.jacobi.set_matrix(s.A)
                                                                  : s.block_jacobi.set_matrix(s.A);
  if (!s.factor_report.message.empty()) s.factor_report.message.insert(0, name() + ": ");
  s.factorized = true;
  return s.factor_report;
}

LinearSolveReport CudaPcgSolver::solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) {
  return solve_with(b, x, options_);
}

LinearSolveReport CudaPcgSolver::solve_inexact(const Eigen::VectorXd& b, Eigen::VectorXd& x,
                                               double rel_tol) {
  return solve_with(b, x, loosened(options_, rel_tol));
}

LinearSolveReport CudaPcgSolver::solve_with(const Eigen::VectorXd& b, Eigen::VectorXd& x,
                                            const CgOptions& options) {
  Impl& s = *impl_;
  if (!s.factorized) throw InputError("CudaPcgSolver::solve() called before factorize()");
  if (b.size() != s.A.rows()) {
    std::ostringstream os;
    os << "CudaPcgSolver::solve(): right-hand side has size " << b.size() << " but the matrix has "
       << s.A.rows() << " rows";
    throw InputError(os.str());
  }
  if (!s.factor_report.ok()) return s.factor_report;
  // Warm start from x when it has the right size.
  if (x.size() != b.size()) x.setZero(b.size());
  s.b.upload(b);
  s.x.upload(x);
  const LinearSolveReport report = solve_with(s.b, s.x, options);
  s.x.download(x);
  return report;
}

LinearSolveReport CudaPcgSolver::solve(const DeviceVector& b, DeviceVector& x) {
  return solve_with(b, x, options_);
}

LinearSolveReport CudaPcgSolver::solve_with(const DeviceVector& b, DeviceVector& x,
                                            const CgOptions& options) {
  Impl& s = *impl_;
  if (!s.factorized) throw InputError("CudaPcgSolver::solve() called before factorize()");
  if (!s.factor_report.ok()) return s.factor_report;
  const DeviceCsrOperator op{&s.A};
  if (preconditioner_ == CudaPreconditioner::Jacobi)
    return conjugate_gradient(op, s.jacobi, b, x, s.scratch, options);
  return conjugate_gradient(op, s.block_jacobi, b, x, s.scratch, options);
}

}  // namespace softgrad::cuda
