#include "newton.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace softgrad {
namespace {

using Status = NewtonReport::Status;

NewtonReport fail(NewtonReport r, Status status, const std::string& message) {
  r.status = status;
  r.message = message;
  return r;
}

/// Whether a step's predicted decrease (-slope) is below the round-off of Phi = `energy`, so
/// that the energy cannot judge it.
bool below_round_off(double slope, double energy) {
  return -slope <= 64.0 * std::numeric_limits<double>::epsilon() * std::abs(energy);
}

/// Solves H dx = -g by CHOLMOD where CG gave up on it (`failed`, MaxIterations): the Hessian
/// (projected or not) is assembled if it is not (matrix-free), factorised and solved. A Hessian
/// that is not positive definite returns that report, so that the caller projects it.
LinearSolveReport solve_directly(IncrementalPotential& phi, NewtonLinearSolver solver,
                                 const Eigen::VectorXd& x, bool project, const Eigen::VectorXd& rhs,
                                 Eigen::VectorXd& dx, const LinearSolveReport& failed,
                                 NewtonReport& r) {
  if (solver.matrix_free) phi.hessian(x, project);
  if (!*solver.direct_fallback) *solver.direct_fallback = make_linear_solver(LinearSolverOptions{});
  LinearSolver& direct = **solver.direct_fallback;
  LinearSolveReport lr = direct.factorize(phi.matrix());
  ++r.factorizations;
  if (lr.status == LinearSolveReport::Status::NotPositiveDefinite) return lr;
  if (lr.ok()) lr = direct.solve(rhs, dx);
  if (!lr.ok()) return failed;
  ++r.direct_fallbacks;
  return lr;
}

/// Solves H dx = -g with the configured backend; returns false on failure (message in r).
/// `project`: use the PSD-projected Hessian; an exact Hessian that is not positive definite
/// (or gives no descent direction) sets it and retries when the options allow projection.
/// `forcing`: the iterative solvers may stop at this relative residual (0: their own).
bool newton_direction(IncrementalPotential& phi, NewtonLinearSolver solver,
                      const NewtonOptions& options, const Eigen::VectorXd& x,
                      const Eigen::VectorXd& g, const Eigen::VectorXd& rhs, double forcing,
                      Eigen::VectorXd& dx, NewtonReport& r, bool& project) {
  LinearSolveReport lr;
  if (solver.matrix_free) {
    // Exact Hessian-vector products; CG stops at negative curvature (truncated Newton-CG).
    const IncrementalPotential::Operator op(phi, x);
    dx.setZero(x.size());
    lr = solver.matrix_free->solve(op, rhs, dx, forcing);
    r.linear_iterations += lr.iterations;
    if (lr.status == LinearSolveReport::Status::NotPositiveDefinite && dx.dot(g) < 0.0) return true;
    if (lr.status == LinearSolveReport::Status::MaxIterations && solver.direct_fallback) {
      lr = solve_directly(phi, solver, x, project, rhs, dx, lr, r);
      if (lr.status == LinearSolveReport::Status::NotPositiveDefinite && options.project_hessian &&
          !project) {
        project = true;  // matrix-free CG takes the exact Hessian: CHOLMOD the projected one
        lr = solve_directly(phi, solver, x, project, rhs, dx, lr, r);
      }
    }
  } else {
    phi.hessian(x, project);
    lr = solver.assembled->factorize(phi.matrix());
    ++r.factorizations;
    if (lr.ok()) {
      dx.setZero(x.size());
      lr = solver.assembled->solve_inexact(rhs, dx, forcing);
      r.linear_iterations += lr.iterations;
      if (lr.status == LinearSolveReport::Status::MaxIterations && solver.direct_fallback &&
          !solver.assembled->is_direct())
        lr = solve_directly(phi, solver, x, project, rhs, dx, lr, r);
    }
    const bool rejected =
        lr.status == LinearSolveReport::Status::NotPositiveDefinite ||
        lr.status == LinearSolveReport::Status::Breakdown ||
        ((lr.ok() || lr.status == LinearSolveReport::Status::MaxIterations) && !(dx.dot(g) < 0.0));
    if (!project && options.project_hessian && rejected) {
      project = true;
      return newton_direction(phi, solver, options, x, g, rhs, forcing, dx, r, project);
    }
  }
  if (lr.ok() || lr.status == LinearSolveReport::Status::MaxIterations) return true;
  r.message = "linear solver failed: " + lr.message;
  return false;
}

/// Continues an inexact direction's solve (same matrix, warm-started from dx) to the solver's
/// own tolerance. Returns false if that solve fails where the inexact one had not.
bool refine_direction(IncrementalPotential& phi, NewtonLinearSolver solver,
                      const Eigen::VectorXd& x, bool project, const Eigen::VectorXd& rhs,
                      Eigen::VectorXd& dx, NewtonReport& r) {
  LinearSolveReport lr;
  if (solver.matrix_free) {
    const IncrementalPotential::Operator op(phi, x);
    lr = solver.matrix_free->solve(op, rhs, dx);
  } else {
    lr = solver.assembled->solve_unmeasured(rhs, dx);
  }
  r.linear_iterations += lr.iterations;
  if (lr.status == LinearSolveReport::Status::MaxIterations && solver.direct_fallback &&
      (solver.matrix_free || !solver.assembled->is_direct()))
    lr = solve_directly(phi, solver, x, project, rhs, dx, lr, r);
  if (lr.ok() || lr.status == LinearSolveReport::Status::MaxIterations ||
      lr.status == LinearSolveReport::Status::NotPositiveDefinite)
    return true;
  r.message = "linear solver failed: " + lr.message;
  return false;
}

/// Eisenstat and Walker's forcing terms ("choice 2", gamma 0.9, exponent 2, with their
/// safeguard against dropping too fast), capped at max_forcing: CG directions only as accurate
/// as the gradient's convergence can use (SIAM J. Sci. Comput. 17, 1996).
class ForcingSequence {
 public:
  ForcingSequence(double max_forcing, bool iterative)
      : max_(iterative ? max_forcing : 0.0), eta_(max_) {}
  /// The forcing term for the direction at a gradient of 2-norm `g_norm`.
  double next(double g_norm) {
    if (max_ > 0.0 && g_norm_prev_ > 0.0) {
      const double ratio = g_norm / g_norm_prev_;
      double eta = kGamma * ratio * ratio;
      const double safeguard = kGamma * eta_ * eta_;
      if (safeguard > 0.1) eta = std::max(eta, safeguard);
      eta_ = std::min(max_, eta);
    }
    g_norm_prev_ = g_norm;
    return eta_;
  }
  /// Whether directions are solved inexactly at all.
  bool active() const { return max_ > 0.0; }

