/// @file sysid_problem.hpp
/// A small 2D cantilever pushed at its tip for 0.1 s and released, with two markers, and
/// recordings of it made by softgrad itself.
#pragma once

#include <memory>

#include "softgrad/sysid.hpp"
#include "support/tiny_models.hpp"

namespace softgrad::test {

struct SysIdProblem {
  std::shared_ptr<Model> model;
  std::unique_ptr<Simulator> sim;
  Rollout rollout;
  MarkerSet markers;
};

inline SysIdProblem pushed_cantilever(double youngs, double alpha, int steps = 40,
                                      Eigen::Vector2i cells = {6, 2}, double dt = 0.01) {
  SysIdProblem p;
  p.model = rectangle_model("neo_hookean", youngs, 0.3, 1000.0, cells, {0.3, 0.1});
  Model& m = *p.model;
  fix_vertices(m, vertices_at(m, 0, 0.0), "clamp");
  add_damping(m, alpha, 0.0);
  // A downward push on the tip vertices during the first 0.1 s.
  std::vector<int> dofs;
  for (int v : vertices_at(m, 0, 0.3)) dofs.push_back(2 * v + 1);
  const int push = static_cast<int>(std::lround(0.1 / dt));
  std::vector<double> f(static_cast<size_t>(push) * dofs.size(), -2.0 / dofs.size());
  add_step_forces(m, "push", dofs, push, f);
  SimulationOptions opt;
  opt.dt = dt;
  p.sim = std::make_unique<Simulator>(p.model, opt);
  p.rollout = rest_rollout(*p.sim, steps);
  p.markers =
      MarkerSet(m, {{"tip", Eigen::Vector2d(0.3, 0.05)}, {"mid", Eigen::Vector2d(0.16, 0.03)}});
  return p;
}

/// Marker positions of a simulation at frames every `frame_dt` (from 0 to the end).
inline Recording record(SysIdProblem& p, double frame_dt) {
  const Trajectory traj = simulate(*p.sim, p.rollout);
  const double t_end = p.rollout.steps * p.sim->options().dt;
  Recording rec;
  for (int f = 0; f * frame_dt <= t_end + 1e-12; ++f) rec.times.push_back(f * frame_dt);
  const MarkerLoss sampler(p.markers, rec, 0.0, p.sim->options().dt, p.rollout.steps);
  for (size_t f = 0; f < rec.times.size(); ++f)
    for (int m = 0; m < p.markers.size(); ++m) {
      const SampleAt at = sample_at(rec.times[f], 0.0, p.sim->options().dt, p.rollout.steps);
      const State& s = traj.state(at.state);
      rec.observations.push_back(
          {static_cast<int>(f), m,
           p.markers.position(m, s.x) - at.back * p.markers.position(m, s.v)});
    }
  return rec;
}

}  // namespace softgrad::test
