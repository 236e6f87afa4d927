#include "softgrad/adam.hpp"

#include <cmath>
#include <string>

#include "softgrad/errors.hpp"

namespace softgrad {

Adam::Adam(int n, AdamOptions options) : options_(options) {
  if (n < 0) throw InputError("Adam: the parameter count must be >= 0");
  if (!(options_.learning_rate > 0.0) || !std::isfinite(options_.learning_rate))
    throw InputError("Adam: the learning rate must be positive and finite");
  if (!(options_.beta1 >= 0.0 && options_.beta1 < 1.0) ||
      !(options_.beta2 >= 0.0 && options_.beta2 < 1.0))
    throw InputError("Adam: beta1 and beta2 must lie in [0, 1)");
  if (!(options_.epsilon >= 0.0)) throw InputError("Adam: epsilon must be >= 0");
  m_.setZero(n);
  v_.setZero(n);
}

void Adam::step(Eigen::VectorXd& theta, const Eigen::VectorXd& g) {
  if (theta.size() != m_.size() || g.size() != m_.size())
    throw InputError("Adam: expected " + std::to_string(m_.size()) + " parameters and gradients");
  ++k_;
  const double b1 = options_.beta1, b2 = options_.beta2;
  m_ = b1 * m_ + (1.0 - b1) * g;
  v_ = b2 * v_ + (1.0 - b2) * g.cwiseAbs2();
  // Bias-corrected moments.
  const double c1 = 1.0 - std::pow(b1, k_), c2 = 1.0 - std::pow(b2, k_);
  theta.array() -=
      options_.learning_rate * ((m_.array() / c1) / ((v_.array() / c2).sqrt() + options_.epsilon));
}

void Adam::set_learning_rate(double learning_rate) {
  if (!(learning_rate > 0.0) || !std::isfinite(learning_rate))
    throw InputError("Adam: the learning rate must be positive and finite");
  options_.learning_rate = learning_rate;
}

void Adam::restore(const Eigen::VectorXd& m, const Eigen::VectorXd& v, int steps) {
  if (m.size() != m_.size() || v.size() != v_.size())
    throw InputError("Adam: the saved moments have " + std::to_string(m.size()) +
                     " entries, expected " + std::to_string(m_.size()));
  if (steps < 0 || !m.allFinite() || !v.allFinite() || (v.array() < 0).any())
    throw InputError("Adam: the saved state is not valid (negative steps or bad moments)");
  m_ = m;
  v_ = v;
  k_ = steps;
}

}  // namespace softgrad
