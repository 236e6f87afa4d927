// 3D creatures: mesh sizes and orientation, where the muscles are, gradients of controlled
// episodes with contact against central differences, symmetry at rest, and a column that
// learns to reach a target.
#include <doctest/doctest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <random>

#include "softgrad/adjoint.hpp"
#include "softgrad/controller.hpp"
#include "softgrad/creatures.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/training.hpp"
#include "support/term_evaluation.hpp"

namespace softgrad::test {
namespace {

/// Signed volumes of a body's tetrahedra at its rest positions.
std::vector<double> signed_volumes(const Model& m) {
  const Body& b = m.bodies[0];
  std::vector<double> vol;
  for (int e = 0; e < b.n_elems(); ++e) {
    Eigen::Vector3d p[4];
    for (int v = 0; v < 4; ++v) p[v] = m.X.segment<3>(3 * b.elems[4 * e + v]);
    vol.push_back((p[1] - p[0]).dot((p[2] - p[0]).cross(p[3] - p[0])) / 6.0);
  }
  return vol;
}

/// The volume of each muscle from its energy at rest with only that muscle activated by a:
/// W = V k/2 a^2.
std::vector<double> muscle_volumes(const Creature& c, double k) {
  const Model& m = *c.model;
  const EnergyTerm& term = *m.terms[m.find_term(c.muscle_term)];
  std::vector<double> vol;
  const double a = 0.2;
  for (int i = 0; i < c.n_muscles; ++i) {
    Eigen::VectorXd activations = term.default_parameters();
    activations[i] = a;  // step 0, muscle i
    test::TermEvaluation step(term, m.X, 0.01, activations);
    vol.push_back(2.0 * term.value(step.data(), m.X) / (k * a * a));
  }
  return vol;
}

SimulationOptions tight(double dt = 0.01) {
  SimulationOptions o;
  o.dt = dt;
  o.newton.tolerance = 1e-11;
  o.newton.max_iterations = 100;
  return o;
}

/// Mass-weighted mean of x over all vertices.
Eigen::Vector3d center(const Model& m, const Eigen::VectorXd& x) {
  Eigen::Vector3d c = Eigen::Vector3d::Zero();
  double total = 0.0;
  for (int v = 0; v < m.n_verts; ++v) {
    c += m.mass[3 * v] * x.segment<3>(3 * v);
    total += m.mass[3 * v];
  }
  return c / total;
}

/// <grad, d> by the adjoint against the central difference of the loss along a fixed-seed
/// direction d in the controller parameters.
void check_controller_gradient(Simulator& sim, Rollout& r, const Loss& loss) {
  const ParameterSet params(sim, r, {"controller"});
  const Eigen::VectorXd theta = params.get(sim, r);
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  Eigen::VectorXd d(theta.size());
  for (int i = 0; i < d.size(); ++i) d[i] = normal(rng);
  d /= d.norm();
  const GradientResult g = gradient(sim, simulate(sim, r), loss, params);
  CHECK(g.report.trustworthy());
  const auto loss_at = [&](double h) {
    Rollout rr = r;
    params.set(sim, rr, theta + h * d);
    const double l = evaluate_loss(sim, simulate(sim, rr), loss);
    params.set(sim, rr, theta);
    return l;
  };
  const double h = 1e-5;
  const double fd = (loss_at(h) - loss_at(-h)) / (2 * h);
  const double ad = g.gradient.dot(d);
  MESSAGE("adjoint " << ad << ", central difference " << fd << ", relative error "
                     << std::abs(ad - fd) / std::abs(fd));
  CHECK(std::abs(fd) > 1e-6);
  CHECK(std::abs(ad - fd) <= 1e-4 * std::max(std::abs(ad), std::abs(fd)));
}

}  // namespace

TEST_CASE("creatures_3d: the quadruped has DiffPD's cells, positive tets and 8 leg muscles") {
  for (int res : {1, 2}) {
    INFO("resolution " << res);
    Creature3dOptions o;
    o.steps = 1;
    o.resolution = res;
    const Creature q = make_quadruped_3d(o);
    const Model& m = *q.model;
    // 16 body cells and 8 leg cells of res^3 cubes of 6 tets.
    CHECK(m.bodies[0].n_elems() == 24 * 6 * res * res * res);
    if (res == 1) CHECK(m.n_verts == 82);  // 5 x 5 x 2 body + 4 legs x 2 levels x 4
    for (double v : signed_volumes(m)) REQUIRE(v > 0.0);
    CHECK(q.n_muscles == 8);
    CHECK(q.body_length == doctest::Approx(0.2));
    // Front and back halves of every leg (at resolution 1, the mid-plane tets are passive).
    const double cube = std::pow(o.cell, 3);
    for (double v : muscle_volumes(q, o.muscle_stiffness))
      CHECK(v == doctest::Approx(res == 1 ? 2.0 / 3.0 * cube : cube).epsilon(1e-9));
    double lowest = 1e9;
    for (int v = 0; v < m.n_verts; ++v) lowest = std::min(lowest, m.X[3 * v + 1]);
    CHECK(lowest == doctest::Approx(o.gap));
  }
}

TEST_CASE("creatures_3d: the worm and the column have their sizes and muscles") {
  Creature3dOptions o;
  o.steps = 1;
  const Creature w = make_worm_3d(6, o);
  CHECK(w.model->n_verts == 7 * 3 * 3);
  CHECK(w.model->bodies[0].n_elems() == 6 * 4 * 6);
  CHECK(w.n_muscles == 12);
  const double cube = std::pow(o.cell, 3);
  for (double v : muscle_volumes(w, o.muscle_stiffness))
    CHECK(v == doctest::Approx(2 * cube).epsilon(1e-9));  // half of a 2 x 2 segment
  for (double v : signed_volumes(*w.model)) REQUIRE(v > 0.0);

  const TendonColumn c = make_tendon_column(6, o);
  const Model& m = *c.creature.model;
  CHECK(m.n_verts == 3 * 7 * 3);
  CHECK(c.creature.n_muscles == 8);
  CHECK(m.X.segment<3>(3 * c.tip).isApprox(Eigen::Vector3d(0.0, 0.3, 0.0)));
  for (double v : muscle_volumes(c.creature, o.muscle_stiffness))
    CHECK(v == doctest::Approx(3 * cube).epsilon(1e-9));  // one quadrant of three levels
  for (double v : signed_volumes(m)) REQUIRE(v > 0.0);
  REQUIRE(m.kinematic.size() == 1);
  CHECK(m.kinematic[0].verts.size() == 9);

  CHECK_THROWS_WITH_AS(make_worm_3d(0, o), doctest::Contains("at least one segment"), InputError);
  CHECK_THROWS_WITH_AS(make_tendon_column(1, o), doctest::Contains("two levels"), InputError);
  o.resolution = 0;
  CHECK_THROWS_WITH_AS(make_quadruped_3d(o), doctest::Contains("resolution"), InputError);
}

TEST_CASE("creatures_3d: without activation the quadruped and the worm stand still") {
  // Both meshes are mirror-symmetric about their mid-planes x = const and z = const, and so is
  // gravity, the ground and friction: the centre of mass can only move vertically.
  Creature3dOptions o;
  o.steps = 50;
  for (const Creature& c : {make_quadruped_3d(o), make_worm_3d(4, o)}) {
    const Model& m = *c.model;
    INFO(m.bodies[0].name);
    Simulator sim(c.model, SimulationOptions{});
    Rollout r = rest_rollout(sim, 50);
    r.controller = std::make_shared<OpenLoopController>(c.n_muscles, 50, 0.3);
    r.controlled_term = c.muscle_term;
    const Trajectory traj = simulate(sim, r);
    const State& s = traj.final_state();
    int newton = 0;
    for (const NewtonReport& n : traj.reports()) newton += n.iterations;
    const Eigen::Vector3d drift = center(m, s.x) - center(m, m.X);
    MESSAGE(m.bodies[0].name << ": drift " << drift.transpose() << " m, speed "
                             << center(m, s.v).norm() << " m/s, " << newton
                             << " Newton iterations in 50 steps");
    CHECK(std::abs(drift.x()) < 1e-9);
    CHECK(std::abs(drift.z()) < 1e-9);
    // It fell and settled on the ground: its lowest vertex is within the barrier's reach
    // (1 mm), above the ground, and the body sags by less than a fifth of a cell.
    double lowest = 1e9;
    for (int v = 0; v < m.n_verts; ++v) lowest = std::min(lowest, s.x[3 * v + 1]);
    CHECK(lowest > 0.0);
    CHECK(lowest < 1e-3);
    CHECK(drift.y() < 0.0);
    CHECK(drift.y() > -0.2 * o.cell);
    CHECK(center(m, s.v).norm() < 1e-3);
  }
}

/// An episode of a sine gait (contact from the second step on): the gradient of the distance
/// travelled with respect to the gait's parameters against central differences.
void check_gait_gradient(const Creature& c, int steps) {
  Simulator sim(c.model, tight());
  Rollout r = rest_rollout(sim, steps);
  auto gait = std::make_shared<SineController>(c.n_muscles, 0.01, 0.3, 4.0);
  Eigen::VectorXd psi = gait->parameters();
  for (int i = 0; i < c.n_muscles; ++i) {
    psi[i] = 1.5;
    psi[c.n_muscles + i] = 0.9 * i;
  }
  gait->set_parameters(psi);
  r.controller = gait;
  r.controlled_term = c.muscle_term;
  const DisplacementLoss loss(*c.model, {}, Eigen::Vector3d::UnitX());
  check_controller_gradient(sim, r, loss);
}

TEST_CASE("creatures_3d: quadruped gait gradients with barrier contact match differences") {
  Creature3dOptions o;
  o.steps = 8;
  check_gait_gradient(make_quadruped_3d(o), 8);
}

TEST_CASE("creatures_3d: worm and penalty-contact gait gradients match differences" *
          doctest::test_suite("slow")) {
  Creature3dOptions o;
  o.steps = 12;
  check_gait_gradient(make_worm_3d(4, o), 12);
  o.contact = ContactModel::Penalty;
  check_gait_gradient(make_quadruped_3d(o), 12);
}

TEST_CASE("creatures_3d: the column's tip-distance gradient matches central differences") {
  const int steps = 8;
  Creature3dOptions o;
  o.steps = steps;
  o.youngs = 5e5;
  o.muscle_stiffness = 1e6;
  const TendonColumn col = make_tendon_column(4, o);
  Simulator sim(col.creature.model, tight());
  Rollout r = rest_rollout(sim, steps);
  auto keys = std::make_shared<KeyframeController>(8, 4, 2 * steps * 0.01, 0.01, 0.3);
  Eigen::VectorXd z(32);
  for (int i = 0; i < 32; ++i) z[i] = 0.5 * std::sin(1.7 * i);
  keys->set_parameters(z);
  r.controller = keys;
  r.controlled_term = col.creature.muscle_term;
  const PositionLoss loss(*col.creature.model,
                          {{kFinalStep, col.tip, Eigen::Vector3d(0.05, 0.18, 0.03), 1.0}});
  check_controller_gradient(sim, r, loss);
}

TEST_CASE("creatures_3d: a few Adam steps bring the column's tip closer to its target" *
          doctest::test_suite("slow")) {
  const int steps = 30;
  Creature3dOptions o;
  o.steps = steps;
  o.youngs = 5e5;  // about 4 Hz: it can reach within the episode
  o.muscle_stiffness = 1e6;
  const TendonColumn col = make_tendon_column(6, o);
  SimulationOptions so = tight();
  so.newton.tolerance = 1e-8;
  Simulator sim(col.creature.model, so);
  Rollout r = rest_rollout(sim, steps);
  r.controller = std::make_shared<KeyframeController>(8, 4, 2 * steps * 0.01, 0.01, 0.3);
  r.controlled_term = col.creature.muscle_term;
  const Eigen::Vector3d target(0.05, 0.28, 0.03);
  const PositionLoss loss(*col.creature.model, {{kFinalStep, col.tip, target, 1.0}});
  const auto error = [&]() {
    return (simulate(sim, r).final_state().x.segment<3>(3 * col.tip) - target).norm();
  };
  const double before = error();
  TrainOptions t;
  t.iterations = 5;
  t.learning_rate = 0.3;
  const TrainReport report = train(sim, r, loss, ParameterSet(sim, r, {"controller"}), t);
  const double after = error();
  MESSAGE("tip error " << before << " m before, " << after << " m after "
                       << report.gradient_evaluations << " gradients");
  CHECK(after < 0.5 * before);
  CHECK(0.5 * after * after == doctest::Approx(report.best_loss).epsilon(1e-9));
}

}  // namespace softgrad::test
