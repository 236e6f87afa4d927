/// @file scene_loss.hpp
/// Internal: the /loss section of a scene (position, center_of_mass and trajectory terms) and
/// the times of its terms, which must fall on steps.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "object_reader.hpp"
#include "softgrad/loss.hpp"
#include "softgrad/model.hpp"

namespace softgrad::detail {

/// The time grid a loss refers to: state n is at t = n dt, n = 0..steps (a static scene has the
/// start, 0, and the equilibrium, 1).
struct StepGrid {
  double dt = 0.01;
  int steps = 0;
  bool static_solve = false;
};

/// The step of time `t` [s] on the grid, or "" in `error` saying why there is none (not on a
/// step, after the end of the run). A step within 1e-6 dt counts.
int step_of_time(double t, const StepGrid& grid, std::string& error);

/// The scene's loss: one term per entry of /loss (null when the list is absent or empty).
/// `min_steps` receives the fewest steps for which every entry applies at least once.
/// @throws InputError naming the entry's JSON pointer (and the reference file's line).
std::shared_ptr<const Loss> read_loss(const ObjectReader& top, const Model& model,
                                      const StepGrid& grid, int& min_steps);

/// One row group of a reference trajectory file: the positions of `vertices` at `step`.
struct ReferenceRow {
  int step = 0;
  int vertex = 0;
  Eigen::VectorXd x;  ///< dim entries [m]
};

/// Reads a CSV reference trajectory: a header "step,vertex,x,y(,z)" (or "time,..."), then one
/// row per vertex and state. Blank lines and lines starting with '#' are skipped.
/// @throws InputError "<file>:<line>: ..." (file as given in `shown`) for a malformed header or
///         row, a vertex outside the model, a time not on a step, a repeated (step, vertex) pair
///         or a file without rows.
std::vector<ReferenceRow> read_reference_csv(const std::filesystem::path& file,
                                             const std::string& shown, const Model& model,
                                             const StepGrid& grid);

}  // namespace softgrad::detail
