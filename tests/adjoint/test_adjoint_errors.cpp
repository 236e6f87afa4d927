// What the adjoint refuses, and what it reports instead of a silently wrong gradient.
#include <doctest/doctest.h>

#include "adjoint/gradient_check.hpp"
#include "softgrad/detail/assembly.hpp"
#include "softgrad/errors.hpp"

namespace softgrad::test {
namespace {

/// W = a sum_i ((y_i - Y_i)^2 - s^2)^2 over the y dofs: a double well whose rest state is a
/// critical point with negative curvature -4 a s^2 (a maximum of this term).
class DoubleWellTerm final : public EnergyTerm {
 public:
  DoubleWellTerm(const Model& m, double a, double s) : m_(m), a_(a), s_(s) {}
  std::string name() const override { return "double_well"; }
  double value(TermData&, const Eigen::VectorXd& x) const override {
    double w = 0.0;
    for (int v = 0; v < m_.n_verts; ++v) {
      const double q = y(x, v) * y(x, v) - s_ * s_;
      w += a_ * q * q;
    }
    return w;
  }
  double value_and_gradient(TermData& d, const Eigen::VectorXd& x,
                            Eigen::VectorXd& g) const override {
    for (int v = 0; v < m_.n_verts; ++v)
      g[v * m_.dim + 1] += 4 * a_ * y(x, v) * (y(x, v) * y(x, v) - s_ * s_);
    return value(d, x);
  }
  void add_hessian(TermData& data, const Eigen::VectorXd& x, bool project,
                   HessianAssembler& H) const override {
    Eigen::VectorXd d = Eigen::VectorXd::Zero(x.size());
    add_hessian_diagonal(data, x, d);
    if (project) d = d.cwiseMax(0.0);
    H.add_diagonal(d);
  }
  void add_hessian_vector_product(TermData& data, const Eigen::VectorXd& x,
                                  const Eigen::VectorXd& u, Eigen::VectorXd& out) const override {
    Eigen::VectorXd d = Eigen::VectorXd::Zero(x.size());
    add_hessian_diagonal(data, x, d);
    out += d.cwiseProduct(u);
  }
  void add_hessian_diagonal(TermData&, const Eigen::VectorXd& x,
                            Eigen::VectorXd& d) const override {
    for (int v = 0; v < m_.n_verts; ++v)
      d[v * m_.dim + 1] += a_ * (12 * y(x, v) * y(x, v) - 4 * s_ * s_);
  }

