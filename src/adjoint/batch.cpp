// Batches of rollouts and gradients on a TaskPool's threads, one Simulator per worker.
#include "softgrad/batch.hpp"

#include "softgrad/errors.hpp"
#include "softgrad/task_pool.hpp"

namespace softgrad {
namespace {

/// Runs fn(sim, k) for k in [0, n) on the pool's threads with one lazily made Simulator per
/// worker; an error names its rollout.
template <class Fn>
void for_each_rollout(const std::shared_ptr<const Model>& model, const SimulationOptions& options,
                      int n, int threads, const Fn& fn) {
  const TaskPool pool(threads, /*distributed=*/false);
  std::vector<std::unique_ptr<Simulator>> workspaces(pool.workers());
  pool.run_local(n, [&](int worker, int k) {
    try {
      if (!workspaces[worker]) workspaces[worker] = std::make_unique<Simulator>(model, options);
      fn(*workspaces[worker], k);
    } catch (const ConvergenceError& e) {
      throw ConvergenceError("rollout " + std::to_string(k) + ": " + e.what());
    } catch (const InputError& e) {
      throw InputError("rollout " + std::to_string(k) + ": " + e.what());
    }
  });
}

}  // namespace

std::vector<Trajectory> simulate_batch(const std::shared_ptr<const Model>& model,
                                       const SimulationOptions& options,
                                       const std::vector<Rollout>& rollouts,
                                       const TrajectoryOptions& trajectory, int threads) {
  std::vector<Trajectory> out(rollouts.size());
  for_each_rollout(model, options, static_cast<int>(rollouts.size()), threads,
                   [&](Simulator& sim, int k) { out[k] = simulate(sim, rollouts[k], trajectory); });
  return out;
}

std::vector<GradientResult> gradient_batch(const std::vector<Trajectory>& trajectories,
                                           const Loss& loss, const ParameterSet& params,
                                           const AdjointOptions& options, int threads) {
  std::vector<GradientResult> out(trajectories.size());
  if (trajectories.empty()) return out;
  const auto& model = trajectories.front().model();
  const SimulationOptions& sim_options = trajectories.front().options();
  for (size_t k = 0; k < trajectories.size(); ++k)
    if (trajectories[k].model() != model || !(trajectories[k].options() == sim_options))
      throw InputError("gradient_batch: trajectory " + std::to_string(k) +
                       " has another model or other options than trajectory 0");
  for_each_rollout(model, sim_options, static_cast<int>(trajectories.size()), threads,
                   [&](Simulator& sim, int k) {
                     out[k] = gradient(sim, trajectories[k], loss, params, options);
                   });
  return out;
}

}  // namespace softgrad
