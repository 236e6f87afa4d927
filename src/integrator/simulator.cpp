#include "softgrad/simulator.hpp"

#include <cmath>

#include "simulator_impl.hpp"
#include "simulator_workspace.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/log.hpp"

namespace softgrad {

const char* to_string(NewtonReport::Status s) {
  switch (s) {
    case NewtonReport::Status::Converged:
      return "converged";
    case NewtonReport::Status::MaxIterations:
      return "max_iterations";
    case NewtonReport::Status::LineSearchFailed:
      return "line_search_failed";
    case NewtonReport::Status::LinearSolverFailed:
      return "linear_solver_failed";
    case NewtonReport::Status::InfeasibleStart:
      return "infeasible_start";
    case NewtonReport::Status::Interrupted:
      return "interrupted";
  }
  return "?";
}

Simulator::Simulator(std::shared_ptr<const Model> model, SimulationOptions options)
    : model_(std::move(model)), options_(std::move(options)), impl_(std::make_unique<Impl>()) {
  if (!model_) throw InputError("Simulator needs a model");
  if (!(options_.dt > 0.0) || !std::isfinite(options_.dt))
    throw InputError("the time step dt must be positive and finite");
  if (!(options_.newton.tolerance > 0.0)) throw InputError("the Newton tolerance must be positive");
  if (options_.newton.max_iterations < 1) throw InputError("Newton needs at least one iteration");
  if (!(options_.newton.chord_forcing >= 0.0 && options_.newton.chord_forcing < 1.0))
    throw InputError("the chord forcing (a relative CG residual) must be in [0, 1)");
  defaults_ = model_->default_parameters();
  for (const auto& t : model_->terms) n_parameters_.push_back(t->n_parameters());
  impl_->phi = std::make_unique<IncrementalPotential>(*model_);
  if (options_.linear.kind == "matfree") {
    make_linear_solver(options_.linear);  // validates the options
    impl_->matrix_free = std::make_unique<MatrixFreeCgSolver>(CgOptions{
        options_.linear.rel_tol, options_.linear.abs_tol, options_.linear.max_iterations});
  } else {
    impl_->linear = make_linear_solver(options_.linear);
    // The declared pattern; contact pairs may grow it (the solvers re-analyse then).
    impl_->linear->analyze(impl_->phi->matrix());
  }
}

Simulator::~Simulator() = default;

void Simulator::check_parameters(const TermParameters& p) const {
  if (p.size() != model_->terms.size())
    throw InputError("parameters: " + std::to_string(p.size()) + " vectors for the model's " +
                     std::to_string(model_->terms.size()) + " energy terms");
  for (size_t k = 0; k < p.size(); ++k)
    if (p[k].size() != n_parameters_[k])
      throw InputError("parameters of term '" + model_->terms[k]->name() +
                       "': " + std::to_string(p[k].size()) + " values, expected " +
                       std::to_string(n_parameters_[k]));
}

SimulatorWorkspace simulator_workspace(Simulator& sim) {
  return {*sim.impl_->phi, sim.impl_->linear.get()};
}

State Simulator::rest_state() const { return model_->rest_state(); }

void Simulator::apply_kinematics(double t, const Eigen::VectorXd* prescribed,
                                 Eigen::VectorXd& x) const {
  if (!prescribed) {
    model_->apply_kinematics(t, x);
    return;
  }
  const std::vector<int>& dofs = impl_->phi->fixed_dofs();
  if (prescribed->size() != static_cast<Eigen::Index>(dofs.size()))
    throw InputError("prescribed kinematic positions: expected " + std::to_string(dofs.size()) +
                     " values (one per kinematic dof), got " + std::to_string(prescribed->size()));
  for (size_t i = 0; i < dofs.size(); ++i) x[dofs[i]] = (*prescribed)[i];
}

NewtonReport Simulator::step(State& s, const Eigen::VectorXd* prescribed) {
  return step(s, defaults_, prescribed);
}

NewtonReport Simulator::step(State& s, const TermParameters& parameters,
                             const Eigen::VectorXd* prescribed) {
  check_parameters(parameters);
  const double dt = options_.dt;
  const double t_next = s.t + dt;
  StepContext ctx{dt, t_next, &s.x, &s.v, s.step, &s.adaptive};
  const Eigen::VectorXd xhat = s.x + dt * s.v;
  impl_->phi->begin(ctx, parameters);
  // Initial guess: the inertial prediction, or the start if that is infeasible.
  Eigen::VectorXd x = xhat;
  apply_kinematics(t_next, prescribed, x);
  // A prediction that passes through a surface (mesh contact) may land outside it again:
  // start from the current positions instead, unless the path there is free.
  NewtonStart start;
  bool have_start = false;
  if (impl_->phi->max_step(s.x, x - s.x) < 1.0) {
    x = s.x;
    apply_kinematics(t_next, prescribed, x);
  } else if (options_.newton.accelerated_guess) {
    have_start = accelerated_guess(s, t_next, prescribed, xhat, x, start);
  }
  const double tol = options_.newton.tolerance * model_->length_scale() * dt;
  NewtonReport r = newton_solve(*impl_->phi, impl_->solver(), options_.newton, tol, x,
                                have_start ? &start : nullptr);
  if (r.status == NewtonReport::Status::InfeasibleStart) {
    x = s.x;
    apply_kinematics(t_next, prescribed, x);
    r = newton_solve(*impl_->phi, impl_->solver(), options_.newton, tol, x);
  }
  if (!r.converged()) {
    if (r.status == NewtonReport::Status::Interrupted) return r;
    log(LogLevel::Warn, "step to t = " + std::to_string(t_next) + ": " + r.message);
    if (options_.on_failure == FailurePolicy::Stop) return r;
  }
  impl_->phi->update_adaptive(x, s.adaptive);
  s.a.resize(x.size());
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double v_next = (x[i] - s.x[i]) / dt;
    s.a[i] = (v_next - s.v[i]) / dt;
    s.v[i] = v_next;
  }
  s.x.swap(x);
  s.t = t_next;
  ++s.step;
  return r;
}

