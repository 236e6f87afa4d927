// `softgrad train`: a locomotion scene's controller trained by gradients through the simulator.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <ostream>
#include <sstream>
#include <utility>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/interrupt.hpp"
#include "app/locomotion_problem.hpp"
#include "app/output_lock.hpp"
#include "app/scene_commands.hpp"
#include "io/input_file.hpp"
#include "io/text_output.hpp"
#include "scene/summary.hpp"
#include "softgrad/config.hpp"
#include "softgrad/detail/plot.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/frame_writer.hpp"

namespace softgrad::app {
namespace {

using json = nlohmann::ordered_json;

struct TrainArgs {
  std::string scene;
  TrainSettings settings;
};

std::string line(const char* format, double a, double b, double c, double d) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, a, b, c, d);
  return buf;
}

constexpr const char* kCurveHeader = "iteration,loss,reward,gradient_norm,simulated_steps,seconds";

// The iterations of an earlier run's loss.csv before `first` (those a resumed run continues).
std::vector<TrainIteration> earlier_curve(const std::filesystem::path& csv, int first) {
  std::vector<TrainIteration> out;
  detail::refuse_special_file(csv, "loss curve (CSV)");
  std::ifstream in(csv);
  if (!in) return out;
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    if (++line == 1) {
      if (text != kCurveHeader)
        throw InputError(csv.string() + ":1: not a learning curve of softgrad train (header '" +
                         text + "')");
      continue;
    }
    // Six numbers; strtod, since a failed evaluation's loss was written as "inf".
    double v[6];
    const char* p = text.c_str();
    for (int k = 0; k < 6; ++k) {
      char* end = nullptr;
      v[k] = std::strtod(p, &end);
      if (end == p || *end != (k < 5 ? ',' : '\0'))
        throw InputError(csv.string() + ":" + std::to_string(line) + ": not a row of the curve");
      p = end + 1;
    }
    const TrainIteration it{static_cast<int>(v[0]), v[1], v[3], static_cast<long>(v[4]), v[5]};
    if (it.iteration < first) out.push_back(it);
  }
  return out;
}

// loss.csv, whole (by rename): written after every iteration, so that a run killed mid-way
// resumes with its whole curve.
void write_curve_csv(const std::filesystem::path& dir, const std::vector<TrainIteration>& curve) {
  std::ostringstream out;
  out << kCurveHeader << "\n";
  out.precision(17);  // exact: a resumed run reads it back
  for (const TrainIteration& it : curve)
    out << it.iteration << "," << it.loss << "," << -it.loss << "," << it.gradient_norm << ","
        << it.simulated_steps << "," << it.seconds << "\n";
  detail::write_file_atomically((dir / "loss.csv").string(), out.str());
}

void write_curve_files(const std::filesystem::path& dir, const std::vector<TrainIteration>& curve,
                       const std::string& name, const std::string& reward_label) {
  write_curve_csv(dir, curve);
  // The reward, and the size of the gradient that moved it (the simulated steps are in
  // loss.csv): two different curves, not one curve twice.
  PlotSeries reward{"reward", {}, {}, false, true, ""};
  PlotSeries gradient{"|gradient|", {}, {}, false, true, ""};
  for (const TrainIteration& it : curve) {
    reward.x.push_back(it.iteration);
    reward.y.push_back(-it.loss);
    gradient.x.push_back(it.iteration);
    gradient.y.push_back(it.gradient_norm);
  }
  LinePlot gradient_plot{"gradient norm per iteration", "iteration", "|dL/dtheta|", {gradient}};
  gradient_plot.log_y = true;
  write_svg_plots((dir / "loss.svg").string(),
                  {LinePlot{name + ": reward per iteration", "iteration", reward_label, {reward}},
                   gradient_plot});
}

json controller_json(const Controller& c, double reward) {
  const Eigen::VectorXd psi = c.parameters();
  return json{{"type", c.name()},
              {"n_outputs", c.n_outputs()},
              {"reward_m", reward},
              {"n_parameters", psi.size()},
              {"parameters", std::vector<double>(psi.data(), psi.data() + psi.size())}};
}

