// Rollouts: checking one against its model, the step loop (controller, kinematics, Newton), and
// the Trajectory that keeps every input it used.

#include "softgrad/trajectory.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "softgrad/detail/memory_limit.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {

bool Trajectory::stored(int n) const {
  return n >= 0 && n <= steps() && (n % every_ == 0 || n == steps());
}

const State& Trajectory::state(int n) const {
  if (!stored(n)) {
    std::ostringstream os;
    os << "state " << n << " is not stored (checkpoints every " << every_ << " of " << steps()
       << " steps)";
    throw InputError(os.str());
  }
  if (n == steps()) return final_;
  return checkpoints_[n / every_];
}

bool Trajectory::converged() const {
  if (static_cast<int>(reports_.size()) < steps()) return false;
  for (const NewtonReport& r : reports_)
    if (!r.converged()) return false;
  return true;
}

std::size_t Trajectory::stored_bytes() const {
  std::size_t bytes = 0;
  const auto state_bytes = [](const State& s) {
    return static_cast<std::size_t>(s.x.size() + s.v.size() + s.a.size()) * sizeof(double);
  };
  for (const State& s : checkpoints_) bytes += state_bytes(s);
  return bytes + state_bytes(final_);
}

ControllerBinding bind_controller(const Model& m, const Rollout& r) {
  if (!r.controller) return {};
  const std::string who = "controller '" + r.controller->name() + "'";
  ControllerBinding b;
  for (size_t k = 0; k < m.terms.size(); ++k)
    if (m.terms[k]->name() == r.controlled_term) b.term = static_cast<int>(k);
  if (b.term < 0) throw InputError(who + ": no term named '" + r.controlled_term + "' to control");
  const auto groups = m.terms[b.term]->parameter_groups();
  const int outputs = r.controller->n_outputs();
  if (groups.size() != 1 || groups[0].layout != ParameterGroup::Layout::PerStep ||
      groups[0].offset != 0)
    throw InputError(who + ": term '" + r.controlled_term + "' has no per-step group to control");
  b.steps = groups[0].size / outputs;
  return b;
}

ControllerBinding prepare_rollout(const Simulator& sim, Rollout& r) {
  const Model& m = sim.model();
  if (r.initial.x.size() != m.n_dofs() || r.initial.v.size() != m.n_dofs()) {
    std::ostringstream os;
    os << "rollout: the initial state has " << r.initial.x.size() << " positions and "
       << r.initial.v.size() << " velocities; the model has " << m.n_dofs() << " dofs";
    throw InputError(os.str());
  }
  if (r.initial.a.size() != 0 && r.initial.a.size() != m.n_dofs()) {
    std::ostringstream os;
    os << "rollout: the initial state has " << r.initial.a.size()
       << " accelerations; the model has " << m.n_dofs() << " dofs (or none: empty)";
    throw InputError(os.str());
  }
  if (!r.initial.x.allFinite() || !r.initial.v.allFinite() || !r.initial.a.allFinite())
    throw InputError("rollout: the initial state contains NaN or infinite values");
  const Eigen::VectorXd initial_adaptive = m.initial_adaptive();
  const Eigen::Index n_adaptive = initial_adaptive.size();
  if (r.initial.adaptive.size() == 0) r.initial.adaptive = initial_adaptive;
  if (r.initial.adaptive.size() != n_adaptive || !r.initial.adaptive.allFinite()) {
    std::ostringstream os;
    os << "rollout: the initial state has " << r.initial.adaptive.size()
       << " adaptive values; the model's terms adapt " << n_adaptive << " (finite)";
    throw InputError(os.str());
  }
  if (r.steps < 0) throw InputError("rollout: the number of steps must be >= 0");
  const int expected_path = r.static_solve ? 1 : r.steps;
  if (!r.kinematic_path.empty() && static_cast<int>(r.kinematic_path.size()) != expected_path) {
    std::ostringstream os;
    os << "rollout: the kinematic path has " << r.kinematic_path.size() << " entries, expected "
       << expected_path << " (one per step)";
    throw InputError(os.str());
  }
  if (r.parameters.empty()) {
    r.parameters = sim.default_parameters();
  } else {
    sim.check_parameters(r.parameters);
    for (size_t k = 0; k < r.parameters.size(); ++k)
      m.terms[k]->validate_parameters(r.parameters[k].data());
  }
  const ControllerBinding b = bind_controller(m, r);
  const int steps = r.static_solve ? 1 : r.steps;
  if (r.controller && b.steps < steps) {
    const int outputs = r.controller->n_outputs();
    throw InputError("controller '" + r.controller->name() + "': term '" + r.controlled_term +
                     "' needs one per-step group of at least " + std::to_string(steps * outputs) +
                     " values (" + std::to_string(steps) + " steps x " + std::to_string(outputs) +
                     " outputs)");
  }
  return b;
}

