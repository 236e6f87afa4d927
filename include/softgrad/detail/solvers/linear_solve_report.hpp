/// @file linear_solve_report.hpp
/// The report every linear solve returns (status, iterations, residual, message), kept free of
/// Eigen so that device code (solvers/cuda/) can include it.
#pragma once

#include <string>

namespace softgrad {

/// Outcome of a factorization or a solve (a report, not an exception; STYLE.md §6).
struct LinearSolveReport {
  /// What happened. Only `Converged` means the result may be used.
  enum class Status {
    Converged,            ///< Solved: ||b - A x|| <= tolerance, or a successful factorization.
    MaxIterations,        ///< An iterative solver ran out of iterations; x is the last iterate.
    Breakdown,            ///< CG breakdown (e.g. the preconditioner is not positive definite).
    NotPositiveDefinite,  ///< The matrix was proved not positive definite (p^T A p <= 0, a
                          ///< failed Cholesky pivot or a non-positive diagonal entry).
    NumericalFailure,     ///< NaN/Inf, out of memory, or a backend error; see `message`.
  };
  Status status = Status::NumericalFailure;
  int iterations = 0;              ///< CG iterations (0 for direct solves and factorizations).
  double residual_norm = 0.0;      ///< ||b - A x||_2 (0 for factorizations).
  double relative_residual = 0.0;  ///< ||b - A x|| / ||b|| (0 when b == 0).
  std::string message;             ///< Human-readable details; empty when nothing to add.

  /// True iff status == Converged.
  bool ok() const { return status == Status::Converged; }
};

/// The enum value's name, e.g. "NotPositiveDefinite".
inline const char* to_string(LinearSolveReport::Status status) {
  switch (status) {
    case LinearSolveReport::Status::Converged:
      return "Converged";
    case LinearSolveReport::Status::MaxIterations:
      return "MaxIterations";
    case LinearSolveReport::Status::Breakdown:
      return "Breakdown";
    case LinearSolveReport::Status::NotPositiveDefinite:
      return "NotPositiveDefinite";
    case LinearSolveReport::Status::NumericalFailure:
      return "NumericalFailure";
  }
  return "Unknown";
}

}  // namespace softgrad
