/// @file scene_commands.hpp
/// What `softgrad train`, `compare` and `sysid` do, callable on a loaded scene without the
/// command line: the Python module calls the same functions, so both get the same files and
/// the same results. Each writes the command's files, prints its report on console.out and
/// progress on console.err, and returns the summary it writes as JSON.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/console.hpp"
#include "app/scene_overrides.hpp"
#include "softgrad/scene.hpp"

namespace softgrad::app {

/// How messages name a scene: its file, or its name for a scene loaded from a string.
inline std::string scene_label(const Scene& scene) {
  return scene.file.empty() ? scene.name : scene.file.string();
}

/// The settings of `softgrad train`.
struct TrainSettings {
  SceneOverrides overrides;  ///< --out, --solver, --threads, --quiet/--verbose
  int iterations = -1;       ///< -1: the scene's train.iterations
  bool resume = false;       ///< start from OUT/best_parameters.txt if it exists
  /// Asked between iterations (empty: never): true stops the training, and the curve, the best
  /// controller and the summary are written as usual (the CLI's Ctrl-C and SIGTERM, Python's
  /// KeyboardInterrupt).
  std::function<bool()> stop;
};

/// Trains the locomotion scene's controller by gradients (OUT/summary.json is returned).
/// @throws InputError if the scene has no creature or a file cannot be written.
nlohmann::ordered_json train_scene(Scene scene, const TrainSettings& settings,
                                   const Console& console);

/// The settings of `softgrad compare`.
struct CompareSettings {
  SceneOverrides overrides;
  long budget = 0;  ///< simulated steps per method; 0: the scene's compare.budget
  /// Asked between iterations (empty: never): true ends the running method, skips the others
  /// and writes the curves so far ("interrupted": true).
  std::function<bool()> stop;
};

/// Gradient training against PPO and OpenAI-ES (OUT/compare.json is returned; in an MPI run,
/// the processes other than the first return it without writing).
nlohmann::ordered_json compare_scene(Scene scene, const CompareSettings& settings,
                                     const Console& console);

/// The settings of `softgrad sysid`.
struct SysIdSettings {
  std::vector<std::string> data;    ///< recordings (CSV) of the scene; empty: its experiments
  std::string out = "out/sysid";    ///< report.json and fit.svg go here
  std::vector<std::string> params;  ///< empty: the scene's "sysid" block
  std::string method;               ///< "lm" or "lbfgs"; "": the scene's
  int max_iterations = 0;           ///< 0: the scene's
  int starts = 0;                   ///< 0: the scene's
  int threads = 0;
  Verbosity verbosity = Verbosity::Normal;
  /// Asked after every iteration (empty: never): true ends the fit at its current estimate,
  /// which is reported and written as usual ("interrupted": true).
  std::function<bool()> stop;
};

/// Identifies the scene's parameters from recordings of its markers (OUT/report.json is
/// returned). @throws InputError for a scene without markers or sysid block (and no params), a
/// bad recording or an unwritable folder; ConvergenceError if a forward solve fails.
nlohmann::ordered_json sysid_scene(Scene scene, const SysIdSettings& settings,
                                   const Console& console);

}  // namespace softgrad::app
