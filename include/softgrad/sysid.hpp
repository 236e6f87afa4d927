/// @file sysid.hpp
/// System identification: the parameters theta (a ParameterSet: Young's modulus, Poisson's
/// ratio, damping, initial velocity, a stiffness field, ...) that make a simulation reproduce a
/// recording of marker positions.
///
/// Residuals r = simulated minus recorded marker positions at the recorded times. Two solvers:
///  - "lm": Levenberg-Marquardt (Ceres Solver) with analytic Jacobians dr/dtheta from forward
///    sensitivities (one simulation with |theta| tangent solves per step, no finite
///    differences), robust losses, bounds, and the parameter covariance;
///  - "lbfgs": L-BFGS (Ceres' gradient solver) on 1/2 |r|^2 with the adjoint gradient, for many
///    parameters (a per-element stiffness field), with smoothness regularisation.
/// Positive parameters are fitted in log space (positivity, and a better-scaled problem).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "softgrad/adjoint.hpp"
#include "softgrad/loss.hpp"
#include "softgrad/markers.hpp"
#include "softgrad/recording.hpp"

namespace softgrad {

/// 1/2 sum over observations |p_marker(t) - recorded|^2 / sigma^2, as a trajectory Loss.
class MarkerLoss final : public Loss {
 public:
  /// @param sigma the marker noise scale [m] that residuals are divided by (1: metres).
  /// @throws InputError if a recorded time lies outside the rollout.
  MarkerLoss(const MarkerSet& markers, const Recording& recording, double t0, double dt, int steps,
             double sigma = 1.0);
  double evaluate(int n, int T, const State& s, Eigen::VectorXd* xbar,
                  Eigen::VectorXd* vbar) const override;
  /// The simulated position of observation i at state s (which must be its sample state).
  Eigen::VectorXd simulated(int i, const State& s) const;
  const SampleAt& sample(int i) const { return samples_[i]; }

