// System identification with Ceres Solver: Levenberg-Marquardt on marker residuals with
// forward-sensitivity Jacobians, or L-BFGS on the adjoint gradient for many parameters; the
// residuals of every experiment together.
#include <ceres/ceres.h>

#include <Eigen/Eigenvalues>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

#include "element_adjacency.hpp"
#include "experiment_set.hpp"
#include "identify_one.hpp"
#include "parametrisation.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/log.hpp"
#include "softgrad/sysid.hpp"
#include "solve_callbacks.hpp"

namespace softgrad {
namespace {

using detail::ExperimentSet;
using detail::Parametrisation;
using detail::parametrise;
using detail::residual_stats;
using detail::StopCallback;
using detail::ValidationCallback;

/// Everything one evaluation point shares: the simulations, residuals and Jacobian, computed
/// once per point before Ceres asks the per-observation cost functions.
class SimulationCache final : public ceres::EvaluationCallback {
 public:
  SimulationCache(ExperimentSet& experiments, const Parametrisation& map,
                  const SysIdOptions& options, SysIdReport& report)
      : experiments_(experiments),
        map_(map),
        options_(options),
        report_(report),
        phi_(experiments.params().size()) {}

  double* phi() { return phi_.data(); }

  void PrepareForEvaluation(bool, bool new_point) override {
    if (new_point) evaluate();
  }

  /// Residuals and Jacobian at phi(). Sensitivities ride along with every simulation (one more
  /// factorisation per step and |theta| solves): Levenberg-Marquardt asks for the Jacobian at
  /// every accepted point, and simulating twice at a point would cost more. Ceres revisits
  /// points (its final evaluation, the covariance), so the last few are remembered.
  void evaluate() {
    for (const Point& p : seen_)
      if (p.phi == phi_) {
        ok_ = p.ok;
        r_ = p.r;
        J_ = p.J;
        return;
      }
    ok_ = true;
    try {
      experiments_.set(map_.theta(phi_));
      report_.simulations += experiments_.size();
      report_.sensitivity_simulations += experiments_.size();
      r_ = experiments_.residuals(&J_, options_.adjoint);
      J_ = J_ * map_.scale(phi_).asDiagonal();  // d r / d phi
    } catch (const std::exception& e) {
      // Ceres treats a failed evaluation as an unacceptable step and shrinks its trust region.
      ok_ = false;
      log(LogLevel::Info, std::string("sysid: evaluation failed: ") + e.what());
    }
    if (seen_.size() == kRemembered) seen_.erase(seen_.begin());
    seen_.push_back({phi_, r_, J_, ok_});
  }

  bool ok() const { return ok_; }
  const Eigen::VectorXd& residuals() const { return r_; }
  const Eigen::MatrixXd& jacobian() const { return J_; }

 private:
  ExperimentSet& experiments_;
  const Parametrisation& map_;
  const SysIdOptions& options_;
  SysIdReport& report_;
  struct Point {
    Eigen::VectorXd phi, r;
    Eigen::MatrixXd J;
    bool ok = true;
  };
  static constexpr size_t kRemembered = 4;
  Eigen::VectorXd phi_;
  Eigen::VectorXd r_;
  Eigen::MatrixXd J_;
  bool ok_ = true;
  std::vector<Point> seen_;
};

/// The residual of one observation (dim entries), read from the cache.
class ObservationCost final : public ceres::CostFunction {
 public:
  ObservationCost(const SimulationCache& cache, int index, int dim, int n_params)
      : cache_(cache), index_(index), dim_(dim) {
    set_num_residuals(dim);
    mutable_parameter_block_sizes()->push_back(n_params);
  }
  bool Evaluate(double const* const*, double* residuals, double** jacobians) const override {
    if (!cache_.ok()) return false;
    for (int k = 0; k < dim_; ++k) residuals[k] = cache_.residuals()[index_ * dim_ + k];
    if (jacobians && jacobians[0]) {
      const Eigen::MatrixXd& J = cache_.jacobian();
      const int P = static_cast<int>(J.cols());
      for (int k = 0; k < dim_; ++k)
        for (int j = 0; j < P; ++j) jacobians[0][k * P + j] = J(index_ * dim_ + k, j);
    }
    return true;
  }

