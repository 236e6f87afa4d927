#include "solvers/cpu/cholmod_solver.hpp"

#include <cholmod.h>

#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

#include "softgrad/errors.hpp"
#include "solvers/cpu/linear_operator.hpp"
#include "solvers/cpu/planned_cholesky.hpp"
#include "solvers/cpu/serial_openmp.hpp"

namespace softgrad {

namespace {

using Status = LinearSolveReport::Status;

// CHOLMOD's status codes in words.
const char* cholmod_status_name(int status) {
  switch (status) {
    case CHOLMOD_OK:
      return "ok";
    case CHOLMOD_NOT_INSTALLED:
      return "method not installed";
    case CHOLMOD_OUT_OF_MEMORY:
      return "out of memory";
    case CHOLMOD_TOO_LARGE:
      return "integer overflow (problem too large)";
    case CHOLMOD_INVALID:
      return "invalid input";
    case CHOLMOD_NOT_POSDEF:
      return "matrix not positive definite";
    case CHOLMOD_DSMALL:
      return "tiny diagonal entry";
    default:
      return "unknown status";
  }
}

// A read-only cholmod_sparse view of a compressed Eigen matrix (no copy): CHOLMOD's column
// pointers, row indices and values are Eigen's. Both triangles are stored, so CHOLMOD may read
// either: stype = -1 the lower one, +1 the upper one. A supernodal factorization of a permuted
// matrix copies the upper one once and the lower one twice (cholmod_factorize_p's ptransposes:
// 5% of the Armadillo's step), a simplicial one the lower one once.
cholmod_sparse sparse_view(const SparseMatrix& A, int stype = -1) {
  SOFTGRAD_ASSERT(A.isCompressed());
  cholmod_sparse view{};
  view.nrow = static_cast<size_t>(A.rows());
  view.ncol = static_cast<size_t>(A.cols());
  view.nzmax = static_cast<size_t>(A.nonZeros());
  view.p = const_cast<int*>(A.outerIndexPtr());
  view.i = const_cast<int*>(A.innerIndexPtr());
  view.x = const_cast<double*>(A.valuePtr());
  view.stype = stype;
  view.itype = CHOLMOD_INT;
  view.xtype = CHOLMOD_REAL;
  view.dtype = CHOLMOD_DOUBLE;
  view.sorted = 1;  // Eigen keeps the row indices of each column sorted
  view.packed = 1;
  return view;
}

// A cholmod_dense view of one vector (no copy).
cholmod_dense dense_view(const Eigen::VectorXd& v) {
  cholmod_dense view{};
  view.nrow = static_cast<size_t>(v.size());
  view.ncol = 1;
  view.nzmax = static_cast<size_t>(v.size());
  view.d = static_cast<size_t>(v.size());
  view.x = const_cast<double*>(v.data());
  view.xtype = CHOLMOD_REAL;
  view.dtype = CHOLMOD_DOUBLE;
  return view;
}

}  // namespace

// Above this many multiply-adds per factorization (a plan stores an index for each) CHOLMOD's
// own numeric phase is used: its overhead is then small against the arithmetic.
constexpr long kMaxPlannedUpdates = 200000;

struct CholmodSolver::Impl {
  cholmod_common common{};
  cholmod_factor* L = nullptr;
  // cholmod_solve2 workspace, reused between solves.
  cholmod_dense* X = nullptr;
  cholmod_dense* Y = nullptr;
  cholmod_dense* E = nullptr;
  SparseMatrix A;  // compressed copy of the last matrix (the analyzed pattern)
  detail::SymmetryCheck symmetry;
  Eigen::VectorXd Ax;  // scratch for the residual
  // Small simplicial factors: CHOLMOD orders, PlannedCholesky refactorizes and solves.
  std::optional<PlannedCholesky> planned;
  LinearSolveReport factor_report;
  bool factorized = false;  // factorize() was called (successfully or not)
  int analyses = 0;
  double cost_in_solves = 0.0;  // the analysis's factorization flops over a solve's

