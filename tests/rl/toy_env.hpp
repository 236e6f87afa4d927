/// @file toy_env.hpp
/// A task with a known answer for the RL tests: a point on a line must reach the origin.
///   p_{n+1} = p_n + 0.1 tanh(a_n),   o_n = (p_n),   r_n = |p_n| - |p_{n+1}|,   T = 20 steps,
/// starting from p_0 ~ U(-1, 1) (or from a fixed list). The return is |p_0| - |p_T|, so the best
/// return is |p_0| (reachable: |p_0| <= 1 needs 10 steps of nearly 0.1), and a = -10 p (the
/// dead-beat gain near 0) comes close to it.
#pragma once

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "softgrad/rl/env.hpp"

namespace softgrad::test {

class ReachOrigin final : public rl::Env {
 public:
  explicit ReachOrigin(std::uint64_t seed, std::vector<double> starts = {})
      : rng_(seed), starts_(std::move(starts)) {}
  int observation_size() const override { return 1; }
  int action_size() const override { return 1; }
  Eigen::VectorXd reset() override {
    p_ = starts_.empty() ? std::uniform_real_distribution<double>(-1.0, 1.0)(rng_)
                         : starts_[next_start_++ % starts_.size()];
    n_ = 0;
    return Eigen::VectorXd::Constant(1, p_);
  }
  rl::StepResult step(const Eigen::VectorXd& a) override {
    if (a.size() != 1 || n_ >= kSteps) throw std::logic_error("ReachOrigin: bad step");
    const double p_next = p_ + 0.1 * std::tanh(a[0]);
    rl::StepResult r;
    r.reward = std::abs(p_) - std::abs(p_next);
    p_ = p_next;
    r.done = ++n_ == kSteps;
    r.observation = Eigen::VectorXd::Constant(1, p_);
    ++steps_;
    return r;
  }
  long simulated_steps() const override { return steps_; }

  static constexpr int kSteps = 20;

 private:
  std::mt19937_64 rng_;
  std::vector<double> starts_;
  std::size_t next_start_ = 0;
  double p_ = 0.0;
  int n_ = 0;
  long steps_ = 0;
};

/// Starts spread over [-1, 1], for judging a trained policy: the best return is sum |p_0|.
inline std::vector<double> judging_starts() {
  return {-0.95, -0.7, -0.4, -0.15, 0.2, 0.5, 0.8, 1.0};
}

}  // namespace softgrad::test