NewtonReport advance(Simulator& sim, Rollout& rollout, State& s) {
  return advance(sim, rollout, s, bind_controller(sim.model(), rollout));
}

NewtonReport advance(Simulator& sim, Rollout& rollout, State& s, const ControllerBinding& binding) {
  if (binding.term >= 0 && s.step < binding.steps) {
    // This step's outputs, from the state at its start and the previous step's outputs.
    const int m = rollout.controller->n_outputs();
    Eigen::VectorXd& values = rollout.parameters[binding.term];
    const Eigen::VectorXd u_prev = s.step > 0 ? Eigen::VectorXd(values.segment((s.step - 1) * m, m))
                                              : Eigen::VectorXd(Eigen::VectorXd::Zero(m));
    const Eigen::VectorXd u = rollout.controller->act(s.step, s, u_prev);
    sim.model().terms[binding.term]->validate_parameter_range(s.step * m, u.data(), m);
    values.segment(s.step * m, m) = u;
  }
  const Eigen::VectorXd* prescribed =
      rollout.kinematic_path.empty() ? nullptr : &rollout.kinematic_path[s.step];
  if (!rollout.static_solve) return sim.step(s, rollout.parameters, prescribed);
  const NewtonReport r = sim.solve_static(s, rollout.parameters, prescribed);
  if (r.converged() || (sim.options().on_failure == FailurePolicy::Continue &&
                        r.status != NewtonReport::Status::Interrupted))
    ++s.step;
  return r;
}

RolloutRun::RolloutRun(Simulator& sim, const Rollout& rollout, const TrajectoryOptions& options)
    : sim_(sim) {
  if (options.checkpoint_every < 0) throw InputError("checkpoint_every must be >= 0");
  Trajectory& traj = trajectory_;
  traj.model_ = sim.shared_model();
  traj.options_ = sim.options();
  traj.rollout_ = rollout;
  binding_ = prepare_rollout(sim, traj.rollout_);
  // The trajectory's own controller: later changes to the caller's cannot touch it.
  if (rollout.controller) traj.rollout_.controller = rollout.controller->clone();
  traj.rollout_.initial.step = 0;
  const int T = traj.steps();
  traj.every_ = options.checkpoint_every > 0
                    ? options.checkpoint_every
                    : std::max(1, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(T)))));
  // What the trajectory will hold, checked before anything is allocated: --steps 1e8 asked
  // for ~10 GB of step reports and ended in "out of memory".
  const double state_bytes = 2.0 * 8.0 * static_cast<double>(sim.model().n_dofs());
  const double bytes = static_cast<double>(T) * static_cast<double>(sizeof(NewtonReport)) +
                       (static_cast<double>(T) / traj.every_ + 1.0) * state_bytes;
  require_memory(bytes, "a rollout of " + std::to_string(T) + " steps");  // reports, checkpoints
  state_ = traj.rollout_.initial;
  traj.checkpoints_.push_back(state_);
  traj.reports_.reserve(T);
}

const NewtonReport& RolloutRun::step() {
  if (done()) throw InputError("rollout: every step is taken");
  Trajectory& traj = trajectory_;
  const bool statics = traj.rollout_.static_solve;
  const double t_end = state_.t + (statics ? 0.0 : sim_.options().dt);
  traj.reports_.push_back(advance(sim_, traj.rollout_, state_, binding_));
  const NewtonReport& r = traj.reports_.back();
  // An interrupted step was not taken, whatever the policy: the rollout cannot go on from it.
  if (!r.converged() && (sim_.options().on_failure == FailurePolicy::Stop ||
                         r.status == NewtonReport::Status::Interrupted)) {
    if (statics)
      throw ConvergenceError("static solve did not converge: " + r.message, 0, r.gradient_norm);
    throw ConvergenceError("step " + std::to_string(n_) + " (to t = " + std::to_string(t_end) +
                               " s) did not converge: " + r.message,
                           n_, r.gradient_norm);
  }
  ++n_;
  if (n_ % traj.every_ == 0 && n_ < traj.steps()) traj.checkpoints_.push_back(state_);
  return r;
}

Trajectory RolloutRun::take() && {
  if (!done()) throw InputError("rollout: the run is not finished");
  trajectory_.final_ = state_;
  return std::move(trajectory_);
}

Trajectory simulate(Simulator& sim, const Rollout& rollout, const TrajectoryOptions& options) {
  RolloutRun run(sim, rollout, options);
  while (!run.done()) run.step();
  return std::move(run).take();
}

Rollout rest_rollout(const Simulator& sim, int steps) {
  Rollout r;
  r.initial = sim.rest_state();
  r.steps = steps;
  return r;
}

}  // namespace softgrad