  Impl() {
    inline_cholmod_openmp_regions();
    cholmod_start(&common);
    // Supernodal for large 3D Hessians, simplicial for small ones (a 2D creature: 1.2x faster
    // steps); LL' in both, so that an indefinite matrix fails its pivot (LDL' would not).
    common.supernodal = CHOLMOD_AUTO;
    common.final_ll = 1;
    common.print = 0;  // library code never prints; failures come back as reports
  }
  ~Impl() {
    cholmod_free_factor(&L, &common);
    cholmod_free_dense(&X, &common);
    cholmod_free_dense(&Y, &common);
    cholmod_free_dense(&E, &common);
    cholmod_finish(&common);
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  // The report of a solve: the true residual ||b - A x|| (one sparse product) if `measure`,
  // NaN otherwise.
  LinearSolveReport residual_report(const Eigen::VectorXd& b, const Eigen::VectorXd& x,
                                    bool measure) {
    LinearSolveReport report;
    report.residual_norm = report.relative_residual = std::numeric_limits<double>::quiet_NaN();
    if (measure) {
      symmetric_spmv(A, x, Ax);
      const double b_norm = b.norm();
      report.residual_norm = (b - Ax).norm();
      report.relative_residual = b_norm > 0 ? report.residual_norm / b_norm : 0.0;
    }
    const bool finite = x.allFinite() && (!measure || std::isfinite(report.residual_norm));
    report.status = finite ? Status::Converged : Status::NumericalFailure;
    if (!finite) report.message = "CHOLMOD: the solution is not finite";
    return report;
  }

  // Symbolic analysis of the pattern of this->A.
  void analyze_stored() {
    cholmod_free_factor(&L, &common);
    factorized = false;
    cholmod_sparse view = sparse_view(A);
    {
      const SerialOpenMP serial;
      L = cholmod_analyze(&view, &common);
    }
    SOFTGRAD_CHECK(L != nullptr && common.status >= CHOLMOD_OK,
                   "cholmod_analyze failed: " << cholmod_status_name(common.status));
    ++analyses;
    cost_in_solves = common.lnz > 0.0 ? common.fl / (4.0 * common.lnz) : 0.0;
    planned.reset();
    if (!L->is_super)
      planned = PlannedCholesky::plan(A, static_cast<const int*>(L->Perm), kMaxPlannedUpdates);
  }
};

CholmodSolver::CholmodSolver() : impl_(std::make_unique<Impl>()) {}
CholmodSolver::~CholmodSolver() = default;

std::string CholmodSolver::name() const { return "cholmod"; }

int CholmodSolver::analysis_count() const { return impl_->analyses; }

double CholmodSolver::factorization_cost_in_solves() const { return impl_->cost_in_solves; }

void CholmodSolver::analyze(const SparseMatrix& A) {
  detail::check_symmetric_input(A, "CholmodSolver::analyze");
  impl_->A = A;
  impl_->A.makeCompressed();
  impl_->analyze_stored();
}

LinearSolveReport CholmodSolver::factorize(const SparseMatrix& A) {
  Impl& s = *impl_;
  // Keep a compressed copy; re-analyze when the pattern differs from the analyzed one.
  const bool reanalyze = s.L == nullptr || !detail::same_pattern(A, s.A);
  const bool finite = s.symmetry.check(A, reanalyze, "CholmodSolver::factorize");
  detail::store_matrix(A, !reanalyze, s.A);
  if (reanalyze) s.analyze_stored();
  s.factorized = true;
  LinearSolveReport& report = s.factor_report;
  report = LinearSolveReport{};
  if (!finite) {
    report.status = Status::NumericalFailure;
    report.message = "CHOLMOD: the matrix has NaN or Inf entries";
    return report;
  }
  // Numeric factorization with the stored analysis: planned, or CHOLMOD's own.
  Eigen::Index failed = -1;  // the failing pivot's column in the fill-reducing order
  bool ok = true;
  if (s.planned) {
    failed = s.planned->factorize(s.A.valuePtr());
  } else {
    cholmod_sparse view = sparse_view(s.A, s.L->is_super ? 1 : -1);
    const SerialOpenMP serial;
    ok = cholmod_factorize(&view, s.L, &s.common) && s.common.status >= CHOLMOD_OK;
    if (s.common.status == CHOLMOD_NOT_POSDEF) failed = static_cast<Eigen::Index>(s.L->minor);
  }
  std::ostringstream os;
  if (failed >= 0) {
    const int* perm = static_cast<const int*>(s.L->Perm);
    report.status = Status::NotPositiveDefinite;
    os << "CHOLMOD: the matrix is not positive definite: the Cholesky pivot failed at column "
       << failed << " of the fill-reducing order (column " << (perm ? perm[failed] : failed)
       << " of the matrix)";
  } else if (!ok) {
    report.status = Status::NumericalFailure;
    os << "CHOLMOD: cholmod_factorize failed: " << cholmod_status_name(s.common.status);
  } else {
    report.status = Status::Converged;
  }
  report.message = os.str();
  return report;
}

LinearSolveReport CholmodSolver::solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) {
  return solve(b, x, /*measure=*/true);
}

LinearSolveReport CholmodSolver::solve_unmeasured(const Eigen::VectorXd& b, Eigen::VectorXd& x) {
  return solve(b, x, /*measure=*/false);
}

LinearSolveReport CholmodSolver::solve(const Eigen::VectorXd& b, Eigen::VectorXd& x, bool measure) {
  Impl& s = *impl_;
  if (!s.factorized) throw InputError("CholmodSolver::solve() called before factorize()");
  if (b.size() != s.A.rows()) {
    std::ostringstream os;
    os << "CholmodSolver::solve(): right-hand side has size " << b.size() << " but the matrix has "
       << s.A.rows() << " rows";
    throw InputError(os.str());
  }
  if (!s.factor_report.ok()) return s.factor_report;
  if (s.planned) {
    s.planned->solve(b, x);
    return s.residual_report(b, x, measure);
  }
  // Solve with the stored factor; X, Y, E are reused when their size fits.
  cholmod_dense B = dense_view(b);
  int ok = 0;
  {
    const SerialOpenMP serial;
    ok = cholmod_solve2(CHOLMOD_A, s.L, &B, nullptr, &s.X, nullptr, &s.Y, &s.E, &s.common);
  }
  LinearSolveReport report;
  if (!ok || s.X == nullptr) {
    report.status = Status::NumericalFailure;
    report.message =
        std::string("CHOLMOD: cholmod_solve2 failed: ") + cholmod_status_name(s.common.status);
    return report;
  }
  x = Eigen::Map<const Eigen::VectorXd>(static_cast<const double*>(s.X->x), b.size());
  return s.residual_report(b, x, measure);
}

}  // namespace softgrad
