// softgrad/sysid.hpp: identify() (one fit, or several from spread starting points side by side
// on a TaskPool of threads or MPI processes, keeping the one with the lowest cost), the marker
// loss, and whether a fit's estimate can be trusted (identifiability_warnings).
#include "softgrad/sysid.hpp"

#include <cmath>
#include <cstdio>
#include <memory>
#include <random>

#include "identify_one.hpp"
#include "parametrisation.hpp"
#include "softgrad/detail/task_pool.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {
namespace {

/// Start k's values: phi of theta0 moved by spread N(0, 1) per entry, clamped to the bounds.
Eigen::VectorXd starting_point(const detail::Parametrisation& map, const Eigen::VectorXd& theta0,
                               const SysIdOptions& o, int k) {
  if (k == 0) return theta0;
  std::mt19937_64 rng(o.seed + 0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(k));
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::VectorXd phi = map.phi(theta0);
  for (int i = 0; i < phi.size(); ++i) phi[i] += o.start_spread * normal(rng);
  Eigen::VectorXd theta = map.theta(phi);
  for (int i = 0; i < theta.size(); ++i)
    theta[i] = std::clamp(theta[i], map.lower[i], map.upper[i]);
  return theta;
}

// A report as numbers, for the task pool (its labels and method are the same for every start).
void put(std::vector<double>& out, const Eigen::VectorXd& v) {
  out.push_back(static_cast<double>(v.size()));
  out.insert(out.end(), v.data(), v.data() + v.size());
}
Eigen::VectorXd take(const std::vector<double>& in, size_t& k) {
  const int n = static_cast<int>(in[k++]);
  Eigen::VectorXd v = Eigen::Map<const Eigen::VectorXd>(in.data() + k, n);
  k += n;
  return v;
}

std::vector<double> encode(const SysIdReport& r) {
  std::vector<double> out{r.cost_before,
                          r.cost_after,
                          r.rms_before,
                          r.rms_after,
                          static_cast<double>(r.residuals),
                          static_cast<double>(r.iterations),
                          static_cast<double>(r.simulations),
                          static_cast<double>(r.sensitivity_simulations),
                          static_cast<double>(r.gradient_simulations),
                          r.seconds,
                          r.converged ? 1.0 : 0.0};
  put(out, r.initial);
  put(out, r.estimate);
  put(out, r.stddev);
  put(out, Eigen::Map<const Eigen::VectorXd>(r.covariance.data(), r.covariance.size()));
  out.push_back(r.condition_number);
  out.push_back(static_cast<double>(r.fitted.size()));
  for (const Eigen::VectorXd& f : r.fitted) put(out, f);
  for (const Eigen::VectorXd& f : r.initial_fit) put(out, f);
  out.push_back(static_cast<double>(r.experiments.size()));
  for (const SysIdExperimentFit& e : r.experiments)
    out.insert(out.end(), {static_cast<double>(e.observations), static_cast<double>(e.residuals),
                           e.cost_before, e.cost_after, e.rms_before, e.rms_after});
  out.push_back(static_cast<double>(r.termination.size()));
  for (char c : r.termination) out.push_back(static_cast<unsigned char>(c));
  return out;
}

void decode(const std::vector<double>& in, SysIdReport& r) {
  r.cost_before = in[0], r.cost_after = in[1], r.rms_before = in[2], r.rms_after = in[3];
  r.residuals = static_cast<int>(in[4]), r.iterations = static_cast<int>(in[5]);
  r.simulations = static_cast<int>(in[6]), r.sensitivity_simulations = static_cast<int>(in[7]);
  r.gradient_simulations = static_cast<int>(in[8]), r.seconds = in[9], r.converged = in[10] != 0;
  size_t k = 11;
  r.initial = take(in, k);
  r.estimate = take(in, k);
  r.stddev = take(in, k);
  const Eigen::VectorXd covariance = take(in, k);
  const auto p = static_cast<Eigen::Index>(std::lround(std::sqrt(covariance.size())));
  r.covariance = Eigen::Map<const Eigen::MatrixXd>(covariance.data(), p, p);
  r.condition_number = in[k++];
  r.fitted.resize(static_cast<size_t>(in[k++]));
  for (Eigen::VectorXd& f : r.fitted) f = take(in, k);
  r.initial_fit.resize(r.fitted.size());
  for (Eigen::VectorXd& f : r.initial_fit) f = take(in, k);
  r.experiments.resize(static_cast<size_t>(in[k++]));
  for (SysIdExperimentFit& e : r.experiments) {
    e.observations = static_cast<int>(in[k]), e.residuals = static_cast<int>(in[k + 1]);
    e.cost_before = in[k + 2], e.cost_after = in[k + 3];
    e.rms_before = in[k + 4], e.rms_after = in[k + 5];
    k += 6;
  }
  r.termination.resize(static_cast<size_t>(in[k++]));
  for (char& c : r.termination) c = static_cast<char>(static_cast<int>(in[k++]));
}

/// A worker's copy of the experiments, for the starts it runs one after another.
struct Workspace {
  Workspace(const std::vector<SysIdExperiment>& original, const std::vector<std::string>& names,
            const TaskPool& serial)
      : experiments(original), set(experiments, names, serial) {}
  std::vector<SysIdExperiment> experiments;
  detail::ExperimentSet set;  // refers to `experiments`: a Workspace stays where it is made
};

}  // namespace