// The trained values by name (launch velocities), for tasks without a controller.
json parameters_json(const ParameterSet& params, const Eigen::VectorXd& theta, double reward) {
  json values = json::object();
  for (int i = 0; i < theta.size(); ++i) values[params.label(i)] = theta[i];
  return json{{"reward", reward}, {"parameters", values}};
}

}  // namespace

json train_scene(Scene scene, const TrainSettings& args, const Console& c) {
  LogRedirect logs(c, args.overrides.verbosity());
  apply_threads(args.overrides.threads);
  LocomotionProblem p = locomotion_problem(std::move(scene), args.overrides);
  const Locomotion& loc = p.locomotion();
  const std::filesystem::path dir = p.scene.output.directory;
  const OutputLock lock(dir);
  TrainOptions o = train_options(loc, args.iterations);
  o.checkpoint = (dir / "best_parameters.txt").string();
  o.state = (dir / "train_state.txt").string();
  o.resume = args.resume;
  o.stop = args.stop;
  const bool talk = !args.overrides.quiet;
  int total = -1;  // iterations at the end of this run (a resumed one numbers on)
  // The whole curve: a resumed run's earlier rows (before its first iteration), then this run's.
  std::vector<TrainIteration> curve;
  o.on_iteration = [&](const TrainIteration& it) {
    if (total < 0) {
      total = it.iteration - 1 + o.iterations;
      if (it.iteration > 1) curve = earlier_curve(dir / "loss.csv", it.iteration);
    }
    curve.push_back(it);
    write_curve_csv(dir, curve);
    if (talk)
      c.err << "softgrad: iteration " << it.iteration << "/" << total
            << line(": reward %.6g, |g| %.3g, %.0f simulated steps, %.1f s", -it.loss,
                    it.gradient_norm, static_cast<double>(it.simulated_steps), it.seconds)
            << std::endl;
  };
  const ParameterSet params(*p.sim, p.episodes.front().rollout, p.parameters);
  const TrainReport report = train(*p.sim, p.episodes, params, o);
  if (report.history.empty() || report.best.size() == 0)
    throw InputError(scene_label(p.scene) + ": training did not produce a controller (" +
                     report.termination + ")");
  const int first = report.history.front().iteration;
  write_curve_files(dir, curve, p.scene.name, p.reward_label());
  const double reward = -report.best_loss;
  const Rollout& best = p.episodes.front().rollout;  // holds the best parameters
  const std::string best_file = best.controller ? "best_controller.json" : "best_launch.json";
  write_json_file(dir / best_file, best.controller ? controller_json(*best.controller, reward)
                                                   : parameters_json(params, report.best, reward));
  const int every = p.scene.output.vtu ? std::max(p.scene.output.every, 0) : 0;
  const double replay = write_rollout(
      p, best, dir, every,
      p.scene.name + ": the best controller, " + std::to_string(p.episode_steps()) + " steps");
  int best_iteration = curve.front().iteration;  // the first lowest loss of the whole curve
  double lowest = curve.front().loss;
  for (const TrainIteration& it : curve)
    if (it.loss < lowest) lowest = it.loss, best_iteration = it.iteration;
  const double seconds = report.history.back().seconds;
  const double dt = p.scene.options.dt;
  json s{{"command", "train"},
         {"softgrad_version", SOFTGRAD_VERSION},
         {"scene", p.scene.name},
         {"scene_file", p.scene.file.string()},
         {"creature", loc.generator},
         {"task", to_string(loc.task.type)},
         {"episodes", p.episodes.size()},
         {"n_verts", p.scene.model->n_verts},
         {"n_muscles", loc.creature.n_muscles},
         {"body_length_m", loc.creature.body_length},
         {"controller", best.controller ? best.controller->name() : "none"},
         {"trained", p.parameters},
         {"n_parameters", params.size()},
         {"optimizer", to_string(o.optimizer)},
         {"iterations", o.iterations},
         {"resumed", args.resume},
         {"resumed_after", first - 1},
         {"total_iterations", curve.back().iteration},
         {"dt", dt},
         {"episode_steps", p.episode_steps()},
         {"episode_s", p.episode_steps() * dt},
         {"reward_unit", loc.reward_unit()},  // the *_reward_m keys: m only for distances
         {"initial_reward_m", -curve.front().loss},
         {"best_reward_m", reward},
         {"best_iteration", best_iteration},
         {"best_body_lengths", reward / loc.creature.body_length},
         {"rollout_reward_m", replay},
         {"simulated_steps", report.simulated_steps},
         {"gradient_evaluations", report.gradient_evaluations},
         {"wall_time_s", seconds},
         {"termination", report.termination}};

  json files = {"loss.csv", "loss.svg", best_file, "best_parameters.txt", "train_state.txt"};
  if (every > 0) files.push_back("rollout.pvd");
  if (p.scene.model->dim == 2) files.push_back("gait.svg");
  s["files"] = files;
  write_json_file(dir / "summary.json", s);
  c.out << p.scene.name << ": " << report.history.size() << " iterations ("
        << to_string(o.optimizer)
        << (first > 1 ? ", resumed after " + std::to_string(first - 1) : "")
        << (loc.task.type == TaskType::Distance
                ? line("), reward %.6g -> %.6g m (%.3g body lengths in %.3g s)",
                       -curve.front().loss, reward, reward / loc.creature.body_length,
                       p.episode_steps() * dt)
                : line("), loss %.6g -> %.6g over %g episodes of %.3g s", curve.front().loss,
                       -reward, static_cast<double>(p.episodes.size()), p.episode_steps() * dt))
        << ", " << report.simulated_steps << " simulated steps, "
        << line("%.1f s\n", seconds, 0, 0, 0) << "  output: " << dir.string()
        << " (loss.csv, loss.svg, " << best_file << ", summary.json"
        << (every > 0 ? ", rollout.pvd" : "") << (p.scene.model->dim == 2 ? ", gait.svg" : "")
        << ")\n"
        << std::flush;
  return s;
}