 private:
  double y(const Eigen::VectorXd& x, int v) const {
    return x[v * m_.dim + 1] - m_.X[v * m_.dim + 1];
  }
  const Model& m_;
  double a_, s_;
};

}  // namespace

TEST_CASE("adjoint: an indefinite Hessian at the solution is reported, not hidden") {
  // Statics from rest: the gradient vanishes there (a critical point), Newton stops at once,
  // but the exact Hessian has the double well's negative curvature.
  auto model = rectangle_model("neo_hookean", 1e3, 0.3, 1000.0, {4, 2}, {0.4, 0.2});
  fix_vertices(*model, vertices_at(*model, 0, 0.0));
  model->terms.push_back(std::make_unique<DoubleWellTerm>(*model, 1e9, 0.05));
  Simulator sim(model, SimulationOptions{});
  Rollout r = rest_rollout(sim, 0);
  r.static_solve = true;
  const Trajectory traj = simulate(sim, r);
  REQUIRE(traj.converged());
  const PositionLoss loss(*model,
                          {{kFinalStep, model->n_verts - 1, Eigen::Vector2d(0.4, 0.3), 1.0}});
  const GradientResult g = gradient(sim, traj, loss, ParameterSet(sim, r, {"youngs"}), {});
  CHECK_FALSE(g.report.trustworthy());
  CHECK(g.report.indefinite_steps == std::vector<int>{0});
  REQUIRE(g.report.warnings.size() == 1);
  CHECK(g.report.warnings[0].find("indefinite") != std::string::npos);
  CHECK(std::isfinite(g.gradient[0]));
}

TEST_CASE("adjoint: unknown, ambiguous and inconsistent parameters are named") {
  Problem p = cantilever_problem(2, 4);
  CHECK_THROWS_WITH_AS(ParameterSet(*p.sim, p.rollout, {"stiffness"}),
                       doctest::Contains("unknown parameter 'stiffness'"), InputError);
  CHECK_THROWS_WITH_AS(ParameterSet(*p.sim, p.rollout, {"stiffness"}),
                       doctest::Contains("elastic:rectangle.youngs[]"), InputError);
  CHECK_THROWS_WITH_AS(ParameterSet(*p.sim, p.rollout, {"alpha[]"}),
                       doctest::Contains("not per element"), InputError);
  CHECK_THROWS_WITH_AS(ParameterSet(*p.sim, p.rollout, {"youngs", "elastic:rectangle.youngs"}),
                       doctest::Contains("selected twice"), InputError);
  // A field that varies cannot be read as one tied value.
  const ParameterSet field(*p.sim, p.rollout, {"youngs[]"});
  Eigen::VectorXd theta = field.get(*p.sim, p.rollout);
  theta[0] *= 2.0;
  field.set(*p.sim, p.rollout, theta);
  CHECK_THROWS_WITH_AS(ParameterSet(*p.sim, p.rollout, {"youngs"}).get(*p.sim, p.rollout),
                       doctest::Contains("varies over the elements"), InputError);
  // Values outside the material's range are refused by the term, naming it.
  const ParameterSet nu(*p.sim, p.rollout, {"poisson"});
  CHECK_THROWS_WITH_AS(nu.set(*p.sim, p.rollout, Eigen::VectorXd::Constant(1, 0.7)),
                       doctest::Contains("poisson"), InputError);
  CHECK_THROWS_AS(nu.set(*p.sim, p.rollout, Eigen::VectorXd::Constant(1, std::nan(""))),
                  InputError);
  CHECK(nu.label(0) == "poisson");
  CHECK(field.label(3) == "youngs[3]");
  // Names resolve against the model alone as against a simulator (a scene checks them so).
  const Model& model = p.sim->model();
  CHECK_THROWS_WITH_AS(ParameterSet(model, p.rollout, {"stiffness"}),
                       doctest::Contains("elastic:rectangle.youngs[]"), InputError);
  const ParameterSet by_model(model, p.rollout, {"poisson", "youngs[]", "v0"});
  const ParameterSet by_sim(*p.sim, p.rollout, {"poisson", "youngs[]", "v0"});
  REQUIRE(by_model.size() == by_sim.size());
  for (int i = 0; i < by_sim.size(); ++i) CHECK(by_model.label(i) == by_sim.label(i));
  CHECK(ParameterSet::available(model, p.rollout) == ParameterSet::available(*p.sim, p.rollout));
}

TEST_CASE("adjoint: inconsistent rollouts and failed trajectories are refused") {
  Problem p = cantilever_problem(2, 4);
  Rollout bad = p.rollout;
  bad.initial.v.resize(3);
  CHECK_THROWS_WITH_AS(simulate(*p.sim, bad), doctest::Contains("initial state"), InputError);
  bad = p.rollout;
  bad.initial.x[0] = std::nan("");
  CHECK_THROWS_WITH_AS(simulate(*p.sim, bad), doctest::Contains("NaN"), InputError);
  bad = p.rollout;
  bad.kinematic_path.resize(2);
  CHECK_THROWS_WITH_AS(simulate(*p.sim, bad), doctest::Contains("kinematic path"), InputError);
}

TEST_CASE("adjoint: a step that does not converge stops the rollout with its name") {
  Problem p = cantilever_problem(2, 4);
  SimulationOptions opt = p.sim->options();
  opt.newton.max_iterations = 1;
  Simulator sim(p.model, opt);
  CHECK_THROWS_WITH_AS(simulate(sim, p.rollout), doctest::Contains("step 0"), ConvergenceError);
  // With FailurePolicy::Continue the trajectory exists, and its gradient says it is not exact.
  opt.on_failure = FailurePolicy::Continue;
  Simulator lenient(p.model, opt);
  const Trajectory traj = simulate(lenient, p.rollout);
  CHECK_FALSE(traj.converged());
  const auto loss = mixed_loss(p);
  const GradientResult g =
      gradient(lenient, traj, *loss, ParameterSet(lenient, p.rollout, {"youngs"}));
  CHECK_FALSE(g.report.trustworthy());
  CHECK_FALSE(g.report.unconverged_steps.empty());
}

TEST_CASE("adjoint: a CG solve stopped at its iteration cap makes the gradient untrustworthy") {
  Problem p = cantilever_problem(2, 4);
  const Trajectory traj = simulate(*p.sim, p.rollout);
  const auto loss = mixed_loss(p);
  const ParameterSet params(*p.sim, p.rollout, {"youngs"});
  AdjointOptions capped;
  capped.linear = {
      .kind = "pcg", .preconditioner = "jacobi", .rel_tol = 1e-10, .max_iterations = 2};
  capped.direct_fallback = false;
  const GradientResult g = gradient(*p.sim, traj, *loss, params, capped);
  CHECK_FALSE(g.report.trustworthy());
  CHECK(g.report.unsolved_steps.size() == static_cast<size_t>(p.rollout.steps));
  CHECK(g.report.worst_relative_residual > 1e-10);
  REQUIRE_FALSE(g.report.warnings.empty());
  CHECK(g.report.warnings.back().find("adjoint linear solves did not converge") !=
        std::string::npos);
  // The same solves with room to converge are trusted.
  capped.linear.max_iterations = 10000;
  const GradientResult ok = gradient(*p.sim, traj, *loss, params, capped);
  CHECK(ok.report.trustworthy());
  CHECK(ok.report.worst_relative_residual <= 1e-10);
}

TEST_CASE("adjoint: a CG solve that cannot converge falls back to CHOLMOD, exactly") {
  Problem p = cantilever_problem(2, 4);
  const Trajectory traj = simulate(*p.sim, p.rollout);
  const auto loss = mixed_loss(p);
  const ParameterSet params(*p.sim, p.rollout, {"youngs"});
  AdjointOptions direct;
  direct.linear.kind = "cholmod";
  const GradientResult reference = gradient(*p.sim, traj, *loss, params, direct);
  for (const char* kind : {"pcg", "matfree"}) {
    CAPTURE(kind);
    AdjointOptions capped;
    capped.linear = {
        .kind = kind, .preconditioner = "jacobi", .rel_tol = 1e-10, .max_iterations = 2};
    const GradientResult g = gradient(*p.sim, traj, *loss, params, capped);
    CHECK(g.report.trustworthy());
    CHECK(g.report.unsolved_steps.empty());
    CHECK(g.report.direct_fallback_steps.size() == static_cast<size_t>(p.rollout.steps));
    CHECK(g.gradient[0] == doctest::Approx(reference.gradient[0]).epsilon(1e-12));
  }
}

}  // namespace softgrad::test
