/// @file cg.hpp
/// The one preconditioned conjugate gradient of softgrad, a template over the vector type so that
/// the CPU solvers (Eigen::VectorXd) and the CUDA backend (a device vector) share the algorithm.
///
/// Requirements on the template arguments:
///  - Vector: free functions vector_size, dot, norm, axpy, axpby, copy, set_zero (see
///    vector_ops.hpp), declared in namespace softgrad before this header or next to the vector
///    type (found by argument-dependent lookup).
///  - Operator: `void apply(const Vector& in, Vector& out) const` computing out = A in, for a
///    symmetric A; `in` and `out` never alias.
///  - Preconditioner: `void apply(const Vector& in, Vector& out) const` computing out = M^-1 in,
///    for a symmetric positive definite M.
///
/// The caller sizes the scratch vectors (CgScratch) once; the iteration allocates nothing.
#pragma once

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "softgrad/detail/solvers/linear_solve_report.hpp"
#include "softgrad/errors.hpp"
#include "solvers/vector_ops.hpp"

namespace softgrad {

/// Stopping rules of conjugate_gradient().
struct CgOptions {
  double rel_tol = 1e-10;      ///< Stop when ||b - A x|| <= rel_tol * ||b|| ...
  double abs_tol = 0.0;        ///< ... or when ||b - A x|| <= abs_tol (units of b).
  int max_iterations = 10000;  ///< At most this many products with A in the iteration.
};

/// `options` with a relative tolerance of at least `rel_tol` (inexact Newton's forcing term).
inline CgOptions loosened(CgOptions options, double rel_tol) {
  options.rel_tol = std::max(options.rel_tol, rel_tol);
  return options;
}

/// Work vectors of conjugate_gradient(), each sized like b by the caller.
template <class Vector>
struct CgScratch {
  Vector r;  ///< residual b - A x
  Vector z;  ///< preconditioned residual M^-1 r
  Vector p;  ///< search direction
  Vector q;  ///< A p
};

/// Sizes the Eigen scratch for systems of n unknowns (allocates only when n changes).
inline void resize_cg_scratch(CgScratch<Eigen::VectorXd>& scratch, Eigen::Index n) {
  scratch.r.resize(n);
  scratch.z.resize(n);
  scratch.p.resize(n);
  scratch.q.resize(n);
}

/// M = I: plain conjugate gradient.
struct IdentityPreconditioner {
  template <class Vector>
  void apply(const Vector& in, Vector& out) const {
    copy(in, out);
  }
};

namespace detail {

/// r <- b - A x, returns ||r||.
template <class Vector, class Operator>
double cg_residual(const Operator& A, const Vector& b, const Vector& x, Vector& r) {
  A.apply(x, r);
  axpby(1.0, b, -1.0, r);
  return norm(r);
}

/// Fills a report; `detail` (may be empty) becomes the message.
inline LinearSolveReport cg_report(LinearSolveReport::Status status, int iterations, double r_norm,
                                   double b_norm, std::string detail) {
  LinearSolveReport report;
  report.status = status;
  report.iterations = iterations;
  report.residual_norm = r_norm;
  report.relative_residual = b_norm > 0 ? r_norm / b_norm : 0.0;
  report.message = std::move(detail);
  return report;
}

/// "CG: what (name = value) at iteration k", for failure messages.
inline std::string cg_message(const char* what, const char* name, double value, int iteration) {
  std::ostringstream os;
  os.precision(3);
  os << "CG: " << what << " (" << name << " = " << value << ") at iteration " << iteration;
  return os.str();
}

/// Report for r^T M^-1 r = rz <= 0 (or NaN) at iteration k.
inline LinearSolveReport cg_breakdown(double rz, int k, double r_norm, double b_norm) {
  using Status = LinearSolveReport::Status;
  return cg_report(std::isnan(rz) ? Status::NumericalFailure : Status::Breakdown, k, r_norm, b_norm,
                   cg_message("preconditioner is not positive definite", "r^T M^-1 r", rz, k));
}

/// Report for the curvature p^T A p = pq <= 0 (or NaN) along p with p^T p = pp.
inline LinearSolveReport cg_negative_curvature(double pq, double pp, int k, double r_norm,
                                               double b_norm) {
  using Status = LinearSolveReport::Status;
  return cg_report(std::isnan(pq) ? Status::NumericalFailure : Status::NotPositiveDefinite, k,
                   r_norm, b_norm,
                   cg_message("non-positive curvature, the matrix is not positive definite",
                              "p^T A p / p^T p", pq / pp, k));
}

/// What CG does at the top of an iteration, with ||r|| = r_norm after k products.
enum class CgNext {
  Iterate,          ///< go on
  RefreshResidual,  ///< about to stop on a recurrence residual: compute the true one, restart
  Stop,             ///< `report` says why (not finite, converged, iteration limit)
};

/// Whether a CG solve will reach its tolerance within its iteration limit, judged every
/// `window` iterations (a tenth of the limit, at least kMinWindow) from the smallest residual so
/// far: a window without any decrease (stagnation), or a decrease so slow that the last
/// window's rate would need more than twice the limit, gives up. A solve that cannot converge
/// then ends early instead of spending the whole limit (DiffPD's Armadillo, its slivers
/// weighted as average tets: block-Jacobi CG's adjoint stood at 1e-3 after 10,000 iterations,
/// BoomerAMG's at 2.6e-9 for 8,000), and the caller's fallback starts sooner. Limits below two
/// windows are never cut short; the first window (CG's start-up) is not judged.
class CgForecast {
 public:
  static constexpr int kMinWindow = 50;
  explicit CgForecast(int max_iterations)
      : max_iterations_(max_iterations), window_(std::max(kMinWindow, max_iterations / 10)) {}
  /// After k products with residual r_norm, tolerance tol: true once the solve is hopeless
  /// (and from then on).
  bool hopeless(int k, double r_norm, double tol) {
    if (hopeless_) return true;
    best_ = std::min(best_, r_norm);
    if (k == 0 || k % window_ != 0 || k == judged_at_) return false;
    judged_at_ = k;
    const double previous = checkpoint_;
    checkpoint_ = best_;
    if (k < 2 * window_) return false;
    const double rate = best_ / previous;  // over one window
    const double windows_left = rate < 1.0 ? std::log(tol / best_) / std::log(rate) : 1e300;
    hopeless_ = k + windows_left * window_ > 2.0 * max_iterations_;
    stagnated_ = rate >= 1.0;
    return hopeless_;
  }
  bool stagnated() const { return stagnated_; }