Command add_train_command(CLI::App& program) {
  auto args = std::make_shared<TrainArgs>();
  CLI::App* cmd = program.add_subcommand(
      "train",
      "Train a control scene (a creature's or a robot's controller, or a throw's launch) by "
      "gradients through the simulator");
  cmd->add_option("scene", args->scene, "Scene file (JSON) with a creature or a robot task")
      ->required();
  add_common_options(*cmd, args->settings.overrides);
  cmd->add_option("-n,--iterations", args->settings.iterations,
                  "Optimiser iterations (default: the scene's train.iterations)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_flag("--resume", args->settings.resume,
                "Continue the run in OUT (train_state.txt: iterations numbered on, the optimiser "
                "where it stopped, loss.csv appended; else from best_parameters.txt)");
  cmd->footer(
      "Writes into OUT: loss.csv and loss.svg (reward = distance travelled, or minus the task's\n"
      "loss, per iteration and against simulated steps), best_controller.json (a throw:\n"
      "best_launch.json) and best_parameters.txt, a rollout with the best controller\n"
      "(rollout.pvd; gait.svg in 2D) and summary.json. Ctrl-C or SIGTERM\n"
      "stops after the current iteration and writes them all. Exit codes: 0 done, 1 bad input\n"
      "or arguments, 3 internal error, 130 interrupted by Ctrl-C, 143 by SIGTERM.\n");
  return {cmd, [args](const Console& c) {
            Scene scene = load_scene(args->scene);
            InterruptHandler interrupt;
            TrainSettings settings = args->settings;
            settings.stop = [] { return InterruptHandler::interrupted(); };
            train_scene(std::move(scene), settings, c);
            if (!InterruptHandler::interrupted()) return static_cast<int>(kExitOk);
            c.err << "softgrad: train: interrupted; the curve, best controller and summary are "
                     "written"
                  << std::endl;
            return InterruptHandler::exit_code();
          }};
}

}  // namespace softgrad::app
