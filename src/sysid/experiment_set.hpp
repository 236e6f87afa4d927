/// @file experiment_set.hpp
/// Internal: the experiments of one fit with a simulator and a parameter set each, and what the
/// fit asks of all of them at one theta: stacked residuals and Jacobians, or the summed marker
/// loss and its adjoint gradient. Several experiments run side by side on a task pool, one task
/// per experiment on that experiment's own simulator, so results do not depend on the workers.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "softgrad/detail/task_pool.hpp"
#include "softgrad/sysid.hpp"

namespace softgrad::detail {

class ExperimentSet {
 public:
  /// `pool`: where several experiments run (one experiment runs on the calling thread, with
  /// its element loops parallel).
  /// @throws InputError for no experiments, or one whose parameters or dimension differ from
  /// the first's.
  ExperimentSet(std::vector<SysIdExperiment>& experiments, const std::vector<std::string>& names,
                const TaskPool& pool);
  ~ExperimentSet();

  int size() const { return static_cast<int>(experiments_.size()); }
  /// The first experiment's parameter set: every experiment's has the same labels and sizes.
  const ParameterSet& params() const { return params_.front(); }
  int dim() const { return experiments_.front().markers.dim(); }
  /// Observations of experiment k and of all of them; k's first in the stacked order.
  int observations(int k) const;
  int observations() const { return offsets_.back(); }
  int first_observation(int k) const { return offsets_[k]; }
  const Recording::Observation& observation(int i) const;

  /// The first experiment's values.
  Eigen::VectorXd theta() const;
  /// Writes theta into every experiment's rollout.
  void set(const Eigen::VectorXd& theta);

  /// Simulated-minus-recorded residuals of every experiment, stacked in order, and their
  /// Jacobian if J is non-null (marker_residuals of each).
  Eigen::VectorXd residuals(Eigen::MatrixXd* J, const AdjointOptions& options);
  /// The sum of the experiments' marker losses 1/2 |r|^2, and its adjoint gradient if
  /// `gradient` is non-null.
  double loss(Eigen::VectorXd* gradient, const AdjointOptions& options);

 private:
  /// f(k) for every experiment, on the pool when there are several.
  std::vector<std::vector<double>> each(const TaskPool::Task& f) const;

  std::vector<SysIdExperiment>& experiments_;
  std::vector<std::unique_ptr<Simulator>> sims_;
  std::vector<ParameterSet> params_;
  std::vector<int> offsets_;  ///< first observation of each experiment, then the total
  const TaskPool& pool_;
};

}  // namespace softgrad::detail
