// Batches of rollouts and gradients on a TaskPool's threads, one Simulator per worker.
#include "softgrad/batch.hpp"

#include "softgrad/errors.hpp"

namespace softgrad {

RolloutBatch::RolloutBatch(std::shared_ptr<const Model> model, SimulationOptions options,
                           int threads)
    : model_(std::move(model)),
      options_(std::move(options)),
      pool_(threads, /*distributed=*/false),
      workspaces_(pool_.workers()) {
  if (!model_) throw InputError("a rollout batch needs a model");
}

RolloutBatch::~RolloutBatch() = default;

/// Runs fn(sim, k) for k in [0, n) on the pool's threads, sim the worker's Simulator; an error
/// names its rollout.
template <class Fn>
void RolloutBatch::for_each(int n, const Fn& fn) {
  pool_.run_local(n, [&](int worker, int k) {
    try {
      if (!workspaces_[worker]) workspaces_[worker] = std::make_unique<Simulator>(model_, options_);
      fn(*workspaces_[worker], k);
    } catch (const ConvergenceError& e) {
      throw ConvergenceError("rollout " + std::to_string(k) + ": " + e.what(), e.step, e.residual);
    } catch (const InputError& e) {
      throw InputError("rollout " + std::to_string(k) + ": " + e.what());
    }
  });
}

std::vector<Trajectory> RolloutBatch::simulate(const std::vector<Rollout>& rollouts,
                                               const TrajectoryOptions& trajectory) {
  std::vector<Trajectory> out(rollouts.size());
  for_each(static_cast<int>(rollouts.size()), [&](Simulator& sim, int k) {
    out[k] = softgrad::simulate(sim, rollouts[k], trajectory);
  });
  return out;
}

std::vector<GradientResult> RolloutBatch::gradient(const std::vector<Trajectory>& trajectories,
                                                   const Loss& loss, const ParameterSet& params,
                                                   const AdjointOptions& options) {
  for (size_t k = 0; k < trajectories.size(); ++k)
    if (trajectories[k].model() != model_ || !(trajectories[k].options() == options_))
      throw InputError("rollout batch: trajectory " + std::to_string(k) +
                       " has another model or other options than the batch");
  std::vector<GradientResult> out(trajectories.size());
  for_each(static_cast<int>(trajectories.size()), [&](Simulator& sim, int k) {
    out[k] = softgrad::gradient(sim, trajectories[k], loss, params, options);
  });
  return out;
}

std::vector<GradientResult> RolloutBatch::gradient(
    const std::vector<const Trajectory*>& trajectories, const std::vector<const Loss*>& losses,
    const std::vector<const ParameterSet*>& params, const AdjointOptions& options) {
  if (losses.size() != trajectories.size() || params.size() != trajectories.size())
    throw InputError("rollout batch: " + std::to_string(trajectories.size()) +
                     " trajectories need as many losses and parameter sets, not " +
                     std::to_string(losses.size()) + " and " + std::to_string(params.size()));
  for (size_t k = 0; k < trajectories.size(); ++k)
    if (!trajectories[k] || !losses[k] || !params[k] || trajectories[k]->model() != model_ ||
        !(trajectories[k]->options() == options_))
      throw InputError("rollout batch: trajectory " + std::to_string(k) +
                       " is missing or has another model or other options than the batch");
  std::vector<GradientResult> out(trajectories.size());
  for_each(static_cast<int>(trajectories.size()), [&](Simulator& sim, int k) {
    out[k] = softgrad::gradient(sim, *trajectories[k], *losses[k], *params[k], options);
  });
  return out;
}

std::vector<Trajectory> simulate_batch(const std::shared_ptr<const Model>& model,
                                       const SimulationOptions& options,
                                       const std::vector<Rollout>& rollouts,
                                       const TrajectoryOptions& trajectory, int threads) {
  return RolloutBatch(model, options, threads).simulate(rollouts, trajectory);
}

std::vector<GradientResult> gradient_batch(const std::vector<Trajectory>& trajectories,
                                           const Loss& loss, const ParameterSet& params,
                                           const AdjointOptions& options, int threads) {
  if (trajectories.empty()) return {};
  return RolloutBatch(trajectories.front().model(), trajectories.front().options(), threads)
      .gradient(trajectories, loss, params, options);
}

}  // namespace softgrad