 private:
  static constexpr double kGamma = 0.9;
  double max_;
  double eta_;
  double g_norm_prev_ = 0.0;
};

/// What a chord step did.
enum class Chord { Rejected, Accepted, Converged };

/// A chord (modified-Newton) step: dx = -H_prev^-1 g with the factorization of an earlier
/// iterate, which a new Hessian would barely change after a small full step. With an iterative
/// solver, CG from zero on the kept matrix and preconditioner, stopped at relative residual
/// `forcing`.
///  - Converged: a descent step below the tolerance whose end point is feasible (x updated);
///    the solve ends.
///  - Accepted: a descent step of at most `contraction` times the last step's length that
///    decreases Phi sufficiently (x, g, energy and r.step_norm updated); Newton goes on.
///  - Rejected: x unchanged; a Newton step follows. x_try and g_try are scratch.
Chord chord_step(IncrementalPotential& phi, LinearSolver& solver, double step_tolerance,
                 double contraction, double forcing, Eigen::VectorXd& g, const Eigen::VectorXd& rhs,
                 Eigen::VectorXd& dx, NewtonReport& r, double& energy, Eigen::VectorXd& x,
                 Eigen::VectorXd& x_try, Eigen::VectorXd& g_try) {
  LinearSolveReport lr;
  if (solver.is_direct()) {
    lr = solver.solve_unmeasured(rhs, dx);
  } else {
    dx.setZero(rhs.size());  // the last step is no guess: this one is a fraction of it
    lr = solver.solve_inexact(rhs, dx, forcing);
    r.linear_iterations += lr.iterations;
    // As for Newton directions: an inexact solve may leave the kinematic rows nonzero.
    for (int i : phi.fixed_dofs()) dx[i] = 0.0;
  }
  const double slope = dx.dot(g);
  if (!lr.ok() || !(slope < 0.0)) return Chord::Rejected;
  const double step_norm = dx.lpNorm<Eigen::Infinity>();
  if (step_norm <= step_tolerance) {
    x_try = x + dx;
    const double e = phi.value(x_try);
    if (!std::isfinite(e)) return Chord::Rejected;
    x.swap(x_try);
    ++r.iterations;
    r.step_norm = step_norm;
    r.energy = e;
    return Chord::Converged;
  }
  // Taken only if it shrinks, and never across an obstacle (the Newton step's t_max).
  if (!(step_norm <= contraction * r.step_norm) || phi.max_step(x, dx) < 1.0)
    return Chord::Rejected;
  x_try = x + dx;
  const double e = phi.value_and_gradient(x_try, g_try);
  if (!std::isfinite(e)) return Chord::Rejected;
  // A predicted decrease below Phi's round-off cannot be seen in the energy (as for Newton
  // steps): the gradient judges the step instead (the Armadillo: 1 in 3 chord steps a few
  // tolerances long were refused for it, each costing a factorization).
  const bool round_off = below_round_off(slope, energy);
  const bool decreases = round_off ? g_try.lpNorm<Eigen::Infinity>() < g.lpNorm<Eigen::Infinity>()
                                   : e <= energy + 1e-4 * slope;
  if (!decreases) return Chord::Rejected;
  x.swap(x_try);
  g.swap(g_try);
  ++r.iterations;
  r.step_norm = step_norm;
  r.energy = energy = e;
  return Chord::Accepted;
}

/// Whether a full step of `step_norm` leaves a factorization worth reusing for chord steps:
/// within chord_window tolerances, or any full step where a factorization costs at least
/// chord_always_cost solves (then a failed chord try costs little against what a kept
/// factorization saves). With CG on an assembled matrix, any full step while chord_forcing > 0:
/// a loose CG solve costs a fraction of a new Hessian and preconditioner. chord_window = 0:
/// never.
bool reusable(const NewtonLinearSolver& solver, const NewtonOptions& options, double step_norm,
              double step_tolerance) {
  if (solver.assembled == nullptr || options.chord_window <= 0.0) return false;
  if (!solver.assembled->is_direct()) return options.chord_forcing > 0.0;
  return step_norm <= options.chord_window * step_tolerance ||
         solver.assembled->factorization_cost_in_solves() >= options.chord_always_cost;
}

}  // namespace

