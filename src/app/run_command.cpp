// `softgrad run`: load a scene, apply the overrides, step it with progress, report.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <ostream>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/interrupt.hpp"
#include "app/output_lock.hpp"
#include "app/progress.hpp"
#include "app/scene_overrides.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/locomotion.hpp"
#include "softgrad/parameters.hpp"
#include "softgrad/run_scene.hpp"
#include "softgrad/training.hpp"

namespace softgrad::app {
namespace {

struct RunArgs {
  std::string scene;
  SceneOverrides overrides;
  std::string trained;  ///< --trained: best_parameters.txt of softgrad train ("": the scene's)
};

// What --trained plays: the values of the parameters `softgrad train` optimises (a controller,
// or a throw's launch velocities), in the task's first episode (its goal, its start).
std::function<void(const Simulator&, Rollout&)> play_trained(const Scene& scene,
                                                             const std::string& file) {
  if (file.empty()) return {};
  if (!scene.locomotion)
    throw InputError("--trained: scene '" + scene.name +
                     "' is not a control scene (no creature or robot task trains anything)");
  const Eigen::VectorXd theta = load_parameters(file);
  return [&scene, theta, file](const Simulator& sim, Rollout& rollout) {
    const Locomotion& loc = *scene.locomotion;
    const ParameterSet params(sim, rollout, loc.trained_parameters());
    if (theta.size() != params.size())
      throw InputError(file + ": holds " + std::to_string(theta.size()) + " values; scene '" +
                       scene.name + "' trains " + std::to_string(params.size()));
    rollout = loc.episode_rollout(rollout, loc.episodes(1).front());
    params.set(sim, rollout, theta);
  };
}

std::string fixed(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  return buf;
}

// The size and settings of the run, for --verbose.
void print_setup(const Console& c, const Scene& scene) {
  const Model& m = *scene.model;
  int n_elems = 0;
  for (const Body& b : m.bodies) n_elems += b.n_elems();
  c.err << "softgrad: " << scene.name << ": " << m.dim << "D, " << m.n_verts << " vertices, "
        << n_elems << " elements, dt " << scene.options.dt << " s, " << scene.steps
        << " steps, solver " << scene.options.linear.kind << ", output " << scene.output.directory
        << std::endl;
}

// The final report: stdout for the outcome, stderr for a failure.
void print_report(const Console& c, const Scene& scene, const RunResult& r) {
  c.out << scene.name << ": " << to_string(r.status) << ", " << r.steps_completed() << "/"
        << r.steps_requested << " steps in " << fixed(r.wall_time_s, 2) << " s ("
        << fixed(r.steps_per_second(), 1) << " steps/s), " << fixed(r.mean_newton_iterations(), 2)
        << " Newton iterations per step\n";
  if (!r.pvd_path.empty())
    c.out << "  frames:  " << r.frames_written << " in " << r.pvd_path.string() << "\n";
  c.out << "  summary: " << r.summary_path.string() << std::endl;
  int inverted = 0;
  for (const StepRecord& s : r.steps) inverted = std::max(inverted, s.inverted_elements);
  if (inverted > 0)
    c.err << "softgrad: warning: up to " << inverted
          << " elements inverted (det F <= 0) after a step; summary.json lists them per step"
          << std::endl;
  if (r.status == RunStatus::NewtonFailed) {
    c.err << "softgrad: error: Newton failed in step " << r.failed_step
          << " (t = " << r.failed_step * scene.options.dt
          << " s): " << softgrad::to_string(r.failure.status) << ": " << r.message << std::endl;
  } else if (r.status == RunStatus::Interrupted) {
    c.err << "softgrad: " << r.message << std::endl;
  }
}

int execute(const RunArgs& args, const Console& c) {
  std::optional<Progress> progress;  // declared first: outlives the log redirection using it
  LogRedirect logs(c, args.overrides.verbosity());
  apply_threads(args.overrides.threads);
  Scene scene = load_scene(args.scene);
  apply_overrides(args.overrides, scene);
  if (args.overrides.verbose) print_setup(c, scene);
  const OutputLock lock(scene.output.directory);

  progress.emplace(c.err, Progress::choose(args.overrides.verbosity(), c.err_is_terminal),
                   scene.steps);
  logs.set_before_message([&progress] { progress->clear(); });
  InterruptHandler interrupt;
  const RunResult result =
      run_scene(scene, {[&progress](int done, double elapsed) { progress->update(done, elapsed); },
                        InterruptHandler::flag(), play_trained(scene, args.trained)});
  progress->finish();
  print_report(c, scene, result);
  const int code = exit_code(result);
  return code == kExitInterrupted ? InterruptHandler::exit_code() : code;
}

}  // namespace

Command add_run_command(CLI::App& program) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = program.add_subcommand(
      "run", "Simulate a scene: .vtu frames, a .pvd collection and summary.json");
  cmd->add_option("SCENE", args->scene, "Scene file (.json)")->type_name("FILE")->required();
  cmd->add_option("-n,--steps", args->overrides.steps,
                  "Number of steps (default: the scene's duration / dt)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--every", args->overrides.every,
                  "Frame interval in steps, 0: no frames (default: the scene's output.every)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--trained", args->trained,
                  "Play what softgrad train wrote to best_parameters.txt (a control scene's "
                  "controller, or a throw's launch velocities)")
      ->type_name("FILE");
  add_common_options(*cmd, args->overrides);
  cmd->footer(
      "Exit codes: 0 completed, 1 bad input or arguments, 2 Newton failed (everything up to the\n"
      "failing step is written), 3 internal error, 130 interrupted by Ctrl-C, 143 by SIGTERM\n"
      "(output written up to the step).\n");
  return {cmd, [args](const Console& c) { return execute(*args, c); }};
}

}  // namespace softgrad::app