 private:
  const SimulationCache& cache_;
  int index_;
  int dim_;
};

ceres::LossFunction* robust_loss(const SysIdOptions& o) {
  if (o.robust == RobustLoss::None) return nullptr;
  if (!(o.robust_scale > 0.0)) throw InputError("sysid: the robust loss scale must be positive");
  if (o.robust == RobustLoss::Huber) return new ceres::HuberLoss(o.robust_scale);
  return new ceres::CauchyLoss(o.robust_scale);
}

void solve_lm(ExperimentSet& experiments, const Parametrisation& map, const SysIdOptions& options,
              SysIdReport& report, Eigen::VectorXd& phi, Eigen::VectorXd& r_before,
              Eigen::VectorXd& r_after, ExperimentSet* validation) {
  SimulationCache cache(experiments, map, options, report);
  Eigen::Map<Eigen::VectorXd>(cache.phi(), phi.size()) = phi;
  // The residuals at the start come with the Jacobian that Ceres asks for first.
  cache.evaluate();
  if (!cache.ok()) throw InputError("sysid: the simulation fails at the initial guess");
  r_before = cache.residuals();
  ceres::Problem::Options popt;
  popt.evaluation_callback = &cache;
  ceres::Problem problem(popt);
  const int dim = experiments.dim();
  const int P = experiments.params().size();
  for (int i = 0; i < experiments.observations(); ++i)
    problem.AddResidualBlock(new ObservationCost(cache, i, dim, P), robust_loss(options),
                             cache.phi());
  for (int i = 0; i < P; ++i) {
    const double lo =
        map.log[i] ? (map.lower[i] > 0 ? std::log(map.lower[i]) : -INFINITY) : map.lower[i];
    const double hi = map.log[i] ? std::log(map.upper[i]) : map.upper[i];
    if (std::isfinite(lo)) problem.SetParameterLowerBound(cache.phi(), i, lo);
    if (std::isfinite(hi)) problem.SetParameterUpperBound(cache.phi(), i, hi);
  }
  ceres::Solver::Options sopt;
  sopt.minimizer_type = ceres::TRUST_REGION;
  sopt.trust_region_strategy_type = ceres::LEVENBERG_MARQUARDT;
  sopt.linear_solver_type = ceres::DENSE_QR;
  sopt.max_num_iterations = options.max_iterations;
  sopt.function_tolerance = options.function_tolerance;
  sopt.gradient_tolerance = options.gradient_tolerance;
  sopt.parameter_tolerance = options.parameter_tolerance;
  sopt.num_threads = 1;  // one shared simulation per point; the element loops are parallel
  sopt.logging_type = ceres::SILENT;
  sopt.minimizer_progress_to_stdout = options.verbose;
  StopCallback stop(options.stop);
  if (options.stop) sopt.callbacks.push_back(&stop);
  std::optional<ValidationCallback> held;
  if (validation) {
    held.emplace(*validation, map, cache.phi(), P, experiments.observations(), options, report);
    sopt.callbacks.push_back(&*held);
    sopt.update_state_every_iteration = true;
  }
  ceres::Solver::Summary summary;
  ceres::Solve(sopt, &problem, &summary);
  report.interrupted = stop.stopped;
  report.iterations = static_cast<int>(summary.iterations.size()) - 1;
  report.converged = summary.termination_type == ceres::CONVERGENCE;
  report.termination = summary.message;
  if (held && held->best().size() == P)  // the estimate: the lowest held-out error
    Eigen::Map<Eigen::VectorXd>(cache.phi(), P) = held->best();
  phi = Eigen::Map<Eigen::VectorXd>(cache.phi(), P);
  cache.evaluate();  // the solution: remembered from the solve
  if (!cache.ok()) throw InputError("sysid: the simulation fails at the solution");
  r_after = cache.residuals();

  // Covariance of phi at the solution (Ceres assumes unit residual variance): scale by the
  // residual variance, then map to theta (delta method: d theta = theta d phi in log space).
  ceres::Covariance::Options copt;
  copt.algorithm_type = ceres::DENSE_SVD;
  copt.null_space_rank = -1;  // report rank deficiency as a huge variance, not a failure
  ceres::Covariance covariance(copt);
  std::vector<std::pair<const double*, const double*>> blocks{{cache.phi(), cache.phi()}};
  const int m = experiments.observations() * dim;
  if (m > P && covariance.Compute(blocks, &problem)) {
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> C(P, P);
    covariance.GetCovarianceBlock(cache.phi(), cache.phi(), C.data());
    const double s2 = 2.0 * summary.final_cost / (m - P);
    const Eigen::VectorXd scale = map.scale(phi);
    report.covariance = scale.asDiagonal() * (s2 * C) * scale.asDiagonal();
    report.stddev = report.covariance.diagonal().cwiseMax(0.0).cwiseSqrt();
    // C = (J^T J)^-1 in phi: cond(J) = sqrt(cond(C)).
    const Eigen::VectorXd eig = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(C).eigenvalues();
    report.condition_number = eig.minCoeff() > 0.0 ? std::sqrt(eig.maxCoeff() / eig.minCoeff())
                                                   : std::numeric_limits<double>::infinity();
  } else {
    report.stddev = Eigen::VectorXd::Constant(P, std::numeric_limits<double>::quiet_NaN());
    report.covariance = Eigen::MatrixXd::Constant(P, P, std::numeric_limits<double>::quiet_NaN());
    report.condition_number = std::numeric_limits<double>::infinity();
    report.termination += " (covariance unavailable: too few residuals or a singular Jacobian)";
  }
}

/// 1/2 |r|^2 + smoothness, with the adjoint gradient, for Ceres' gradient-based solvers.
class AdjointObjective final : public ceres::FirstOrderFunction {
 public:
  AdjointObjective(ExperimentSet& experiments, const Parametrisation& map,
                   const SysIdOptions& options, SysIdReport& report)
      : experiments_(experiments), map_(map), options_(options), report_(report) {
    if (options.smoothness > 0.0)
      for (const auto& b : experiments.params().blocks())
        if (b.source == ParameterSet::Source::Term && !b.tied &&
            b.group.layout == ParameterGroup::Layout::PerElement && b.group.body)
          for (const auto& [e, f] : element_adjacency(*b.group.body)) {
            const int n = b.group.size / b.group.width;
            for (int k = 0; k < b.group.width; ++k)
              pairs_.emplace_back(b.offset + k * n + e, b.offset + k * n + f);
          }
  }
  int NumParameters() const override { return experiments_.params().size(); }
  bool Evaluate(const double* parameters, double* cost, double* gradient) const override {
    try {
      const int P = experiments_.params().size();
      const Eigen::Map<const Eigen::VectorXd> phi(parameters, P);
      experiments_.set(map_.theta(phi));
      report_.simulations += experiments_.size();
      Eigen::VectorXd g;
      double c = experiments_.loss(gradient ? &g : nullptr, options_.adjoint);
      if (gradient) {
        g = g.cwiseProduct(map_.scale(phi));
        report_.gradient_simulations += experiments_.size();
      }
      for (const auto& [i, j] : pairs_) {
        const double d = phi[i] - phi[j];
        c += 0.5 * options_.smoothness * d * d;
        if (gradient) {
          g[i] += options_.smoothness * d;
          g[j] -= options_.smoothness * d;
        }
      }
      *cost = c;
      if (gradient) Eigen::Map<Eigen::VectorXd>(gradient, P) = g;
      return std::isfinite(c);
    } catch (const std::exception& e) {
      log(LogLevel::Info, std::string("sysid: evaluation failed: ") + e.what());
      return false;
    }
  }

