#include "softgrad/training.hpp"

#include <ceres/ceres.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>

#include "../io/text_output.hpp"
#include "softgrad/adam.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/log.hpp"

namespace softgrad {
namespace {

using Clock = std::chrono::steady_clock;

/// Loss and gradient at theta, with the bookkeeping every optimiser shares.
class Objective {
 public:
  Objective(Simulator& sim, Rollout& rollout, const Loss& loss, const ParameterSet& params,
            const TrainOptions& options, TrainReport& report)
      : sim_(sim),
        rollout_(rollout),
        loss_(loss),
        params_(params),
        options_(options),
        report_(report),
        start_(Clock::now()) {}

  /// Returns +infinity (and a zero gradient) when the simulation fails.
  double operator()(const Eigen::VectorXd& theta, Eigen::VectorXd& grad) {
    double l = std::numeric_limits<double>::infinity();
    grad.setZero(theta.size());
    try {
      params_.set(sim_, rollout_, theta);
      const Trajectory traj = simulate(sim_, rollout_, options_.trajectory);
      report_.simulated_steps += traj.steps();
      const GradientResult g = gradient(sim_, traj, loss_, params_, options_.adjoint);
      report_.simulated_steps += g.report.recomputed_steps;
      ++report_.gradient_evaluations;
      l = g.loss;
      grad = g.gradient;
      if (!std::isfinite(l) || !grad.allFinite()) {
        l = std::numeric_limits<double>::infinity();
        grad.setZero();
      }
    } catch (const std::exception& e) {
      log(LogLevel::Warn, std::string("training: evaluation failed: ") + e.what());
    }
    if (l < report_.best_loss) {
      report_.best_loss = l;
      report_.best = theta;
      if (!options_.checkpoint.empty()) save_parameters(options_.checkpoint, theta);
    }
    return l;
  }

  void record(int iteration, double l, double gnorm) {
    TrainIteration it{iteration, l, gnorm, report_.simulated_steps,
                      std::chrono::duration<double>(Clock::now() - start_).count()};
    report_.history.push_back(it);
    if (options_.on_iteration) options_.on_iteration(it);
  }

 private:
  Simulator& sim_;
  Rollout& rollout_;
  const Loss& loss_;
  const ParameterSet& params_;
  const TrainOptions& options_;
  TrainReport& report_;
  Clock::time_point start_;
};

void adam(Objective& f, Eigen::VectorXd theta, const TrainOptions& o, TrainReport& report) {
  Adam adam(
      static_cast<int>(theta.size()),
      {.learning_rate = o.learning_rate, .beta1 = o.beta1, .beta2 = o.beta2, .epsilon = o.epsilon});
  Eigen::VectorXd g;
  for (int k = 1; k <= o.iterations; ++k) {
    const double l = f(theta, g);
    const double gnorm = g.norm();
    f.record(k, l, gnorm);
    if (o.stop && o.stop()) {
      report.termination = "adam: stopped after " + std::to_string(k) + " iterations";
      return;
    }
    if (!std::isfinite(l) && report.best.size() != theta.size()) {
      report.termination = "adam: the initial parameters do not simulate (see the warnings)";
      return;
    }
    if (!std::isfinite(l)) {  // a failed simulation: back to the best point, smaller steps
      adam.set_learning_rate(0.5 * adam.learning_rate());
      theta = report.best;
      continue;
    }
    if (o.clip > 0.0 && gnorm > o.clip) g *= o.clip / gnorm;
    adam.step(theta, g);
  }
  report.termination = "adam: " + std::to_string(o.iterations) + " iterations";
}

class CeresObjective final : public ceres::FirstOrderFunction {
 public:
  CeresObjective(Objective& f, int n) : f_(f), n_(n) {}
  int NumParameters() const override { return n_; }
  bool Evaluate(const double* x, double* cost, double* gradient) const override {
    const Eigen::VectorXd theta = Eigen::Map<const Eigen::VectorXd>(x, n_);
    Eigen::VectorXd g;
    const double l = f_(theta, g);
    if (!std::isfinite(l)) return false;
    *cost = l;
    if (gradient) Eigen::Map<Eigen::VectorXd>(gradient, n_) = g;
    return true;
  }

