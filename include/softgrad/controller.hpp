/// @file controller.hpp
/// Controllers: maps from controller parameters psi (and, closed loop, the state) to the
/// per-step values of one term's per-step parameter group, typically muscle activations.
/// A Rollout with a controller calls act() before every step and writes the result into the
/// controlled term; the adjoint calls backprop() with dL/du_n, so gradients flow
/// policy -> activations -> simulator -> state -> policy ("controller" in a ParameterSet).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "softgrad/mlp.hpp"
#include "softgrad/model.hpp"
#include "softgrad/sensors.hpp"
#include "softgrad/state.hpp"

namespace softgrad {

class Controller {
 public:
  virtual ~Controller() = default;
  virtual std::string name() const = 0;
  virtual std::shared_ptr<Controller> clone() const = 0;
  /// Values per step (muscles).
  virtual int n_outputs() const = 0;
  virtual Eigen::VectorXd parameters() const = 0;
  /// @throws InputError for a wrong size or non-finite values.
  virtual void set_parameters(const Eigen::VectorXd& psi) = 0;
  int n_parameters() const { return static_cast<int>(parameters().size()); }
  /// The outputs u_n for step n, from the state s_n at its start and the previous outputs
  /// (zero before the first step).
  virtual Eigen::VectorXd act(int n, const State& s, const Eigen::VectorXd& u_prev) const = 0;
  /// Reverse mode of act() for ubar = dL/du_n: psi_bar += (du/dpsi)^T ubar, and the same for
  /// the state (xbar, vbar) and the previous outputs (u_prev_bar).
  virtual void backprop(int n, const State& s, const Eigen::VectorXd& u_prev,
                        const Eigen::VectorXd& ubar, Eigen::VectorXd& psi_bar,
                        Eigen::VectorXd& xbar, Eigen::VectorXd& vbar,
                        Eigen::VectorXd& u_prev_bar) const = 0;
};

/// u_n = a_max tanh(z_n): free per-step values, bounded.
class OpenLoopController final : public Controller {
 public:
  OpenLoopController(int n_outputs, int n_steps, double a_max);
  std::string name() const override { return "open_loop"; }
  std::shared_ptr<Controller> clone() const override;
  int n_outputs() const override { return m_; }
  Eigen::VectorXd parameters() const override { return z_; }
  void set_parameters(const Eigen::VectorXd& psi) override;
  Eigen::VectorXd act(int n, const State& s, const Eigen::VectorXd& u_prev) const override;
  void backprop(int n, const State& s, const Eigen::VectorXd& u_prev, const Eigen::VectorXd& ubar,
                Eigen::VectorXd& psi_bar, Eigen::VectorXd& xbar, Eigen::VectorXd& vbar,
                Eigen::VectorXd& u_prev_bar) const override;

 private:
  int m_, steps_;
  double a_max_;
  Eigen::VectorXd z_;  ///< steps x m
};

/// u_m(t) = a_max tanh(A_m sin(2 pi f t + phi_m) + b_m): a gait. psi = (A, phi, b, f).
class SineController final : public Controller {
 public:
  SineController(int n_outputs, double dt, double a_max, double frequency);
  std::string name() const override { return "sine"; }
  std::shared_ptr<Controller> clone() const override;
  int n_outputs() const override { return m_; }
  Eigen::VectorXd parameters() const override { return psi_; }
  void set_parameters(const Eigen::VectorXd& psi) override;
  Eigen::VectorXd act(int n, const State& s, const Eigen::VectorXd& u_prev) const override;
  void backprop(int n, const State& s, const Eigen::VectorXd& u_prev, const Eigen::VectorXd& ubar,
                Eigen::VectorXd& psi_bar, Eigen::VectorXd& xbar, Eigen::VectorXd& vbar,
                Eigen::VectorXd& u_prev_bar) const override;