 private:
  ExperimentSet& experiments_;
  const Parametrisation& map_;
  const SysIdOptions& options_;
  SysIdReport& report_;
  std::vector<std::pair<int, int>> pairs_;
};

void solve_lbfgs(ExperimentSet& experiments, const Parametrisation& map,
                 const SysIdOptions& options, SysIdReport& report, Eigen::VectorXd& phi,
                 ExperimentSet* validation) {
  ceres::GradientProblem problem(new AdjointObjective(experiments, map, options, report));
  ceres::GradientProblemSolver::Options sopt;
  sopt.line_search_direction_type = ceres::LBFGS;
  sopt.max_num_iterations = options.max_iterations;
  sopt.function_tolerance = options.function_tolerance;
  sopt.gradient_tolerance = options.gradient_tolerance;
  sopt.parameter_tolerance = options.parameter_tolerance;
  sopt.logging_type = ceres::SILENT;
  sopt.minimizer_progress_to_stdout = options.verbose;
  StopCallback stop(options.stop);
  if (options.stop) sopt.callbacks.push_back(&stop);
  std::optional<ValidationCallback> held;
  if (validation) {
    held.emplace(*validation, map, phi.data(), static_cast<int>(phi.size()),
                 experiments.observations(), options, report);
    sopt.callbacks.push_back(&*held);
    sopt.update_state_every_iteration = true;
  }
  ceres::GradientProblemSolver::Summary summary;
  ceres::Solve(sopt, problem, phi.data(), &summary);
  report.interrupted = stop.stopped;
  report.iterations = static_cast<int>(summary.iterations.size()) - 1;
  report.converged = summary.termination_type == ceres::CONVERGENCE;
  report.termination = summary.message;
  if (held && held->best().size() == phi.size()) phi = held->best();
}

}  // namespace

namespace detail {

SysIdReport identify_one(ExperimentSet& experiments, const SysIdOptions& options,
                         ExperimentSet* validation) {
  const auto t0 = std::chrono::steady_clock::now();
  const ParameterSet& params = experiments.params();
  SysIdReport report;
  report.method = options.method;
  for (int i = 0; i < params.size(); ++i) report.labels.push_back(params.label(i));
  report.initial = experiments.theta();
  experiments.set(report.initial);
  const Parametrisation map = parametrise(params, report.initial, options);
  const int n_obs = experiments.observations(), dim = experiments.dim();
  report.residuals = n_obs * dim;
  Eigen::VectorXd phi = map.phi(report.initial);
  Eigen::VectorXd r0, r;
  if (options.method == SysIdMethod::LevenbergMarquardt) {
    solve_lm(experiments, map, options, report, phi, r0, r, validation);
    report.estimate = map.theta(phi);
    experiments.set(report.estimate);
  } else {
    r0 = experiments.residuals(nullptr, options.adjoint);
    report.simulations += experiments.size();
    solve_lbfgs(experiments, map, options, report, phi, validation);
    report.estimate = map.theta(phi);
    experiments.set(report.estimate);
    r = experiments.residuals(nullptr, options.adjoint);
    report.simulations += experiments.size();
  }
  residual_stats(r0, n_obs, report.cost_before, report.rms_before);
  residual_stats(r, n_obs, report.cost_after, report.rms_after);
  for (int k = 0; k < experiments.size(); ++k) {
    SysIdExperimentFit fit;
    fit.observations = experiments.observations(k);
    fit.residuals = fit.observations * dim;
    const int row = experiments.first_observation(k) * dim;
    residual_stats(r0.segment(row, fit.residuals), fit.observations, fit.cost_before,
                   fit.rms_before);
    residual_stats(r.segment(row, fit.residuals), fit.observations, fit.cost_after, fit.rms_after);
    report.experiments.push_back(fit);
  }
  for (int i = 0; i < n_obs; ++i) {
    report.fitted.push_back(r.segment(i * dim, dim) + experiments.observation(i).position);
    report.initial_fit.push_back(r0.segment(i * dim, dim) + experiments.observation(i).position);
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

}  // namespace detail

}  // namespace softgrad
