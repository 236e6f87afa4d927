/// @file solve_callbacks.hpp
/// Internal to identify.cpp: what Ceres calls after each iteration of a fit (stop on request,
/// track the held-out experiments' error), and the cost and RMS error of a residual vector.
#pragma once

#include <ceres/ceres.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>
#include <limits>
#include <string>

#include "experiment_set.hpp"
#include "parametrisation.hpp"
#include "softgrad/log.hpp"
#include "softgrad/sysid.hpp"

namespace softgrad::detail {

/// 1/2 sum of squared residuals, and the root-mean-square marker error.
inline void residual_stats(const Eigen::VectorXd& r, int n_obs, double& cost, double& rms) {
  cost = 0.5 * r.squaredNorm();
  rms = std::sqrt(r.squaredNorm() / std::max(n_obs, 1));
}

// Ends a Ceres solve at the current iterate when SysIdOptions::stop says so.
struct StopCallback final : ceres::IterationCallback {
  explicit StopCallback(const std::function<bool()>& stop) : stop_(stop) {}
  ceres::CallbackReturnType operator()(const ceres::IterationSummary&) override {
    if (!stop_ || !stop_()) return ceres::SOLVER_CONTINUE;
    stopped = true;
    return ceres::SOLVER_TERMINATE_SUCCESSFULLY;
  }
  bool stopped = false;

 private:
  const std::function<bool()>& stop_;
};

// After every iteration, the held-out experiments' marker error at the current iterate
// (SysIdReport::progress); keeps the iterate where it is lowest and ends the solve when it has
// not improved for SysIdOptions::patience iterations. Needs update_state_every_iteration.
class ValidationCallback final : public ceres::IterationCallback {
 public:
  ValidationCallback(ExperimentSet& held, const Parametrisation& map, const double* phi, int size,
                     int fitted_observations, const SysIdOptions& options, SysIdReport& report)
      : held_(held),
        map_(map),
        phi_(phi),
        size_(size),
        fitted_observations_(fitted_observations),
        options_(options),
        report_(report) {}

  ceres::CallbackReturnType operator()(const ceres::IterationSummary& summary) override {
    const Eigen::Map<const Eigen::VectorXd> current(phi_, size_);
    double cost = 0.0, rms = std::numeric_limits<double>::quiet_NaN();
    try {
      held_.set(map_.theta(current));
      residual_stats(held_.residuals(nullptr, options_.adjoint), held_.observations(), cost, rms);
    } catch (const std::exception& e) {  // a held-out simulation that fails: no error to keep
      log(LogLevel::Info, std::string("sysid: held-out evaluation failed: ") + e.what());
    }
    report_.simulations += held_.size();
    report_.progress.push_back({summary.iteration,
                                std::sqrt(2.0 * summary.cost / std::max(fitted_observations_, 1)),
                                rms});
    if (rms < best_rms_) {
      best_rms_ = rms;
      best_ = current;
      report_.best_iteration = summary.iteration;
    } else if (options_.patience > 0 && report_.best_iteration >= 0 &&
               summary.iteration - report_.best_iteration >= options_.patience) {
      report_.stopped_early = true;
      return ceres::SOLVER_TERMINATE_SUCCESSFULLY;
    }
    return ceres::SOLVER_CONTINUE;
  }
  /// The iterate with the lowest held-out error (empty if none was finite).
  const Eigen::VectorXd& best() const { return best_; }

 private:
  ExperimentSet& held_;
  const Parametrisation& map_;
  const double* phi_;
  int size_, fitted_observations_;
  const SysIdOptions& options_;
  SysIdReport& report_;
  Eigen::VectorXd best_;
  double best_rms_ = std::numeric_limits<double>::infinity();
};

}  // namespace softgrad::detail
