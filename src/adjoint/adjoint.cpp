#include "softgrad/adjoint.hpp"

#include <sys/resource.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <chrono>
#include <sstream>

#include "../rigid/spin_velocity.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/log.hpp"
#include "step_linearization.hpp"

namespace softgrad {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// States a..b of a trajectory: stored ones by reference, the others recomputed from the
/// checkpoint at a into a buffer reused across segments.
class Segment {
 public:
  Segment(Simulator& sim, const Trajectory& traj) : sim_(sim), traj_(traj) {}

  /// Makes states a..b available (a a checkpoint). Returns the seconds spent recomputing.
  double load(int a, int b, AdjointReport& report) {
    a_ = a;
    const auto t0 = Clock::now();
    buffer_.resize(b - a + 1);
    buffer_[0] = traj_.state(a);
    for (int n = a + 1; n <= b; ++n) {
      if (traj_.stored(n)) {
        buffer_[n - a] = traj_.state(n);
        continue;
      }
      // The step as simulate() took it, with the inputs the trajectory recorded.
      buffer_[n - a] = buffer_[n - a - 1];
      const Rollout& r = traj_.rollout();
      const int step = buffer_[n - a].step;
      sim_.step(buffer_[n - a], traj_.parameters(),
                r.kinematic_path.empty() ? nullptr : &r.kinematic_path[step]);
      ++report.recomputed_steps;
    }
    std::size_t bytes = 0;
    for (const State& s : buffer_) bytes += (s.x.size() + s.v.size()) * sizeof(double);
    report.segment_bytes = std::max(report.segment_bytes, bytes);
    return seconds_since(t0);
  }
  const State& state(int n) const { return buffer_[n - a_]; }

 private:
  Simulator& sim_;
  const Trajectory& traj_;
  int a_ = 0;
  std::vector<State> buffer_;
};

/// Per-parameter-source accumulators of dL/d(input) during the sweep.
struct Accumulators {
  std::vector<Eigen::VectorXd> term_bars;  ///< per model term (empty if not selected)
  std::vector<Eigen::VectorXd> kinematic;  ///< per step (empty if not selected)
  bool want_kinematic = false;
  Eigen::VectorXd controller;  ///< dL/dpsi
};

Accumulators make_accumulators(const Model& model, const ParameterSet& params, int steps) {
  Accumulators acc;
  acc.term_bars.resize(model.terms.size());
  for (const auto& b : params.blocks()) {
    if (b.source == ParameterSet::Source::Term)
      acc.term_bars[b.term].setZero(model.terms[b.term]->n_parameters());
    if (b.source == ParameterSet::Source::Kinematic) acc.want_kinematic = true;
  }
  if (acc.want_kinematic) acc.kinematic.assign(steps, Eigen::VectorXd());
  return acc;
}

/// dL/d(rigid velocity block b) from vbar0 = dL/dv_0: p' = u gives vbar0[p]; a_i' = omega x a_i
/// gives sum_i a_i x vbar0[a_i] (d(omega x a)/domega = -[a]x, whose transpose is [a]x).
Eigen::Vector3d rigid_velocity_gradient(const Model& model, const ParameterSet::Block& b,
                                        const Eigen::VectorXd& x0, const Eigen::VectorXd& vbar0) {
  const RigidBody& body = model.rigid_bodies[b.body];
  if (!b.angular) return vbar0.segment<3>(body.dof(0));
  return spin_velocity_pull_back(body, x0, vbar0);
}

/// With x0 selected too, a_i' = omega x a_i(x0) moves with x0: dL/da_i gains
/// [omega]x^T vbar0[a_i] = vbar0[a_i] x omega (omega read back from the initial state).
void add_spin_coupling(const Model& model, const ParameterSet& params, const State& initial,
                       const Eigen::VectorXd& vbar0, Eigen::VectorXd& grad) {
  for (const auto& x0 : params.blocks()) {
    if (x0.source != ParameterSet::Source::InitialPosition) continue;
    for (const auto& b : params.blocks()) {
      if (b.source != ParameterSet::Source::RigidVelocity || !b.angular) continue;
      const RigidBody& body = model.rigid_bodies[b.body];
      const Eigen::Vector3d omega = body.angular_velocity(initial.x, initial.v);
      spin_velocity_pull_back_positions(body, omega, vbar0, x0.offset, grad);
    }
  }
}

Eigen::VectorXd assemble_gradient(const Model& model, const ParameterSet& params,
                                  const Accumulators& acc, const State& initial,
                                  const Eigen::VectorXd& xbar0, const Eigen::VectorXd& vbar0) {
  Eigen::VectorXd grad(params.size());
  for (const auto& b : params.blocks()) {
    switch (b.source) {
      case ParameterSet::Source::RigidVelocity:
        grad.segment<3>(b.offset) = rigid_velocity_gradient(model, b, initial.x, vbar0);
        break;
      case ParameterSet::Source::InitialPosition:
        grad.segment(b.offset, b.size) = xbar0;
        break;
      case ParameterSet::Source::InitialVelocity:
        grad.segment(b.offset, b.size) = vbar0;
        break;
      case ParameterSet::Source::Controller:
        grad.segment(b.offset, b.size) = acc.controller;
        break;
      case ParameterSet::Source::Kinematic: {
        int k = b.offset;
        for (const auto& kb : acc.kinematic) {
          grad.segment(k, kb.size()) = kb;
          k += static_cast<int>(kb.size());
        }
        break;
      }
      case ParameterSet::Source::Term: {
        const auto slice = acc.term_bars[b.term].segment(b.group.offset, b.group.size);
        if (b.tied) {
          const int n = b.group.size / b.group.width;
          for (int k = 0; k < b.group.width; ++k)
            grad[b.offset + k] = slice.segment(k * n, n).sum();
        } else {
          grad.segment(b.offset, b.size) = slice;
        }
        break;
      }
    }
  }
  add_spin_coupling(model, params, initial, vbar0, grad);
  return grad;
}

void note_unconverged(const Trajectory& traj, AdjointReport& report) {
  for (size_t n = 0; n < traj.reports().size(); ++n)
    if (!traj.reports()[n].converged()) report.unconverged_steps.push_back(static_cast<int>(n));
  if (static_cast<int>(traj.reports().size()) < traj.steps())
    throw InputError("the trajectory stopped early (a step failed): no gradient exists");
  if (!report.unconverged_steps.empty()) {
    std::ostringstream os;
    os << report.unconverged_steps.size() << " forward steps did not converge (first: step "
       << report.unconverged_steps.front()
       << "); the gradient assumes converged steps and is not exact there";
    report.warnings.push_back(os.str());
    log(LogLevel::Warn, "adjoint: " + os.str());
  }
}

/// @throws InputError unless sim is a workspace for the trajectory's model and options.
void check_workspace(const Simulator& sim, const Trajectory& traj) {
  if (sim.shared_model() != traj.model())
    throw InputError("gradient: the simulator's model is not the trajectory's");
  if (!(sim.options() == traj.options()))
    throw InputError(
        "gradient: the simulator's options differ from those the trajectory was simulated with");
}

}  // namespace

