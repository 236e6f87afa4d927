/// @file adjoint.hpp
/// Exact gradients of a loss on a trajectory by the implicit-function theorem (adjoint method,
/// docs/mathematics.md), and forward (tangent) sensitivities for few parameters.
///
/// Each converged step satisfies g(x_{n+1}; x_n, v_n, p) = 0. Walking back from n = T-1, the
/// adjoint solves H(x_{n+1}) lambda = xbar_{n+1} with the EXACT Hessian (not PSD-projected) and
/// pulls lambda back through every input of the step: x_n, v_n (inertia and lagged terms), term
/// parameters (their mixed products), and prescribed kinematic positions. No Newton iteration
/// is differentiated; the cost is one linear solve per step: a factorisation, or CG (large
/// systems with a direct solver: CG preconditioned by a factorisation kept from a later step,
/// refactorised when CG slows).
///
/// Accuracy: the gradient is exact up to the Newton tolerance tau (NewtonOptions::tolerance,
/// relative to the model size) and the linear solver's tolerance. A converged step's residual
/// is O(|H| tau L dt), which perturbs x_{n+1} and hence lambda by O(tau): with the default
/// tau = 1e-9 gradients agree with central differences to 1e-6 or better on the test scenes.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "softgrad/loss.hpp"
#include "softgrad/parameters.hpp"
#include "softgrad/simulator.hpp"
#include "softgrad/trajectory.hpp"

namespace softgrad {

struct AdjointOptions {
  /// The solver for H lambda = xbar: "cholmod" (a numeric factorisation per step, reusing the
  /// forward solver's symbolic analysis), "pcg" (CG on the assembled Hessian), "matfree" (CG on
  /// Hessian-vector products, never assembled). Empty kind: the simulator's own.
  /// CG tolerance 1e-10: Jacobi-PCG on these Hessians stalls near 1e-12 in double precision
  /// (and then runs to the iteration cap every step), while 1e-10 already gives the gradient to
  /// ~1e-11 relative to the direct solve (benchmarks/adjoint_cantilever).
  LinearSolverOptions linear{.kind = "", .preconditioner = "jacobi", .rel_tol = 1e-10};
  /// CG backends: each step's solve starts from the Galerkin projection of its solution onto the
  /// span of this many previous steps' solutions and the warm start (RecycledGuess; 0: the
  /// previous solution alone). Eight took 32% fewer CG iterations than the warm start alone on
  /// the peer beam at 10k tets (12 or more: no fewer), at the cost of eight products a step.
  int recycled_solutions = 8;
  /// CG backends: a step whose CG solve cannot converge (it gives up early when its residual
  /// stagnates or falls too slowly to reach the tolerance within the limit, or breaks down) is
  /// solved again by CHOLMOD, listed in AdjointReport::direct_fallback_steps; false leaves it
  /// unsolved (AdjointReport::unsolved_steps, an untrustworthy gradient).
  bool direct_fallback = true;
  /// Asked before each step of the backward sweep: true ends it there (Ctrl-C). The result then
  /// has report.interrupted set and no gradient (a part of the sweep is not a part of it).
  std::function<bool()> stop;
};

/// What the backward pass did, and whether its gradient can be trusted.
struct AdjointReport {
  std::string backend;
  int steps = 0;               ///< steps linearised
  long linear_iterations = 0;  ///< CG iterations summed (0 for direct solves)
  /// Hessians factorised (direct solvers): one per step, fewer where a factorisation is kept
  /// across steps as CG's preconditioner (large systems; its CG iterations count above).
  int factorizations = 0;
  std::vector<int> indefinite_steps;   ///< exact Hessian not positive definite (LU used)
  std::vector<int> unconverged_steps;  ///< forward steps whose Newton solve did not converge
  std::vector<int> unsolved_steps;     ///< steps whose adjoint linear solve did not converge
  /// Steps whose iterative solve (pcg, amg, matfree) could not converge and which CHOLMOD then
  /// solved (not unsolved: their gradient is exact).
  std::vector<int> direct_fallback_steps;
  double worst_relative_residual = 0.0;  ///< largest ||H lambda - xbar|| / ||xbar|| of a CG solve
  std::vector<std::string> warnings;
  bool interrupted = false;        ///< AdjointOptions::stop ended the sweep after `steps` steps
  double backward_seconds = 0.0;   ///< including recomputation
  double recompute_seconds = 0.0;  ///< re-simulating checkpoint segments
  int recomputed_steps = 0;
  std::size_t trajectory_bytes = 0;  ///< stored checkpoints
  std::size_t segment_bytes = 0;     ///< the recomputed segment held during the sweep
  std::size_t peak_rss_bytes = 0;    ///< the process's peak resident memory so far
  /// True when no step was indefinite, no forward step unconverged and every adjoint linear
  /// solve reached its tolerance.
  bool trustworthy() const {
    return indefinite_steps.empty() && unconverged_steps.empty() && unsolved_steps.empty();
  }
};

struct GradientResult {
  double loss = 0.0;
  Eigen::VectorXd gradient;  ///< dL/dtheta, in ParameterSet order
  AdjointReport report;
};

/// The loss of a trajectory and its gradient with respect to `params` (theta), by the adjoint.
/// It depends on nothing but the trajectory (its model, options, inputs and states): `sim` is
/// only a workspace (its analysed pattern and solver are reused), for the trajectory's model
/// and options. @throws InputError if it is not; ConvergenceError if a Hessian is singular.
GradientResult gradient(Simulator& sim, const Trajectory& trajectory, const Loss& loss,
                        const ParameterSet& params, const AdjointOptions& options = {});
/// The same with a workspace of its own.
GradientResult gradient(const Trajectory& trajectory, const Loss& loss, const ParameterSet& params,
                        const AdjointOptions& options = {});

/// The loss alone (recomputing checkpoint segments if needed).
double evaluate_loss(Simulator& sim, const Trajectory& trajectory, const Loss& loss);

/// Called at every state n = 0..T with the state and its sensitivities dx_n/dtheta and
/// dv_n/dtheta (n_dofs x |theta|).
using SensitivityObserver = std::function<void(int n, const State& s, const Eigen::MatrixXd& dx,
                                               const Eigen::MatrixXd& dv)>;

/// Simulates the rollout and propagates forward sensitivities alongside: per step one
/// factorisation of the exact Hessian and |theta| solves. For few parameters (Ceres Jacobians).
Trajectory simulate_with_sensitivities(Simulator& sim, const Rollout& rollout,
                                       const ParameterSet& params,
                                       const SensitivityObserver& observe,
                                       const AdjointOptions& options = {},
                                       AdjointReport* report = nullptr);

/// dL/dtheta by forward sensitivities: the same number as gradient(), by the other route.
GradientResult tangent_gradient(Simulator& sim, const Rollout& rollout, const Loss& loss,
                                const ParameterSet& params, const AdjointOptions& options = {});

/// The process's peak resident set size [bytes] (0 where unknown).
std::size_t peak_rss_bytes();

}  // namespace softgrad
