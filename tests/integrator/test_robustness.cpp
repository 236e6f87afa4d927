// The integrator under stress and across back ends: stability of a stiff scene at a time step
// far above the explicit limit, the same trajectory from every linear solver, and Newton
// failures that are reported rather than silent.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <csignal>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "softgrad/detail/assembly.hpp"
#include "softgrad/energy.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/material.hpp"
#include "softgrad/simulator.hpp"
#include "support/tiny_models.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

/// A beam [0, length] x [0, 0.1] x [0, 0.1] m of `material`, clamped at x = 0, under gravity -z.
std::shared_ptr<Model> cantilever(const std::string& material, double youngs,
                                  const Eigen::Vector3i& n, double length) {
  auto model = box_model(material, youngs, 0.3, 1000.0, n, {length, 0.1, 0.1});
  add_gravity(*model, Eigen::Vector3d(0.0, 0.0, -9.81));
  fix_vertices(*model, vertices_at(*model, 0, 0.0), "clamp");
  return model;
}

/// A constant energy of `value` [J]: with +C and -C in one model, Phi is quantised to C's
/// round-off (ulp(1e9) = 1.2e-7 J) while its gradient and Hessian are untouched, the situation of
/// large cancelling element energies near equilibrium.
class ConstantTerm final : public EnergyTerm {
 public:
  explicit ConstantTerm(double value) : value_(value) {}
  std::string name() const override { return value_ > 0 ? "plus" : "minus"; }
  double value(TermData&, const Eigen::VectorXd&) const override { return value_; }
  double value_and_gradient(TermData&, const Eigen::VectorXd&, Eigen::VectorXd&) const override {
    return value_;
  }
  void add_hessian(TermData&, const Eigen::VectorXd&, bool, HessianAssembler&) const override {}
  void add_hessian_vector_product(TermData&, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                  Eigen::VectorXd&) const override {}
  void add_hessian_diagonal(TermData&, const Eigen::VectorXd&, Eigen::VectorXd&) const override {}

 private:
  double value_;
};

/// W = sum_i s (1 - exp(-u_i^2 / 2)), u_i = (x_i - X_i) / l over every dof; its projected
/// Hessian is the stiffer (|W''| + s / l^2), so that projected Newton converges only linearly.
class BowlTerm final : public EnergyTerm {
 public:
  BowlTerm(Eigen::VectorXd center, double s, double l) : c_(std::move(center)), s_(s), l_(l) {}
  std::string name() const override { return "bowl"; }
  double value(TermData&, const Eigen::VectorXd& x) const override {
    const Eigen::ArrayXd u = (x - c_).array() / l_;
    return s_ * (1.0 - (-0.5 * u.square()).exp()).sum();
  }
  double value_and_gradient(TermData& d, const Eigen::VectorXd& x,
                            Eigen::VectorXd& g) const override {
    const Eigen::ArrayXd u = (x - c_).array() / l_;
    g.array() += s_ / l_ * u * (-0.5 * u.square()).exp();
    return value(d, x);
  }
  void add_hessian(TermData&, const Eigen::VectorXd& x, bool project,
                   HessianAssembler& H) const override {
    H.add_diagonal(diagonal(x, project));
  }
  void add_hessian_vector_product(TermData&, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                                  Eigen::VectorXd& out) const override {
    out.array() += diagonal(x, false).array() * u.array();
  }
  void add_hessian_diagonal(TermData&, const Eigen::VectorXd& x,
                            Eigen::VectorXd& diag) const override {
    diag += diagonal(x, true);
  }

 private:
  Eigen::VectorXd diagonal(const Eigen::VectorXd& x, bool project) const {
    const Eigen::ArrayXd u = (x - c_).array() / l_;
    const Eigen::ArrayXd curvature = 1.0 - u.square();
    const Eigen::ArrayXd h = project ? curvature.abs() + 1.0 : curvature;
    return (s_ / (l_ * l_) * h * (-0.5 * u.square()).exp()).matrix();
  }
  Eigen::VectorXd c_;
  double s_, l_;
};

}  // namespace

