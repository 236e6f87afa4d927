#include "solvers/cpu/team_cg.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "softgrad/detail/parallel.hpp"
#include "softgrad/errors.hpp"
#include "solvers/cpu/preconditioners.hpp"

namespace softgrad {

namespace {

using Index = Eigen::Index;
using Status = LinearSolveReport::Status;

// What every thread of a solve shares.
template <class Preconditioner>
struct Problem {
  const SparseMatrixOperator& A;
  const Preconditioner& M;
  const Eigen::VectorXd& b;
  Eigen::VectorXd& x;
  CgScratch<Eigen::VectorXd>& s;
  const CgOptions& options;
  Index n;
  int chunks;
  double* rr = nullptr;  // per chunk: r.r (b.b at the start), r.z, p.q, p.p
  double* rz = nullptr;
  double* pq = nullptr;
  double* pp = nullptr;
};

Index chunk_begin(int c, Index n) { return std::min(n, c * TeamCg::kChunkRows); }

// The first chunk of thread t of T: the chunks split so that each thread's rows hold about the
// same number of matrix entries (the product's work).
int first_chunk(const SparseMatrix& A, int chunks, int t, int T) {
  if (t <= 0) return 0;
  if (t >= T) return chunks;
  const int* outer = A.outerIndexPtr();
  const double target = static_cast<double>(A.nonZeros()) * t / T;
  int c = 0;
  while (c < chunks && outer[chunk_begin(c, A.cols())] < target) ++c;
  return c;
}

double sum_in_order(const double* part, int chunks) {
  double sum = 0.0;
  for (int c = 0; c < chunks; ++c) sum += part[c];
  return sum;
}

void barrier(int T) {
  if (T > 1) {
#pragma omp barrier
  }
}

// The whole solve as thread t of T runs it: its rows are chunks [c0, c1). Every thread takes
// the same decisions, from the same sums; barriers separate the writes of a vector or of a sum's
// parts from their reads by other threads.
template <class Preconditioner>
LinearSolveReport solve_as_thread(const Problem<Preconditioner>& P, int t, int T) {
  const int c0 = first_chunk(P.A.matrix(), P.chunks, t, T);
  const int c1 = first_chunk(P.A.matrix(), P.chunks, t + 1, T);
  const Index lo = chunk_begin(c0, P.n);
  const Index hi = chunk_begin(c1, P.n);
  const SparseMatrix& A = P.A.matrix();
  const BlockLayout& layout = P.A.layout();
  const Eigen::VectorXd& b = P.b;
  Eigen::VectorXd& x = P.x;
  // (Named references, not a structured binding: clang 14 cannot capture those in a lambda.)
  Eigen::VectorXd& r = P.s.r;
  Eigen::VectorXd& z = P.s.z;
  Eigen::VectorXd& p = P.s.p;
  Eigen::VectorXd& q = P.s.q;
  auto rows = [&](const Eigen::VectorXd& v, int c) {
    return v.segment(chunk_begin(c, P.n), chunk_begin(c + 1, P.n) - chunk_begin(c, P.n));
  };

  for (int c = c0; c < c1; ++c) P.rr[c] = rows(b, c).squaredNorm();
  barrier(T);
  const double b_norm = std::sqrt(sum_in_order(P.rr, P.chunks));
  if (!std::isfinite(b_norm)) {
    return detail::cg_report(Status::NumericalFailure, 0, b_norm, b_norm,
                             "CG: the right-hand side is not finite");
  }
  if (b_norm == 0.0) {
    x.segment(lo, hi - lo).setZero();
    return detail::cg_report(Status::Converged, 0, 0.0, 0.0, "");
  }
  const double tol = std::max(P.options.rel_tol * b_norm, P.options.abs_tol);

  double r_norm = 0.0;
  double rz_next = 0.0;
  // r <- b - A x and z <- M^-1 r on this thread's rows, then ||r|| and r^T z (x must be whole,
  // and every thread done with the last sums of r.r and r.z).
  auto true_residual = [&] {
    symmetric_spmv_rows(A, layout, x, r, lo, hi);
    r.segment(lo, hi - lo) = b.segment(lo, hi - lo) - r.segment(lo, hi - lo);
    P.M.apply_rows(r, z, lo, hi);
    for (int c = c0; c < c1; ++c) {
      P.rr[c] = rows(r, c).squaredNorm();
      P.rz[c] = rows(r, c).dot(rows(z, c));
    }
    barrier(T);
    r_norm = std::sqrt(sum_in_order(P.rr, P.chunks));
    rz_next = sum_in_order(P.rz, P.chunks);
  };

  barrier(T);  // every thread has read b's norm before r.r's parts are written
  true_residual();
  int k = 0;
  bool r_is_true = true;  // r was computed as b - A x, not by the recurrence
  bool restart = true;    // the next direction is p = M^-1 r
  double rz = 0.0;
  detail::CgForecast forecast(P.options.max_iterations);  // every thread judges alike
  LinearSolveReport report;
  while (true) {
    const detail::CgNext next = detail::cg_next(r_norm, tol, k, P.options.max_iterations, r_is_true,
                                                b_norm, forecast, report);
    if (next == detail::CgNext::Stop) return report;
    if (next == detail::CgNext::RefreshResidual) {  // restarting if the recurrence drifted
      barrier(T);                                   // every thread has read the sums of r.r and r.z
      true_residual();
      r_is_true = restart = true;
      continue;
    }
    if (!(rz_next > 0.0)) return detail::cg_breakdown(rz_next, k, r_norm, b_norm);
    // New direction: p = z on a (re)start, else p = z + beta p.
    if (restart) {
      p.segment(lo, hi - lo) = z.segment(lo, hi - lo);
    } else {
      const double beta = rz_next / rz;
      p.segment(lo, hi - lo) = z.segment(lo, hi - lo) + beta * p.segment(lo, hi - lo);
    }
    rz = rz_next;
    restart = false;
    barrier(T);  // p whole before the product reads it
    symmetric_spmv_rows(A, layout, p, q, lo, hi);
    for (int c = c0; c < c1; ++c) P.pq[c] = rows(p, c).dot(rows(q, c));
    ++k;
    barrier(T);
    const double pq = sum_in_order(P.pq, P.chunks);
    if (!(pq > 0.0)) {  // p^T A p <= 0 proves that A is not positive definite
      for (int c = c0; c < c1; ++c) P.pp[c] = rows(p, c).squaredNorm();
      barrier(T);
      return detail::cg_negative_curvature(pq, sum_in_order(P.pp, P.chunks), k, r_norm, b_norm);
    }
    const double alpha = rz / pq;
    x.segment(lo, hi - lo) += alpha * p.segment(lo, hi - lo);
    r.segment(lo, hi - lo) -= alpha * q.segment(lo, hi - lo);
    P.M.apply_rows(r, z, lo, hi);
    for (int c = c0; c < c1; ++c) {
      P.rr[c] = rows(r, c).squaredNorm();
      P.rz[c] = rows(r, c).dot(rows(z, c));
    }
    barrier(T);  // x, r, z whole; the sums' parts written
    r_norm = std::sqrt(sum_in_order(P.rr, P.chunks));
    rz_next = sum_in_order(P.rz, P.chunks);
    r_is_true = false;
  }
}

}  // namespace

template <class Preconditioner>
LinearSolveReport TeamCg::solve_on(int threads, const SparseMatrixOperator& A,
                                   const Preconditioner& M, const Eigen::VectorXd& b,
                                   Eigen::VectorXd& x, CgScratch<Eigen::VectorXd>& scratch,
                                   const CgOptions& options) {
  detail::cg_check_sizes(b, x, scratch);
  const Index n = b.size();
  SOFTGRAD_CHECK(A.size() == n, "TeamCg: the matrix has " << A.size() << " rows, b " << n);
  SOFTGRAD_CHECK(A.matrix().isCompressed(), "TeamCg: the matrix must be compressed");
  const int chunks = static_cast<int>((n + kChunkRows - 1) / kChunkRows);
  parts_.resize(4 * static_cast<size_t>(std::max(chunks, 1)));
  Problem<Preconditioner> problem{A, M, b, x, scratch, options, n, chunks};
  problem.rr = parts_.data();
  problem.rz = problem.rr + chunks;
  problem.pq = problem.rz + chunks;
  problem.pp = problem.pq + chunks;
  threads = std::clamp(threads, 1, std::max(chunks, 1));
  if (threads == 1) {
    last_team_ = 1;
    return solve_as_thread(problem, 0, 1);
  }
  LinearSolveReport report;
  int team = 1;
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    const int T = omp_get_num_threads();
    LinearSolveReport mine = solve_as_thread(problem, t, T);
    if (t == 0) {
      report = std::move(mine);
      team = T;
    }
  }
  last_team_ = team;
  return report;
}

