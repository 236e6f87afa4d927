// Backward Euler on free bodies against closed forms: the centroid in free fall, conservation
// of linear momentum for every material, and the exact decay of mass-proportional damping.
// Internal forces of a translation-invariant energy sum to zero, so the centroid obeys the
// discrete equations of a point mass whatever the body does.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "softgrad/simulator.hpp"
#include "support/tiny_models.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

/// A deformed, moving start: x = F X + c plus a small random perturbation of each vertex
/// (a fraction `jitter` of the cell size h), velocities uniform in [-1, 1] m/s plus `drift`.
State random_state(const Model& model, std::mt19937_64& gen, double h, double jitter,
                   const Eigen::VectorXd& drift) {
  const int d = model.dim;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::MatrixXd F(d, d);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) F(i, j) = (i == j ? 1.0 : 0.0) + 0.12 * u(gen);
  State s;
  s.x = affine_positions(model, F, Eigen::VectorXd::Constant(d, 0.1));
  s.v.resize(model.n_dofs());
  for (int k = 0; k < model.n_dofs(); ++k) {
    s.x[k] += jitter * h * u(gen);
    s.v[k] = u(gen) + drift[k % d];
  }
  return s;
}

/// Free fall of an unconstrained body: the centroid follows v+ = v + dt g, c+ = c + dt v+ and
/// the shape stays the rest shape (a rigid translation is an exact solution of each step).
void check_free_fall(std::shared_ptr<Model> model, const Eigen::VectorXd& g,
                     const Eigen::VectorXd& v0, double expected_mass) {
  // Lumped masses add up to density * volume (area in 2D).
  CHECK(total_mass(*model) == doctest::Approx(expected_mass).epsilon(1e-12));
  add_gravity(*model, g);
  SimulationOptions opt;
  opt.dt = 0.01;
  Simulator sim(model, opt);
  State s = sim.rest_state();
  for (int v = 0; v < model->n_verts; ++v) s.v.segment(v * model->dim, model->dim) = v0;
  const double L = model->length_scale();
  const Eigen::VectorXd c0 = centroid(*model, model->X);
  Eigen::VectorXd c = c0, vel = v0;
  double worst_centroid = 0.0, worst_shape = 0.0;
  for (int n = 0; n < 20; ++n) {
    const NewtonReport r = sim.step(s);
    REQUIRE_MESSAGE(r.converged(), r.message);
    vel += opt.dt * g;  // closed-form backward-Euler recurrence of a point mass
    c += opt.dt * vel;
    const Eigen::VectorXd cn = centroid(*model, s.x);
    worst_centroid = std::max(worst_centroid, (cn - c).lpNorm<Eigen::Infinity>());
    for (int v = 0; v < model->n_verts; ++v) {
      const Eigen::VectorXd rel = s.x.segment(v * model->dim, model->dim) - cn;
      const Eigen::VectorXd rel0 = rest_position(*model, v) - c0;
      worst_shape = std::max(worst_shape, (rel - rel0).lpNorm<Eigen::Infinity>());
    }
    const Eigen::VectorXd vc = momentum(*model, s.v) / total_mass(*model);
    CHECK((vc - vel).lpNorm<Eigen::Infinity>() <= 1e-9 * vel.norm());
  }
  INFO("worst centroid error " << worst_centroid << " m, shape change " << worst_shape << " m");
  // After 20 steps the centroid has moved ~|v0| t + |g| t^2 / 2 ~ 0.4 m.
  CHECK(worst_centroid <= 1e-10 * L);
  CHECK(worst_shape <= 1e-10 * L);
}

/// Runs 10 steps from a deformed, moving state and checks that sum m v stays put.
void check_momentum(std::shared_ptr<Model> model, double h, std::mt19937_64& gen) {
  SimulationOptions opt;
  opt.dt = 0.01;
  Simulator sim(model, opt);
  State s = random_state(*model, gen, h, 0.05, Eigen::VectorXd::Zero(model->dim));
  const Eigen::VectorXd p0 = momentum(*model, s.v);
  const double scale = momentum_scale(*model, s.v);
  double worst = 0.0;
  for (int n = 0; n < 10; ++n) {
    const NewtonReport r = sim.step(s);
    REQUIRE_MESSAGE(r.converged(), r.message);
    worst = std::max(worst, (momentum(*model, s.v) - p0).lpNorm<Eigen::Infinity>() / scale);
  }
  INFO("relative momentum drift " << worst);
  CHECK(worst <= 1e-10);
}

