#include "softgrad/solvers/linear_solver.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "softgrad/errors.hpp"
#include "solvers/cpu/cholmod_solver.hpp"
#include "solvers/cpu/matrix_free_cg.hpp"
#include "solvers/cpu/pcg_solver.hpp"
#include "solvers/cuda_backend.hpp"

namespace softgrad {

namespace {

constexpr const char* kValidKinds = "cholmod, pcg, amg, matfree, cuda";
constexpr const char* kValidPreconditioners = "jacobi, block_jacobi, ichol";

// Value of A(row, col), 0 if not stored; binary search in the sorted column.
double coeff_or_zero(const SparseMatrix& A, Eigen::Index row, Eigen::Index col) {
  const int* begin = A.innerIndexPtr() + A.outerIndexPtr()[col];
  const int* end = begin + (A.isCompressed() ? A.outerIndexPtr()[col + 1] - A.outerIndexPtr()[col]
                                             : A.innerNonZeroPtr()[col]);
  const int* it = std::lower_bound(begin, end, static_cast<int>(row));
  if (it == end || *it != row) return 0.0;
  return A.valuePtr()[it - A.innerIndexPtr()];
}

// Checks the CG settings shared by "pcg" and "matfree" and converts them.
CgOptions cg_options(const LinearSolverOptions& options) {
  if (!(options.rel_tol >= 0.0 && options.rel_tol < 1.0) ||
      !(options.abs_tol >= 0.0 && std::isfinite(options.abs_tol))) {
    std::ostringstream os;
    os << "linear solver: rel_tol = " << options.rel_tol << " and abs_tol = " << options.abs_tol
       << " are invalid: need 0 <= rel_tol < 1 and a finite abs_tol >= 0";
    throw InputError(os.str());
  }
  if (!(options.rel_tol > 0.0 || options.abs_tol > 0.0)) {
    throw InputError("linear solver: rel_tol and abs_tol are both 0; set rel_tol > 0, e.g. 1e-10");
  }
  if (options.max_iterations < 1) {
    throw InputError("linear solver: max_iterations = " + std::to_string(options.max_iterations) +
                     " is invalid: need max_iterations >= 1");
  }
  return CgOptions{options.rel_tol, options.abs_tol, options.max_iterations};
}

}  // namespace

bool is_symmetric(const SparseMatrix& A, double rel_tol) {
  return detail::is_symmetric(A, rel_tol, /*skip_non_finite=*/false);
}

namespace detail {

bool is_symmetric(const SparseMatrix& A, double rel_tol, bool skip_non_finite) {
  if (A.rows() != A.cols()) return false;
  double scale = 0.0;
  for (Eigen::Index j = 0; j < A.outerSize(); ++j) {
    for (SparseMatrix::InnerIterator it(A, j); it; ++it) {
      if (std::isfinite(it.value())) scale = std::max(scale, std::abs(it.value()));
    }
  }
  const double tol = rel_tol * scale;
  for (Eigen::Index j = 0; j < A.outerSize(); ++j) {
    for (SparseMatrix::InnerIterator it(A, j); it; ++it) {
      const double mirror = coeff_or_zero(A, j, it.index());
      if (skip_non_finite && !(std::isfinite(it.value()) && std::isfinite(mirror))) continue;
      // NaN-safe: a NaN difference fails the check.
      if (!(std::abs(it.value() - mirror) <= tol)) return false;
    }
  }
  return true;
}

void check_symmetric_input(const SparseMatrix& A, const char* who) {
  if (A.rows() != A.cols()) {
    std::ostringstream os;
    os << who << ": the matrix is " << A.rows() << " x " << A.cols() << " but must be square";
    throw InputError(os.str());
  }
  if (!is_symmetric(A, 1e-8, /*skip_non_finite=*/true)) {
    std::ostringstream os;
    os << who << ": the matrix is not symmetric; the solvers need full symmetric storage "
       << "(both triangles, A(i, j) == A(j, i))";
    throw InputError(os.str());
  }
}

bool SymmetryCheck::check(const SparseMatrix& A, bool new_pattern, const char* who) {
  if (!A.isCompressed()) {  // positions need the compressed layout: check in full
    check_symmetric_input(A, who);
    n_entries_ = -1;
    for (Eigen::Index j = 0; j < A.outerSize(); ++j)
      for (SparseMatrix::InnerIterator it(A, j); it; ++it)
        if (!std::isfinite(it.value())) return false;
    return true;
  }
  const Eigen::Map<const Eigen::VectorXd> values(A.valuePtr(), A.nonZeros());
  if (new_pattern || n_entries_ != A.nonZeros()) {
    check_symmetric_input(A, who);
    pairs_.clear();
    singles_.clear();
    unpaired_.clear();
    for (int j = 0; j < static_cast<int>(A.outerSize()); ++j)
      for (int k = A.outerIndexPtr()[j]; k < A.outerIndexPtr()[j + 1]; ++k) {
        const int i = A.innerIndexPtr()[k];
        if (i == j) {
          singles_.push_back(k);
          continue;
        }
        const int* begin = A.innerIndexPtr() + A.outerIndexPtr()[i];
        const int* end = A.innerIndexPtr() + A.outerIndexPtr()[i + 1];
        const int* m = std::lower_bound(begin, end, j);
        if (m == end || *m != j) {
          unpaired_.push_back(k);
        } else if (i > j) {  // each pair once, from its lower entry
          pairs_.push_back({k, static_cast<int>(m - A.innerIndexPtr())});
        }
      }
    n_entries_ = A.nonZeros();
    return values.allFinite();
  }
  // One pass over the pairs, diagonals and unpaired entries (every entry once), with two
  // accumulators per reduction: a single chain of max() is latency-bound, and this runs once
  // per Newton iteration. probe turns NaN once any entry is NaN or Inf.
  const double* a = A.valuePtr();
  double scale[2] = {0.0, 0.0}, worst[2] = {0.0, 0.0}, probe[2] = {0.0, 0.0};
  const size_t n_pairs = pairs_.size();
  for (size_t p = 0; p < n_pairs; ++p) {
    const double lo = a[pairs_[p].first], hi = a[pairs_[p].second];
    scale[p % 2] = std::max(scale[p % 2], std::abs(lo));
    worst[p % 2] = std::max(worst[p % 2], std::abs(lo - hi));
    probe[p % 2] += (lo + hi) * 0.0;
  }
  for (int k : singles_) {
    scale[0] = std::max(scale[0], std::abs(a[k]));
    probe[0] += a[k] * 0.0;
  }
  for (int k : unpaired_) {
    scale[0] = std::max(scale[0], std::abs(a[k]));
    worst[0] = std::max(worst[0], std::abs(a[k]));
    probe[0] += a[k] * 0.0;
  }
  if (probe[0] + probe[1] != 0.0) {
    // NaN/Inf entries are left to the solvers (which report them); the full check skips them.
    check_symmetric_input(A, who);
    return false;
  }
  if (!(std::max(worst[0], worst[1]) <= 1e-8 * std::max(scale[0], scale[1])))
    check_symmetric_input(A, who);  // throws
  return true;
}

void store_matrix(const SparseMatrix& A, bool same_pattern, SparseMatrix& stored) {
  if (same_pattern && A.isCompressed() && stored.isCompressed()) {
    std::copy_n(A.valuePtr(), A.nonZeros(), stored.valuePtr());
    return;
  }
  stored = A;
  stored.makeCompressed();
}

bool same_pattern(const SparseMatrix& A, const SparseMatrix& B) {
  if (A.rows() != B.rows() || A.cols() != B.cols() || A.nonZeros() != B.nonZeros()) return false;
  if (A.isCompressed() && B.isCompressed()) {
    return std::equal(A.outerIndexPtr(), A.outerIndexPtr() + A.outerSize() + 1,
                      B.outerIndexPtr()) &&
           std::equal(A.innerIndexPtr(), A.innerIndexPtr() + A.nonZeros(), B.innerIndexPtr());
  }
  for (Eigen::Index j = 0; j < A.outerSize(); ++j) {
    SparseMatrix::InnerIterator a(A, j);
    SparseMatrix::InnerIterator b(B, j);
    for (; a && b; ++a, ++b) {
      if (a.index() != b.index()) return false;
    }
    if (a || b) return false;
  }
  return true;
}

}  // namespace detail

std::unique_ptr<LinearSolver> make_linear_solver(const LinearSolverOptions& options) {
  const std::string& kind = options.kind;
  const std::string& pre = options.preconditioner;
  if (pre != "jacobi" && pre != "ichol" && pre != "block_jacobi") {
    throw InputError("linear solver: unknown preconditioner '" + pre +
                     "'; valid preconditioners: " + kValidPreconditioners);
  }
  if (kind == "cholmod") return std::make_unique<CholmodSolver>();
  if (kind == "pcg") {
    const auto preconditioner = pre == "ichol"          ? PcgPreconditioner::IncompleteCholesky
                                : pre == "block_jacobi" ? PcgPreconditioner::BlockJacobi
                                                        : PcgPreconditioner::Jacobi;
    return std::make_unique<PcgSolver>(preconditioner, cg_options(options));
  }
  if (kind == "amg") {
    if (pre != "jacobi") {
      throw InputError("linear solver: preconditioner '" + pre +
                       "' does not apply to kind 'amg', whose preconditioner is algebraic "
                       "multigrid (use kind 'pcg' for '" +
                       pre + "')");
    }
    if (!amg_available()) {
      throw InputError(
          "linear solver 'amg' needs hypre: install libhypre-dev and configure the build again");
    }
    return std::make_unique<PcgSolver>(PcgPreconditioner::Amg, cg_options(options));
  }
  if (kind == "matfree") {
    if (pre != "jacobi") {
      throw InputError("linear solver: preconditioner '" + pre +
                       "' needs an assembled matrix; kind 'matfree' supports only 'jacobi' "
                       "(use kind 'pcg' for '" +
                       pre + "')");
    }
    return std::make_unique<MatrixFreeCgSolver>(cg_options(options));
  }
  if (kind == "cuda") {
    if (!detail::cuda_backend_built())
      throw InputError("backend 'cuda' needs -DSOFTGRAD_WITH_CUDA=ON");
    if (pre != "jacobi") {
      throw InputError("linear solver: preconditioner '" + pre +
                       "' is not available on the GPU; kind 'cuda' supports only 'jacobi'");
    }
    return detail::make_cuda_pcg_solver(cg_options(options));
  }
  throw InputError("linear solver: unknown kind '" + kind + "'; valid kinds: " + kValidKinds);
}

}  // namespace softgrad
