#include "softgrad/rl/ppo.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "softgrad/errors.hpp"

namespace softgrad::rl {
namespace {

void check_options(const PpoOptions& o) {
  const auto fail = [](const std::string& what) { throw InputError("PPO: " + what); };
  if (o.iterations < 0) fail("iterations must be >= 0");
  if (o.episodes_per_iteration < 1) fail("episodes_per_iteration must be >= 1");
  if (o.epochs < 1) fail("epochs must be >= 1");
  if (o.minibatch_size < 1) fail("minibatch_size must be >= 1");
  if (!(o.gamma >= 0.0 && o.gamma <= 1.0)) fail("gamma must lie in [0, 1]");
  if (!(o.lambda >= 0.0 && o.lambda <= 1.0)) fail("lambda must lie in [0, 1]");
  if (!(o.clip > 0.0 && o.clip < 1.0)) fail("clip must lie in (0, 1)");
  if (!std::isfinite(o.entropy_coefficient)) fail("entropy_coefficient must be finite");
  if (!(o.reward_scale > 0.0) || !std::isfinite(o.reward_scale))
    fail("reward_scale must be positive and finite");
  if (!(o.max_gradient_norm >= 0.0)) fail("max_gradient_norm must be >= 0");
  if (o.evaluation_episodes < 0) fail("evaluation_episodes must be >= 0");
  for (int h : o.value_hidden)
    if (h < 1) fail("value_hidden sizes must be positive");
}

/// Scales g down to Euclidean norm max_norm (0: no limit).
void clip_norm(Eigen::VectorXd& g, double max_norm) {
  const double norm = g.norm();
  if (max_norm > 0.0 && norm > max_norm) g *= max_norm / norm;
}

/// One episode with sampled actions, appended to `batch` with advantages and value targets of
/// the scaled rewards; returns the episode's (unscaled) return.
double collect_episode(Env& env, const GaussianPolicy& policy, const Mlp& value,
                       const PpoOptions& o, std::mt19937_64& rng, std::vector<PpoSample>& batch) {
  const std::size_t first = batch.size();
  std::vector<double> rewards, values;
  Eigen::VectorXd obs = env.reset();
  StepResult r;
  do {
    PpoSample s;
    s.action = policy.sample(obs, rng);
    s.log_prob_old = policy.log_prob(obs, s.action);
    values.push_back(value.forward(obs)[0]);
    r = env.step(s.action);
    rewards.push_back(o.reward_scale * r.reward);
    s.observation = std::move(obs);
    batch.push_back(std::move(s));
    obs = r.observation;
  } while (!r.done);
  // Bootstrap from V(o_T) at the time limit, not after a terminal state.
  const double last_value = r.terminal ? 0.0 : value.forward(obs)[0];
  const Eigen::Map<const Eigen::VectorXd> rw(rewards.data(), rewards.size());
  const Eigen::Map<const Eigen::VectorXd> vw(values.data(), values.size());
  const Eigen::VectorXd advantages = gae(rw, vw, last_value, o.gamma, o.lambda);
  for (std::size_t n = 0; n < rewards.size(); ++n) {
    batch[first + n].advantage = advantages[n];
    batch[first + n].value_target = advantages[n] + values[n];
  }
  return rw.sum() / o.reward_scale;
}

/// Episode e of iteration `it` draws its actions from a stream of its own, so that it samples
/// the same wherever it runs (splitmix64 of the seed, iteration and episode).
std::uint64_t episode_seed(std::uint64_t seed, int it, int e) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ull * (1 + static_cast<std::uint64_t>(it) * 65537 +
                                                    static_cast<std::uint64_t>(e));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// An episode's samples as numbers, for the task pool: return, count, then per sample the
/// observation, the action, log pi_old, the advantage and the value target.
std::vector<double> encode(const std::vector<PpoSample>& samples, double ret) {
  std::vector<double> out{ret, static_cast<double>(samples.size())};
  for (const PpoSample& s : samples) {
    out.insert(out.end(), s.observation.data(), s.observation.data() + s.observation.size());
    out.insert(out.end(), s.action.data(), s.action.data() + s.action.size());
    out.insert(out.end(), {s.log_prob_old, s.advantage, s.value_target});
  }
  return out;
}

/// Appends encode()'s samples to batch and returns the episode's return.
double decode(const std::vector<double>& in, int n_obs, int n_act, std::vector<PpoSample>& batch) {
  const int count = static_cast<int>(in[1]);
  size_t k = 2;
  for (int i = 0; i < count; ++i) {
    PpoSample s;
    s.observation = Eigen::Map<const Eigen::VectorXd>(in.data() + k, n_obs);
    s.action = Eigen::Map<const Eigen::VectorXd>(in.data() + k + n_obs, n_act);
    k += n_obs + n_act;
    s.log_prob_old = in[k];
    s.advantage = in[k + 1];
    s.value_target = in[k + 2];
    k += 3;
    batch.push_back(std::move(s));
  }
  return in[0];
}

/// Zero mean and unit variance (when there is any spread).
void normalize_advantages(std::vector<PpoSample>& batch) {
  double mean = 0.0, sq = 0.0;
  for (const PpoSample& s : batch) mean += s.advantage;
  mean /= batch.size();
  for (const PpoSample& s : batch) sq += (s.advantage - mean) * (s.advantage - mean);
  const double sd = std::sqrt(sq / batch.size());
  for (PpoSample& s : batch) s.advantage = (s.advantage - mean) / (sd > 0.0 ? sd : 1.0);
}

/// `epochs` passes of shuffled minibatch Adam steps on the policy and the value MLP.
void update(std::vector<PpoSample>& batch, const PpoOptions& o, GaussianPolicy& policy, Mlp& value,
            Adam& policy_adam, Adam& value_adam, std::mt19937_64& rng) {
  Eigen::VectorXd theta = policy.parameters(), phi = value.parameters();
  Eigen::VectorXd g_theta, g_phi;
  const std::size_t size = batch.size(), mb = static_cast<std::size_t>(o.minibatch_size);
  for (int epoch = 0; epoch < o.epochs; ++epoch) {
    std::shuffle(batch.begin(), batch.end(), rng);
    for (std::size_t start = 0; start < size; start += mb) {
      const std::span<const PpoSample> minibatch(batch.data() + start, std::min(mb, size - start));
      g_theta.setZero(theta.size());
      ppo_policy_loss(policy, minibatch, o.clip, o.entropy_coefficient, &g_theta);
      clip_norm(g_theta, o.max_gradient_norm);
      policy_adam.step(theta, g_theta);
      policy.set_parameters(theta);
      g_phi.setZero(phi.size());
      ppo_value_loss(value, minibatch, &g_phi);
      clip_norm(g_phi, o.max_gradient_norm);
      value_adam.step(phi, g_phi);
      value.set_parameters(phi);
    }
  }
}

/// The value MLP: the policy's hidden sizes unless options name others, one output.
Mlp make_value(const Mlp& policy, const PpoOptions& o) {
  std::vector<int> sizes{policy.inputs()};
  if (o.value_hidden.empty())
    sizes.insert(sizes.end(), policy.sizes().begin() + 1, policy.sizes().end() - 1);
  else
    sizes.insert(sizes.end(), o.value_hidden.begin(), o.value_hidden.end());
  sizes.push_back(1);
  return Mlp(sizes, o.seed + 1);
}

}  // namespace

Eigen::VectorXd gae(const Eigen::VectorXd& rewards, const Eigen::VectorXd& values,
                    double last_value, double gamma, double lambda) {
  if (rewards.size() != values.size())
    throw InputError("GAE: " + std::to_string(rewards.size()) + " rewards but " +
                     std::to_string(values.size()) + " values");
  Eigen::VectorXd advantages(rewards.size());
  double next_value = last_value, running = 0.0;
  for (Eigen::Index n = rewards.size() - 1; n >= 0; --n) {
    const double delta = rewards[n] + gamma * next_value - values[n];
    running = delta + gamma * lambda * running;
    advantages[n] = running;
    next_value = values[n];
  }
  return advantages;
}

double ppo_policy_loss(const GaussianPolicy& policy, std::span<const PpoSample> batch, double clip,
                       double entropy_coefficient, Eigen::VectorXd* grad) {
  if (batch.empty()) throw InputError("PPO: the policy loss needs at least one sample");
  if (grad && grad->size() != policy.n_parameters()) grad->setZero(policy.n_parameters());
  const double inv_b = 1.0 / static_cast<double>(batch.size());
  double loss = 0.0;
  for (const PpoSample& s : batch) {
    const double rho = std::exp(policy.log_prob(s.observation, s.action) - s.log_prob_old);
    const double unclipped = rho * s.advantage;
    const double clipped = std::clamp(rho, 1.0 - clip, 1.0 + clip) * s.advantage;
    loss -= std::min(unclipped, clipped) * inv_b;
    // d(rho A) = rho A d log pi on the unclipped branch; the clipped one is constant.
    if (grad && unclipped <= clipped)
      policy.add_log_prob_gradient(s.observation, s.action, -rho * s.advantage * inv_b, *grad);
  }
  loss -= entropy_coefficient * policy.entropy();
  if (grad) grad->tail(policy.action_size()).array() -= entropy_coefficient;
  return loss;
}

double ppo_value_loss(const Mlp& value, std::span<const PpoSample> batch, Eigen::VectorXd* grad) {
  if (batch.empty()) throw InputError("PPO: the value loss needs at least one sample");
  if (value.outputs() != 1) throw InputError("PPO: the value MLP must have one output");
  if (grad && grad->size() != value.n_parameters()) grad->setZero(value.n_parameters());
  const double inv_b = 1.0 / static_cast<double>(batch.size());
  double loss = 0.0;
  Eigen::VectorXd residual(1);
  for (const PpoSample& s : batch) {
    residual[0] = value.forward(s.observation)[0] - s.value_target;
    loss += 0.5 * residual[0] * residual[0] * inv_b;
    if (grad) value.backward(s.observation, residual * inv_b, *grad);
  }
  return loss;
}

TrainingResult train_ppo(Env& env, const Mlp& initial_policy, const PpoOptions& options,
                         const IterationCallback& on_iteration) {
  EnvPool pool(env);
  return train_ppo(pool, initial_policy, options, on_iteration);
}

TrainingResult train_ppo(EnvPool& envs, const Mlp& initial_policy, const PpoOptions& options,
                         const IterationCallback& on_iteration) {
  check_options(options);
  check_policy(envs, initial_policy, "PPO");
  GaussianPolicy policy(initial_policy, options.initial_log_std);
  Mlp value = make_value(initial_policy, options);
  Adam policy_adam(policy.n_parameters(), options.policy_adam);
  Adam value_adam(value.n_parameters(), options.value_adam);
  std::mt19937_64 rng(options.seed);  // minibatch shuffling
  const int n_obs = policy.observation_size(), n_act = policy.action_size();
  TrainingResult result;
  // The deterministic policy's mean return over evaluation episodes (side by side), its steps
  // counted apart from training.
  const auto evaluate = [&]() {
    const long before = envs.simulated_steps();
    const std::vector<std::vector<double>> r =
        envs.map(options.evaluation_episodes, [&](Env& env, int) {
          return std::vector<double>{episode_return(env, policy.mean_network(), 1)};
        });
    double ret = 0.0;
    for (const std::vector<double>& e : r) ret += e[0];
    ret /= options.evaluation_episodes;
    result.evaluation_steps += envs.simulated_steps() - before;
    if (ret > result.best_return) {
      result.best_return = ret;
      result.best_parameters = policy.mean_network().parameters();
    }
    return ret;
  };
  if (options.evaluation_episodes > 0) result.initial_return = evaluate();
  std::vector<PpoSample> batch;
  for (int it = 0; it < options.iterations; ++it) {
    if (options.stop && options.stop()) break;
    // Collect whole episodes with sampled actions, side by side.
    const long before = envs.simulated_steps();
    const Eigen::VectorXd collecting = policy.mean_network().parameters();
    const std::vector<std::vector<double>> episodes =
        envs.map(options.episodes_per_iteration, [&](Env& env, int e) {
          std::mt19937_64 episode_rng(episode_seed(options.seed, it, e));
          std::vector<PpoSample> samples;
          const double ret = collect_episode(env, policy, value, options, episode_rng, samples);
          return encode(samples, ret);
        });
    batch.clear();
    CurvePoint point;
    for (const std::vector<double>& e : episodes)
      point.mean_return += decode(e, n_obs, n_act, batch);
    point.mean_return /= options.episodes_per_iteration;
    result.training_steps += envs.simulated_steps() - before;
    point.steps = result.training_steps;
    if (options.evaluation_episodes == 0 && point.mean_return > result.best_return) {
      result.best_return = point.mean_return;
      result.best_parameters = collecting;
    }
    // Clipped-surrogate and value updates, then the deterministic policy's return.
    if (options.normalize_advantages) normalize_advantages(batch);
    update(batch, options, policy, value, policy_adam, value_adam, rng);
    if (options.evaluation_episodes > 0) point.policy_return = evaluate();
    result.curve.push_back(point);
    if (on_iteration) on_iteration(it, point);
  }
  result.final_parameters = policy.mean_network().parameters();
  if (result.best_parameters.size() == 0) result.best_parameters = result.final_parameters;
  return result;
}

}  // namespace softgrad::rl
