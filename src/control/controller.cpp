#include "softgrad/controller.hpp"

#include <cmath>
#include <numbers>

#include "softgrad/errors.hpp"

namespace softgrad {
namespace {

void check_size(const Eigen::VectorXd& psi, int expected, const std::string& who) {
  if (psi.size() != expected)
    throw InputError(who + " controller: expected " + std::to_string(expected) +
                     " parameters, got " + std::to_string(psi.size()));
  if (!psi.allFinite()) throw InputError(who + " controller: parameters must be finite");
}

void check_bound(double a_max, const std::string& who) {
  if (!(a_max > 0.0) || !std::isfinite(a_max))
    throw InputError(who + " controller: the output bound must be positive and finite");
}

}  // namespace

// ---- open loop -------------------------------------------------------------------------------

OpenLoopController::OpenLoopController(int n_outputs, int n_steps, double a_max)
    : m_(n_outputs),
      steps_(n_steps),
      a_max_(a_max),
      z_(Eigen::VectorXd::Zero(n_steps * n_outputs)) {
  check_bound(a_max, "open-loop");
}

std::shared_ptr<Controller> OpenLoopController::clone() const {
  return std::make_shared<OpenLoopController>(*this);
}

void OpenLoopController::set_parameters(const Eigen::VectorXd& psi) {
  check_size(psi, steps_ * m_, "open-loop");
  z_ = psi;
}

Eigen::VectorXd OpenLoopController::act(int n, const State&, const Eigen::VectorXd&) const {
  if (n >= steps_) return Eigen::VectorXd::Zero(m_);
  return a_max_ * z_.segment(n * m_, m_).array().tanh();
}

void OpenLoopController::backprop(int n, const State&, const Eigen::VectorXd&,
                                  const Eigen::VectorXd& ubar, Eigen::VectorXd& psi_bar,
                                  Eigen::VectorXd&, Eigen::VectorXd&, Eigen::VectorXd&) const {
  if (n >= steps_) return;
  const Eigen::ArrayXd t = z_.segment(n * m_, m_).array().tanh();
  psi_bar.segment(n * m_, m_).array() += a_max_ * (1.0 - t.square()) * ubar.array();
}

// ---- sinusoidal gait -------------------------------------------------------------------------

SineController::SineController(int n_outputs, double dt, double a_max, double frequency)
    : m_(n_outputs), dt_(dt), a_max_(a_max), psi_(Eigen::VectorXd::Zero(3 * n_outputs + 1)) {
  check_bound(a_max, "sine");
  psi_[3 * m_] = frequency;
}

std::shared_ptr<Controller> SineController::clone() const {
  return std::make_shared<SineController>(*this);
}

void SineController::set_parameters(const Eigen::VectorXd& psi) {
  check_size(psi, 3 * m_ + 1, "sine");
  psi_ = psi;
}

Eigen::VectorXd SineController::act(int n, const State&, const Eigen::VectorXd&) const {
  const double t = n * dt_, w = 2.0 * std::numbers::pi * psi_[3 * m_];
  Eigen::VectorXd u(m_);
  for (int i = 0; i < m_; ++i)
    u[i] = a_max_ * std::tanh(psi_[i] * std::sin(w * t + psi_[m_ + i]) + psi_[2 * m_ + i]);
  return u;
}

void SineController::backprop(int n, const State&, const Eigen::VectorXd&,
                              const Eigen::VectorXd& ubar, Eigen::VectorXd& psi_bar,
                              Eigen::VectorXd&, Eigen::VectorXd&, Eigen::VectorXd&) const {
  const double t = n * dt_, w = 2.0 * std::numbers::pi * psi_[3 * m_];
  for (int i = 0; i < m_; ++i) {
    const double arg = w * t + psi_[m_ + i];
    const double z = psi_[i] * std::sin(arg) + psi_[2 * m_ + i];
    const double g = ubar[i] * a_max_ * (1.0 - std::tanh(z) * std::tanh(z));
    psi_bar[i] += g * std::sin(arg);
    psi_bar[m_ + i] += g * psi_[i] * std::cos(arg);
    psi_bar[2 * m_ + i] += g;
    psi_bar[3 * m_] += g * psi_[i] * std::cos(arg) * 2.0 * std::numbers::pi * t;
  }
}

// ---- keyframes -------------------------------------------------------------------------------

KeyframeController::KeyframeController(int n_outputs, int n_keys, double period, double dt,
                                       double a_max)
    : m_(n_outputs),
      keys_(n_keys),
      period_(period),
      dt_(dt),
      a_max_(a_max),
      z_(Eigen::VectorXd::Zero(n_keys * n_outputs)) {
  check_bound(a_max, "keyframe");
  if (n_keys < 2) throw InputError("keyframe controller: at least two keyframes are needed");
  if (!(period > 0.0)) throw InputError("keyframe controller: the period must be positive");
}

std::shared_ptr<Controller> KeyframeController::clone() const {
  return std::make_shared<KeyframeController>(*this);
}

void KeyframeController::set_parameters(const Eigen::VectorXd& psi) {
  check_size(psi, keys_ * m_, "keyframe");
  z_ = psi;
}

void KeyframeController::interval(int n, int& k0, int& k1, double& w) const {
  const double phase = std::fmod(n * dt_, period_) / period_ * keys_;  // in [0, keys)
  k0 = std::min(static_cast<int>(phase), keys_ - 1);
  k1 = (k0 + 1) % keys_;  // periodic
  w = phase - k0;
}

Eigen::VectorXd KeyframeController::act(int n, const State&, const Eigen::VectorXd&) const {
  int k0, k1;
  double w;
  interval(n, k0, k1, w);
  const Eigen::ArrayXd z =
      (1.0 - w) * z_.segment(k0 * m_, m_).array() + w * z_.segment(k1 * m_, m_).array();
  return a_max_ * z.tanh();
}

void KeyframeController::backprop(int n, const State&, const Eigen::VectorXd&,
                                  const Eigen::VectorXd& ubar, Eigen::VectorXd& psi_bar,
                                  Eigen::VectorXd&, Eigen::VectorXd&, Eigen::VectorXd&) const {
  int k0, k1;
  double w;
  interval(n, k0, k1, w);
  const Eigen::ArrayXd z =
      (1.0 - w) * z_.segment(k0 * m_, m_).array() + w * z_.segment(k1 * m_, m_).array();
  const Eigen::ArrayXd g = a_max_ * (1.0 - z.tanh().square()) * ubar.array();
  psi_bar.segment(k0 * m_, m_).array() += (1.0 - w) * g;
  psi_bar.segment(k1 * m_, m_).array() += w * g;
}

// ---- closed loop -----------------------------------------------------------------------------

MlpController::MlpController(const Model& model, int n_outputs, double dt, Options options)
    : dim_(model.dim), dt_(dt), options_(std::move(options)) {
  check_bound(options_.a_max, "MLP");
  int inputs = 2 + static_cast<int>(options_.goal.size());
  if (options_.sensors) {
    const int n = options_.sensors->size();
    if (options_.sensor_scale.size() == 0) options_.sensor_scale = Eigen::VectorXd::Ones(n);
    if (options_.sensor_scale.size() != n || !(options_.sensor_scale.array() > 0.0).all())
      throw InputError("MLP controller: sensor_scale needs " + std::to_string(n) +
                       " positive values");
    options_.observed.clear();
    inputs += n;
  } else {
    if (options_.observed.empty())
      for (int v = 0; v < model.n_mesh_verts(); ++v) options_.observed.push_back(v);
    for (int v : options_.observed)
      if (v < 0 || v >= model.n_verts)
        throw InputError("MLP controller: observed vertex " + std::to_string(v) +
                         " is not in the model");
    inputs += 2 * dim_ * static_cast<int>(options_.observed.size());
  }
  if (!options_.goal.allFinite()) throw InputError("MLP controller: the goal is not finite");
  std::vector<int> sizes{inputs};
  sizes.insert(sizes.end(), options_.hidden.begin(), options_.hidden.end());
  sizes.push_back(n_outputs);
  mlp_ = Mlp(sizes, options_.seed);
}

std::shared_ptr<Controller> MlpController::clone() const {
  return std::make_shared<MlpController>(*this);
}

void MlpController::set_parameters(const Eigen::VectorXd& psi) {
  check_size(psi, mlp_.n_parameters(), "MLP");
  mlp_.set_parameters(psi);
}

void MlpController::set_goal(const Eigen::VectorXd& goal) {
  if (goal.size() != options_.goal.size() || !goal.allFinite())
    throw InputError("MLP controller: the goal needs " + std::to_string(options_.goal.size()) +
                     " finite values, got " + std::to_string(goal.size()));
  options_.goal = goal;
}

Eigen::VectorXd MlpController::observe(int n, const State& s) const {
  const double phase = 2.0 * std::numbers::pi * n * dt_ / options_.period;
  const Eigen::Index g = options_.goal.size();
  if (options_.sensors) {
    const int m = options_.sensors->size();
    Eigen::VectorXd obs(m + g + 2);
    options_.sensors->read(s, obs.data());
    obs.head(m).array() /= options_.sensor_scale.array();
    obs.segment(m, g) = options_.goal / options_.length_scale;
    obs[m + g] = std::sin(phase);
    obs[m + g + 1] = std::cos(phase);
    return obs;
  }
  const int k = static_cast<int>(options_.observed.size());
  Eigen::VectorXd cx = Eigen::VectorXd::Zero(dim_), cv = Eigen::VectorXd::Zero(dim_);
  for (int v : options_.observed) {
    cx += s.x.segment(v * dim_, dim_);
    cv += s.v.segment(v * dim_, dim_);
  }
  cx /= k;
  cv /= k;
  Eigen::VectorXd obs(2 * dim_ * k + g + 2);
  for (int i = 0; i < k; ++i) {
    const int v = options_.observed[i];
    obs.segment(i * dim_, dim_) = (s.x.segment(v * dim_, dim_) - cx) / options_.length_scale;
    obs.segment((k + i) * dim_, dim_) =
        (s.v.segment(v * dim_, dim_) - cv) / options_.velocity_scale;
  }
  obs.segment(2 * dim_ * k, g) = options_.goal / options_.length_scale;
  obs[2 * dim_ * k + g] = std::sin(phase);
  obs[2 * dim_ * k + g + 1] = std::cos(phase);
  return obs;
}

Eigen::VectorXd MlpController::act(int n, const State& s, const Eigen::VectorXd& u_prev) const {
  const Eigen::VectorXd y = mlp_.forward(observe(n, s));
  const double a = options_.a_max;
  Eigen::VectorXd u(y.size());
  for (int i = 0; i < y.size(); ++i)
    u[i] = options_.delta > 0.0
               ? a * std::tanh(std::atanh(u_prev[i] / a) + options_.delta * std::tanh(y[i]))
               : a * std::tanh(y[i]);  // delta 0: direct outputs
  return u;
}

void MlpController::backprop(int n, const State& s, const Eigen::VectorXd& u_prev,
                             const Eigen::VectorXd& ubar, Eigen::VectorXd& psi_bar,
                             Eigen::VectorXd& xbar, Eigen::VectorXd& vbar,
                             Eigen::VectorXd& u_prev_bar) const {
  const Eigen::VectorXd obs = observe(n, s);
  const Eigen::VectorXd y = mlp_.forward(obs);
  const double a = options_.a_max;
  Eigen::VectorXd ybar(y.size());
  for (int i = 0; i < y.size(); ++i) {
    if (!(options_.delta > 0.0)) {  // u = a tanh(y)
      ybar[i] = ubar[i] * a * (1.0 - std::tanh(y[i]) * std::tanh(y[i]));
      continue;
    }
    const double r = u_prev[i] / a;
    const double w = std::atanh(r) + options_.delta * std::tanh(y[i]);
    const double dw = ubar[i] * a * (1.0 - std::tanh(w) * std::tanh(w));  // dL/dw
    ybar[i] = dw * options_.delta * (1.0 - std::tanh(y[i]) * std::tanh(y[i]));
    u_prev_bar[i] += dw / (a * (1.0 - r * r));
  }
  const Eigen::VectorXd obs_bar = mlp_.backward(obs, ybar, psi_bar);
  if (options_.sensors) {
    // obs = s_k / scale_k: the sensors' own reverse mode.
    const Eigen::VectorXd s_bar =
        obs_bar.head(options_.sensors->size()).cwiseQuotient(options_.sensor_scale);
    options_.sensors->backprop(s, s_bar.data(), xbar, vbar);
    return;
  }
  // obs = (x_v - mean x) / L and (v_v - mean v) / V for the observed vertices.
  const int k = static_cast<int>(options_.observed.size());
  Eigen::VectorXd sx = Eigen::VectorXd::Zero(dim_), sv = Eigen::VectorXd::Zero(dim_);
  for (int i = 0; i < k; ++i) {
    sx += obs_bar.segment(i * dim_, dim_);
    sv += obs_bar.segment((k + i) * dim_, dim_);
  }
  for (int i = 0; i < k; ++i) {
    const int v = options_.observed[i];
    xbar.segment(v * dim_, dim_) +=
        (obs_bar.segment(i * dim_, dim_) - sx / k) / options_.length_scale;
    vbar.segment(v * dim_, dim_) +=
        (obs_bar.segment((k + i) * dim_, dim_) - sv / k) / options_.velocity_scale;
  }
}

}  // namespace softgrad
