// Forward (tangent) sensitivities: S_n = dx_n/dtheta, W_n = dv_n/dtheta, propagated step by step
// with the same linearisation as the adjoint:
//   H s_{n+1} = -(dg/dx_n s_n + dg/dv_n w_n + dg/dp dp + H_fk dk_{n+1})  on the free dofs,
//   s_{n+1} = dk_{n+1} on the kinematic dofs,  w_{n+1} = (s_{n+1} - s_n) / dt.
#include <Eigen/Geometry>
#include <chrono>

#include "../rigid/spin_velocity.hpp"
#include "softgrad/adjoint.hpp"
#include "softgrad/errors.hpp"
#include "step_linearization.hpp"

namespace softgrad {
namespace {

/// What column j of theta perturbs.
struct Direction {
  ParameterSet::Source source;
  int index = 0;  ///< dof (x0, v0), flat path index (kinematic), parameter index (term) or
                  ///< component (rigid velocity)
  int term = -1;
  Eigen::VectorXd dp;                          ///< term parameter direction (Source::Term)
  const ParameterSet::Block* block = nullptr;  ///< the block it belongs to
};

std::vector<Direction> directions(const Model& model, const ParameterSet& params) {
  std::vector<Direction> dirs;
  for (const auto& b : params.blocks())
    for (int i = 0; i < b.size; ++i) {
      Direction d{b.source, i, b.term, {}, &b};
      if (b.source == ParameterSet::Source::Term) {
        d.dp.setZero(model.terms[b.term]->n_parameters());
        if (b.tied) {
          const int n = b.group.size / b.group.width;
          d.dp.segment(b.group.offset + i * n, n).setOnes();
        } else {
          d.dp[b.group.offset + i] = 1.0;
        }
      }
      dirs.push_back(std::move(d));
    }
  return dirs;
}

/// dx_0/dtheta and dv_0/dtheta: unit columns for x0 and v0; for a rigid body's velocity
/// dv_0[p]/du_k = e_k, for its angular velocity dv_0[a_i]/domega_k = e_k x a_i(x0), and, with x0
/// selected too, dv_0[a_i]/dx_0[a_i]_k = omega x e_k (a_i' = omega x a_i follows x0).
void initial_sensitivities(const Model& model, const ParameterSet& params,
                           const std::vector<Direction>& dirs, const State& initial,
                           Eigen::MatrixXd& S, Eigen::MatrixXd& W) {
  for (size_t j = 0; j < dirs.size(); ++j) {
    const Direction& d = dirs[j];
    if (d.source == ParameterSet::Source::InitialPosition) S(d.index, j) = 1.0;
    if (d.source == ParameterSet::Source::InitialVelocity) W(d.index, j) = 1.0;
    if (d.source != ParameterSet::Source::RigidVelocity) continue;
    const RigidBody& body = model.rigid_bodies[d.block->body];
    const Eigen::Vector3d e = Eigen::Vector3d::Unit(d.index);
    if (!d.block->angular) {
      W(body.dof(d.index), j) = 1.0;
      continue;
    }
    spin_velocity_push_forward(body, e, initial.x, W, static_cast<int>(j));
  }
  for (const auto& x0 : params.blocks()) {
    if (x0.source != ParameterSet::Source::InitialPosition) continue;
    for (const auto& b : params.blocks()) {
      if (b.source != ParameterSet::Source::RigidVelocity || !b.angular) continue;
      const RigidBody& body = model.rigid_bodies[b.body];
      const Eigen::Vector3d omega = body.angular_velocity(initial.x, initial.v);
      spin_velocity_push_forward_positions(body, omega, x0.offset, W);
    }
  }
}

}  // namespace

Trajectory simulate_with_sensitivities(Simulator& sim, const Rollout& rollout,
                                       const ParameterSet& params,
                                       const SensitivityObserver& observe,
                                       const AdjointOptions& options, AdjointReport* report) {
  if (rollout.controller)
    throw InputError(
        "forward sensitivities do not follow controllers; use gradient() (the "
        "adjoint) for controller parameters");
  const Model& model = sim.model();
  const int n_dofs = model.n_dofs();
  const int P = params.size();
  const bool statics = rollout.static_solve;
  const double dt = sim.options().dt;
  const std::vector<Direction> dirs = directions(model, params);
  StepLinearization lin(sim, options.linear);
  AdjointReport local;
  AdjointReport& rep = report ? *report : local;
  rep.backend = lin.backend();
  const std::vector<int>& kin = lin.kinematic_dofs();
  const int m = static_cast<int>(kin.size());

  Eigen::MatrixXd S = Eigen::MatrixXd::Zero(n_dofs, P), W = Eigen::MatrixXd::Zero(n_dofs, P);
  initial_sensitivities(model, params, dirs, rollout.initial, S, W);
  // Simulate first (every state stored), then linearise step by step.
  Trajectory result = simulate(sim, rollout, TrajectoryOptions{1});
  observe(0, result.state(0), S, W);
  const int T = result.steps();
  Eigen::VectorXd dg(n_dofs), rhs(n_dofs), s(n_dofs), u(n_dofs), hu(n_dofs);
  Eigen::MatrixXd S_next(n_dofs, P);
  std::vector<const double*> dp(model.terms.size(), nullptr);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n_dofs);
  for (int n = 0; n < T; ++n) {
    const State& prev = result.state(n);
    const State& next = result.state(n + 1);
    lin.linearize(prev, next.x, statics, result.parameters());
    if (lin.indefinite()) rep.indefinite_steps.push_back(n);
    for (int j = 0; j < P; ++j) {
      std::fill(dp.begin(), dp.end(), nullptr);
      if (dirs[j].source == ParameterSet::Source::Term) dp[dirs[j].term] = dirs[j].dp.data();
      // A static equilibrium does not depend on the starting guess.
      if (statics) {
        lin.push_forward(zero, zero, dp, dg);
      } else {
        lin.push_forward(S.col(j), W.col(j), dp, dg);
      }
      rhs = -dg;
      // The kinematic dofs this direction moves at this step: s = u there, and H_fk u enters.
      u.setZero();
      if (dirs[j].source == ParameterSet::Source::Kinematic && dirs[j].index / m == n) {
        u[kin[dirs[j].index % m]] = 1.0;
        lin.hessian_product(u, hu);
        rhs -= hu;
      }
      s = S.col(j);  // warm start for the CG backends
      const LinearSolveReport lr = lin.solve(rhs, s);
      rep.linear_iterations += lr.iterations;
      for (int i = 0; i < m; ++i) s[kin[i]] = u[kin[i]];
      S_next.col(j) = s;
    }
    if (statics) {
      W.setZero();
    } else {
      W = (S_next - S) / dt;
    }
    S.swap(S_next);
    ++rep.steps;
    observe(n + 1, next, S, W);
  }
  rep.trajectory_bytes = result.stored_bytes();
  rep.peak_rss_bytes = peak_rss_bytes();
  return result;
}

GradientResult tangent_gradient(Simulator& sim, const Rollout& rollout, const Loss& loss,
                                const ParameterSet& params, const AdjointOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  GradientResult out;
  out.gradient.setZero(params.size());
  const int n_dofs = sim.model().n_dofs();
  const int T = rollout.static_solve ? 1 : rollout.steps;
  Eigen::VectorXd xbar(n_dofs), vbar(n_dofs);
  simulate_with_sensitivities(
      sim, rollout, params,
      [&](int n, const State& s, const Eigen::MatrixXd& dx, const Eigen::MatrixXd& dv) {
        xbar.setZero();
        vbar.setZero();
        out.loss += loss.evaluate(n, T, s, &xbar, &vbar);
        out.gradient += dx.transpose() * xbar + dv.transpose() * vbar;
      },
      options, &out.report);
  out.report.backward_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace softgrad
