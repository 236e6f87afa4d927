/// @file simulator.hpp
/// Backward Euler as minimisation of the incremental potential, and static equilibrium, both by
/// Newton's method with a PSD-projected Hessian, a backtracking line search with a feasibility
/// filter, and a choice of linear solver.
#pragma once

#include <csignal>
#include <memory>
#include <string>
#include <vector>

#include "softgrad/model.hpp"
#include "softgrad/solvers/linear_solver.hpp"
#include "softgrad/state.hpp"

namespace softgrad {

struct SimulatorWorkspace;  // src/integrator/simulator_workspace.hpp

struct NewtonOptions {
  /// Converged when ||dx||_inf <= tolerance * L (L the model's length scale) in statics, and
  /// ||dx||_inf / dt <= tolerance * L per second in dynamics (a velocity tolerance).
  double tolerance = 1e-9;
  int max_iterations = 50;
  int max_line_search = 40;  ///< halvings before the line search gives up
  /// Project element Hessians to PSD where the exact Hessian is not positive definite.
  bool project_hessian = true;
  /// With project_hessian: try the exact Hessian first in each step and project only after it
  /// fails to factorise (not positive definite) or gives no descent direction; after a full
  /// projected step, try the exact one again (after a failed try, once the step has halved).
  /// Near a strict minimum the exact Hessian is positive definite and Newton converges
  /// quadratically, where the projected one converges linearly (2D quadruped: 5.1 instead of
  /// 10.5 iterations per step at tolerance 1e-7).
  bool exact_hessian_first = true;
  /// With a direct solver: after a full step of at most this many tolerances, the next steps
  /// are first tried as chord steps with that step's factorization (no Hessian assembled or
  /// factorised; the Hessians differ by the change of x over the small steps). A chord step
  /// below the tolerance ends the solve; one that shrinks to at most chord_contraction times the
  /// step before it and decreases Phi sufficiently is taken, and the next is tried the same way;
  /// anything else falls back to a Newton step. 0 disables chord steps (with every solver,
  /// chord_forcing's too). 2D quadruped: 3.73 ->
  /// 2.69 factorizations per step, forward runs ~15% cheaper (benchmarks/locomotion_speed).
  double chord_window = 1e4;
  /// Where a factorization costs at least this many solves with it
  /// (LinearSolver::factorization_cost_in_solves: CHOLMOD's flops), chord steps follow every
  /// full step, whatever its length: a refused chord try then costs a fraction of what a kept
  /// factorization saves. The Armadillo (54,855 tets, cost 81 solves): 3.1 -> 1.05
  /// factorizations per step; soft_on_bone (18): 1.5x faster steps; small scenes (cost 2-5,
  /// with contact) lost up to 17% with chord steps after every step, those at 7.7 gained 30%
  /// (benchmarks/armadillo.py, scenes/*.json). Needs chord_window > 0.
  double chord_always_cost = 6.0;
  /// The largest ratio of a taken chord step to the step before it, in [0, 1): it bounds the
  /// rate of the chord steps' linear convergence, so a solve that ends on a chord step ends
  /// within c / (1 - c) tolerances of the solution. 0: chord steps only end a solve.
  double chord_contraction = 0.3;
  /// With the CG backends on an assembled matrix (pcg, amg): after every full step, the next
  /// steps are first tried as chord steps with that step's matrix and preconditioner, by CG
  /// stopped at this relative residual, under the same rules as the direct solver's (a CG
  /// chord solve costs a fraction of a new Hessian and preconditioner; the directions' own
  /// error, at most this fraction, adds to the staleness the contraction rule bounds). Peer beam
  /// at 10k tets, pcg: 4.6 Hessians and 349 CG iterations per step -> 1 and about 160, the step
  /// 2x faster (benchmarks/newton_step_cost). 0: no chord steps with CG (chord_window = 0:
  /// none with any solver).
  double chord_forcing = 0.03;
  /// Start Newton from x_n + h v_n + h^2 a_n, a_n = M^-1 f(x_n) the acceleration of the step
  /// that ended at x_n (backward Euler's equation of motion): a second-order extrapolation where
  /// the inertial prediction x_n + h v_n is first order. a_n is kept in the state (State::a), so
  /// its forces are the last step's; a rollout's first step evaluates this step's forces at x_n
  /// instead (one gradient). The guess is taken only where it lowers the incremental potential
  /// (after an impact or a change of actuation the last acceleration can be wrong). Peer beam at
  /// 10k tets: the first Newton step 5x shorter, 1.2 fewer iterations per step. false:
  /// x_n + h v_n.
  bool accelerated_guess = true;
  /// Let energy terms correct Newton directions where their quadratic model is known to fail
  /// (EnergyTerm::correct_direction: lagged friction's knee). A corrected direction is used
  /// only if it still descends, and corrections stop for the rest of a solve once a corrected
  /// direction needs backtracking. Same solution, fewer iterations (2D quadruped: 4.88 -> 4.05
  /// Newton iterations per step); false: plain Newton directions.
  bool correct_directions = true;
  /// Inexact Newton with the iterative solvers (pcg, matfree, cuda): CG stops at a relative
  /// residual eta_k instead of the solver's tolerance, eta_k = 0.9 (|g_k| / |g_k-1|)^2
  /// (Eisenstat and Walker's choice 2, with their safeguard), at most max_forcing. A step below
  /// Newton's tolerance is solved again to the solver's tolerance before the solve ends, so the
  /// solution's accuracy is that of exact directions. 0: every solve to the solver's tolerance.
  double max_forcing = 0.1;
  /// Polled before each Newton iteration and each line-search trial: when it points to a
  /// non-zero value (a signal handler's flag), the solve stops with status Interrupted and the
  /// step leaves its state unchanged under either failure policy, so Ctrl-C or SIGTERM ends
  /// a long step within one iteration instead of at its end. nullptr: never polled.
  const volatile std::sig_atomic_t* interrupt = nullptr;
  bool operator==(const NewtonOptions&) const = default;
};

/// What to do when Newton does not converge within a step.
enum class FailurePolicy {
  Stop,     ///< the step returns its failure report; the caller stops (default)
  Continue  ///< accept the last iterate, warn, and go on (the report still says it failed)
};

struct SimulationOptions {
  double dt = 1e-2;  ///< time step [s]
  NewtonOptions newton;
  LinearSolverOptions linear;  ///< "cholmod", "pcg" or "matfree"
  FailurePolicy on_failure = FailurePolicy::Stop;
  bool operator==(const SimulationOptions&) const = default;
};

struct NewtonReport {
  enum class Status {
    Converged,
    MaxIterations,
    LineSearchFailed,
    LinearSolverFailed,
    InfeasibleStart,
    Interrupted  ///< NewtonOptions::interrupt was raised; the state is the step's start
  };
  Status status = Status::Converged;
  int iterations = 0;
  int linear_iterations = 0;  ///< summed over iterations (0 for direct solves)
  int factorizations = 0;     ///< Hessians assembled and factorised (direct solvers)
  /// Newton directions that CG (pcg, amg, matfree) could not solve, solved by CHOLMOD instead
  /// (their factorisations count above).
  int direct_fallbacks = 0;
  double energy = 0.0;         ///< Phi at the final iterate [J]
  double step_norm = 0.0;      ///< last ||dx||_inf [m]
  double gradient_norm = 0.0;  ///< last ||g_free||_inf
  std::string message;
  bool converged() const { return status == Status::Converged; }
};

const char* to_string(NewtonReport::Status s);

struct NewtonStart;  // src/integrator/newton.hpp

/// One rollout's workspace for a Model: the Hessian assembler (its pattern analysed once), the
/// linear solver with its last factorization (the adjoint reuses it), and the energy terms'
/// per-rollout data. The Model is shared and never written; run two rollouts side by side
/// with one Simulator each. A Simulator is not thread-safe.
class Simulator {
 public:
  Simulator(std::shared_ptr<const Model> model, SimulationOptions options);
  ~Simulator();