TEST_CASE("integrator/newton: steps whose energy change is below Phi's round-off still converge") {
  // Without the cancelling pair the steps converge; with it, the last Newton steps change Phi
  // by less than its quantum, so no line search on Phi can accept them: the gradient must.
  auto reference = cantilever("neo_hookean", 1e6, {4, 1, 1}, 0.4);
  auto quantised = cantilever("neo_hookean", 1e6, {4, 1, 1}, 0.4);
  quantised->terms.push_back(std::make_unique<ConstantTerm>(1e9));
  quantised->terms.push_back(std::make_unique<ConstantTerm>(-1e9));
  SimulationOptions opt;
  opt.newton.tolerance = 1e-12;
  Simulator a(reference, opt), b(quantised, opt);
  State sa = a.rest_state(), sb = b.rest_state();
  for (int n = 0; n < 5; ++n) {
    CAPTURE(n);
    const NewtonReport ra = a.step(sa), rb = b.step(sb);
    REQUIRE_MESSAGE(ra.converged(), ra.message);
    REQUIRE_MESSAGE(rb.converged(), rb.message);
    CHECK((sa.x - sb.x).lpNorm<Eigen::Infinity>() <= 1e-12);
  }
}

TEST_CASE("integrator/step: a stiff cantilever at a huge time step is stable and dissipative") {
  const double youngs = 1e9, density = 1000.0, dt = 0.1;
  auto model = cantilever("neo_hookean", youngs, {10, 2, 2}, 1.0);
  // Explicit stability limit ~ h_min / c: the shortest edge is 0.05 m and the bar wave speed
  // c = sqrt(E / rho) = 1000 m/s, so dt_crit ~ 5e-5 s; dt = 0.1 s is 2000 times larger.
  const double dt_crit = 0.05 / std::sqrt(youngs / density);
  CHECK(dt >= 1000.0 * dt_crit);
  // Euler-Bernoulli static tip deflection 3 rho g L^4 / (2 E a^2); a suddenly applied load
  // overshoots it at most twice, and backward Euler does not overshoot at all.
  const double delta_static = 1.5 * density * 9.81 / (youngs * 0.01);
  SimulationOptions opt;
  opt.dt = dt;
  Simulator sim(model, opt);
  State s = sim.rest_state();
  double energy = sim.kinetic_energy(s.v) + sim.potential_energy(s.x);
  // Round-off of the energy itself: the Neo-Hookean density adds terms of size mu ||F||^2 ~ 3 mu
  // per unit volume that cancel near rest, so W carries an absolute error of about
  // eps * 3 mu * volume = 2.6e-9 J here (measured jitter of E between converged steps near
  // equilibrium: up to 1.9e-10 J). The physical decrease of the first three steps is 1e-2,
  // 4e-5 and 1.3e-7 J.
  const double mu = lame_mu(youngs, 0.3);
  const double roundoff = std::numeric_limits<double>::epsilon() * 3.0 * mu * 0.01;
  for (int n = 0; n < 20; ++n) {
    CAPTURE(n);
    const NewtonReport r = sim.step(s);
    REQUIRE_MESSAGE(r.converged(), r.message);
    REQUIRE(s.x.allFinite());
    REQUIRE(s.v.allFinite());
    const double displacement = (s.x - model->X).lpNorm<Eigen::Infinity>();
    CHECK(displacement <= 2.0 * delta_static);
    const double next = sim.kinetic_energy(s.v) + sim.potential_energy(s.x);
    INFO("E_n = " << energy << " J, E_n+1 = " << next << " J");
    CHECK(next <= energy + roundoff);
    energy = next;
  }
}

TEST_CASE("integrator/step: every linear solver gives the same trajectory") {
  struct Backend {
    std::string kind, preconditioner;
  };
  const std::vector<Backend> backends = {
      {"cholmod", "jacobi"}, {"pcg", "jacobi"}, {"pcg", "ichol"}, {"matfree", "jacobi"}};
  std::vector<std::vector<Eigen::VectorXd>> runs;
  std::shared_ptr<Model> model;
  for (const Backend& b : backends) {
    CAPTURE(b.kind);
    CAPTURE(b.preconditioner);
    // Soft and short, so that CG (Jacobi) needs a few hundred iterations, not thousands.
    model = cantilever("neo_hookean", 1e6, {6, 2, 2}, 0.6);
    SimulationOptions opt;
    opt.dt = 0.01;
    opt.linear.kind = b.kind;
    opt.linear.preconditioner = b.preconditioner;
    Simulator sim(model, opt);
    State s = sim.rest_state();
    runs.emplace_back();
    for (int n = 0; n < 10; ++n) {
      const NewtonReport r = sim.step(s);
      REQUIRE_MESSAGE(r.converged(), r.message);
      runs.back().push_back(s.x);
    }
  }
  // Relative to the displacement (several cm after 0.1 s), not to the positions themselves.
  for (size_t k = 1; k < runs.size(); ++k) {
    CAPTURE(backends[k].kind);
    CAPTURE(backends[k].preconditioner);
    double worst = 0.0;
    for (size_t n = 0; n < runs[0].size(); ++n) {
      const double moved = (runs[0][n] - model->X).lpNorm<Eigen::Infinity>();
      const double diff = (runs[k][n] - runs[0][n]).lpNorm<Eigen::Infinity>();
      worst = std::max(worst, diff / moved);
    }
    MESSAGE(backends[k].kind << "/" << backends[k].preconditioner
                             << " vs cholmod: worst relative difference " << worst);
    CHECK(worst <= 1e-7);
  }
  CHECK((runs[0].back() - model->X).lpNorm<Eigen::Infinity>() > 1e-2);
}

