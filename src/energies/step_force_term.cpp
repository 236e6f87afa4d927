#include "step_force_term.hpp"

#include <cmath>

#include "softgrad/detail/memory_limit.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/model.hpp"

namespace softgrad {

StepForceTerm::StepForceTerm(std::string name, std::vector<int> dofs, int n_steps,
                             std::vector<double> values)
    : name_(std::move(name)),
      dofs_(std::move(dofs)),
      n_steps_(n_steps),
      values_(std::move(values)) {
  if (n_steps_ < 0) throw InputError(name_ + ": the number of steps must be >= 0");
  if (values_.size() != static_cast<size_t>(n_steps_) * dofs_.size())
    throw InputError(name_ + ": expected " + std::to_string(n_steps_ * dofs_.size()) +
                     " force values (steps x dofs), got " + std::to_string(values_.size()));
  validate_parameters(values_.data());
}

const double* StepForceTerm::current(const TermData& d) const {
  const int step = d.step.step;
  if (step < 0 || step >= n_steps_) return nullptr;
  return d.parameters + static_cast<size_t>(step) * dofs_.size();
}

double StepForceTerm::value(TermData& d, const Eigen::VectorXd& x) const {
  const double* f = current(d);
  double w = 0.0;
  if (f)
    for (size_t i = 0; i < dofs_.size(); ++i) w -= f[i] * x[dofs_[i]];
  return w;
}

double StepForceTerm::value_and_gradient(TermData& d, const Eigen::VectorXd& x,
                                         Eigen::VectorXd& g) const {
  const double* f = current(d);
  if (f)
    for (size_t i = 0; i < dofs_.size(); ++i) g[dofs_[i]] -= f[i];
  return value(d, x);
}

std::vector<ParameterGroup> StepForceTerm::parameter_groups() const {
  return {{"force", "N", 0, static_cast<int>(values_.size()), ParameterGroup::Layout::PerStep,
           -1e300, 1e300}};
}

Eigen::VectorXd StepForceTerm::default_parameters() const {
  return Eigen::Map<const Eigen::VectorXd>(values_.data(),
                                           static_cast<Eigen::Index>(values_.size()));
}

void StepForceTerm::validate_parameters(const double* p) const {
  validate_parameter_range(0, p, static_cast<int>(values_.size()));
}

void StepForceTerm::validate_parameter_range(int offset, const double* values, int count) const {
  for (int k = 0; k < count; ++k)
    if (!std::isfinite(values[k]))
      throw InputError(name_ + ": force " + std::to_string((offset + k) % dofs_.size()) +
                       " of step " + std::to_string((offset + k) / dofs_.size()) +
                       " is not finite");
}

// dW/dx = -f_n on dofs: d/df_n (lambda . dW/dx) = -lambda[dofs].

void StepForceTerm::pull_back(TermData& d, const Eigen::VectorXd&, const Eigen::VectorXd& lambda,
                              const StepInputBars& bars) const {
  if (!bars.parameters || !current(d)) return;
  double* o = bars.parameters + static_cast<size_t>(d.step.step) * dofs_.size();
  for (size_t i = 0; i < dofs_.size(); ++i) o[i] -= lambda[dofs_[i]];
}

void StepForceTerm::push_forward(TermData& d, const Eigen::VectorXd&,
                                 const StepInputDirections& directions,
                                 Eigen::VectorXd& out) const {
  if (!directions.parameters || !current(d)) return;
  const double* dp = directions.parameters + static_cast<size_t>(d.step.step) * dofs_.size();
  for (size_t i = 0; i < dofs_.size(); ++i) out[dofs_[i]] -= dp[i];
}

void add_step_forces(Model& model, std::string name, std::vector<int> dofs, int n_steps,
                     std::vector<double> values) {
  for (int i : dofs)
    if (i < 0 || i >= model.n_dofs())
      throw InputError(name + ": dof " + std::to_string(i) + " is not in the model (" +
                       std::to_string(model.n_dofs()) + " dofs)");
  require_table_memory(static_cast<double>(n_steps) * static_cast<double>(dofs.size()),
                       name + ": a force for each of " + std::to_string(n_steps) + " steps on " +
                           std::to_string(dofs.size()) + " dofs " +
                           "(steps: the scene's duration / dt, or train.episode_steps)");
  if (values.empty()) values.assign(static_cast<size_t>(n_steps) * dofs.size(), 0.0);
  model.terms.push_back(std::make_unique<StepForceTerm>(std::move(name), std::move(dofs), n_steps,
                                                        std::move(values)));
}

}  // namespace softgrad
