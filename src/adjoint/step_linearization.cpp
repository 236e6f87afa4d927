#include "step_linearization.hpp"

#include "../integrator/simulator_impl.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {

StepLinearization::StepLinearization(Simulator& sim, const LinearSolverOptions& options)
    : sim_(sim), impl_(*sim.impl_), options_(options) {
  if (options_.kind.empty()) {
    options_.kind = sim.options().linear.kind;
    options_.preconditioner = sim.options().linear.preconditioner;
  }
  if (options_.kind == "matfree") {
    make_linear_solver(options_);  // validates the options
    matrix_free_ = std::make_unique<MatrixFreeCgSolver>(
        CgOptions{options_.rel_tol, options_.abs_tol, options_.max_iterations});
  } else if (impl_.linear && options_.kind == sim.options().linear.kind &&
             options_.preconditioner == sim.options().linear.preconditioner &&
             options_.kind == "cholmod") {
    solver_ = impl_.linear.get();  // the forward solve's symbolic analysis, reused
  } else {
    own_solver_ = make_linear_solver(options_);
    own_solver_->analyze(impl_.phi->matrix());
    solver_ = own_solver_.get();
  }
}

StepLinearization::~StepLinearization() = default;

std::string StepLinearization::backend() const {
  if (matrix_free_) return "matfree";
  return solver_->name();
}

const std::vector<int>& StepLinearization::kinematic_dofs() const {
  return impl_.phi->fixed_dofs();
}

void StepLinearization::linearize(const State& prev, const Eigen::VectorXd& x, bool statics,
                                  const TermParameters& parameters) {
  const double dt = statics ? 0.0 : sim_.options().dt;
  statics_ = statics;
  dt_ = dt;
  x_prev_ = prev.x;
  v_prev_ = prev.v;
  adaptive_ = prev.adaptive;
  x_ = x;
  const StepContext ctx{dt,       statics ? prev.t : prev.t + dt, &x_prev_,
                        &v_prev_, statics ? 0 : prev.step,        &adaptive_};
  impl_.phi->begin(ctx, statics ? x_prev_ : Eigen::VectorXd(x_prev_ + dt * v_prev_), parameters);
  indefinite_ = false;
  if (matrix_free_) return;  // Hessian-vector products at solve time
  impl_.phi->hessian(x_, /*project=*/false);
  const LinearSolveReport r = solver_->factorize(impl_.phi->matrix());
  if (r.status == LinearSolveReport::Status::NotPositiveDefinite) {
    indefinite_ = true;
    lu_.compute(impl_.phi->matrix());
    if (lu_.info() != Eigen::Success)
      throw ConvergenceError("the exact Hessian at step " + std::to_string(prev.step) +
                             " is singular: the solution is not an isolated minimum, so its "
                             "gradient does not exist");
  } else if (!r.ok()) {
    throw ConvergenceError("adjoint: factorising the Hessian at step " + std::to_string(prev.step) +
                           " failed: " + r.message);
  }
}

LinearSolveReport StepLinearization::solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& lambda,
                                           RecycledGuess* recycled) {
  Eigen::VectorXd b = rhs;
  for (int i : kinematic_dofs()) b[i] = 0.0;
  LinearSolveReport r;
  if (indefinite_) {
    lambda = lu_.solve(b);
    r.status = LinearSolveReport::Status::Converged;
  } else if (matrix_free_) {
    const IncrementalPotential::Operator op(*impl_.phi, x_);
    if (lambda.size() != b.size()) lambda.setZero(b.size());
    if (recycled) recycled->guess(op, b, lambda);
    r = matrix_free_->solve(op, b, lambda);
    if (r.status == LinearSolveReport::Status::NotPositiveDefinite) {
      // Negative curvature: assemble once and solve this step by LU.
      indefinite_ = true;
      impl_.phi->hessian(x_, false);
      lu_.compute(impl_.phi->matrix());
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
        assembled_.set(impl_.phi->matrix());  // the pattern may change (contact): analysed anew
        op = &assembled_;
      }
      recycled->guess(*op, b, lambda);
    }
    r = solver_->solve(b, lambda);
  }
  for (int i : kinematic_dofs()) lambda[i] = 0.0;
  if (recycled && r.ok()) recycled->add(lambda);
  return r;
}

void StepLinearization::hessian_product(const Eigen::VectorXd& u, Eigen::VectorXd& out) {
  const Model& model = sim_.model();
  IncrementalPotential& phi = *impl_.phi;
  out.setZero(u.size());
  if (!statics_) out = model.mass.cwiseProduct(u) / (dt_ * dt_);
  for (size_t k = 0; k < model.terms.size(); ++k)
    if (phi.active(static_cast<int>(k)))
      model.terms[k]->add_hessian_vector_product(phi.data(k), x_, u, out);
}

void StepLinearization::pull_back(const Eigen::VectorXd& lambda, Eigen::VectorXd& x_prev_bar,
                                  Eigen::VectorXd& v_prev_bar,
                                  std::vector<Eigen::VectorXd>& term_bars) {
  const Model& model = sim_.model();
  IncrementalPotential& phi = *impl_.phi;
  scratch_ = -lambda;  // every product is linear in lambda: pass -lambda to get -lambda^T dg/dy
  if (!statics_) {
    // Inertia: g = M (x - x_n - dt v_n) / dt^2.
    x_prev_bar += model.mass.cwiseProduct(lambda) / (dt_ * dt_);
    v_prev_bar += model.mass.cwiseProduct(lambda) / dt_;
  }
  for (size_t k = 0; k < model.terms.size(); ++k) {
    if (!phi.active(static_cast<int>(k))) continue;
    TermData& d = phi.data(k);
    StepInputBars bars;
    if (k < term_bars.size() && term_bars[k].size() > 0) bars.parameters = term_bars[k].data();
    if (!statics_ && model.terms[k]->depends_on_previous_state(d)) bars.x_prev = &x_prev_bar;
    if (bars.parameters || bars.x_prev) model.terms[k]->pull_back(d, x_, scratch_, bars);
  }
}

void StepLinearization::push_forward(const Eigen::VectorXd& dx_prev, const Eigen::VectorXd& dv_prev,
                                     const std::vector<const double*>& dp, Eigen::VectorXd& dg) {
  const Model& model = sim_.model();
  IncrementalPotential& phi = *impl_.phi;
  if (statics_) {
    dg.setZero(x_.size());
  } else {
    dg = -model.mass.cwiseProduct(dx_prev + dt_ * dv_prev) / (dt_ * dt_);
  }
  for (size_t k = 0; k < model.terms.size(); ++k) {
    if (!phi.active(static_cast<int>(k))) continue;
    TermData& d = phi.data(k);
    StepInputDirections directions;
    if (k < dp.size()) directions.parameters = dp[k];
    if (!statics_ && model.terms[k]->depends_on_previous_state(d)) directions.x_prev = &dx_prev;
    if (directions.parameters || directions.x_prev)
      model.terms[k]->push_forward(d, x_, directions, dg);
  }
}

}  // namespace softgrad
