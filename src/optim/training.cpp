#include "softgrad/training.hpp"

#include <ceres/ceres.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <optional>
#include <sstream>

#include "../io/input_file.hpp"
#include "../io/text_output.hpp"
#include "softgrad/adam.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/log.hpp"
#include "train_state.hpp"

namespace softgrad {
namespace {

using Clock = std::chrono::steady_clock;

/// Loss and gradient at theta (the mean over the episodes), with the bookkeeping every optimiser
/// shares.
class Objective {
 public:
  /// `seconds` and the report's counts carry on from an earlier run when resumed.
  Objective(Simulator& sim, std::vector<Episode>& episodes, const ParameterSet& params,
            const TrainOptions& options, TrainReport& report, double seconds)
      : sim_(sim),
        episodes_(episodes),
        params_(params),
        options_(options),
        report_(report),
        start_(Clock::now() - std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(seconds))) {}

  /// Returns +infinity (and a zero gradient) when a simulation fails.
  double operator()(const Eigen::VectorXd& theta, Eigen::VectorXd& grad) {
    double l = 0.0;
    grad.setZero(theta.size());
    const double share = 1.0 / static_cast<double>(episodes_.size());
    try {
      for (Episode& e : episodes_) {
        params_.set(sim_, e.rollout, theta);
        const Trajectory traj = simulate(sim_, e.rollout, options_.trajectory);
        report_.simulated_steps += traj.steps();
        const GradientResult g = gradient(sim_, traj, *e.loss, params_, options_.adjoint);
        report_.simulated_steps += g.report.recomputed_steps;
        l += share * g.loss;
        grad += share * g.gradient;
      }
      ++report_.gradient_evaluations;
      if (!std::isfinite(l) || !grad.allFinite()) throw InputError("a non-finite loss or gradient");
    } catch (const std::exception& e) {
      log(LogLevel::Warn, std::string("training: evaluation failed: ") + e.what());
      l = std::numeric_limits<double>::infinity();
      grad.setZero();
    }
    if (l < report_.best_loss) {
      report_.best_loss = l;
      report_.best = theta;
      if (!options_.checkpoint.empty()) save_parameters(options_.checkpoint, theta);
    }
    return l;
  }

  void record(int iteration, double l, double gnorm) {
    TrainIteration it{iteration, l, gnorm, report_.simulated_steps, seconds()};
    report_.history.push_back(it);
    if (options_.on_iteration) options_.on_iteration(it);
  }

  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  /// Saves the run after `iteration` iterations, to continue at `theta` (no-op without a file).
  void save_state(int iteration, const Eigen::VectorXd& theta, double learning_rate, int adam_steps,
                  const Eigen::VectorXd& m, const Eigen::VectorXd& v) const {
    if (options_.state.empty()) return;
    detail::save_train_state(
        options_.state,
        {iteration, report_.simulated_steps, report_.gradient_evaluations, seconds(),
         report_.best_loss, learning_rate, adam_steps, theta, report_.best, m, v});
  }

