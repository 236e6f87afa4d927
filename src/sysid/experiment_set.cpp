#include "experiment_set.hpp"

#include "softgrad/errors.hpp"

namespace softgrad::detail {

ExperimentSet::ExperimentSet(std::vector<SysIdExperiment>& experiments,
                             const std::vector<std::string>& names, const TaskPool& pool)
    : experiments_(experiments), pool_(pool) {
  if (experiments.empty()) throw InputError("sysid: no experiments to fit");
  offsets_.push_back(0);
  for (size_t k = 0; k < experiments.size(); ++k) {
    SysIdExperiment& e = experiments[k];
    const std::string which = "sysid: experiment " + std::to_string(k);
    if (!e.model) throw InputError(which + " has no model");
    sims_.push_back(std::make_unique<Simulator>(e.model, e.options));
    try {
      params_.emplace_back(*sims_.back(), e.rollout, names);
    } catch (const InputError& error) {
      throw InputError(which + ": " + error.what());
    }
    if (e.markers.dim() != dim())
      throw InputError(which + " is " + std::to_string(e.markers.dim()) + "D, experiment 0 " +
                       std::to_string(dim()) + "D");
    const ParameterSet& p = params_.back();
    if (p.size() != params().size())
      throw InputError(which + " has " + std::to_string(p.size()) +
                       " parameter values, experiment 0 " + std::to_string(params().size()) +
                       ": the experiments share the identified parameters");
    for (int i = 0; i < p.size(); ++i)
      if (p.label(i) != params().label(i))
        throw InputError(which + "'s parameter " + std::to_string(i) + " is '" + p.label(i) +
                         "', experiment 0's '" + params().label(i) + "'");
    offsets_.push_back(offsets_.back() + static_cast<int>(e.recording.observations.size()));
  }
}

ExperimentSet::~ExperimentSet() = default;

int ExperimentSet::observations(int k) const { return offsets_[k + 1] - offsets_[k]; }

const Recording::Observation& ExperimentSet::observation(int i) const {
  int k = 0;
  while (offsets_[k + 1] <= i) ++k;
  return experiments_[k].recording.observations[i - offsets_[k]];
}

Eigen::VectorXd ExperimentSet::theta() const {
  return params().get(*sims_.front(), experiments_.front().rollout);
}

void ExperimentSet::set(const Eigen::VectorXd& theta) {
  for (int k = 0; k < size(); ++k) params_[k].set(*sims_[k], experiments_[k].rollout, theta);
}

std::vector<std::vector<double>> ExperimentSet::each(const TaskPool::Task& f) const {
  // One experiment keeps the calling thread's parallel element loops (a pool's worker runs
  // them on one thread); every process computes it, as every process would receive it.
  if (size() == 1) return {f(0, 0)};
  return pool_.map(size(), f);
}

Eigen::VectorXd ExperimentSet::residuals(Eigen::MatrixXd* J, const AdjointOptions& options) {
  const int P = params().size(), d = dim();
  const std::vector<std::vector<double>> parts = each([&](int, int k) {
    const SysIdExperiment& e = experiments_[k];
    Eigen::MatrixXd Jk;
    const Eigen::VectorXd r = marker_residuals(*sims_[k], e.rollout, e.markers, e.recording,
                                               params_[k], J ? &Jk : nullptr, options);
    std::vector<double> out(r.data(), r.data() + r.size());
    if (J) out.insert(out.end(), Jk.data(), Jk.data() + Jk.size());
    return out;
  });
  Eigen::VectorXd r(observations() * d);
  if (J) J->resize(r.size(), P);
  for (int k = 0; k < size(); ++k) {
    const int rows = observations(k) * d, row = first_observation(k) * d;
    r.segment(row, rows) = Eigen::Map<const Eigen::VectorXd>(parts[k].data(), rows);
    if (J)
      J->middleRows(row, rows) = Eigen::Map<const Eigen::MatrixXd>(parts[k].data() + rows, rows, P);
  }
  return r;
}

double ExperimentSet::loss(Eigen::VectorXd* gradient, const AdjointOptions& options) {
  const std::vector<std::vector<double>> parts = each([&](int, int k) {
    const SysIdExperiment& e = experiments_[k];
    Simulator& sim = *sims_[k];
    const int T = e.rollout.static_solve ? 1 : e.rollout.steps;
    const MarkerLoss loss(e.markers, e.recording, e.rollout.initial.t, sim.options().dt, T);
    const Trajectory traj = simulate(sim, e.rollout);
    if (!gradient) return std::vector<double>{evaluate_loss(sim, traj, loss)};
    const GradientResult g = softgrad::gradient(sim, traj, loss, params_[k], options);
    std::vector<double> out{g.loss};
    out.insert(out.end(), g.gradient.data(), g.gradient.data() + g.gradient.size());
    return out;
  });
  // Summed in experiment order: the same on any number of threads and processes.
  double l = 0.0;
  if (gradient) gradient->setZero(params().size());
  for (const std::vector<double>& part : parts) {
    l += part[0];
    if (gradient) *gradient += Eigen::Map<const Eigen::VectorXd>(part.data() + 1, params().size());
  }
  return l;
}

}  // namespace softgrad::detail