std::size_t peak_rss_bytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<std::size_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

double evaluate_loss(Simulator& sim, const Trajectory& traj, const Loss& loss) {
  check_workspace(sim, traj);
  const int T = traj.steps();
  const int k = traj.checkpoint_every();
  Segment segment(sim, traj);
  AdjointReport unused;
  double l = 0.0;
  for (int a = 0; a <= T; a += k) {
    const int b = std::min(a + k, T);
    segment.load(a, b, unused);
    for (int n = a; n <= b; ++n)
      if (n < b || n == T) l += loss.evaluate(n, T, segment.state(n), nullptr, nullptr);
    if (b == T) break;
  }
  return l;
}

GradientResult gradient(const Trajectory& traj, const Loss& loss, const ParameterSet& params,
                        const AdjointOptions& options) {
  Simulator sim(traj.model(), traj.options());
  return gradient(sim, traj, loss, params, options);
}

GradientResult gradient(Simulator& sim, const Trajectory& traj, const Loss& loss,
                        const ParameterSet& params, const AdjointOptions& options) {
  const auto t_start = Clock::now();
  check_workspace(sim, traj);
  const Model& model = sim.model();
  const int T = traj.steps();
  const int k = traj.checkpoint_every();
  const bool statics = traj.rollout().static_solve;
  const double dt = sim.options().dt;
  GradientResult result;
  AdjointReport& report = result.report;
  note_unconverged(traj, report);
  report.trajectory_bytes = traj.stored_bytes();

  StepLinearization lin(sim, options.linear, /*keep_factorizations=*/true);
  lin.set_direct_fallback(options.direct_fallback);
  report.backend = lin.backend();
  Accumulators acc = make_accumulators(model, params, T);
  const std::vector<int>& kin = lin.kinematic_dofs();
  const int n_dofs = model.n_dofs();

  // A controller: its term's per-step values get accumulators, and dL/du_n flows back through
  // the policy into psi, the state and the previous outputs (carry).
  const Controller* controller = traj.rollout().controller.get();
  int ct = -1, m_out = 0;
  Eigen::VectorXd carry, u_prev, ubar;
  if (controller) {
    ct = bind_controller(model, traj.rollout()).term;
    m_out = controller->n_outputs();
    if (acc.term_bars[ct].size() == 0) acc.term_bars[ct].setZero(model.terms[ct]->n_parameters());
    acc.controller.setZero(controller->n_parameters());
    carry.setZero(m_out);
    u_prev.resize(m_out);
  }
  Eigen::VectorXd xbar = Eigen::VectorXd::Zero(n_dofs), vbar = Eigen::VectorXd::Zero(n_dofs);
  Eigen::VectorXd xbar_prev(n_dofs), vbar_prev(n_dofs), lambda = Eigen::VectorXd::Zero(n_dofs);
  Eigen::VectorXd h_lambda(n_dofs);
  Segment segment(sim, traj);
  RecycledGuess recycled(options.recycled_solutions);
  std::string first_unsolved_message;
  // Segments [a, b] from the last back to the first; state b's loss is taken in its own
  // segment (b = T) or was taken as state a of the segment after it.
  const int last_a = (T == 0) ? 0 : ((T - 1) / k) * k;
  for (int a = last_a; a >= 0; a -= k) {
    const int b = std::min(a + k, T);
    report.recompute_seconds += segment.load(a, b, report);
    if (b == T) result.loss += loss.evaluate(T, T, segment.state(T), &xbar, &vbar);
    for (int n = b; n > a; --n) {
      if (options.stop && options.stop()) {
        report.interrupted = true;
        report.backward_seconds = seconds_since(t_start);
        return result;
      }
      // Step n-1 -> n. xbar, vbar hold dL/dx_n, dL/dv_n (total).
      const State& prev = segment.state(n - 1);
      const State& next = segment.state(n);
      if (!statics) {
        xbar += vbar / dt;  // v_n = (x_n - x_{n-1}) / dt
        xbar_prev = -vbar / dt;
      } else {
        xbar_prev.setZero();
      }
      vbar_prev.setZero();
      lin.linearize(prev, next.x, statics, traj.parameters());
      const LinearSolveReport lr = lin.solve(xbar, lambda, &recycled);
      report.linear_iterations += lr.iterations;
      report.worst_relative_residual =
          std::max(report.worst_relative_residual, lr.relative_residual);
      if (!lr.ok()) {
        if (report.unsolved_steps.empty()) first_unsolved_message = lr.message;
        report.unsolved_steps.push_back(n - 1);
      }
      if (lin.indefinite()) report.indefinite_steps.push_back(n - 1);
      if (acc.want_kinematic && !kin.empty()) {
        // Kinematic dofs of x_n are inputs: dL/dk = xbar_k - (H lambda)_k.
        lin.hessian_product(lambda, h_lambda);
        Eigen::VectorXd& kb = acc.kinematic[n - 1];
        kb.resize(kin.size());
        for (size_t i = 0; i < kin.size(); ++i) kb[i] = xbar[kin[i]] - h_lambda[kin[i]];
      }
      lin.pull_back(lambda, xbar_prev, vbar_prev, acc.term_bars);
      if (statics) {
        // The equilibrium does not depend on the starting guess.
        xbar_prev.setZero();
        vbar_prev.setZero();
      }
      xbar.swap(xbar_prev);
      vbar.swap(vbar_prev);
      if (controller) {
        const int step = n - 1;  // the controller acted at the start of this step, on `prev`
        ubar = acc.term_bars[ct].segment(step * m_out, m_out) + carry;
        u_prev.setZero();
        if (step > 0) u_prev = traj.parameters()[ct].segment((step - 1) * m_out, m_out);
        carry.setZero();
        controller->backprop(step, prev, u_prev, ubar, acc.controller, xbar, vbar, carry);
      }
      ++report.steps;
      result.loss += loss.evaluate(n - 1, T, prev, &xbar, &vbar);
    }
  }
  if (!report.unsolved_steps.empty()) {
    std::ostringstream os;
    os << report.unsolved_steps.size() << " adjoint linear solves did not converge (step "
       << report.unsolved_steps.front() << ": " << first_unsolved_message
       << "; worst relative residual " << report.worst_relative_residual
       << "): the gradient is only as accurate as those solves";
    report.warnings.push_back(os.str());
    log(LogLevel::Warn, "adjoint: " + os.str());
  }
  if (!report.indefinite_steps.empty()) {
    std::ostringstream os;
    os << report.indefinite_steps.size() << " steps end where the exact Hessian is indefinite "
       << "(first: step " << report.indefinite_steps.front()
       << "): not strict minima; solved by LU, the gradient holds only where the solution "
          "depends smoothly on the parameters";
    report.warnings.push_back(os.str());
    log(LogLevel::Warn, "adjoint: " + os.str());
  }
  report.factorizations = lin.factorizations();
  report.direct_fallback_steps = lin.direct_fallback_steps();
  result.gradient = assemble_gradient(model, params, acc, traj.rollout().initial, xbar, vbar);
  report.backward_seconds = seconds_since(t_start);
  report.peak_rss_bytes = peak_rss_bytes();
  return result;
}

}  // namespace softgrad
