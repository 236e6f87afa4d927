#include "step_linearization.hpp"

#include "../energies/inertia_term.hpp"
#include "../integrator/simulator_workspace.hpp"
#include "softgrad/errors.hpp"
#include "solvers/cg.hpp"

namespace softgrad {

StepLinearization::StepLinearization(Simulator& sim, const LinearSolverOptions& options,
                                     bool keep_factorizations)
    : model_(sim.model()), dt_step_(sim.options().dt), options_(options) {
  const SimulatorWorkspace workspace = simulator_workspace(sim);
  phi_ = &workspace.potential;
  if (options_.kind.empty()) {
    options_.kind = sim.options().linear.kind;
    options_.preconditioner = sim.options().linear.preconditioner;
  }
  if (options_.kind == "matfree") {
    make_linear_solver(options_);  // validates the options
    matrix_free_ = std::make_unique<MatrixFreeCgSolver>(
        CgOptions{options_.rel_tol, options_.abs_tol, options_.max_iterations});
  } else if (workspace.linear && options_.kind == sim.options().linear.kind &&
             options_.preconditioner == sim.options().linear.preconditioner &&
             options_.kind == "cholmod" && !keep_factorizations) {
    solver_ = workspace.linear;  // the forward solve's symbolic analysis, reused
  } else {
    // Kept factorisations need a solver of their own: recomputed forward steps (checkpoints)
    // factorise in the simulator's.
    own_solver_ = make_linear_solver(options_);
    own_solver_->analyze(phi_->matrix());
    solver_ = own_solver_.get();
    reuse_ = keep_factorizations && solver_->is_direct();
  }
  // Kept only where a factorisation costs many solves: small systems factorise every step, as
  // cheaply, and their gradients keep the direct solve's accuracy.
  if (reuse_) reuse_ = solver_->factorization_cost_in_solves() >= kMinReuseCost;
}

StepLinearization::~StepLinearization() = default;

std::string StepLinearization::backend() const {
  if (matrix_free_) return "matfree";
  return solver_->name();
}

const std::vector<int>& StepLinearization::kinematic_dofs() const { return phi_->fixed_dofs(); }

void StepLinearization::linearize(const State& prev, const Eigen::VectorXd& x, bool statics,
                                  const TermParameters& parameters) {
  const double dt = statics ? 0.0 : dt_step_;
  statics_ = statics;
  dt_ = dt;
  x_prev_ = prev.x;
  v_prev_ = prev.v;
  adaptive_ = prev.adaptive;
  x_ = x;
  const StepContext ctx{dt,       statics ? prev.t : prev.t + dt, &x_prev_,
                        &v_prev_, statics ? 0 : prev.step,        &adaptive_};
  phi_->begin(ctx, parameters);
  indefinite_ = false;
  step_ = prev.step;
  if (matrix_free_) return;  // Hessian-vector products at solve time
  phi_->hessian(x_, /*project=*/false);
  stale_ = reuse_ && have_factor_ && !refactor_;
  if (!stale_) factorize_exact(prev.step);
}

void StepLinearization::factorize_exact(int step) {
  stale_ = false;
  refactor_ = false;
  have_factor_ = false;
  ++factorizations_;
  const LinearSolveReport r = solver_->factorize(phi_->matrix());
  if (r.status == LinearSolveReport::Status::NotPositiveDefinite) {
    indefinite_ = true;
    lu_.compute(phi_->matrix());
    if (lu_.info() != Eigen::Success)
      throw ConvergenceError("the exact Hessian at step " + std::to_string(step) +
                             " is singular: the solution is not an isolated minimum, so its "
                             "gradient does not exist");
  } else if (!r.ok()) {
    throw ConvergenceError("adjoint: factorising the Hessian at step " + std::to_string(step) +
                           " failed: " + r.message);
  } else {
    have_factor_ = true;
  }
}

int StepLinearization::reuse_iterations() const {
  // CHOLMOD's flop ratio overstates a factorisation's time in solves about 8x (BLAS-3
  // factorisation, memory-bound solves: 88 against 11 measured on the peer beam at 10k tets),
  // where limits of 8-12 iterations were fastest (backward 0.44-0.45x the forward, 0.74x
  // factorising every step).
  return std::max(kMinReuseIterations,
                  static_cast<int>(solver_->factorization_cost_in_solves() / 8.0));
}

namespace {
/// M^-1 = a kept factorisation's solve. A failed solve (never expected of a factor that once
/// succeeded) marks `failed` and leaves z = r, so CG goes on and the caller refactorises.
struct FactorPreconditioner {
  LinearSolver& solver;
  bool& failed;
  void apply(const Eigen::VectorXd& r, Eigen::VectorXd& z) const {
    if (!solver.solve_unmeasured(r, z).ok() || !z.allFinite()) {
      failed = true;
      z = r;
    }
  }
};
}  // namespace

bool StepLinearization::solve_with_kept_factor(const Eigen::VectorXd& b, Eigen::VectorXd& lambda,
                                               RecycledGuess* recycled, LinearSolveReport& r) {
  assembled_.set(phi_->matrix());  // the pattern may change (contact): analysed anew
  if (lambda.size() != b.size()) lambda.setZero(b.size());
  for (int i : kinematic_dofs()) lambda[i] = 0.0;
  if (recycled) recycled->guess(assembled_, b, lambda);
  bool failed = false;
  const FactorPreconditioner factor{*solver_, failed};
  resize_cg_scratch(cg_, b.size());
  const int reuse = reuse_iterations();
  r = conjugate_gradient(assembled_, factor, b, lambda, cg_,
                         CgOptions{options_.rel_tol, options_.abs_tol, 2 * reuse});
  if (failed || !r.ok()) return false;
  refactor_ = r.iterations > reuse;
  return true;
}

LinearSolveReport StepLinearization::solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& lambda,
                                           RecycledGuess* recycled) {
  Eigen::VectorXd b = rhs;
  for (int i : kinematic_dofs()) b[i] = 0.0;
  LinearSolveReport r;
  int kept_factor_iterations = 0;
  if (stale_ && !solve_with_kept_factor(b, lambda, recycled, r)) {
    kept_factor_iterations = r.iterations;
    factorize_exact(step_);  // the kept factor no longer serves: this step's own
    r = LinearSolveReport{};
  }
  if (stale_) {
    // solved by CG on the kept factor
  } else if (indefinite_) {
    lambda = lu_.solve(b);
    r.status = LinearSolveReport::Status::Converged;
  } else if (matrix_free_) {
    const IncrementalPotential::Operator op(*phi_, x_);
    if (lambda.size() != b.size()) lambda.setZero(b.size());
    if (recycled) recycled->guess(op, b, lambda);
    r = matrix_free_->solve(op, b, lambda);
    if (r.status == LinearSolveReport::Status::NotPositiveDefinite) {
      // Negative curvature: assemble once and solve this step by LU.
      indefinite_ = true;
      phi_->hessian(x_, false);
      lu_.compute(phi_->matrix());
      if (lu_.info() != Eigen::Success)
        throw ConvergenceError("adjoint: the exact Hessian is singular at this step");
      lambda = lu_.solve(b);
      r = LinearSolveReport{};
      r.status = LinearSolveReport::Status::Converged;
    }
  } else {
    if (recycled && !solver_->is_direct()) {
      if (lambda.size() != b.size()) lambda.setZero(b.size());
      for (int i : kinematic_dofs()) lambda[i] = 0.0;
      // The solver's own operator where it has one (its layout analysed once per pattern).
      const LinearOperator* op = solver_->matrix_operator();
      if (!op) {
        assembled_.set(phi_->matrix());  // the pattern may change (contact): analysed anew
        op = &assembled_;
      }
      recycled->guess(*op, b, lambda);
    }
    r = solver_->solve(b, lambda);
  }
  using Status = LinearSolveReport::Status;
  if (direct_fallback_ && !stale_ && !indefinite_ &&
      (r.status == Status::MaxIterations || r.status == Status::Breakdown))
    r = solve_directly(b, lambda, r);
  r.iterations += kept_factor_iterations;
  for (int i : kinematic_dofs()) lambda[i] = 0.0;
  if (recycled && r.ok()) recycled->add(lambda);
  return r;
}

