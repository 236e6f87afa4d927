#include "softgrad/trajectory.hpp"

#include <cmath>
#include <sstream>

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
  for (const State& s : checkpoints_) bytes += (s.x.size() + s.v.size()) * sizeof(double);
  return bytes + (final_.x.size() + final_.v.size()) * sizeof(double);
}

namespace {

void check_rollout(const Simulator& sim, const Rollout& r) {
  const Model& m = sim.model();
  if (r.initial.x.size() != m.n_dofs() || r.initial.v.size() != m.n_dofs()) {
    std::ostringstream os;
    os << "rollout: the initial state has " << r.initial.x.size() << " positions and "
       << r.initial.v.size() << " velocities; the model has " << m.n_dofs() << " dofs";
    throw InputError(os.str());
  }
  if (!r.initial.x.allFinite() || !r.initial.v.allFinite())
    throw InputError("rollout: the initial state contains NaN or infinite values");
  if (r.steps < 0) throw InputError("rollout: the number of steps must be >= 0");
  const int expected_path = r.static_solve ? 1 : r.steps;
  if (!r.kinematic_path.empty()) {
    if (static_cast<int>(r.kinematic_path.size()) != expected_path) {
      std::ostringstream os;
      os << "rollout: the kinematic path has " << r.kinematic_path.size() << " entries, expected "
         << expected_path << " (one per step)";
      throw InputError(os.str());
    }
  }
}

}  // namespace

int controlled_term(const Simulator& sim, const Rollout& rollout) {
  const Model& m = sim.model();
  for (size_t k = 0; k < m.terms.size(); ++k)
    if (m.terms[k]->name() == rollout.controlled_term) {
      const auto groups = m.terms[k]->parameter_groups();
      const int steps = rollout.static_solve ? 1 : rollout.steps;
      const int needed = steps * rollout.controller->n_outputs();
      if (groups.size() != 1 || groups[0].layout != ParameterGroup::Layout::PerStep ||
          groups[0].size < needed)
        throw InputError("controller '" + rollout.controller->name() + "': term '" +
                         rollout.controlled_term + "' needs one per-step group of at least " +
                         std::to_string(needed) + " values (" + std::to_string(steps) +
                         " steps x " + std::to_string(rollout.controller->n_outputs()) +
                         " outputs)");
      return static_cast<int>(k);
    }
  throw InputError("controller '" + rollout.controller->name() + "': no term named '" +
                   rollout.controlled_term + "' to control");
}

void apply_controller(Simulator& sim, const Rollout& rollout, const State& s) {
  if (!rollout.controller) return;
  EnergyTerm& term = *sim.mutable_model().terms[controlled_term(sim, rollout)];
  const int m = rollout.controller->n_outputs();
  Eigen::VectorXd u_prev = Eigen::VectorXd::Zero(m);
  if (s.step > 0) term.get_parameter_range((s.step - 1) * m, u_prev.data(), m);
  const Eigen::VectorXd u = rollout.controller->act(s.step, s, u_prev);
  term.set_parameter_range(s.step * m, u.data(), m);
}

NewtonReport advance(Simulator& sim, const Rollout& rollout, State& s) {
  apply_controller(sim, rollout, s);
  const Eigen::VectorXd* prescribed =
      rollout.kinematic_path.empty() ? nullptr : &rollout.kinematic_path[s.step];
  return sim.step(s, prescribed);
}

Trajectory simulate(Simulator& sim, const Rollout& rollout, const TrajectoryOptions& options) {
  check_rollout(sim, rollout);
  if (options.checkpoint_every < 0) throw InputError("checkpoint_every must be >= 0");
  Trajectory traj;
  traj.rollout_ = rollout;
  traj.rollout_.initial.step = 0;
  const int T = traj.steps();
  traj.every_ = options.checkpoint_every > 0
                    ? options.checkpoint_every
                    : std::max(1, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(T)))));
  State s = traj.rollout_.initial;
  traj.checkpoints_.push_back(s);
  if (rollout.static_solve) {
    const Eigen::VectorXd* prescribed =
        rollout.kinematic_path.empty() ? nullptr : &rollout.kinematic_path[0];
    apply_controller(sim, traj.rollout_, s);
    NewtonReport r = sim.solve_static(s, prescribed);
    traj.reports_.push_back(r);
    if (!r.converged() && sim.options().on_failure == FailurePolicy::Stop)
      throw ConvergenceError("static solve did not converge: " + r.message);
    s.step = 1;
    traj.final_ = s;
    return traj;
  }
  traj.reports_.reserve(T);
  for (int n = 0; n < T; ++n) {
    NewtonReport r = advance(sim, traj.rollout_, s);
    traj.reports_.push_back(r);
    if (!r.converged() && sim.options().on_failure == FailurePolicy::Stop)
      throw ConvergenceError("step " + std::to_string(n) +
                             " (to t = " + std::to_string(s.t + sim.options().dt) +
                             " s) did not converge: " + r.message);
    if ((n + 1) % traj.every_ == 0 && n + 1 < T) traj.checkpoints_.push_back(s);
  }
  traj.final_ = s;
  return traj;
}

Rollout rest_rollout(const Simulator& sim, int steps) {
  Rollout r;
  r.initial = sim.rest_state();
  r.steps = steps;
  return r;
}

}  // namespace softgrad