 private:
  int max_iterations_;
  int window_;
  int judged_at_ = -1;
  double best_ = 1e300;
  double checkpoint_ = 1e300;
  bool hopeless_ = false;
  bool stagnated_ = false;
};

/// CG's stopping rules (conjugate_gradient, TeamCg): a residual that is not finite stops; a
/// recurrence residual (r_is_true false) at the tolerance, the iteration limit or a hopeless
/// forecast is replaced by the true one first; the true one stops at the tolerance, the limit
/// or the forecast (MaxIterations, saying so).
inline CgNext cg_next(double r_norm, double tol, int k, int max_iterations, bool r_is_true,
                      double b_norm, CgForecast& forecast, LinearSolveReport& report) {
  using Status = LinearSolveReport::Status;
  if (!std::isfinite(r_norm)) {
    report = cg_report(Status::NumericalFailure, k, r_norm, b_norm,
                       cg_message("residual is not finite", "||r||", r_norm, k));
    return CgNext::Stop;
  }
  const bool limit = k >= max_iterations;
  const bool hopeless = !limit && r_norm > tol && forecast.hopeless(k, r_norm, tol);
  if (!r_is_true && (r_norm <= tol || limit || hopeless)) return CgNext::RefreshResidual;
  if (r_norm <= tol) {
    report = cg_report(Status::Converged, k, r_norm, b_norm, "");
    return CgNext::Stop;
  }
  if (!limit && !hopeless) return CgNext::Iterate;
  const char* why = limit                  ? "iteration limit reached"
                    : forecast.stagnated() ? "stagnated, given up before the iteration limit"
                                           : "converging too slowly to reach the tolerance "
                                             "within the iteration limit, given up";
  report = cg_report(Status::MaxIterations, k, r_norm, b_norm,
                     cg_message(why, "relative residual", r_norm / b_norm, k));
  return CgNext::Stop;
}

/// Checks that x and the scratch vectors have the size of b.
template <class Vector>
void cg_check_sizes(const Vector& b, const Vector& x, const CgScratch<Vector>& s) {
  const auto n = vector_size(b);
  SOFTGRAD_CHECK(vector_size(x) == n && vector_size(s.r) == n && vector_size(s.z) == n &&
                     vector_size(s.p) == n && vector_size(s.q) == n,
                 "conjugate_gradient: x and the scratch vectors must have the size of b, " << n);
}

}  // namespace detail

/// Solves A x = b by preconditioned CG, starting from the given x (warm start).
///
/// Stops with Converged when the true residual satisfies ||b - A x|| <= max(rel_tol ||b||,
/// abs_tol); the recursively updated residual only triggers that check (and CG restarts from
/// the true residual if they disagree), so residual_norm is the true one on Converged and
/// MaxIterations. If b == 0, x is set to 0. `iterations` counts products A p.
/// @pre b, x and the four scratch vectors have the same size (else InternalError).
/// @return Converged; MaxIterations (x is the last iterate); NotPositiveDefinite when a search
///   direction has p^T A p <= 0, which proves A is not positive definite (x is the last
///   iterate); Breakdown when r^T M^-1 r <= 0 for r != 0 (M is not positive definite);
///   NumericalFailure on NaN/Inf. Never throws for numerical reasons.
template <class Vector, class Operator, class Preconditioner>
LinearSolveReport conjugate_gradient(const Operator& A, const Preconditioner& M, const Vector& b,
                                     Vector& x, CgScratch<Vector>& scratch,
                                     const CgOptions& options) {
  using Status = LinearSolveReport::Status;
  detail::cg_check_sizes(b, x, scratch);
  auto& [r, z, p, q] = scratch;
  const double b_norm = norm(b);
  if (!std::isfinite(b_norm)) {
    return detail::cg_report(Status::NumericalFailure, 0, b_norm, b_norm,
                             "CG: the right-hand side is not finite");
  }
  if (b_norm == 0.0) {
    set_zero(x);
    return detail::cg_report(Status::Converged, 0, 0.0, 0.0, "");
  }
  const double tol = std::max(options.rel_tol * b_norm, options.abs_tol);

  int k = 0;
  double r_norm = detail::cg_residual(A, b, x, r);
  bool r_is_true = true;  // r was computed as b - A x, not by the recurrence
  bool restart = true;    // the next direction is p = M^-1 r
  double rz = 0.0;
  detail::CgForecast forecast(options.max_iterations);
  LinearSolveReport report;
  while (true) {
    const detail::CgNext next = detail::cg_next(r_norm, tol, k, options.max_iterations, r_is_true,
                                                b_norm, forecast, report);
    if (next == detail::CgNext::Stop) return report;
    if (next == detail::CgNext::RefreshResidual) {  // restarting if the recurrence drifted
      r_norm = detail::cg_residual(A, b, x, r);
      r_is_true = restart = true;
      continue;
    }
    // Preconditioned residual and new direction: p = z on a (re)start, else p = z + beta p.
    M.apply(r, z);
    const double rz_next = dot(r, z);
    if (!(rz_next > 0.0)) return detail::cg_breakdown(rz_next, k, r_norm, b_norm);
    if (restart) {
      copy(z, p);  // not axpby with beta = 0: p may hold NaN garbage
    } else {
      axpby(1.0, z, rz_next / rz, p);
    }
    rz = rz_next;
    restart = false;
    // Step along p; p^T A p <= 0 proves that A is not positive definite.
    A.apply(p, q);
    ++k;
    const double pq = dot(p, q);
    if (!(pq > 0.0)) return detail::cg_negative_curvature(pq, dot(p, p), k, r_norm, b_norm);
    const double alpha = rz / pq;
    axpy(alpha, p, x);
    axpy(-alpha, q, r);
    r_norm = norm(r);
    r_is_true = false;
  }
}

}  // namespace softgrad