template <class Preconditioner>
LinearSolveReport TeamCg::solve(const SparseMatrixOperator& A, const Preconditioner& M,
                                const Eigen::VectorXd& b, Eigen::VectorXd& x,
                                CgScratch<Eigen::VectorXd>& scratch, const CgOptions& options) {
  const int threads = b.size() >= kMinTeamRows ? parallel_team() : 1;
  if (threads == 1) return solve_on(1, A, M, b, x, scratch, options);
  const int way = choice_.next();
  const auto start = std::chrono::steady_clock::now();
  LinearSolveReport report = solve_on(way == 1 ? threads : 1, A, M, b, x, scratch, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  choice_.record(way, seconds / (report.iterations + 1));  // per product with A
  return report;
}

template LinearSolveReport TeamCg::solve(const SparseMatrixOperator&, const JacobiPreconditioner&,
                                         const Eigen::VectorXd&, Eigen::VectorXd&,
                                         CgScratch<Eigen::VectorXd>&, const CgOptions&);
template LinearSolveReport TeamCg::solve(const SparseMatrixOperator&,
                                         const BlockJacobiPreconditioner&, const Eigen::VectorXd&,
                                         Eigen::VectorXd&, CgScratch<Eigen::VectorXd>&,
                                         const CgOptions&);
template LinearSolveReport TeamCg::solve_on(int, const SparseMatrixOperator&,
                                            const JacobiPreconditioner&, const Eigen::VectorXd&,
                                            Eigen::VectorXd&, CgScratch<Eigen::VectorXd>&,
                                            const CgOptions&);
template LinearSolveReport TeamCg::solve_on(int, const SparseMatrixOperator&,
                                            const BlockJacobiPreconditioner&,
                                            const Eigen::VectorXd&, Eigen::VectorXd&,
                                            CgScratch<Eigen::VectorXd>&, const CgOptions&);

}  // namespace softgrad
