#include "step_force_term.hpp"

#include <cmath>

#include "softgrad/errors.hpp"

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
  set_parameters(values_.data());
}

double StepForceTerm::value(const Eigen::VectorXd& x) const {
  if (!active()) return 0.0;
  const double* f = current();
  double w = 0.0;
  for (size_t i = 0; i < dofs_.size(); ++i) w -= f[i] * x[dofs_[i]];
  return w;
}

void StepForceTerm::add_gradient(const Eigen::VectorXd&, Eigen::VectorXd& g) const {
  if (!active()) return;
  const double* f = current();
  for (size_t i = 0; i < dofs_.size(); ++i) g[dofs_[i]] -= f[i];
}

std::vector<ParameterGroup> StepForceTerm::parameter_groups() const {
  return {{"force", "N", 0, static_cast<int>(values_.size()), ParameterGroup::Layout::PerStep,
           -1e300, 1e300}};
}

void StepForceTerm::get_parameters(double* p) const {
  std::copy(values_.begin(), values_.end(), p);
}

void StepForceTerm::set_parameters(const double* p) {
  for (size_t k = 0; k < values_.size(); ++k)
    if (!std::isfinite(p[k]))
      throw InputError(name_ + ": force " + std::to_string(k % dofs_.size()) + " of step " +
                       std::to_string(k / dofs_.size()) + " is not finite");
  std::copy(p, p + values_.size(), values_.begin());
}

// dW/dx = -f_n on dofs: d/df_n (lambda . dW/dx) = -lambda[dofs].

void StepForceTerm::add_parameter_mixed_product(const Eigen::VectorXd&,
                                                const Eigen::VectorXd& lambda, double* out) const {
  if (!active()) return;
  double* o = out + static_cast<size_t>(step_) * dofs_.size();
  for (size_t i = 0; i < dofs_.size(); ++i) o[i] -= lambda[dofs_[i]];
}

void StepForceTerm::add_parameter_jvp(const Eigen::VectorXd&, const double* dp,
                                      Eigen::VectorXd& out) const {
  if (!active()) return;
  const double* d = dp + static_cast<size_t>(step_) * dofs_.size();
  for (size_t i = 0; i < dofs_.size(); ++i) out[dofs_[i]] -= d[i];
}

}  // namespace softgrad
