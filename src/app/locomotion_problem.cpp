#include "app/locomotion_problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "app/scene_commands.hpp"
#include "softgrad/detail/plot.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/frame_writer.hpp"

namespace softgrad::app {

LocomotionProblem locomotion_problem(Scene scene, const SceneOverrides& overrides) {
  LocomotionProblem p;
  p.scene = std::move(scene);
  if (!p.scene.locomotion)
    throw InputError(scene_label(p.scene) +
                     ": not a control scene: it needs a \"creature\", or rigid bodies with a "
                     "\"task\" (see 'softgrad scene-help', scenes/biped_2d.json and "
                     "scenes/arm_reach.json)");
  apply_overrides(overrides, p.scene);
  p.sim = std::make_unique<Simulator>(p.scene.model, p.scene.options);
  p.rollout = p.scene.rollout(*p.sim);
  p.rollout.steps = p.locomotion().train.episode_steps;
  const Locomotion& loc = p.locomotion();
  for (const TaskEpisode& e : loc.episodes())
    p.episodes.push_back({loc.episode_rollout(p.rollout, e), loc.make_loss(e)});
  p.loss = p.episodes.front().loss;
  p.parameters = loc.trained_parameters();
  return p;
}

std::string LocomotionProblem::reward_label() const {
  const std::string unit = locomotion().reward_unit();
  return unit.empty() ? "reward" : "reward [" + unit + "]";
}

double mean_loss(const LocomotionProblem& p, RolloutBatch& batch, const ParameterSet& params,
                 const std::vector<Eigen::VectorXd>& thetas, std::vector<double>& losses,
                 long& steps) {
  // Every candidate's every episode, side by side; a candidate whose parameters the model
  // refuses or whose simulation fails scores +infinity.
  const size_t n = p.episodes.size();
  const double inf = std::numeric_limits<double>::infinity();
  losses.assign(thetas.size(), 0.0);
  std::vector<Rollout> rollouts;
  std::vector<size_t> owner, episode;  // the candidate and the episode of each rollout
  for (size_t c = 0; c < thetas.size(); ++c) {
    std::vector<Rollout> mine;
    try {
      for (const Episode& e : p.episodes) {
        mine.push_back(e.rollout);
        params.set(*p.sim, mine.back(), thetas[c]);
      }
    } catch (const InputError&) {
      losses[c] = inf;
      continue;
    }
    for (size_t e = 0; e < mine.size(); ++e) {
      rollouts.push_back(std::move(mine[e]));
      owner.push_back(c);
      episode.push_back(e);
    }
  }
  // One batch; if a rollout fails, each on its own to find which.
  std::vector<Trajectory> trajectories;
  std::vector<char> done(rollouts.size(), 1);
  try {
    trajectories = batch.simulate(rollouts);
  } catch (const std::exception&) {
    trajectories.clear();
    for (size_t k = 0; k < rollouts.size(); ++k) {
      try {
        trajectories.push_back(std::move(batch.simulate({rollouts[k]}).front()));
      } catch (const std::exception&) {
        trajectories.push_back(Trajectory());
        done[k] = 0;
      }
    }
  }
  for (size_t k = 0; k < rollouts.size(); ++k) {
    const size_t c = owner[k];
    if (!done[k]) {
      losses[c] = inf;
      continue;
    }
    steps += trajectories[k].steps();
    losses[c] += evaluate_loss(*p.sim, trajectories[k], *p.episodes[episode[k]].loss) / n;
  }
  double best = inf;
  for (double l : losses)
    if (std::isfinite(l)) best = std::min(best, l);
  return best;
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

double write_rollout(LocomotionProblem& p, const Rollout& rollout, const std::filesystem::path& dir,
                     int every, const std::string& title) {
  const Rollout& r = rollout;
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