 private:
  const MarkerSet& markers_;
  const Recording& recording_;
  double sigma_;
  std::vector<SampleAt> samples_;           ///< per observation
  std::vector<std::vector<int>> by_state_;  ///< observations sampled at each state
};

/// The fitting method: Levenberg-Marquardt on sensitivity Jacobians ("lm"), or L-BFGS on the
/// adjoint gradient ("lbfgs").
enum class SysIdMethod { LevenbergMarquardt, Lbfgs };
/// The robust loss on each observation's residual.
enum class RobustLoss { None, Huber, Cauchy };
/// "lm", "lbfgs"; "none", "huber", "cauchy" (the scene's names).
const char* to_string(SysIdMethod method);
const char* to_string(RobustLoss loss);

/// One experiment: a rollout of a model with markers, and the recording of those markers.
/// Several experiments (other loads, initial states or durations, each with its own model and
/// rollout) constrain the same parameters together: theta is shared by all of them.
struct SysIdExperiment {
  std::shared_ptr<const Model> model;
  SimulationOptions options;
  Rollout rollout;
  MarkerSet markers;
  Recording recording;
};

struct SysIdOptions {
  std::vector<std::string> parameters;  ///< ParameterSet names, e.g. {"youngs", "damping.alpha"}
  SysIdMethod method = SysIdMethod::LevenbergMarquardt;
  /// Fit parameters whose valid range is positive in log space.
  bool log_positive = true;
  /// Robust loss on each observation's residual, with its scale [m] (residuals beyond it count
  /// less).
  RobustLoss robust = RobustLoss::None;
  double robust_scale = 1e-3;
  int max_iterations = 50;
  double function_tolerance = 1e-10;
  double gradient_tolerance = 1e-12;
  double parameter_tolerance = 1e-10;
  /// L-BFGS: weight of the smoothness penalty 1/2 w sum_{e~f} (phi_e - phi_f)^2 over adjacent
  /// elements of each field parameter (phi = log value when log-parametrised).
  double smoothness = 0.0;
  /// Optional per-entry bounds on theta (empty: the parameter groups' ranges).
  Eigen::VectorXd lower, upper;
  AdjointOptions adjoint;
  bool verbose = false;  ///< log every iteration
  /// Asked after every iteration (empty: never): true ends the fit at the current estimate,
  /// which is then reported as usual with SysIdReport::interrupted set.
  std::function<bool()> stop;
  /// Fits from this many starting points side by side (a TaskPool: threads, and the processes
  /// of an MPI run), keeping the lowest cost: start 0 is the rollout's values, start k moves
  /// each entry of phi (the log of positive parameters, else the value) by start_spread times a
  /// N(0, 1) draw from `seed` and k, clamped to the bounds.
  int starts = 1;
  double start_spread = 0.5;
  std::uint64_t seed = 1;
  /// Workers per process for several starts, or else for several experiments; 0: one per
  /// hardware thread.
  int threads = 0;
  /// Held-out experiments (recordings never fitted): their marker error is measured after every
  /// iteration (SysIdReport::progress), and the estimate is the iterate where it is lowest.
  /// One start only.
  std::vector<SysIdExperiment> validation;
  /// With validation: stop when its error has not improved for this many iterations (0: never).
  int patience = 0;
};

/// How one experiment is fitted (its part of the residuals).
struct SysIdExperimentFit {
  int observations = 0;
  int residuals = 0;         ///< observations x dim
  double cost_before = 0.0;  ///< 1/2 |r|^2 of this experiment [m^2]
  double cost_after = 0.0;
  double rms_before = 0.0;  ///< root-mean-square marker error [m]
  double rms_after = 0.0;
};

struct SysIdReport {
  SysIdMethod method = SysIdMethod::LevenbergMarquardt;
  std::vector<std::string> labels;  ///< per entry of theta
  Eigen::VectorXd initial, estimate;
  /// Standard deviations of the estimate from the covariance at the solution, scaled by the
  /// residual variance (sigma^2 = 2 cost / (residuals - parameters)); empty for "lbfgs".
  Eigen::VectorXd stddev;
  /// The covariance of the estimate (P x P, scaled like stddev; its diagonal is stddev^2) and
  /// the condition number of the residuals' Jacobian at the solution (in the solver's log
  /// space for positive parameters): large when some combination of parameters is not
  /// determined by the data. NaN-filled and infinite when unavailable, empty for "lbfgs".
  Eigen::MatrixXd covariance;
  double condition_number = std::numeric_limits<double>::quiet_NaN();
  int residuals = 0;         ///< scalar residuals (observations x dim, every experiment)
  double cost_before = 0.0;  ///< 1/2 |r|^2 at the start [m^2]
  double cost_after = 0.0;
  double rms_before = 0.0;  ///< root-mean-square marker error [m]
  double rms_after = 0.0;
  int iterations = 0;
  int simulations = 0;              ///< forward simulations, with or without sensitivities
  int sensitivity_simulations = 0;  ///< of which carried forward sensitivities (LM Jacobians)
  int gradient_simulations = 0;     ///< of which were followed by an adjoint pass (L-BFGS)
  double seconds = 0.0;
  bool converged = false;
  bool interrupted = false;  ///< SysIdOptions::stop ended the fit
  std::string termination;   ///< the solver's own message
  /// Simulated marker positions per observation at the estimate (for plots), the experiments'
  /// observations one after another.
  std::vector<Eigen::VectorXd> fitted;
  /// The same at the initial guess (of the start that gave the estimate).
  std::vector<Eigen::VectorXd> initial_fit;
  /// Per experiment, in order.
  std::vector<SysIdExperimentFit> experiments;
  /// Several starts: each one's final cost, and which gave the estimate (its fit's report).
  std::vector<double> start_costs;
  int best_start = 0;
  /// With SysIdOptions::validation: per iteration (0: the start), the fitted experiments' RMS
  /// marker error (from the cost, regularisers included) and the held-out ones', and the
  /// iteration whose estimate is reported (the lowest held-out error).
  struct Progress {
    int iteration = 0;
    double rms = 0.0;             ///< [m]
    double validation_rms = 0.0;  ///< [m]
  };
  std::vector<Progress> progress;
  int best_iteration = -1;
  bool stopped_early = false;  ///< patience ran out
};

/// What says the estimate is not to be trusted, one sentence each: a parameter whose standard
/// deviation exceeds `max_relative_stddev` times its magnitude, a Jacobian whose condition
/// number exceeds `max_condition`, no more residuals than parameters, an unavailable
/// covariance. Empty when none applies (or for "lbfgs", which has no covariance).
std::vector<std::string> identifiability_warnings(const SysIdReport& r,
                                                  double max_relative_stddev = 0.5,
                                                  double max_condition = 1e8);

/// Fits `options.parameters` of the rollout to the recording (the model is not touched). On
/// return, the rollout holds the estimate. The rollout must cover the recording.
SysIdReport identify(Simulator& sim, Rollout& rollout, const MarkerSet& markers,
                     const Recording& recording, const SysIdOptions& options);

/// Fits `options.parameters`, shared by every experiment, to all the recordings at once (the
/// residuals of all experiments together), from the first experiment's values. One fit runs
/// the experiments side by side (options.threads, and the processes of an MPI run); several
/// starts run side by side instead, each start's experiments one after another. On return,
/// every experiment's rollout holds the estimate.
/// @throws InputError for no experiments, or an experiment whose parameters (names, sizes) or
/// dimension differ from the first's; as identify() otherwise.
SysIdReport identify(std::vector<SysIdExperiment>& experiments, const SysIdOptions& options);

/// Simulated-minus-recorded residuals (observations x dim) and, if J is non-null, their
/// Jacobian with respect to theta by forward sensitivities.
Eigen::VectorXd marker_residuals(Simulator& sim, const Rollout& rollout, const MarkerSet& markers,
                                 const Recording& recording, const ParameterSet& params,
                                 Eigen::MatrixXd* J, const AdjointOptions& options = {});

}  // namespace softgrad
