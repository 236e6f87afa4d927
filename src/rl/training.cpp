#include "softgrad/rl/training.hpp"

#include <cmath>
#include <string>

#include "softgrad/errors.hpp"

namespace softgrad::rl {

void check_policy(const Env& env, const Mlp& policy, const std::string& who) {
  if (policy.inputs() != env.observation_size() || policy.outputs() != env.action_size())
    throw InputError(who + ": the policy MLP has " + std::to_string(policy.inputs()) +
                     " inputs and " + std::to_string(policy.outputs()) +
                     " outputs; the environment has " + std::to_string(env.observation_size()) +
                     " observations and " + std::to_string(env.action_size()) + " actions");
}

void check_policy(EnvPool& envs, const Mlp& policy, const std::string& who) {
  if (policy.inputs() != envs.observation_size() || policy.outputs() != envs.action_size())
    throw InputError(who + ": the policy MLP has " + std::to_string(policy.inputs()) +
                     " inputs and " + std::to_string(policy.outputs()) +
                     " outputs; the environment has " + std::to_string(envs.observation_size()) +
                     " observations and " + std::to_string(envs.action_size()) + " actions");
}

double episode_return(Env& env, const Mlp& policy, int episodes) {
  check_policy(env, policy, "episode_return");
  if (episodes < 1) throw InputError("episode_return: episodes must be >= 1");
  double total = 0.0;
  for (int e = 0; e < episodes; ++e) {
    Eigen::VectorXd o = env.reset();
    for (;;) {
      StepResult r = env.step(policy.forward(o));
      total += r.reward;
      if (r.done) break;
      o = std::move(r.observation);
    }
  }
  return total / episodes;
}

long steps_to_reach(const std::vector<CurvePoint>& curve, double threshold) {
  for (const CurvePoint& p : curve) {
    const double value = std::isnan(p.policy_return) ? p.mean_return : p.policy_return;
    if (value >= threshold) return p.steps;
  }
  return -1;
}

}  // namespace softgrad::rl