/// Solves this step's system by CHOLMOD where the iterative solve could not (its CG gave up
/// or broke down: sliver meshes): the gradient stays exact at a factorisation's price, and the
/// report lists the step. Keeps `failed` where CHOLMOD fails too.
LinearSolveReport StepLinearization::solve_directly(const Eigen::VectorXd& b,
                                                    Eigen::VectorXd& lambda,
                                                    const LinearSolveReport& failed) {
  if (matrix_free_) phi_->hessian(x_, /*project=*/false);             // else assembled by linearize
  if (!direct_) direct_ = make_linear_solver(LinearSolverOptions{});  // CHOLMOD
  LinearSolveReport r = direct_->factorize(phi_->matrix());
  ++factorizations_;
  if (r.status == LinearSolveReport::Status::NotPositiveDefinite) {
    lu_.compute(phi_->matrix());
    if (lu_.info() != Eigen::Success) return failed;
    indefinite_ = true;
    lambda = lu_.solve(b);
    r.status = LinearSolveReport::Status::Converged;
  } else if (r.ok()) {
    r = direct_->solve(b, lambda);
  }
  if (!r.ok()) return failed;
  fallback_steps_.push_back(step_);
  r.iterations = failed.iterations;
  return r;
}

void StepLinearization::hessian_product(const Eigen::VectorXd& u, Eigen::VectorXd& out) {
  const Model& model = model_;
  IncrementalPotential& phi = *phi_;
  out.setZero(u.size());
  for (size_t k = 0; k < model.terms.size(); ++k)
    if (phi.active(static_cast<int>(k)))
      model.terms[k]->add_hessian_vector_product(phi.data(k), x_, u, out);
}

