/// @file summary.hpp
/// summary.json: what a run or a static solve did, for scripts and plots. Per-step values are
/// parallel arrays with one entry per completed step; keys appear in the order listed here.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

#include "softgrad/run_scene.hpp"
#include "softgrad/scene.hpp"
#include "softgrad/static_solve.hpp"

namespace softgrad {

/// The summary of a run:
///   {"command": "run", "softgrad_version", "scene", "scene_file", "solver", "dim", "n_verts",
///    "n_elems", "n_dofs", "threads", "mode": "dynamic"|"static", "dt",
///    "steps_requested", "steps_completed",
///    "status": "completed"|"newton_failed"|"interrupted"|"error",
///    "failed_step": the 1-based step or null, "newton_status": that step's Newton status or
///    null, "message": "" or what went wrong,
///    "time", "newton_iterations", "linear_iterations", "wall_time_s": [per step],
///    "unconverged_steps": [steps accepted without convergence under on_failure "continue"],
///    "energy": {"kinetic", "potential", "total": [per step, J]},
///    "initial_energy": {"kinetic", "potential", "total"},
///    "mean_newton_iterations", "total_wall_time_s", "setup_time_s", "steps_per_second",
///    "output": {"directory", "pvd" (or null), "frames", "every"}}
nlohmann::ordered_json run_summary(const Scene& scene, const RunResult& result);

/// The summary of a static solve:
///   {"command": "static", "softgrad_version", "scene", "scene_file", "solver", "dim",
///    "n_verts", "n_elems", "n_dofs", "threads", "time",
///    "status": "converged"|"newton_failed", "newton_status", "message", "iterations",
///    "linear_iterations", "step_norm", "gradient_norm", "energy" (potential, J),
///    "max_displacement" (m), "wall_time_s", "setup_time_s",
///    "output": {"directory", "pvd" (or null), "frames"}}
nlohmann::ordered_json static_summary(const Scene& scene, const StaticResult& result);

/// Writes `json` (indented) to a temporary file beside `path`, then renames it over `path`.
/// @throws InputError naming the path if it cannot be written.
void write_json_file(const std::filesystem::path& path, const nlohmann::ordered_json& json);

}  // namespace softgrad
