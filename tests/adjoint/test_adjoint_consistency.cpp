// The adjoint against itself by other routes: linear-solver backends, checkpointing, forward
// sensitivities, Newton tolerances; and static equilibria against finite differences.
#include <doctest/doctest.h>

#include "adjoint/gradient_check.hpp"
#include "softgrad/errors.hpp"
#include "solvers/cpu/amg_preconditioner.hpp"
#include "support/finite_difference.hpp"

namespace softgrad::test {
namespace {

const std::vector<std::string> kMix = {"youngs", "poisson", "damping.alpha", "v0"};

GradientResult adjoint_of(Problem& p, const std::vector<std::string>& names,
                          const TrajectoryOptions& topt = {}, const AdjointOptions& aopt = {}) {
  const auto loss = mixed_loss(p);
  const ParameterSet params(*p.sim, p.rollout, names);
  const Trajectory traj = simulate(*p.sim, p.rollout, topt);
  return gradient(*p.sim, traj, *loss, params, aopt);
}

}  // namespace

TEST_CASE("adjoint: every linear-solver backend gives the same gradient") {
  Problem p = cantilever_problem(3, 20);
  const GradientResult ref = adjoint_of(p, kMix);
  CHECK(ref.report.backend == "cholmod");
  for (const std::string kind : {"pcg", "amg", "matfree"}) {
    if (kind == "amg" && !amg_available()) continue;
    INFO(kind);
    AdjointOptions opt;
    opt.linear.kind = kind;
    opt.linear.rel_tol = 1e-13;
    const GradientResult g = adjoint_of(p, kMix, {}, opt);
    CHECK(g.report.trustworthy());
    CHECK(g.report.linear_iterations > 0);
    CHECK(g.loss == doctest::Approx(ref.loss).epsilon(1e-14));
    CHECK(close(g.gradient, ref.gradient, 1e-9));
  }
}

TEST_CASE("adjoint: starting CG from earlier solutions keeps the gradient, in fewer iterations") {
  Problem p = cantilever_problem(3, 20);
  const GradientResult ref = adjoint_of(p, kMix);
  for (const std::string kind : {"pcg", "matfree"}) {
    INFO(kind);
    AdjointOptions plain;
    plain.linear.kind = kind;
    plain.recycled_solutions = 0;
    AdjointOptions recycled = plain;
    recycled.recycled_solutions = 8;
    const GradientResult a = adjoint_of(p, kMix, {}, plain);
    const GradientResult b = adjoint_of(p, kMix, {}, recycled);
    CHECK(b.report.trustworthy());
    CHECK(b.report.worst_relative_residual <= 1e-10);  // the same stopping rule
    CHECK(close(a.gradient, ref.gradient, 1e-8));
    CHECK(close(b.gradient, ref.gradient, 1e-8));
    CAPTURE(a.report.linear_iterations);
    CAPTURE(b.report.linear_iterations);
    // 469 against 543 here (48 free dofs, a per-step loss); 94 against 137 a step on the peer
    // benchmark's beam at 10k tets.
    CHECK(b.report.linear_iterations < 0.9 * a.report.linear_iterations);
  }
}

TEST_CASE("adjoint: checkpointed and stored trajectories give the same gradient") {
  Problem p = cantilever_problem(2, 23);
  const GradientResult all = adjoint_of(p, kMix, TrajectoryOptions{1});
  for (int k : {0, 4, 7, 23, 50}) {
    INFO("checkpoint every " << k);
    const GradientResult g = adjoint_of(p, kMix, TrajectoryOptions{k});
    // Recomputed steps repeat the same arithmetic: the gradients agree bit for bit.
    CHECK(g.loss == all.loss);
    CHECK(g.gradient == all.gradient);
    CHECK(g.report.recomputed_steps > 0);
    CHECK(g.report.trajectory_bytes < all.report.trajectory_bytes);
  }
}

TEST_CASE("adjoint: checkpoints store about sqrt(T) states") {
  Problem p = cantilever_problem(2, 400, "cholmod", 1e-9);
  const Trajectory traj = simulate(*p.sim, p.rollout, TrajectoryOptions{0});
  CHECK(traj.checkpoint_every() == 20);
  // x, v and the last step's accelerations a (none yet at the start).
  const std::size_t per_state = 3 * p.model->n_dofs() * sizeof(double);
  const std::size_t start = 2 * p.model->n_dofs() * sizeof(double);
  CHECK(traj.stored_bytes() == start + 20 * per_state);  // states 0, 20, ..., 380 and the last
  CHECK(traj.stored(0));
  CHECK(traj.stored(380));
  CHECK(traj.stored(400));
  CHECK_FALSE(traj.stored(399));
  CHECK_THROWS_AS(traj.state(399), InputError);
}

TEST_CASE("adjoint: forward sensitivities give the adjoint's gradient") {
  for (int dim : {2, 3}) {
    INFO(dim << "D");
    Problem p = cantilever_problem(dim, 20);
    const std::vector<std::string> names = {"youngs", "poisson", "damping.alpha",
                                            "tip_force.force"};
    const auto loss = mixed_loss(p);
    const ParameterSet params(*p.sim, p.rollout, names);
    const GradientResult adj = gradient(*p.sim, simulate(*p.sim, p.rollout), *loss, params);
    const GradientResult tan = tangent_gradient(*p.sim, p.rollout, *loss, params);
    CHECK(tan.loss == doctest::Approx(adj.loss).epsilon(1e-14));
    CHECK(close(tan.gradient, adj.gradient, 1e-10));
  }
}

TEST_CASE("adjoint: a factorisation kept across steps gives the direct solves' gradient") {
  // 2,550 tets: a factorisation costs about 38 solves, so the adjoint keeps one across steps as
  // CG's preconditioner; forward sensitivities factorise every step.
  Problem p = cantilever_problem(3, 12, "cholmod", 1e-12, {17, 5, 5});
  const std::vector<std::string> names = {"youngs", "poisson", "damping.alpha", "tip_force.force"};
  const auto loss = mixed_loss(p);
  const ParameterSet params(*p.sim, p.rollout, names);
  const GradientResult adj = gradient(*p.sim, simulate(*p.sim, p.rollout), *loss, params);
  const GradientResult tan = tangent_gradient(*p.sim, p.rollout, *loss, params);
  CAPTURE(adj.report.factorizations);
  CAPTURE(adj.report.linear_iterations);
  CHECK(adj.report.factorizations < adj.report.steps);
  CHECK(adj.report.linear_iterations > 0);
  CHECK(adj.report.trustworthy());
  CHECK(adj.report.worst_relative_residual <= 1e-10);
  CHECK(close(tan.gradient, adj.gradient, 1e-9));
}

TEST_CASE("adjoint: sensitivities of the initial state and the kinematic path agree too") {
  Problem p = cantilever_problem(2, 8);
  const auto loss = mixed_loss(p);
  const ParameterSet params(*p.sim, p.rollout, {"x0", "v0", "kinematic"});
  const GradientResult adj = gradient(*p.sim, simulate(*p.sim, p.rollout), *loss, params);
  const GradientResult tan = tangent_gradient(*p.sim, p.rollout, *loss, params);
  CHECK(close(tan.gradient, adj.gradient, 1e-9));
}

TEST_CASE("adjoint: the default Newton tolerance gives 6 correct digits") {
  Problem loose = cantilever_problem(3, 20, "cholmod", NewtonOptions{}.tolerance);
  Problem tight = cantilever_problem(3, 20, "cholmod", 1e-14);
  const GradientResult a = adjoint_of(loose, kMix);
  const GradientResult b = adjoint_of(tight, kMix);
  MESSAGE("relative gradient difference, tolerance 1e-9 vs 1e-14: "
          << (a.gradient - b.gradient).norm() / b.gradient.norm());
  CHECK(close(a.gradient, b.gradient, 1e-6));
}

TEST_CASE("adjoint: a static equilibrium's gradient matches central differences") {
  for (int dim : {2, 3}) {
    INFO(dim << "D");
    Problem p = cantilever_problem(dim, 1);
    p.rollout.static_solve = true;
    p.rollout.steps = 0;
    p.rollout.initial.v.setZero();
    const auto loss = mixed_loss(p);
    const ParameterSet params(*p.sim, p.rollout, {"youngs", "poisson", "kinematic"});
    const Trajectory traj = simulate(*p.sim, p.rollout);
    const GradientResult g = gradient(*p.sim, traj, *loss, params);
    CHECK(g.report.trustworthy());
    const Eigen::VectorXd theta = params.get(*p.sim, p.rollout);
    const Eigen::VectorXd d = scaled_direction(theta, 11);
    const double fd = directional_fd(p, params, d, *loss, 1e-4);
    MESSAGE("static: adjoint " << g.gradient.dot(d) << ", central difference " << fd);
    CHECK(std::abs(fd) > 1e-8);
    CHECK(g.gradient.dot(d) == doctest::Approx(fd).epsilon(1e-6));
    // The tangent route agrees as well.
    const GradientResult tan = tangent_gradient(*p.sim, p.rollout, *loss, params);
    CHECK(close(tan.gradient, g.gradient, 1e-9));
  }
}

}  // namespace softgrad::test
