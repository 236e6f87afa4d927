/// @file scene_overrides.hpp
/// The command-line settings that override a scene file's: output folder, steps, frame interval,
/// linear solver, threads and verbosity.
#pragma once

#include <string>

#include "app/console.hpp"
#include "softgrad/scene.hpp"

namespace CLI {
class App;
}

namespace softgrad::app {

/// What the user gave on the command line; unset values leave the scene's.
struct SceneOverrides {
  std::string out;     ///< --out: output directory ("" = the scene's output.directory)
  int steps = -1;      ///< --steps (-1 = the scene's duration / dt)
  int every = -1;      ///< --every: frame interval (-1 = the scene's output.every; 0 = no frames)
  std::string solver;  ///< --solver: linear solver kind ("" = the scene's)
  std::string device;  ///< --device: "cpu" or "cuda" ("" = the scene's solver decides)
  int threads = 0;     ///< --threads (0 = OpenMP's default, e.g. OMP_NUM_THREADS)
  bool quiet = false;
  bool verbose = false;
  bool strict = false;     ///< --strict: a scene's plausibility warnings are errors
  std::string vtu_format;  ///< --vtu-format: zlib, raw or ascii ("" = the scene's)

  Verbosity verbosity() const;
};

/// Writes the set overrides into `scene`. Switching the solver to "matfree" or "cuda" while the
/// scene asks for the "ichol" preconditioner (which needs "pcg") falls back to "jacobi" with a
/// warning.
/// --device cuda selects the "cuda" linear solver; --device cpu replaces a scene's "cuda" solver
/// by "pcg" (the same CG on the CPU).
/// With `strict`, a scene with plausibility warnings (Scene::warnings) is refused.
/// @throws InputError for steps < -1 or every < -1 (the parser already rejects them), for
///         --device cuda in a build without CUDA, and for --device cuda with a CPU --solver.
void apply_overrides(const SceneOverrides& overrides, Scene& scene);

/// Sets the number of OpenMP threads if `threads` > 0.
void apply_threads(int threads);

/// Adds --out, --vtu-format, --solver, --device, --threads, --strict and --quiet/--verbose
/// (exclusive) to `command`, bound to `overrides`. --steps and --every are added by `run` only.
void add_common_options(CLI::App& command, SceneOverrides& overrides);

}  // namespace softgrad::app
