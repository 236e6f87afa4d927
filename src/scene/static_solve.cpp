#include "softgrad/static_solve.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "../core/elapsed.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/frame_writer.hpp"
#include "summary.hpp"

namespace softgrad {
namespace {

using Clock = std::chrono::steady_clock;

// max over vertices of |x_i - X_i|.
double max_displacement(const Model& model, const Eigen::VectorXd& x) {
  const Eigen::VectorXd u = x - model.X;
  double max_sq = 0.0;
  for (int i = 0; i < model.n_verts; ++i)
    max_sq = std::max(max_sq,
                      u.segment(static_cast<Eigen::Index>(i) * model.dim, model.dim).squaredNorm());
  return std::sqrt(max_sq);
}

}  // namespace

StaticResult static_solve(const Scene& scene) {
  if (!scene.model) throw InputError("static_solve: the scene has no model");
  // Setup: the simulator (symbolic analysis) and the output folder.
  const Clock::time_point setup_start = Clock::now();
  Simulator sim(scene.model, scene.options);
  StaticResult result;
  result.threads = omp_get_max_threads();
  result.output_directory = scene.output.directory;
  result.summary_path = result.output_directory / "summary.json";
  std::optional<FrameWriter> frames;
  if (scene.output.vtu) {
    frames.emplace(*scene.model, result.output_directory, scene.name.empty() ? "frame" : scene.name,
                   scene.output.vtu_encoding);
  } else {
    create_output_directory(result.output_directory);
  }
  result.setup_time_s = seconds_since(setup_start);

  // The equilibrium from the rest state, at the last load time (as Scene::rollout and the
  // gradient commands take it): prescribed motions apply their full displacement.
  State s = sim.rest_state();
  s.t = scene.steps * scene.options.dt;
  result.time = s.t;
  const Clock::time_point solve_start = Clock::now();
  result.report = sim.solve_static(s);
  result.wall_time_s = seconds_since(solve_start);
  result.potential_energy = sim.potential_energy(s.x);
  result.max_displacement = max_displacement(*scene.model, s.x);
  const Eigen::VectorXd g = sim.potential_gradient(s.x, sim.default_parameters(), s.t);
  // Per vertex: the prescribed components of the gradient (the free ones balance to zero).
  Eigen::VectorXd reaction = Eigen::VectorXd::Zero(g.size());
  for (const int dof : scene.model->kinematic_dofs()) reaction[dof] = g[dof];
  for (const KinematicGroup& k : scene.model->kinematic) {
    Eigen::Vector3d force = Eigen::Vector3d::Zero();
    for (const int v : k.verts)
      for (int i = 0; i < scene.model->dim; ++i)
        if (k.axes[i]) force[i] += g[static_cast<Eigen::Index>(v) * scene.model->dim + i];
    result.reactions.emplace_back(k.name, force);
  }

  // Output.
  if (frames) {
    frames->write(s, 0, &reaction);
    result.frames_written = frames->frames_written();
    result.pvd_path = frames->pvd_path();
  }
  write_json_file(result.summary_path, static_summary(scene, result));
  return result;
}

int exit_code(const StaticResult& result) { return result.converged() ? 0 : 2; }

}  // namespace softgrad