 private:
  Objective& f_;
  int n_;
};

class Progress final : public ceres::IterationCallback {
 public:
  Progress(Objective& f, const TrainOptions& o) : f_(f), o_(o) {}
  ceres::CallbackReturnType operator()(const ceres::IterationSummary& s) override {
    f_.record(s.iteration, s.cost, s.gradient_norm);
    if (o_.stop && o_.stop()) {
      stopped_after = s.iteration;
      return ceres::SOLVER_TERMINATE_SUCCESSFULLY;
    }
    return ceres::SOLVER_CONTINUE;
  }
  int stopped_after = -1;

 private:
  Objective& f_;
  const TrainOptions& o_;
};

void lbfgs(Objective& f, Eigen::VectorXd theta, const TrainOptions& o, TrainReport& report) {
  ceres::GradientProblem problem(new CeresObjective(f, static_cast<int>(theta.size())));
  ceres::GradientProblemSolver::Options so;
  so.line_search_direction_type = ceres::LBFGS;
  so.max_num_iterations = o.iterations;
  so.logging_type = ceres::SILENT;
  so.function_tolerance = 1e-12;
  so.gradient_tolerance = 1e-12;
  so.parameter_tolerance = 1e-12;
  Progress progress(f, o);
  so.callbacks.push_back(&progress);
  ceres::GradientProblemSolver::Summary summary;
  ceres::Solve(so, problem, theta.data(), &summary);
  report.termination =
      progress.stopped_after >= 0
          ? "lbfgs: stopped after " + std::to_string(progress.stopped_after) + " iterations"
          : "lbfgs: " + summary.message;
}

}  // namespace

const char* to_string(Optimizer optimizer) {
  return optimizer == Optimizer::Adam ? "adam" : "lbfgs";
}

void save_parameters(const std::string& file, const Eigen::VectorXd& theta) {
  std::ostringstream out;
  out << theta.size() << "\n" << std::setprecision(17);
  for (int i = 0; i < theta.size(); ++i) out << theta[i] << "\n";
  // Written whole to a temporary file, then renamed: a full disk never truncates the last good
  // checkpoint.
  detail::write_file_atomically(file, out.str());
}

Eigen::VectorXd load_parameters(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw InputError(file + ": cannot read the checkpoint");
  long n = -1;
  in >> n;
  if (!in || n < 0) throw InputError(file + ": not a checkpoint (expected a count first)");
  Eigen::VectorXd theta(n);
  for (long i = 0; i < n; ++i)
    if (!(in >> theta[i]) || !std::isfinite(theta[i]))
      throw InputError(file + ": value " + std::to_string(i + 1) + " is missing or not finite");
  return theta;
}

TrainReport train(Simulator& sim, Rollout& rollout, const Loss& loss, const ParameterSet& params,
                  const TrainOptions& options) {
  if (options.iterations < 0) throw InputError("training: iterations must be >= 0");
  if (!(options.learning_rate > 0.0)) throw InputError("training: the learning rate must be > 0");
  TrainReport report;
  report.best_loss = std::numeric_limits<double>::infinity();
  Eigen::VectorXd theta = params.get(sim, rollout);
  if (options.resume && !options.checkpoint.empty() &&
      std::filesystem::exists(options.checkpoint)) {
    const Eigen::VectorXd saved = load_parameters(options.checkpoint);
    if (saved.size() != theta.size())
      throw InputError(options.checkpoint + ": holds " + std::to_string(saved.size()) +
                       " parameters, the problem has " + std::to_string(theta.size()));
    theta = saved;
  }
  Objective f(sim, rollout, loss, params, options, report);
  if (options.optimizer == Optimizer::Adam) {
    adam(f, theta, options, report);
  } else {
    lbfgs(f, theta, options, report);
  }
  if (report.best.size() == theta.size()) params.set(sim, rollout, report.best);
  return report;
}

}  // namespace softgrad
