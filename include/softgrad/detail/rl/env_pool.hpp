/// @file env_pool.hpp
/// Episodes side by side for the model-free baselines: one environment per worker of a
/// TaskPool (threads, and the processes of an MPI run), each made by a factory with its own
/// simulator. Every process receives every episode's result, so training goes on identically
/// everywhere. An episode must not depend on which environment runs it (no state carried over
/// from earlier episodes), as holds for LocomotionEnv; a pool over one given environment runs
/// its episodes in order on it.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "softgrad/detail/task_pool.hpp"
#include "softgrad/rl/env.hpp"

namespace softgrad::rl {

/// Makes a new, independent environment. Called once per worker, possibly on worker threads.
using EnvFactory = std::function<std::unique_ptr<Env>()>;

class EnvPool {
 public:
  /// One environment per worker of `pool`, made by `make_env` when first needed.
  explicit EnvPool(EnvFactory make_env, TaskPool pool = TaskPool());
  /// The episodes of `env` only, one after another in this process.
  explicit EnvPool(Env& env);

  int observation_size();
  int action_size();
  /// The result of fn(env, task) for tasks 0..n-1 (each an episode or a few), on every process.
  std::vector<std::vector<double>> map(int n,
                                       const std::function<std::vector<double>(Env&, int)>& fn);
  /// Simulated steps of all the tasks mapped so far, on every process.
  long simulated_steps() const { return steps_; }

 private:
  Env& env(int worker);

  EnvFactory make_env_;
  TaskPool pool_;
  std::vector<std::unique_ptr<Env>> owned_;
  std::vector<Env*> envs_;
  long steps_ = 0;
};

}  // namespace softgrad::rl