TEST_CASE(
    "integrator/newton: directions CG gives up on are solved by CHOLMOD, said in the report") {
  // CG capped at 3 iterations cannot solve a direction: each is solved by CHOLMOD instead, and
  // the trajectory is CHOLMOD's own.
  auto model = cantilever("neo_hookean", 1e6, {6, 2, 2}, 0.6);
  SimulationOptions direct;
  direct.dt = 0.01;
  Simulator reference(model, direct);
  for (const char* kind : {"pcg", "matfree"}) {
    CAPTURE(kind);
    SimulationOptions capped = direct;
    capped.linear.kind = kind;
    capped.linear.max_iterations = 3;
    Simulator sim(model, capped);
    State s = sim.rest_state(), ref = reference.rest_state();
    int fallbacks = 0;
    for (int n = 0; n < 5; ++n) {
      const NewtonReport r = sim.step(s);
      REQUIRE_MESSAGE(r.converged(), r.message);
      REQUIRE(reference.step(ref).converged());
      CHECK(r.direct_fallbacks >= 1);
      fallbacks += r.direct_fallbacks;
    }
    CHECK(fallbacks >= 5);
    const double moved = (ref.x - model->X).lpNorm<Eigen::Infinity>();
    CHECK(moved > 1e-3);
    CHECK((s.x - ref.x).lpNorm<Eigen::Infinity>() <= 1e-7 * moved);
  }
}

TEST_CASE("integrator/newton: inexact directions never move the kinematic dofs") {
  // A stiff 1 m beam (2,880 tets) clamped at one end, with incomplete-Cholesky PCG: the
  // preconditioner couples the clamp's identity rows to the rest, so an inexact solve (Newton's
  // forcing terms) left them nonzero, the clamp moved by microns and stayed there (its gradient
  // is zeroed), and the line search failed at step 2. The trajectory must be CHOLMOD's, with
  // Newton steps only: chord steps (which follow every full step of this beam's factorization)
  // end a step anywhere within the tolerance (4.7e-10 m here), where the quadratically
  // converging last Newton step of both runs lands far closer to the minimiser.
  std::vector<Eigen::VectorXd> runs;
  std::shared_ptr<Model> model;
  for (const char* kind : {"cholmod", "pcg"}) {
    CAPTURE(kind);
    model = cantilever("stable_neo_hookean", 1e7, {30, 4, 4}, 1.0);
    SimulationOptions opt;
    opt.dt = 0.01;
    opt.newton.tolerance = 1e-6;
    opt.linear.kind = kind;
    opt.linear.preconditioner = "ichol";
    opt.newton.chord_window = 0.0;
    Simulator sim(model, opt);
    State s = sim.rest_state();
    for (int n = 0; n < 4; ++n) {
      const NewtonReport r = sim.step(s);
      REQUIRE_MESSAGE(r.converged(), "step " << n << ": " << r.message);
      for (int i : model->kinematic_dofs()) REQUIRE(s.x[i] == model->X[i]);
    }
    runs.push_back(s.x);
  }
  const double moved = (runs[0] - model->X).lpNorm<Eigen::Infinity>();
  const double diff = (runs[1] - runs[0]).lpNorm<Eigen::Infinity>();
  MESSAGE("pcg (IC) vs cholmod after 4 steps: " << diff << " m of " << moved << " m moved");
  CHECK(moved > 1e-3);
  CHECK(diff <= 1e-9 * moved);
}