  /// The state at rest (x = X, v = 0, t = 0) with kinematics applied at t = 0.
  State rest_state() const;
  /// One backward-Euler step from s to s(t + dt), in place, with the terms' parameter values
  /// `parameters` (Model::default_parameters() layout). On failure with policy Stop, s is left
  /// unchanged. `prescribed` (optional) overrides the scripted kinematics: the positions of
  /// Model::kinematic_dofs() (in that order) at the end of the step.
  /// @throws InputError for parameters or prescribed positions of the wrong sizes.
  NewtonReport step(State& s, const TermParameters& parameters,
                    const Eigen::VectorXd* prescribed = nullptr);
  /// The same with the model's default parameters.
  NewtonReport step(State& s, const Eigen::VectorXd* prescribed = nullptr);
  /// Static equilibrium under the potentials (no inertia, no damping), starting from s.x, with
  /// kinematics at s.t. @throws InputError if nothing is held fixed (the problem is singular
  /// or unbounded).
  NewtonReport solve_static(State& s, const TermParameters& parameters,
                            const Eigen::VectorXd* prescribed = nullptr);
  NewtonReport solve_static(State& s, const Eigen::VectorXd* prescribed = nullptr);

  const Model& model() const { return *model_; }
  const std::shared_ptr<const Model>& shared_model() const { return model_; }
  const SimulationOptions& options() const { return options_; }
  /// The model's default parameter values.
  const TermParameters& default_parameters() const { return defaults_; }
  /// @throws InputError unless `parameters` has one vector per term of the right length.
  void check_parameters(const TermParameters& parameters) const;
  /// Total potential energy sum_terms W(x) (no inertia, no damping) at time t [J].
  double potential_energy(const Eigen::VectorXd& x, const TermParameters& parameters,
                          double t = 0.0);
  double potential_energy(const Eigen::VectorXd& x) { return potential_energy(x, defaults_); }
  /// Its gradient dW/dx (n_dofs) [N]. At an equilibrium it vanishes on the free dofs; on the
  /// prescribed ones it is the force the supports exert on the body (the reactions).
  Eigen::VectorXd potential_gradient(const Eigen::VectorXd& x, const TermParameters& parameters,
                                     double t = 0.0);
  /// Kinetic energy 1/2 v^T M v [J].
  double kinetic_energy(const Eigen::VectorXd& v) const;

 private:
  /// Writes the kinematic dofs of x at time t: the scripted motion, or `prescribed`.
  void apply_kinematics(double t, const Eigen::VectorXd* prescribed, Eigen::VectorXd& x) const;
  /// NewtonOptions::accelerated_guess for the step from s: replaces x (xhat with kinematics)
  /// by the guess, and fills `start` with Phi and its gradient there, where the guess lowers
  /// Phi; returns whether it did. After IncrementalPotential::begin for the step.
  bool accelerated_guess(const State& s, double t_next, const Eigen::VectorXd* prescribed,
                         const Eigen::VectorXd& xhat, Eigen::VectorXd& x, NewtonStart& start);

  // The adjoint reuses the potential, the assembler's pattern and the solver's analysis.
  friend SimulatorWorkspace simulator_workspace(Simulator& sim);
  struct Impl;
  std::shared_ptr<const Model> model_;
  SimulationOptions options_;
  TermParameters defaults_;
  std::vector<int> n_parameters_;  ///< per term
  std::unique_ptr<Impl> impl_;
};

}  // namespace softgrad