NewtonReport newton_solve(IncrementalPotential& phi, NewtonLinearSolver solver,
                          const NewtonOptions& options, double step_tolerance, Eigen::VectorXd& x,
                          const NewtonStart* start) {
  NewtonReport r;
  // A step depends on its own inputs only (a multigrid hierarchy is kept within the step).
  if (solver.assembled) solver.assembled->forget_history();
  // Energies and gradients come together (value_and_gradient): an accepted line-search point
  // is the next iterate, and its gradient is then already known.
  Eigen::VectorXd g(x.size()), rhs(x.size()), dx(x.size()), x_try(x.size()), g_try(x.size());
  double energy = 0.0;
  if (start) {
    energy = start->energy;
    g = *start->gradient;
  } else {
    energy = phi.value_and_gradient(x, g);
  }
  if (!std::isfinite(energy))
    return fail(r, Status::InfeasibleStart,
                "the starting point is infeasible: " + phi.infeasibility(x));
  const bool exact_first = options.project_hessian && options.exact_hessian_first;
  bool project = options.project_hessian && !options.exact_hessian_first;
  // The exact Hessian is tried again after a full projected step: near the solution it is
  // positive definite again, and projected Newton would converge only linearly there (the
  // Armadillo's step 21: 50 projected iterations left |g| at 0.05 N, where 5 exact ones reach
  // the tolerance). After an exact Hessian fails, the next try waits for a step half as long,
  // so failed factorizations grow only with the log of the step's shrinking.
  double exact_retry_below = std::numeric_limits<double>::infinity();
  const auto after_full_step = [&] {
    if (project && exact_first && r.step_norm <= exact_retry_below) project = false;
  };
  bool factorization_reusable = false;  // the last step was full, small and factorised
  // Corrections stop for the rest of the solve once a corrected direction needs backtracking:
  // a term's local model then disagrees with the coupled step, and plain Newton is safe.
  bool correcting = options.correct_directions;
  const bool iterative = solver.matrix_free != nullptr || !solver.assembled->is_direct();
  ForcingSequence forcing(options.max_forcing, iterative);
  const auto interrupted = [&] { return options.interrupt && *options.interrupt != 0; };
  for (r.iterations = 0; r.iterations < options.max_iterations;) {
    if (interrupted()) return fail(r, Status::Interrupted, "interrupted within the step");
    r.gradient_norm = g.lpNorm<Eigen::Infinity>();
    rhs = -g;
    if (factorization_reusable) {
      const Chord chord =
          chord_step(phi, *solver.assembled, step_tolerance, options.chord_contraction,
                     options.chord_forcing, g, rhs, dx, r, energy, x, x_try, g_try);
      if (chord == Chord::Converged) return r;
      if (chord == Chord::Accepted) continue;
    }
    factorization_reusable = false;
    const bool tried_exact = !project;
    if (!newton_direction(phi, solver, options, x, g, rhs, forcing.next(g.norm()), dx, r, project))
      return fail(r, Status::LinearSolverFailed, r.message);
    // An inexact direction below the tolerance could be short of the exact one: solve it to
    // the solver's tolerance before judging convergence on it.
    if (forcing.active() && dx.lpNorm<Eigen::Infinity>() <= step_tolerance &&
        !refine_direction(phi, solver, x, project, rhs, dx, r))
      return fail(r, Status::LinearSolverFailed, r.message);
    // The kinematic dofs' rows are identities with zero right-hand side, but an inexact solve
    // may leave them nonzero (a preconditioner that couples them): they must not move, and no
    // later step would bring them back (their gradient is zeroed).
    for (int i : phi.fixed_dofs()) dx[i] = 0.0;
    const bool exact_failed = tried_exact && project;
    double slope = g.dot(dx);
    bool corrected_direction = false;
    if (correcting && slope < 0.0) {
      x_try = dx;  // scratch: the plain Newton direction, kept in case the correction ascends
      if (phi.correct_direction(x, g, dx)) {
        const double corrected = g.dot(dx);
        if (corrected < 0.0) {
          slope = corrected;
          corrected_direction = true;
        } else {
          dx.swap(x_try);
        }
      }
    }
    if (!(slope < 0.0)) {  // not a descent direction (or NaN): fall back to steepest descent
      dx = -g;
      slope = -g.squaredNorm();
    }
    ++r.iterations;
    r.step_norm = dx.lpNorm<Eigen::Infinity>();
    if (exact_failed) exact_retry_below = 0.5 * r.step_norm;
    if (r.step_norm <= step_tolerance) {
      if (phi.max_step(x, dx) < 1.0) return r;  // it would cross a surface: stay
      x += dx;  // a step this small is below the tolerance: take it and stop
      r.energy = phi.value(x);
      if (!std::isfinite(r.energy)) {  // unless it touches a barrier obstacle
        x -= dx;
        r.energy = phi.value(x);
      }
      return r;
    }
    // Terms that must not be crossed (barrier contact) cap the step at their first time of
    // impact; the line search starts just below it.
    const double t_max = phi.max_step(x, dx);
    const double alpha_start = t_max < 1.0 ? 0.9 * t_max : 1.0;
    // A predicted decrease below the round-off of Phi cannot be seen by a line search: take the
    // full Newton step (the gradient keeps converging quadratically) if it is feasible.
    if (t_max >= 1.0 && below_round_off(slope, energy)) {
      x_try = x + dx;
      const double e = phi.value_and_gradient(x_try, g_try);
      if (std::isfinite(e)) {
        x.swap(x_try);
        g.swap(g_try);
        r.energy = energy = e;
        factorization_reusable = reusable(solver, options, r.step_norm, step_tolerance);
        after_full_step();
        continue;
      }
    }
    // Backtracking: sufficient decrease, and finite energy (the feasibility filter).
    double alpha = alpha_start;
    int k = 0;
    for (; k < options.max_line_search; ++k, alpha *= 0.5) {
      if (interrupted()) return fail(r, Status::Interrupted, "interrupted within the step");
      if (t_max >= 1.0 && alpha * r.step_norm <= step_tolerance &&
          r.step_norm <= 1e3 * step_tolerance) {
        // Near convergence and backtracked below the tolerance: Phi's round-off (which scales
        // with the cancelling element energies, not with |Phi|) hides the decrease. Take the
        // full Newton step if it is feasible; the next iteration's step decides convergence.
        x_try = x + dx;
        const double e = phi.value_and_gradient(x_try, g_try);
        if (std::isfinite(e)) {
          alpha = 1.0;
          energy = e;
          break;
        }
        k = options.max_line_search;
        break;
      }
      x_try = x + alpha * dx;
      const double e = phi.value_and_gradient(x_try, g_try);
      if (std::isfinite(e) && e <= energy + 1e-4 * alpha * slope) {
        energy = e;
        break;
      }
      // The full step changes Phi only at its round-off level (which scales with the
      // cancelling term energies, not with |Phi|): energies cannot judge it, the gradient can.
      // Accept it if it halves the gradient (backtracking here would creep in 2^-k steps).
      if (alpha == 1.0 && std::isfinite(e) &&
          std::abs(e - energy) <= 1e-9 * std::max(std::abs(e), std::abs(energy))) {
        if (g_try.lpNorm<Eigen::Infinity>() <= 0.5 * r.gradient_norm) {
          energy = e;
          break;
        }
      }
    }
    if (k == options.max_line_search) {
      std::ostringstream os;
      os << "line search found no decrease along the Newton direction after "
         << options.max_line_search << " halvings (|dx|_inf = " << r.step_norm << ")";
      return fail(r, Status::LineSearchFailed, os.str());
    }
    if (corrected_direction && alpha < 1.0) correcting = false;
    x.swap(x_try);
    g.swap(g_try);  // every accepted point's gradient was evaluated with its energy
    r.energy = energy;
    r.step_norm *= alpha;
    if (alpha == 1.0) after_full_step();
    factorization_reusable = alpha == 1.0 && reusable(solver, options, r.step_norm, step_tolerance);
  }
  std::ostringstream os;
  os << "Newton did not converge in " << options.max_iterations
     << " iterations (last |dx|_inf = " << r.step_norm << " m, tolerance " << step_tolerance
     << " m, |g|_inf = " << r.gradient_norm << ")";
  return fail(r, Status::MaxIterations, os.str());
}

}  // namespace softgrad
