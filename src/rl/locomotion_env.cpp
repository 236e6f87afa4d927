#include "softgrad/rl/locomotion_env.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "softgrad/errors.hpp"

namespace softgrad::rl {

LocomotionOptions locomotion_options(const Locomotion& loc) {
  LocomotionOptions o;
  o.muscle_term = loc.creature.muscle_term;
  o.n_muscles = loc.creature.n_muscles;
  o.controller = loc.policy_options();
  o.reward = loc.progress_reward();
  if (loc.task.type != TaskType::Distance)
    for (const TaskEpisode& e : loc.episodes())
      o.episodes.push_back({e.goal, e.velocity, loc.episode_reward(e, loc.train.episode_steps)});
  return o;
}
namespace {

/// The options of the controller that applies the action rule: one observed vertex (the
/// smallest input) and no hidden layer, i.e. a linear map y = W o + b.
MlpController::Options action_options(MlpController::Options o) {
  o.observed = {0};
  o.sensors.reset();
  o.goal.resize(0);
  o.hidden.clear();
  return o;
}

void check_rollout(const Simulator& sim, const Rollout& r) {
  const int n = sim.model().n_dofs();
  if (r.static_solve) throw InputError("locomotion env: a static rollout has no episode");
  if (r.steps < 1) throw InputError("locomotion env: the rollout needs at least one step");
  if (r.initial.x.size() != n || r.initial.v.size() != n)
    throw InputError("locomotion env: the initial state has " + std::to_string(r.initial.x.size()) +
                     " positions and " + std::to_string(r.initial.v.size()) +
                     " velocities; the model has " + std::to_string(n) + " dofs");
  if (!r.initial.x.allFinite() || !r.initial.v.allFinite())
    throw InputError("locomotion env: the initial state contains NaN or infinite values");
  if (!r.kinematic_path.empty() && static_cast<int>(r.kinematic_path.size()) != r.steps)
    throw InputError("locomotion env: the kinematic path has " +
                     std::to_string(r.kinematic_path.size()) + " entries, expected " +
                     std::to_string(r.steps) + " (one per step)");
}

}  // namespace

LocomotionEnv::LocomotionEnv(std::unique_ptr<Simulator> sim, Rollout rollout,
                             LocomotionOptions options)
    : LocomotionEnv(*sim, std::move(rollout), std::move(options)) {
  own_sim_ = std::move(sim);
}

LocomotionEnv::LocomotionEnv(Simulator& sim, Rollout rollout, LocomotionOptions options)
    : sim_(sim),
      rollout_(std::move(rollout)),
      options_(std::move(options)),
      center_(sim.model(), {}, {}) {
  check_rollout(sim_, rollout_);
  if (options_.n_muscles < 1) throw InputError("locomotion env: n_muscles must be >= 1");
  if (!std::isfinite(options_.failure_reward))
    throw InputError("locomotion env: failure_reward must be finite");
  const double dt = sim_.options().dt;
  policy_shape_ =
      std::make_shared<MlpController>(sim_.model(), options_.n_muscles, dt, options_.controller);
  // MlpController::act applies u_n = a_max tanh(atanh(u_{n-1} / a_max) + delta tanh(y_n)) to
  // its network's output y_n. A linear network with zero weights outputs its bias exactly, so
  // setting the bias to the action makes act() apply the controller's own rule to the action.
  action_ = std::make_shared<MlpController>(sim_.model(), options_.n_muscles, dt,
                                            action_options(options_.controller));
  rollout_.controller = action_;
  rollout_.controlled_term = options_.muscle_term;
  rollout_.initial.step = 0;
  binding_ = prepare_rollout(sim_, rollout_);  // the term exists and holds T * m activations
}

Eigen::VectorXd LocomotionEnv::reset() {
  state_ = rollout_.initial;
  reward_ = options_.reward;
  if (!options_.episodes.empty()) {
    // The next variant in turn: its start, goal and reward.
    const auto& e = options_.episodes[episodes_started_ % options_.episodes.size()];
    if (e.velocity.size() > 0) state_.v = e.velocity;
    if (e.goal.size() > 0) policy_shape_->set_goal(e.goal);
    if (e.reward) reward_ = e.reward;
  }
  ++episodes_started_;
  active_ = true;
  return policy_shape_->observe(state_.step, state_);
}

StepResult LocomotionEnv::step(const Eigen::VectorXd& action) {
  if (!active_)
    throw InputError("locomotion env: step() needs reset() first (the episode is over)");
  if (action.size() != options_.n_muscles || !action.allFinite())
    throw InputError("locomotion env: the action must have " + std::to_string(options_.n_muscles) +
                     " finite values, got " + std::to_string(action.size()));
  // Zero weights, bias = the action (see the constructor).
  Eigen::VectorXd psi = Eigen::VectorXd::Zero(action_->n_parameters());
  psi.tail(options_.n_muscles) = action;
  action_->set_parameters(psi);
  State next = state_;
  report_ = advance(sim_, rollout_, next, binding_);
  ++simulated_steps_;
  StepResult r;
  double reward = std::numeric_limits<double>::quiet_NaN();
  if (report_.converged() && next.x.allFinite() && next.v.allFinite())
    reward =
        reward_ ? reward_(state_, next) : center_.center(next.x)[0] - center_.center(state_.x)[0];
  // A failed step ends the episode with the penalty and keeps s_n.
  if (!std::isfinite(reward)) {
    active_ = false;
    r.reward = options_.failure_reward;
    r.done = r.terminal = true;
    r.observation = policy_shape_->observe(state_.step, state_);
    return r;
  }
  state_ = std::move(next);
  r.reward = reward;
  r.done = state_.step >= rollout_.steps;
  active_ = !r.done;
  r.observation = policy_shape_->observe(state_.step, state_);
  return r;
}

std::shared_ptr<MlpController> LocomotionEnv::make_controller(const Eigen::VectorXd& params) const {
  auto c = std::make_shared<MlpController>(*policy_shape_);
  c->set_parameters(params);
  return c;
}

}  // namespace softgrad::rl
