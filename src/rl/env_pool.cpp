#include "softgrad/detail/rl/env_pool.hpp"

#include "softgrad/errors.hpp"

namespace softgrad::rl {

EnvPool::EnvPool(EnvFactory make_env, TaskPool pool) : make_env_(std::move(make_env)), pool_(pool) {
  if (!make_env_) throw InputError("environment pool: no environment factory");
  owned_.resize(pool_.workers());
  envs_.assign(pool_.workers(), nullptr);
}

EnvPool::EnvPool(Env& env) : pool_(1, /*distributed=*/false), envs_{&env} {}

Env& EnvPool::env(int worker) {
  if (!envs_[worker]) {
    owned_[worker] = make_env_();
    if (!owned_[worker]) throw InputError("environment pool: the factory made no environment");
    envs_[worker] = owned_[worker].get();
  }
  return *envs_[worker];
}

int EnvPool::observation_size() { return env(0).observation_size(); }
int EnvPool::action_size() { return env(0).action_size(); }

std::vector<std::vector<double>> EnvPool::map(
    int n, const std::function<std::vector<double>(Env&, int)>& fn) {
  // Each result carries the steps its task took, as its last entry.
  std::vector<std::vector<double>> results = pool_.map(n, [&](int worker, int task) {
    Env& e = env(worker);
    const long before = e.simulated_steps();
    std::vector<double> r = fn(e, task);
    r.push_back(static_cast<double>(e.simulated_steps() - before));
    return r;
  });
  for (std::vector<double>& r : results) {
    steps_ += static_cast<long>(r.back());
    r.pop_back();
  }
  return results;
}

}  // namespace softgrad::rl