bool Simulator::accelerated_guess(const State& s, double t_next, const Eigen::VectorXd* prescribed,
                                  const Eigen::VectorXd& xhat, Eigen::VectorXd& x,
                                  NewtonStart& start) {
  IncrementalPotential& phi = *impl_->phi;
  Eigen::VectorXd& guess = impl_->guess;
  Eigen::VectorXd& g = impl_->guess_gradient;
  // The guess is xhat + h^2 a_n with a_n = M^-1 f(x_n). The step that ended at x_n solved
  // M (v_n - v_{n-1}) / h = f(x_n): its acceleration (State::a) is a_n, at no cost. Without it
  // (a rollout's first step), the forces come from this step's potentials: at x_n,
  // dPhi/dx = -M v_n / h - f(x_n), so the guess is x_n - h^2 M^-1 dPhi/dx (x_n), one gradient.
  // Dofs without mass keep xhat.
  const double h2 = options_.dt * options_.dt;
  const Eigen::VectorXd& m = phi.mass();
  guess = xhat;
  if (s.a.size() == guess.size()) {
    for (Eigen::Index i = 0; i < guess.size(); ++i)
      if (m[i] > 0.0) guess[i] += h2 * s.a[i];
  } else {
    if (!std::isfinite(phi.value_and_gradient(s.x, g))) return false;
    for (Eigen::Index i = 0; i < guess.size(); ++i)
      if (m[i] > 0.0) guess[i] = s.x[i] - h2 * g[i] / m[i];
  }
  apply_kinematics(t_next, prescribed, guess);
  if (!guess.allFinite() || phi.max_step(s.x, guess - s.x) < 1.0) return false;
  const double e = phi.value_and_gradient(guess, g);
  if (!(e < phi.value(x))) return false;  // not better than xhat (or infeasible: +inf, NaN)
  x.swap(guess);
  start.energy = e;
  start.gradient = &g;
  return true;
}

NewtonReport Simulator::solve_static(State& s, const Eigen::VectorXd* prescribed) {
  return solve_static(s, defaults_, prescribed);
}

NewtonReport Simulator::solve_static(State& s, const TermParameters& parameters,
                                     const Eigen::VectorXd* prescribed) {
  check_parameters(parameters);
  if (impl_->phi->fixed_dofs().empty())
    throw InputError(
        "a static solve needs boundary conditions: with no fixed vertex the equilibrium is "
        "singular (rigid motions) or unbounded (gravity)");
  StepContext ctx{0.0, s.t, &s.x, &s.v, 0, &s.adaptive};
  impl_->phi->begin(ctx, parameters);
  Eigen::VectorXd x = s.x;
  apply_kinematics(s.t, prescribed, x);
  const double tol = options_.newton.tolerance * model_->length_scale();
  NewtonReport r = newton_solve(*impl_->phi, impl_->solver(), options_.newton, tol, x);
  if (!r.converged()) {
    if (r.status == NewtonReport::Status::Interrupted) return r;
    log(LogLevel::Warn, std::string("static solve: ") + r.message);
    if (options_.on_failure == FailurePolicy::Stop) return r;
  }
  s.x.swap(x);
  s.v.setZero(s.x.size());
  s.a.resize(0);
  return r;
}

double Simulator::potential_energy(const Eigen::VectorXd& x, const TermParameters& parameters,
                                   double t) {
  check_parameters(parameters);
  const Eigen::VectorXd v = Eigen::VectorXd::Zero(x.size());
  impl_->phi->begin(StepContext{0.0, t, &x, &v, 0}, parameters);
  double e = 0.0;
  for (size_t k = 0; k < model_->terms.size(); ++k)
    if (model_->terms[k]->in_statics()) e += model_->terms[k]->value(impl_->phi->data(k), x);
  return e;
}

Eigen::VectorXd Simulator::potential_gradient(const Eigen::VectorXd& x,
                                              const TermParameters& parameters, double t) {
  check_parameters(parameters);
  const Eigen::VectorXd v = Eigen::VectorXd::Zero(x.size());
  impl_->phi->begin(StepContext{0.0, t, &x, &v, 0}, parameters);
  Eigen::VectorXd g = Eigen::VectorXd::Zero(x.size());
  for (size_t k = 0; k < model_->terms.size(); ++k)
    if (model_->terms[k]->in_statics())
      model_->terms[k]->value_and_gradient(impl_->phi->data(k), x, g);
  return g;
}

double Simulator::kinetic_energy(const Eigen::VectorXd& v) const {
  return 0.5 * v.dot(model_->mass.cwiseProduct(v));
}

}  // namespace softgrad
