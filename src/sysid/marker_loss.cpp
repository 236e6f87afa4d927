#include "softgrad/errors.hpp"
#include "softgrad/sysid.hpp"

namespace softgrad {

MarkerLoss::MarkerLoss(const MarkerSet& markers, const Recording& recording, double t0, double dt,
                       int steps, double sigma)
    : markers_(markers), recording_(recording), sigma_(sigma), by_state_(steps + 1) {
  if (!(sigma > 0.0)) throw InputError("marker loss: sigma must be positive");
  for (size_t i = 0; i < recording.observations.size(); ++i) {
    const auto& o = recording.observations[i];
    samples_.push_back(sample_at(recording.times[o.frame], t0, dt, steps));
    by_state_[samples_.back().state].push_back(static_cast<int>(i));
  }
}

Eigen::VectorXd MarkerLoss::simulated(int i, const State& s) const {
  const auto& o = recording_.observations[i];
  const SampleAt& at = samples_[i];
  Eigen::VectorXd p = markers_.position(o.marker, s.x);
  if (at.back > 0.0) p -= at.back * markers_.position(o.marker, s.v);
  return p;
}

double MarkerLoss::evaluate(int n, int, const State& s, Eigen::VectorXd* xbar,
                            Eigen::VectorXd* vbar) const {
  if (n < 0 || n >= static_cast<int>(by_state_.size())) return 0.0;
  double l = 0.0;
  const double w = 1.0 / (sigma_ * sigma_);
  for (int i : by_state_[n]) {
    const auto& o = recording_.observations[i];
    const Eigen::VectorXd r = simulated(i, s) - o.position;
    l += 0.5 * w * r.squaredNorm();
    if (xbar) markers_.add_transpose(o.marker, r, w, *xbar);
    if (vbar && samples_[i].back > 0.0)
      markers_.add_transpose(o.marker, r, -w * samples_[i].back, *vbar);
  }
  return l;
}

Eigen::VectorXd marker_residuals(Simulator& sim, const Rollout& rollout, const MarkerSet& markers,
                                 const Recording& recording, const ParameterSet& params,
                                 Eigen::MatrixXd* J, const AdjointOptions& options) {
  const int dim = markers.dim();
  const int n_obs = static_cast<int>(recording.observations.size());
  const int T = rollout.static_solve ? 1 : rollout.steps;
  const MarkerLoss loss(markers, recording, rollout.initial.t, sim.options().dt, T);
  std::vector<std::vector<int>> by_state(T + 1);
  for (int i = 0; i < n_obs; ++i) by_state[loss.sample(i).state].push_back(i);
  Eigen::VectorXd r(n_obs * dim);
  if (J) J->setZero(n_obs * dim, params.size());
  const auto take = [&](int n, const State& s, const Eigen::MatrixXd* dx,
                        const Eigen::MatrixXd* dv) {
    for (int i : by_state[n]) {
      const auto& o = recording.observations[i];
      r.segment(i * dim, dim) = loss.simulated(i, s) - o.position;
      if (!dx) continue;
      const Marker& m = markers[o.marker];
      const double back = loss.sample(i).back;
      for (int a = 0; a < m.n; ++a) {
        const int row = m.verts[a] * dim;
        J->middleRows(i * dim, dim) += m.weights[a] * dx->middleRows(row, dim);
        if (back > 0.0)
          J->middleRows(i * dim, dim) -= back * m.weights[a] * dv->middleRows(row, dim);
      }
    }
  };
  if (J) {
    simulate_with_sensitivities(
        sim, rollout, params,
        [&](int n, const State& s, const Eigen::MatrixXd& dx, const Eigen::MatrixXd& dv) {
          take(n, s, &dx, &dv);
        },
        options);
  } else {
    const Trajectory traj = simulate(sim, rollout);
    for (int n = 0; n <= T; ++n)
      if (!by_state[n].empty()) take(n, traj.state(n), nullptr, nullptr);
  }
  return r;
}

}  // namespace softgrad
