/// @file sensor_loss.hpp
/// A loss on sensor readings (sensors.hpp) over the last part of a rollout:
///     L = 1/|W| sum_{n in W} sum_k w_k / 2 (s_k(x_n, v_n) - target_k)^2,
///     W = the states n with ceil(from T) <= n <= T and n >= 1,
/// e.g. an arm's hand at a goal over the second half of an episode (from = 0.5), a thrown ball
/// at its target at the end (from = 1), a pole upright throughout (from = 0).
#pragma once

#include <Eigen/Core>
#include <vector>

#include "softgrad/loss.hpp"
#include "softgrad/sensors.hpp"

namespace softgrad {

class SensorLoss final : public Loss {
 public:
  /// `target` and `weights` have one entry per sensor value (SensorSet::size()).
  /// @throws InputError for sizes that do not match, a weight that is negative or not finite,
  /// a target that is not finite, or `from` outside [0, 1].
  SensorLoss(const Model& model, std::vector<Sensor> sensors, Eigen::VectorXd target,
             Eigen::VectorXd weights, double from);
  double evaluate(int n, int T, const State& s, Eigen::VectorXd* xbar,
                  Eigen::VectorXd* vbar) const override;
  /// The first state of the window for a rollout of T steps.
  int first_state(int T) const;
  const SensorSet& sensors() const { return sensors_; }

 private:
  SensorSet sensors_;
  Eigen::VectorXd target_, weights_;
  double from_;
};

}  // namespace softgrad
