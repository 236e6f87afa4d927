#include "app/locomotion_problem.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "app/scene_commands.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/frame_writer.hpp"
#include "softgrad/plot.hpp"

namespace softgrad::app {

LocomotionProblem locomotion_problem(Scene scene, const SceneOverrides& overrides) {
  LocomotionProblem p;
  p.scene = std::move(scene);
  if (!p.scene.locomotion)
    throw InputError(scene_label(p.scene) +
                     ": not a locomotion scene: it needs a \"creature\" (see "
                     "'softgrad scene-help' and scenes/biped_2d.json)");
  apply_overrides(overrides, p.scene);
  p.sim = std::make_unique<Simulator>(p.scene.model, p.scene.options);
  p.rollout = p.scene.rollout(*p.sim);
  p.rollout.steps = p.locomotion().train.episode_steps;
  p.loss = p.locomotion().make_loss();
  return p;
}

TrainOptions train_options(const Locomotion& locomotion, int iterations) {
  const LocomotionTrainSpec& s = locomotion.train;
  TrainOptions o;
  o.optimizer = s.optimizer;
  o.iterations = iterations >= 0 ? iterations : s.iterations;
  o.learning_rate = s.learning_rate;
  o.clip = s.clip;
  return o;
}

std::vector<CurveSample> gradient_curve(const TrainReport& report) {
  std::vector<CurveSample> curve;
  for (const TrainIteration& it : report.history) curve.push_back({it.simulated_steps, -it.loss});
  return curve;
}

double write_rollout(LocomotionProblem& p, const std::shared_ptr<const Controller>& controller,
                     const std::filesystem::path& dir, int every, const std::string& title) {
  Rollout r = p.rollout;
  r.controller = controller;
  const Trajectory traj = simulate(*p.sim, r);
  const Model& model = *p.scene.model;
  // Frames for ParaView.
  if (every > 0) {
    FrameWriter frames(model, dir, "rollout", p.scene.output.vtu_encoding);
    frames.set_parameters(r.parameters);
    frames.set_time_step(p.scene.options.dt);
    for (int n = 0; n <= traj.steps(); ++n)
      if (n % every == 0 || n == traj.steps()) frames.write(traj.state(n), n);
  }
  // A chronophotograph of the gait (2D).
  if (model.dim == 2) {
    std::vector<Eigen::VectorXd> shots;
    const int n_shots = std::min(8, traj.steps());
    for (int k = 0; k <= n_shots; ++k) shots.push_back(traj.state(k * traj.steps() / n_shots).x);
    MeshStripOptions o;
    o.title = title;
    write_svg_mesh_strip((dir / "gait.svg").string(), combined_mesh(model), shots, o);
  }
  return -evaluate_loss(*p.sim, traj, *p.loss);
}

std::string steps_text(long steps) {
  if (steps < 0) return "not reached";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld", steps);
  return buf;
}

}  // namespace softgrad::app
