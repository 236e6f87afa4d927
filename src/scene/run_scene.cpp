#include "softgrad/run_scene.hpp"

#include <omp.h>

#include <chrono>
#include <exception>
#include <optional>
#include <utility>

#include "../core/elapsed.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/frame_writer.hpp"
#include "softgrad/locomotion.hpp"
#include "softgrad/trajectory.hpp"
#include "summary.hpp"

namespace softgrad {
namespace {

using Clock = std::chrono::steady_clock;

// The step loop: the library's rollout step (the scene's controller, where the scene has one,
// for the steps its muscles hold activations for); a static scene's step is the equilibrium at
// the next load time k dt. Fills result.steps and stops at the end, a Newton failure under
// Stop, or an interrupt. Frames are written every output.every steps.
void step_loop(Simulator& sim, const Scene& scene, const RunOptions& options, Rollout& rollout,
               State& s, FrameWriter* frames, RunResult& result) {
  const ControllerBinding binding = bind_controller(sim.model(), rollout);
  const Clock::time_point start = Clock::now();
  for (int k = 1; k <= scene.steps; ++k) {
    if (options.interrupt && *options.interrupt) {
      result.status = RunStatus::Interrupted;
      result.message = "interrupted after step " + std::to_string(k - 1);
      break;
    }
    const Clock::time_point step_start = Clock::now();
    State next = s;
    if (scene.static_solve) next.t = k * scene.options.dt;
    const NewtonReport report = advance(sim, rollout, next, binding);
    const double wall = seconds_since(step_start);
    if (report.status == NewtonReport::Status::Interrupted) {  // within the step: not taken
      result.status = RunStatus::Interrupted;
      result.message = "interrupted in step " + std::to_string(k) + " (the state after step " +
                       std::to_string(k - 1) + " is kept)";
      break;
    }
    // on_failure "continue" goes on past a step that did not converge, never past a state
    // that is not a number: its frames would be NaN and the run would end "completed".
    const bool finite = report.converged() || (next.x.allFinite() && next.v.allFinite());
    if (!report.converged() && (scene.options.on_failure == FailurePolicy::Stop || !finite)) {
      result.status = RunStatus::NewtonFailed;
      result.failed_step = k;
      result.failure = report;
      result.message = finite ? report.message
                              : "step " + std::to_string(k) +
                                    " left a state that is not finite (on_failure \"continue\" "
                                    "stops there): " +
                                    report.message;
      break;
    }
    s = std::move(next);
    result.steps.push_back({k, s.t, report.iterations, report.linear_iterations,
                            report.factorizations, report.converged(), sim.kinetic_energy(s.v),
                            sim.potential_energy(s.x, rollout.parameters, s.t), wall,
                            count_inverted_elements(sim.model(), s.x), report.direct_fallbacks});
    if (frames && k % scene.output.every == 0) frames->write(s, k);
    if (options.on_step) options.on_step(k, seconds_since(start));
  }
  result.wall_time_s = seconds_since(start);
}

// After the loop: the last completed state as a frame if it is not written yet, then the summary.
void finish(const Scene& scene, const State& s, FrameWriter* frames, RunResult& result) {
  result.final_rigid_bodies.clear();
  for (const RigidBody& b : scene.model->rigid_bodies)
    result.final_rigid_bodies.push_back(rigid_body_pose(b, s.x, s.v));
  if (frames && frames->last_step() != result.steps_completed())
    frames->write(s, result.steps_completed());
  if (frames) {
    result.frames_written = frames->frames_written();
    result.pvd_path = frames->pvd_path();
  }
  write_json_file(result.summary_path, run_summary(scene, result));
}

}  // namespace

const char* to_string(RunStatus status) {
  switch (status) {
    case RunStatus::Completed:
      return "completed";
    case RunStatus::NewtonFailed:
      return "newton_failed";
    case RunStatus::Interrupted:
      return "interrupted";
    case RunStatus::Error:
      return "error";
  }
  return "?";
}

double RunResult::mean_newton_iterations() const {
  if (steps.empty()) return 0.0;
  double sum = 0.0;
  for (const StepRecord& r : steps) sum += r.newton_iterations;
  return sum / static_cast<double>(steps.size());
}

double RunResult::steps_per_second() const {
  return wall_time_s > 0.0 ? steps_completed() / wall_time_s : 0.0;
}

RunResult run_scene(const Scene& scene, const RunOptions& options) {
  if (!scene.model) throw InputError("run_scene: the scene has no model");
  if (scene.steps < 0) throw InputError("the number of steps must be >= 0");
  // Setup: the simulator (symbolic analysis) and the output folder.
  const Clock::time_point setup_start = Clock::now();
  SimulationOptions sim_options = scene.options;
  sim_options.newton.interrupt = options.interrupt;  // a long step stops within an iteration
  Simulator sim(scene.model, sim_options);
  RunResult result;
  result.steps_requested = scene.steps;
  result.threads = omp_get_max_threads();
  result.output_directory = scene.output.directory;
  result.summary_path = result.output_directory / "summary.json";
  std::optional<FrameWriter> frames;
  if (scene.output.vtu && scene.output.every > 0) {
    frames.emplace(*scene.model, result.output_directory, scene.name.empty() ? "frame" : scene.name,
                   scene.output.vtu_encoding);
  } else {
    create_output_directory(result.output_directory);
  }
  result.setup_time_s = seconds_since(setup_start);

  // The scene's initial state (rest, bent, moving), then the steps.
  Rollout rollout = scene.rollout(sim);
  rollout.parameters = sim.default_parameters();
  if (options.setup) options.setup(sim, rollout);
  State s = rollout.initial;
  s.t = 0.0;
  s.step = 0;
  result.initial_kinetic_energy = sim.kinetic_energy(s.v);
  result.initial_potential_energy = sim.potential_energy(s.x, rollout.parameters);
  FrameWriter* writer = frames ? &*frames : nullptr;
  if (writer) {
    writer->set_parameters(rollout.parameters);
    writer->set_time_step(scene.options.dt);
  }
  try {
    if (writer) writer->write(s, 0);
    step_loop(sim, scene, options, rollout, s, writer, result);
  } catch (const std::exception& e) {
    // Leave a summary that says why the run stopped, if the disk lets us, and report the error.
    result.status = RunStatus::Error;
    result.message = e.what();
    try {
      write_json_file(result.summary_path, run_summary(scene, result));
    } catch (const std::exception&) {
    }
    throw;
  }
  finish(scene, s, writer, result);
  return result;
}

int exit_code(const RunResult& result) {
  switch (result.status) {
    case RunStatus::Completed:
      return 0;
    case RunStatus::NewtonFailed:
      return 2;
    case RunStatus::Interrupted:
      return 130;
    case RunStatus::Error:
      return 1;
  }
  return 1;
}

}  // namespace softgrad