SysIdReport identify(Simulator& sim, Rollout& rollout, const MarkerSet& markers,
                     const Recording& recording, const SysIdOptions& options) {
  std::vector<SysIdExperiment> one{
      {sim.shared_model(), sim.options(), rollout, markers, recording}};
  SysIdReport report = identify(one, options);
  rollout = std::move(one.front().rollout);
  return report;
}

SysIdReport identify(std::vector<SysIdExperiment>& experiments, const SysIdOptions& options) {
  if (options.starts < 1) throw InputError("sysid: starts must be >= 1");
  if (!(options.start_spread >= 0.0) || !std::isfinite(options.start_spread))
    throw InputError("sysid: start_spread must be finite and >= 0");
  if (options.parameters.empty()) throw InputError("sysid: no parameters to identify");
  if (options.starts == 1) {
    // One fit: its experiments side by side.
    const TaskPool pool(options.threads);
    detail::ExperimentSet set(experiments, options.parameters, pool);
    if (options.validation.empty()) return detail::identify_one(set, options);
    std::vector<SysIdExperiment> held = options.validation;
    detail::ExperimentSet validation(held, options.parameters, pool);
    return detail::identify_one(set, options, &validation);
  }
  if (!options.validation.empty())
    throw InputError("sysid: held-out experiments (validation) go with one start, not " +
                     std::to_string(options.starts));
  // Several starts side by side, each on a worker with its own copy of the experiments, run one
  // after another there; a start that fails costs +infinity.
  const TaskPool serial(1, false);
  detail::ExperimentSet main(experiments, options.parameters, serial);
  const Eigen::VectorXd theta0 = main.theta();
  const detail::Parametrisation map = detail::parametrise(main.params(), theta0, options);
  const TaskPool pool(options.threads);
  std::vector<std::unique_ptr<Workspace>> workspaces(pool.workers());
  const std::vector<std::vector<double>> fits = pool.map(options.starts, [&](int w, int k) {
    if (!workspaces[w])
      workspaces[w] = std::make_unique<Workspace>(experiments, options.parameters, serial);
    detail::ExperimentSet& set = workspaces[w]->set;
    set.set(starting_point(map, theta0, options, k));
    try {
      return encode(detail::identify_one(set, options));
    } catch (const InputError&) {
      return std::vector<double>{};
    }
  });
  SysIdReport best;
  best.method = options.method;
  for (int i = 0; i < main.params().size(); ++i) best.labels.push_back(main.params().label(i));
  best.best_start = -1;
  std::vector<double> costs;
  for (int k = 0; k < options.starts; ++k) {
    SysIdReport r;
    if (!fits[k].empty()) decode(fits[k], r);
    costs.push_back(fits[k].empty() ? INFINITY : r.cost_after);
    if (!fits[k].empty() && (best.best_start < 0 || r.cost_after < best.cost_after)) {
      r.method = best.method;
      r.labels = best.labels;
      best = std::move(r);
      best.best_start = k;
    }
  }
  if (best.best_start < 0) throw InputError("sysid: the fit failed from every starting point");
  best.start_costs = std::move(costs);
  best.interrupted = options.stop && options.stop();  // the stop holds once asked
  main.set(best.estimate);
  return best;
}

const char* to_string(SysIdMethod method) {
  return method == SysIdMethod::LevenbergMarquardt ? "lm" : "lbfgs";
}

const char* to_string(RobustLoss loss) {
  switch (loss) {
    case RobustLoss::None:
      return "none";
    case RobustLoss::Huber:
      return "huber";
    case RobustLoss::Cauchy:
      return "cauchy";
  }
  return "?";
}

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

// Whether a fit's estimate can be trusted: the checks behind identifiability_warnings.
namespace {

std::string format(const char* f, double a, double b = 0.0, double c = 0.0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a, b, c);
  return buf;
}

}  // namespace

std::vector<std::string> identifiability_warnings(const SysIdReport& r, double max_relative_stddev,
                                                  double max_condition) {
  std::vector<std::string> out;
  if (r.method != SysIdMethod::LevenbergMarquardt) return out;
  const int P = static_cast<int>(r.estimate.size());
  if (r.residuals <= P)
    out.push_back(std::to_string(r.residuals) + " residuals for " + std::to_string(P) +
                  " parameters: the data cannot determine them (record more frames or markers)");
  bool any_stddev = false;
  for (int k = 0; k < P && k < r.stddev.size(); ++k) {
    if (!std::isfinite(r.stddev[k])) continue;
    any_stddev = true;
    const double magnitude = std::abs(r.estimate[k]);
    if (r.stddev[k] > max_relative_stddev * magnitude)
      out.push_back(r.labels.at(k) + ": not identifiable from these data" +
                    format(" (standard deviation %.3g, %.3g times the estimate %.6g)", r.stddev[k],
                           magnitude > 0 ? r.stddev[k] / magnitude : INFINITY, r.estimate[k]));
  }
  if (!any_stddev && P > 0 && r.residuals > P)
    out.push_back("no standard deviations: the covariance is unavailable (singular Jacobian)");
  if (std::isfinite(r.condition_number) ? r.condition_number > max_condition
                                        : r.condition_number > 0)
    out.push_back(
        format("the Jacobian is nearly singular (condition number %.3g): some "
               "combination of the parameters is not determined by the data",
               r.condition_number));
  return out;
}

}  // namespace softgrad
