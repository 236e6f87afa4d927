/// @file evolution_strategy.hpp
/// OpenAI-ES (Salimans et al. 2017) using the environment forward only: the deterministic
/// policy a = MLP(o) with parameters theta, antithetic perturbations theta +- sigma eps_j,
/// fitness shaping by centred ranks, and Adam on the estimated ascent direction:
///
///   g = 1/(N sigma) sum_j u_j eps~_j,   u_j = rank(R_j) / (N - 1) - 1/2,
///   theta <- Adam step on the loss gradient -g + weight_decay theta,
///
/// over the N = population candidates (eps~_j = +-eps_j) and their returns R_j.
#pragma once

#include <cstdint>
#include <functional>

#include "softgrad/adam.hpp"
#include "softgrad/detail/rl/env_pool.hpp"
#include "softgrad/mlp.hpp"
#include "softgrad/rl/env.hpp"
#include "softgrad/rl/training.hpp"

namespace softgrad::rl {

struct EsOptions {
  int iterations = 100;
  int population = 16;  ///< candidates per iteration N (even: pairs +- eps)
  double sigma = 0.05;  ///< perturbation standard deviation, in parameter units
  AdamOptions adam{.learning_rate = 0.01};
  double weight_decay = 0.0;       ///< L2 coefficient on theta
  int episodes_per_candidate = 1;  ///< episodes averaged per fitness (for random starts)
  int evaluation_episodes = 1;     ///< deterministic episodes of theta per iteration; 0: none
  std::uint64_t seed = 1;          ///< perturbations
  /// Asked before every iteration (empty: never): true ends the training there.
  std::function<bool()> stop;
};

/// Trains the MLP `initial_policy` on env with OpenAI-ES.
/// @throws InputError for invalid options (odd or < 2 population, sigma <= 0, ...) or an
///         initial_policy whose sizes do not match env.
TrainingResult train_es(Env& env, const Mlp& initial_policy, const EsOptions& options,
                        const IterationCallback& on_iteration = {});
/// The same with the candidates' episodes side by side on a pool of environments (threads,
/// MPI processes): the result of the one-environment run whatever the pool's size.
TrainingResult train_es(EnvPool& envs, const Mlp& initial_policy, const EsOptions& options,
                        const IterationCallback& on_iteration = {});

}  // namespace softgrad::rl
