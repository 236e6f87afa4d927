/// @file adam.hpp
/// Adam (Kingma and Ba 2015), the one Adam of softgrad (gradient-based training, PPO, ES): per
/// coordinate,
///   m = b1 m + (1 - b1) g,  v = b2 v + (1 - b2) g^2,
///   theta -= lr (m / (1 - b1^k)) / (sqrt(v / (1 - b2^k)) + eps)
/// at the k-th step, descending on a loss whose gradient is g.
#pragma once

#include <Eigen/Core>

namespace softgrad {

struct AdamOptions {
  double learning_rate = 3e-4;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-8;
};

class Adam {
 public:
  /// @throws InputError for n < 0, a learning rate that is not positive, betas outside [0, 1)
  ///         or a negative epsilon.
  Adam(int n, AdamOptions options);
  /// One descent step on theta for the loss gradient g (both n long).
  /// @throws InputError for sizes other than n.
  void step(Eigen::VectorXd& theta, const Eigen::VectorXd& g);
  int steps() const { return k_; }
  double learning_rate() const { return options_.learning_rate; }
  /// @throws InputError unless positive and finite.
  void set_learning_rate(double learning_rate);
  /// The moment estimates, to save and restore a run (steps() is the third part).
  const Eigen::VectorXd& first_moment() const { return m_; }
  const Eigen::VectorXd& second_moment() const { return v_; }
  /// Continues from saved moments after `steps` steps. @throws InputError for sizes other than
  /// n, negative steps or non-finite moments.
  void restore(const Eigen::VectorXd& m, const Eigen::VectorXd& v, int steps);

 private:
  AdamOptions options_;
  Eigen::VectorXd m_, v_;
  int k_ = 0;
};

}  // namespace softgrad