 private:
  int m_;
  double dt_, a_max_;
  Eigen::VectorXd psi_;
};

/// u_m(t) = a_max tanh(z_m(t)), z piecewise linear through K keyframes per period.
class KeyframeController final : public Controller {
 public:
  KeyframeController(int n_outputs, int n_keys, double period, double dt, double a_max);
  std::string name() const override { return "keyframes"; }
  std::shared_ptr<Controller> clone() const override;
  int n_outputs() const override { return m_; }
  Eigen::VectorXd parameters() const override { return z_; }
  void set_parameters(const Eigen::VectorXd& psi) override;
  Eigen::VectorXd act(int n, const State& s, const Eigen::VectorXd& u_prev) const override;
  void backprop(int n, const State& s, const Eigen::VectorXd& u_prev, const Eigen::VectorXd& ubar,
                Eigen::VectorXd& psi_bar, Eigen::VectorXd& xbar, Eigen::VectorXd& vbar,
                Eigen::VectorXd& u_prev_bar) const override;

 private:
  /// Keyframes k0, k1 and the weight of k1 at step n.
  void interval(int n, int& k0, int& k1, double& w) const;
  int m_, keys_;
  double period_, dt_, a_max_;
  Eigen::VectorXd z_;  ///< keys x m
};

/// Closed loop: observations are the positions and velocities of chosen vertices relative to
/// their mean (the body's own frame, translation removed), scaled, or (robots) the readings of
/// chosen sensors, each divided by its scale; then a goal if the task has one (a reach target,
/// divided by the length scale) and the clock phase (sin, cos of 2 pi t / period). The MLP's
/// outputs change the controls by a bounded amount:
///     u_n = a_max tanh(atanh(u_{n-1} / a_max) + delta tanh(MLP(obs_n))),
/// or, with delta = 0, directly: u_n = a_max tanh(MLP(obs_n)).
class MlpController final : public Controller {
 public:
  struct Options {
    std::vector<int> observed;  ///< vertices observed (empty: all)
    std::vector<int> hidden = {32, 32};
    double a_max = 0.3;
    double delta = 0.2;           ///< largest change per step, in tanh^-1 units; 0: direct outputs
    double period = 1.0;          ///< clock period [s]
    double length_scale = 1.0;    ///< positions are divided by it [m]
    double velocity_scale = 1.0;  ///< velocities are divided by it [m/s]
    std::uint64_t seed = 1;
    /// Observe these sensors (each value divided by its entry of sensor_scale; empty: 1)
    /// instead of vertices.
    std::shared_ptr<const SensorSet> sensors;
    Eigen::VectorXd sensor_scale;
    /// The goal observed (its size fixes the network's inputs; set_goal changes its value).
    Eigen::VectorXd goal;
  };
  MlpController(const Model& model, int n_outputs, double dt, Options options);
  std::string name() const override { return "mlp"; }
  std::shared_ptr<Controller> clone() const override;
  int n_outputs() const override { return mlp_.outputs(); }
  Eigen::VectorXd parameters() const override { return mlp_.parameters(); }
  void set_parameters(const Eigen::VectorXd& psi) override;
  Eigen::VectorXd act(int n, const State& s, const Eigen::VectorXd& u_prev) const override;
  void backprop(int n, const State& s, const Eigen::VectorXd& u_prev, const Eigen::VectorXd& ubar,
                Eigen::VectorXd& psi_bar, Eigen::VectorXd& xbar, Eigen::VectorXd& vbar,
                Eigen::VectorXd& u_prev_bar) const override;
  /// The observation vector of state s at step n.
  Eigen::VectorXd observe(int n, const State& s) const;
  /// The goal this controller observes from now on. @throws InputError for a size other than
  /// the options' goal.
  void set_goal(const Eigen::VectorXd& goal);
  const Eigen::VectorXd& goal() const { return options_.goal; }
  const Mlp& network() const { return mlp_; }

 private:
  int dim_;
  double dt_;
  Options options_;
  Mlp mlp_;
};

}  // namespace softgrad
