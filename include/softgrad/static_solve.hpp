/// @file static_solve.hpp
/// `softgrad static` without the command line: the static equilibrium of a scene from its rest
/// state, written as one frame and summary.json.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "softgrad/scene.hpp"
#include "softgrad/simulator.hpp"

namespace softgrad {

struct StaticResult {
  NewtonReport report;            ///< Newton's report of the equilibrium solve
  double potential_energy = 0.0;  ///< at the result [J]
  double max_displacement = 0.0;  ///< max over vertices of |x - X| [m]
  double time = 0.0;              ///< the time of the kinematics applied [s]
  double setup_time_s = 0.0;      ///< Simulator construction and output setup
  double wall_time_s = 0.0;       ///< the solve
  int threads = 1;                ///< OpenMP threads available to the solve
  std::filesystem::path output_directory;
  std::filesystem::path pvd_path;  ///< empty when no frame is written
  std::filesystem::path summary_path;
  int frames_written = 0;
  /// Per boundary group: the force its supports exert on the body, summed over its vertices,
  /// on the components it holds (the others 0) [N, or N/m in 2D].
  std::vector<std::pair<std::string, Eigen::Vector3d>> reactions;

  bool converged() const { return report.converged(); }
};

/// Solves for the static equilibrium of `scene` from its rest state with the kinematics at the
/// last load time steps * dt (Simulator::solve_static), computes the boundary groups' reactions,
/// and writes into scene.output.directory (created) the result
/// as one frame with a 1-frame .pvd (when output.vtu) and summary.json. If Newton fails under
/// FailurePolicy::Stop, the frame shows the rest state; under Continue, the last iterate.
/// @throws InputError for a scene without a model, invalid options, nothing held fixed, or
/// output that cannot be written.
StaticResult static_solve(const Scene& scene);

/// The program's exit code: 0 converged, 2 Newton failed.
int exit_code(const StaticResult& result);

}  // namespace softgrad