/// Mass-proportional damping: M (V+ - V) = -dt alpha M V+ for the centroid velocity V, since
/// elastic forces and the stiffness-proportional damping (beta K dx, K translation-free) sum
/// to zero. So V+ = V / (1 + alpha dt) exactly, from any deformed, moving state.
void check_damping(std::shared_ptr<Model> model, double alpha, double beta, double h) {
  add_damping(*model, alpha, beta);
  SimulationOptions opt;
  opt.dt = 0.01;
  Simulator sim(model, opt);
  std::mt19937_64 gen(7);
  Eigen::VectorXd drift = Eigen::VectorXd::LinSpaced(model->dim, 1.0, -0.5);
  State s = random_state(*model, gen, h, 0.05, drift);
  Eigen::VectorXd V = momentum(*model, s.v) / total_mass(*model);
  const double factor = 1.0 / (1.0 + alpha * opt.dt);
  const double V0 = V.norm();
  double worst = 0.0;
  for (int n = 0; n < 10; ++n) {
    const NewtonReport r = sim.step(s);
    REQUIRE_MESSAGE(r.converged(), r.message);
    const Eigen::VectorXd Vn = momentum(*model, s.v) / total_mass(*model);
    INFO("step " << n << ": V = " << Vn.transpose() << ", expected " << (factor * V).transpose());
    CHECK((Vn - factor * V).lpNorm<Eigen::Infinity>() <= 1e-10 * V0);
    worst = std::max(worst, (Vn - factor * V).lpNorm<Eigen::Infinity>() / V0);
    V = Vn;
  }
  MESSAGE("damping alpha " << alpha << ", beta " << beta << ": worst relative deviation of the "
                           << "centroid velocity from V / (1 + alpha dt): " << worst);
  // Sanity: after 10 steps the drift has decayed by (1 + alpha dt)^-10, not by some other law.
  CHECK(V.norm() == doctest::Approx(V0 * std::pow(factor, 10)).epsilon(1e-9));
}

}  // namespace

TEST_CASE("integrator/step: free fall of a 3D body follows the backward-Euler recurrence") {
  auto model =
      box_model("neo_hookean", 1e5, 0.3, 1000.0, {3, 2, 2}, {1.0, 0.5, 0.5}, {0.2, -0.1, 0.3});
  Eigen::Vector3d g(1.0, -2.0, -9.81), v0(0.5, 0.3, 2.0);
  check_free_fall(model, g, v0, 1000.0 * 0.25);
}

TEST_CASE("integrator/step: free fall of a 2D body follows the backward-Euler recurrence") {
  auto model = rectangle_model("stvk", 1e5, 0.3, 1000.0, {4, 3}, {1.0, 0.6}, {-0.3, 0.2});
  Eigen::Vector2d g(0.5, -9.81), v0(-1.0, 3.0);
  check_free_fall(model, g, v0, 1000.0 * 0.6);
}

TEST_CASE("integrator/step: linear momentum is conserved for every material in 3D") {
  std::mt19937_64 gen(20261130);
  for (const auto& mat : all_materials()) {
    CAPTURE(mat->name());
    check_momentum(box_model(mat->name(), 1e5, 0.3, 1000.0, {2, 2, 2}, {1.0, 1.0, 1.0}), 0.5, gen);
  }
}

TEST_CASE("integrator/step: linear momentum is conserved for every material in 2D") {
  std::mt19937_64 gen(20261131);
  for (const auto& mat : all_materials()) {
    CAPTURE(mat->name());
    check_momentum(rectangle_model(mat->name(), 1e5, 0.3, 1000.0, {4, 4}, {1.0, 1.0}), 0.25, gen);
  }
}

TEST_CASE("integrator/damping: mass-proportional damping decays the centroid velocity") {
  SUBCASE("3D, alpha only") {
    check_damping(box_model("neo_hookean", 1e5, 0.3, 1000.0, {2, 2, 2}, {1.0, 1.0, 1.0}), 2.0, 0.0,
                  0.5);
  }
  SUBCASE("2D, alpha and beta (the stiffness part exerts no net force)") {
    check_damping(rectangle_model("corotated", 1e5, 0.3, 1000.0, {4, 4}, {1.0, 1.0}), 5.0, 1e-3,
                  0.25);
  }
}