void StepLinearization::pull_back(const Eigen::VectorXd& lambda, Eigen::VectorXd& x_prev_bar,
                                  Eigen::VectorXd& v_prev_bar,
                                  std::vector<Eigen::VectorXd>& term_bars) {
  const Model& model = model_;
  IncrementalPotential& phi = *phi_;
  scratch_ = -lambda;  // every product is linear in lambda: pass -lambda to get -lambda^T dg/dy
  // The masses are a step input set by the inertia term's densities: their bar, gathered from
  // every term that weighs with them, goes back onto those.
  const InertiaTerm* inertia = phi.inertia();
  const bool densities = inertia && !term_bars.empty() && term_bars[0].size() > 0;
  if (densities) mass_bar_.setZero(x_.size());
  for (size_t k = 0; k < model.terms.size(); ++k) {
    if (!phi.active(static_cast<int>(k))) continue;
    TermData& d = phi.data(k);
    const EnergyTerm& term = *model.terms[k];
    StepInputBars bars;
    if (k < term_bars.size() && term_bars[k].size() > 0) bars.parameters = term_bars[k].data();
    if (!statics_ && term.depends_on_previous_state(d)) {
      bars.x_prev = &x_prev_bar;
      bars.v_prev = &v_prev_bar;
    }
    if (densities && term.depends_on_mass(d)) bars.mass = &mass_bar_;
    if (bars.parameters || bars.x_prev || bars.mass) term.pull_back(d, x_, scratch_, bars);
  }
  if (densities) inertia->pull_back_masses(mass_bar_, term_bars[0].data());
}

void StepLinearization::push_forward(const Eigen::VectorXd& dx_prev, const Eigen::VectorXd& dv_prev,
                                     const std::vector<const double*>& dp, Eigen::VectorXd& dg) {
  const Model& model = model_;
  IncrementalPotential& phi = *phi_;
  dg.setZero(x_.size());
  const InertiaTerm* inertia = phi.inertia();
  const bool densities = inertia && !dp.empty() && dp[0];
  if (densities) inertia->push_forward_masses(dp[0], mass_direction_);
  for (size_t k = 0; k < model.terms.size(); ++k) {
    if (!phi.active(static_cast<int>(k))) continue;
    TermData& d = phi.data(k);
    const EnergyTerm& term = *model.terms[k];
    StepInputDirections directions;
    if (k < dp.size()) directions.parameters = dp[k];
    if (!statics_ && term.depends_on_previous_state(d)) {
      directions.x_prev = &dx_prev;
      directions.v_prev = &dv_prev;
    }
    if (densities && term.depends_on_mass(d)) directions.mass = &mass_direction_;
    if (directions.parameters || directions.x_prev || directions.mass)
      term.push_forward(d, x_, directions, dg);
  }
}

}  // namespace softgrad
