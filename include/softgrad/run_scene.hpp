/// @file run_scene.hpp
/// `softgrad run` without the command line: steps a scene, writes its frames and summary.json,
/// and returns what happened. Newton failures are results, not exceptions (STYLE.md §6).
#pragma once

#include <csignal>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "softgrad/scene.hpp"
#include "softgrad/simulator.hpp"

namespace softgrad {

/// How a run ended.
enum class RunStatus {
  Completed,     ///< every requested step was taken
  NewtonFailed,  ///< Newton failed in a step under FailurePolicy::Stop; the run stopped there
  Interrupted,   ///< the interrupt flag was raised (Ctrl-C); the run stopped between steps or
                 ///< within one (that step not taken)
  Error          ///< an exception (e.g. an unwritable frame) stopped the run; it is rethrown
};

/// "completed", "newton_failed", "interrupted", "error" (the summary's "status").
const char* to_string(RunStatus status);

/// One completed step.
struct StepRecord {
  int step = 0;       ///< 1-based
  double time = 0.0;  ///< t after the step [s]
  int newton_iterations = 0;
  int linear_iterations = 0;      ///< CG iterations summed over the Newton iterations (0: direct)
  int factorizations = 0;         ///< matrices factorised (direct solvers; chord steps need none)
  bool converged = true;          ///< false only under FailurePolicy::Continue
  double kinetic_energy = 0.0;    ///< [J]
  double potential_energy = 0.0;  ///< [J]
  double wall_time_s = 0.0;       ///< the solve alone, without output
  int inverted_elements = 0;      ///< elements with det F <= 0 after the step
  int direct_fallbacks = 0;       ///< directions CG gave up on, solved by CHOLMOD
};

struct RunOptions {
  /// Called after each completed step with the steps done and the seconds since the loop began
  /// (the command line draws its progress bar with it); none when empty.
  std::function<void(int steps_done, double elapsed_s)> on_step;
  /// Checked before each step and within it (NewtonOptions::interrupt: each Newton iteration);
  /// when it points to a non-zero value the run stops (status Interrupted) and writes what it
  /// has, as after a Newton failure.
  const volatile std::sig_atomic_t* interrupt = nullptr;
  /// Changes the scene's rollout before the run (what a trained controller or launch plays,
  /// written by ParameterSet::set); none when empty.
  std::function<void(const Simulator& sim, Rollout& rollout)> setup;
};

struct RunResult {
  RunStatus status = RunStatus::Completed;
  int steps_requested = 0;
  std::vector<StepRecord> steps;          ///< the completed steps, in order
  int failed_step = 0;                    ///< NewtonFailed: the 1-based step that failed, else 0
  NewtonReport failure;                   ///< NewtonFailed: that step's report
  std::string message;                    ///< what went wrong ("" when completed)
  double initial_kinetic_energy = 0.0;    ///< at t = 0 [J]
  double initial_potential_energy = 0.0;  ///< at t = 0 [J]
  double setup_time_s = 0.0;  ///< Simulator construction (symbolic analysis) and output setup
  double wall_time_s = 0.0;   ///< the step loop, output included
  int threads = 1;            ///< OpenMP threads available to the run
  std::filesystem::path output_directory;
  std::filesystem::path pvd_path;  ///< empty when no frames are written
  std::filesystem::path summary_path;
  int frames_written = 0;
  /// Each rigid body at the last completed state (summary.json's "rigid_bodies").
  std::vector<RigidBodyPose> final_rigid_bodies;

  int steps_completed() const { return static_cast<int>(steps.size()); }
  /// Mean Newton iterations per completed step (0 if none).
  double mean_newton_iterations() const;
  /// Completed steps per second of the step loop (0 if it took no measurable time).
  double steps_per_second() const;
};

/// Runs `scene` (with any command-line overrides already applied) from its rest state:
/// scene.steps backward-Euler steps, or for a static scene ("mode": "static") one equilibrium per
/// load step at t = k dt. Writes into scene.output.directory (created): frame 0 and then every
/// scene.output.every steps (FrameWriter, when output.vtu and every > 0), the last completed state
/// if it was not written yet, and summary.json (summary.hpp). A Newton failure under
/// FailurePolicy::Stop ends the run with status NewtonFailed after writing all of that.
/// @throws InputError for a scene without a model or with steps < 0, for invalid simulation
/// options, or when the output cannot be written (summary.json then says "error" if possible).
RunResult run_scene(const Scene& scene, const RunOptions& options = {});

/// The program's exit code for a run: 0 completed, 1 error, 2 Newton failed, 130 interrupted.
int exit_code(const RunResult& result);

}  // namespace softgrad