TEST_CASE("integrator/newton: chord steps with CG never move the kinematic dofs") {
  // The same beam with its chord steps (NewtonOptions::chord_forcing): their CG solves stop as
  // early as the forcing terms' do, and the clamp must hold as well. Each step ends within
  // tol * L * dt / (1 - chord_contraction) of its minimiser; the errors of the steps add.
  std::vector<Eigen::VectorXd> runs;
  std::shared_ptr<Model> model;
  for (const char* kind : {"cholmod", "pcg"}) {
    CAPTURE(kind);
    model = cantilever("stable_neo_hookean", 1e7, {30, 4, 4}, 1.0);
    SimulationOptions opt;
    opt.dt = 0.01;
    opt.newton.tolerance = 1e-6;
    opt.linear.kind = kind;
    opt.linear.preconditioner = "ichol";
    if (std::string(kind) == "cholmod") opt.newton.tolerance = 1e-10;  // the reference
    Simulator sim(model, opt);
    State s = sim.rest_state();
    int chords = 0;
    for (int n = 0; n < 4; ++n) {
      const NewtonReport r = sim.step(s);
      REQUIRE_MESSAGE(r.converged(), "step " << n << ": " << r.message);
      for (int i : model->kinematic_dofs()) REQUIRE(s.x[i] == model->X[i]);
      chords += r.iterations - r.factorizations;
    }
    if (std::string(kind) == "pcg") CHECK(chords > 0);
    runs.push_back(s.x);
  }
  const Eigen::VectorXd extent = model->X.reshaped(3, model->n_verts).rowwise().maxCoeff() -
                                 model->X.reshaped(3, model->n_verts).rowwise().minCoeff();
  const double bound = 4 * 1e-6 * extent.norm() * 0.01 / (1.0 - 0.3);
  const double diff = (runs[1] - runs[0]).lpNorm<Eigen::Infinity>();
  MESSAGE("pcg (IC) with chord steps vs cholmod after 4 steps: " << diff << " m (bound " << bound
                                                                 << " m)");
  CHECK(diff <= bound);
}

TEST_CASE("integrator/newton: a step that runs out of iterations is reported, not silent") {
  for (const int max_iterations : {1, 2}) {
    CAPTURE(max_iterations);
    auto model = box_model("neo_hookean", 1e5, 0.3, 1000.0, {2, 2, 2}, {1.0, 1.0, 1.0});
    SimulationOptions opt;
    opt.newton.max_iterations = max_iterations;
    opt.newton.tolerance = 1e-14;
    Simulator sim(model, opt);
    // A uniformly dilated, moving start: the step is nonlinear and needs several iterations.
    State s = sim.rest_state();
    s.x *= 1.3;
    s.v.setConstant(0.5);
    s.t = 0.25;
    const State before = s;
    const NewtonReport r = sim.step(s);
    CHECK(r.status == NewtonReport::Status::MaxIterations);
    CHECK_FALSE(r.converged());
    CHECK(r.iterations == max_iterations);
    CHECK(std::string(to_string(r.status)) == "max_iterations");
    INFO("message: " << r.message);
    CHECK(r.message.find(std::to_string(max_iterations) + " iteration") != std::string::npos);
    // FailurePolicy::Stop (the default) leaves the state untouched.
    CHECK(s.x == before.x);
    CHECK(s.v == before.v);
    CHECK(s.t == before.t);

    // FailurePolicy::Continue accepts the last iterate but still reports the failure.
    opt.on_failure = FailurePolicy::Continue;
    Simulator lenient(model, opt);
    const NewtonReport r2 = lenient.step(s);
    CHECK(r2.status == NewtonReport::Status::MaxIterations);
    CHECK(s.t == doctest::Approx(before.t + opt.dt));
    CHECK(s.x != before.x);
  }
}

TEST_CASE("integrator/static: a static solve without boundary conditions is an input error") {
  auto model = box_model("neo_hookean", 1e5, 0.3, 1000.0, {1, 1, 1}, {1.0, 1.0, 1.0});
  add_gravity(*model, Eigen::Vector3d(0.0, 0.0, -9.81));
  Simulator sim(model, SimulationOptions{});
  State s = sim.rest_state();
  CHECK_THROWS_AS(sim.solve_static(s), InputError);
  CHECK_THROWS_WITH(sim.solve_static(s), doctest::Contains("boundary conditions"));
}