 private:
  Simulator& sim_;
  std::vector<Episode>& episodes_;
  const ParameterSet& params_;
  const TrainOptions& options_;
  TrainReport& report_;
  Clock::time_point start_;
};

void adam(Objective& f, Eigen::VectorXd theta, const TrainOptions& o, TrainReport& report,
          const detail::TrainState* resumed) {
  Adam adam(
      static_cast<int>(theta.size()),
      {.learning_rate = o.learning_rate, .beta1 = o.beta1, .beta2 = o.beta2, .epsilon = o.epsilon});
  int done = 0;  // iterations before this run
  if (resumed) {
    adam.restore(resumed->m, resumed->v, resumed->adam_steps);
    adam.set_learning_rate(resumed->learning_rate);
    done = resumed->iteration;
  }
  const auto save = [&](int k) {
    f.save_state(k, theta, adam.learning_rate(), adam.steps(), adam.first_moment(),
                 adam.second_moment());
  };
  Eigen::VectorXd g;
  for (int k = done + 1; k <= done + o.iterations; ++k) {
    const double l = f(theta, g);
    const double gnorm = g.norm();
    f.record(k, l, gnorm);
    if (!std::isfinite(l) && report.best.size() != theta.size()) {
      report.termination = "adam: the initial parameters do not simulate (see the warnings)";
      return;
    }
    if (!std::isfinite(l)) {  // a failed simulation: back to the best point, smaller steps
      adam.set_learning_rate(0.5 * adam.learning_rate());
      theta = report.best;
    } else {
      if (o.clip > 0.0 && gnorm > o.clip) g *= o.clip / gnorm;
      adam.step(theta, g);
    }
    save(k);
    if (o.stop && o.stop()) {
      report.termination = "adam: stopped after " + std::to_string(k) + " iterations";
      return;
    }
  }
  report.termination = "adam: " + std::to_string(done + o.iterations) + " iterations" +
                       (resumed ? " (resumed after " + std::to_string(done) + ")" : "");
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
  // `theta` is Ceres' parameter block (updated every iteration), numbered on after `done`.
  Progress(Objective& f, const TrainOptions& o, const Eigen::VectorXd& theta, int done)
      : f_(f), o_(o), theta_(theta), done_(done) {}
  ceres::CallbackReturnType operator()(const ceres::IterationSummary& s) override {
    f_.record(done_ + s.iteration, s.cost, s.gradient_norm);
    const Eigen::VectorXd none = Eigen::VectorXd::Zero(theta_.size());
    f_.save_state(done_ + s.iteration, theta_, o_.learning_rate, 0, none, none);
    if (o_.stop && o_.stop()) {
      stopped_after = done_ + s.iteration;
      return ceres::SOLVER_TERMINATE_SUCCESSFULLY;
    }
    return ceres::SOLVER_CONTINUE;
  }
  int stopped_after = -1;

 private:
  Objective& f_;
  const TrainOptions& o_;
  const Eigen::VectorXd& theta_;
  int done_;
};

void lbfgs(Objective& f, Eigen::VectorXd theta, const TrainOptions& o, TrainReport& report,
           const detail::TrainState* resumed) {
  const int done = resumed ? resumed->iteration : 0;
  ceres::GradientProblem problem(new CeresObjective(f, static_cast<int>(theta.size())));
  ceres::GradientProblemSolver::Options so;
  so.line_search_direction_type = ceres::LBFGS;
  so.max_num_iterations = o.iterations;
  so.logging_type = ceres::SILENT;
  so.function_tolerance = 1e-12;
  so.gradient_tolerance = 1e-12;
  so.parameter_tolerance = 1e-12;
  so.update_state_every_iteration = true;  // theta is current in the callback
  Progress progress(f, o, theta, done);
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
  detail::refuse_special_file(file, "parameter file");
  std::ifstream in(file);
  if (!in) throw InputError(file + ": cannot read the checkpoint");
  // Whole tokens: a count written "61.0" was read as 61 and shifted every value by one.
  std::vector<std::string> tokens;
  for (std::string t; in >> t;) tokens.push_back(std::move(t));
  long n = -1;
  if (!tokens.empty()) {
    const std::string& t = tokens.front();
    const auto [end, error] = std::from_chars(t.data(), t.data() + t.size(), n);
    if (error != std::errc() || end != t.data() + t.size()) n = -1;
  }
  if (n < 0)
    throw InputError(file + ": not a parameter file (expected the number of values first, an " +
                     "integer)");
  // The count is checked against what the file holds before anything is allocated from it.
  if (static_cast<size_t>(n) != tokens.size() - 1)
    throw InputError(file + ": declares " + std::to_string(n) + " values but holds " +
                     std::to_string(tokens.size() - 1));
  Eigen::VectorXd theta(n);
  for (long i = 0; i < n; ++i) {
    const std::string& t = tokens[static_cast<size_t>(i) + 1];
    const auto [end, error] = std::from_chars(t.data(), t.data() + t.size(), theta[i]);
    if (error != std::errc() || end != t.data() + t.size() || !std::isfinite(theta[i]))
      throw InputError(file + ": value " + std::to_string(i + 1) +
                       " is not a finite number: " + t.substr(0, 40));
  }
  return theta;
}

TrainReport train(Simulator& sim, std::vector<Episode>& episodes, const ParameterSet& params,
                  const TrainOptions& options) {
  if (options.iterations < 0) throw InputError("training: iterations must be >= 0");
  if (!(options.learning_rate > 0.0)) throw InputError("training: the learning rate must be > 0");
  if (episodes.empty()) throw InputError("training: no episodes");
  for (const Episode& e : episodes)
    if (!e.loss) throw InputError("training: an episode has no loss");
  TrainReport report;
  report.best_loss = std::numeric_limits<double>::infinity();
  Eigen::VectorXd theta = params.get(sim, episodes.front().rollout);
  std::optional<detail::TrainState> resumed;
  std::error_code ec;
  if (options.resume && !options.state.empty() && std::filesystem::exists(options.state, ec)) {
    resumed = detail::load_train_state(options.state);
    if (resumed->theta.size() != theta.size() ||
        (resumed->best.size() != 0 && resumed->best.size() != theta.size()))
      throw InputError(options.state + ": holds " + std::to_string(resumed->theta.size()) +
                       " parameters, the problem has " + std::to_string(theta.size()));
    theta = resumed->theta;
    report.best = resumed->best;
    report.best_loss = resumed->best_loss;
    report.simulated_steps = resumed->simulated_steps;
    report.gradient_evaluations = resumed->gradient_evaluations;
  } else if (options.resume && !options.checkpoint.empty() &&
             std::filesystem::exists(options.checkpoint, ec)) {
    const Eigen::VectorXd saved = load_parameters(options.checkpoint);
    if (saved.size() != theta.size())
      throw InputError(options.checkpoint + ": holds " + std::to_string(saved.size()) +
                       " parameters, the problem has " + std::to_string(theta.size()));
    theta = saved;
  }
  Objective f(sim, episodes, params, options, report, resumed ? resumed->seconds : 0.0);
  const detail::TrainState* from = resumed ? &*resumed : nullptr;
  if (options.optimizer == Optimizer::Adam) {
    adam(f, theta, options, report, from);
  } else {
    lbfgs(f, theta, options, report, from);
  }
  if (report.best.size() == theta.size())
    for (Episode& e : episodes) params.set(sim, e.rollout, report.best);
  return report;
}

TrainReport train(Simulator& sim, Rollout& rollout, const Loss& loss, const ParameterSet& params,
                  const TrainOptions& options) {
  // One episode whose loss is the caller's (not owned).
  std::vector<Episode> episodes{{rollout, std::shared_ptr<const Loss>(&loss, [](const Loss*) {})}};
  TrainReport report = train(sim, episodes, params, options);
  rollout = std::move(episodes.front().rollout);
  return report;
}

}  // namespace softgrad