TEST_CASE("integrator/newton: after projected steps the exact Hessian returns for the last ones") {
  // A bowl W = sum_i s (1 - exp(-u_i^2 / 2)), u_i = (x_i - X_i) / l, on every dof: concave for
  // |u| > 1, where the exact Hessian fails and the projected one (stiffer, |W''| + s / l^2)
  // takes over, and positive definite near its minimum X. Projected Newton alone converges
  // linearly there (the error halves per iteration: 19 iterations when the projection stayed for
  // the rest of the step); retrying the exact Hessian after full steps converges quadratically
  // (6).
  auto model = box_model("stable_neo_hookean", 1.0, 0.3, 1000.0, {1, 1, 1}, {1.0, 1.0, 1.0});
  model->terms.push_back(std::make_unique<BowlTerm>(model->X, 100.0, 0.1));
  SimulationOptions opt;
  opt.dt = 100.0;  // inertia M / dt^2 = 0.0125 N/m against the bowl's 1e4 N/m
  Simulator sim(model, opt);
  State s = sim.rest_state();
  s.x.array() += 0.15;  // u = 1.5: the bowl is concave here
  const NewtonReport r = sim.step(s);
  INFO("iterations " << r.iterations << ", factorizations " << r.factorizations);
  REQUIRE(r.converged());
  CHECK(r.iterations <= 10);
  CHECK((s.x - model->X).lpNorm<Eigen::Infinity>() <= 1e-3);
}

TEST_CASE("integrator/newton: a raised interrupt flag stops the step and leaves the state") {
  auto model = box_model("neo_hookean", 1e5, 0.3, 1000.0, {2, 2, 2}, {1.0, 1.0, 1.0});
  for (const FailurePolicy policy : {FailurePolicy::Stop, FailurePolicy::Continue}) {
    volatile std::sig_atomic_t flag = 0;
    SimulationOptions opt;
    opt.on_failure = policy;
    opt.newton.interrupt = &flag;
    Simulator sim(model, opt);
    State s = sim.rest_state();
    s.v.setConstant(0.5);
    const State before = s;
    CHECK(sim.step(s).converged());  // polled, not raised: the step as without a flag
    CHECK(s.t == doctest::Approx(before.t + opt.dt));
    const State after_one = s;
    flag = 1;
    const NewtonReport r = sim.step(s);
    CHECK(r.status == NewtonReport::Status::Interrupted);
    CHECK(std::string(to_string(r.status)) == "interrupted");
    // Neither policy takes an interrupted step: the state is the step's start.
    CHECK(s.x == after_one.x);
    CHECK(s.v == after_one.v);
    CHECK(s.t == after_one.t);
  }
}

TEST_CASE("integrator/newton: an infeasible start says which term or why, not 'inverted'") {
  // A NaN from a term (a plugin material evaluated outside its domain) and a time step too
  // small for the inertia term were both reported as "an element is inverted".
  auto nan_model = box_model("neo_hookean", 1e5, 0.3, 1000.0, {1, 1, 1}, {1.0, 1.0, 1.0});
  nan_model->terms.push_back(std::make_unique<ConstantTerm>(std::nan("")));
  Simulator with_nan(nan_model, SimulationOptions{});
  State s = with_nan.rest_state();
  NewtonReport r = with_nan.step(s);
  CHECK(r.status == NewtonReport::Status::InfeasibleStart);
  CHECK(r.message.find("the energy of term 'minus' is NaN") != std::string::npos);
  auto model = box_model("neo_hookean", 1e5, 0.3, 1000.0, {1, 1, 1}, {1.0, 1.0, 1.0});
  SimulationOptions tiny;
  tiny.dt = 1e-310;
  Simulator sim(model, tiny);
  s = sim.rest_state();
  r = sim.step(s);
  CHECK(r.status == NewtonReport::Status::InfeasibleStart);
  CHECK(r.message.find("the inertia term") != std::string::npos);
  CHECK(r.message.find("dt = 1e-310 s is too small") != std::string::npos);
  // Inverted elements are still called so, with their term named: the box point-reflected
  // (det F = -1 in every element).
  Simulator coarse(model, SimulationOptions{});
  s = coarse.rest_state();
  s.x = -s.x;
  r = coarse.step(s);
  CHECK(r.status == NewtonReport::Status::InfeasibleStart);
  CHECK(r.message.find("' is infinite: an element is inverted") != std::string::npos);
}
