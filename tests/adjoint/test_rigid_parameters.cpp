// Rigid velocities as parameters ("rigid:BODY.velocity", "rigid:BODY.angular_velocity") and
// the body-point loss: a ball thrown spinning onto a frictional ground, its adjoint gradient
// against central differences and forward sensitivities (barrier and penalty contact), the
// parameters' get/set round trip and errors, and the loss's derivatives.
#include <doctest/doctest.h>

#include <cmath>

#include "softgrad/adjoint.hpp"
#include "softgrad/contact.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/shapes.hpp"
#include "support/finite_difference.hpp"
#include "support/random.hpp"
#include "support/rigid_models.hpp"

namespace softgrad::test {
namespace {

constexpr double kRadius = 0.05;

struct Throw {
  std::shared_ptr<Model> model;
  std::unique_ptr<Simulator> sim;
  Rollout rollout;
};

/// A ball of radius 5 cm thrown from 3 cm above a ground plane (friction 0.5), spinning, for
/// 0.3 s in steps of 10 ms.
Throw thrown_ball(ContactModel contact) {
  Throw t;
  t.model = std::make_shared<Model>();
  add_rigid_body(*t.model, sphere_spec("ball", kRadius, 1000.0, {0.0, kRadius + 0.03, 0.0}));
  add_rigidity_term(*t.model);
  add_gravity(*t.model, Eigen::Vector3d(0.0, -9.81, 0.0));
  ContactOptions o;
  o.model = contact;
  o.stiffness = contact == ContactModel::Barrier ? 1e3 : 1e5;
  o.activation_distance = 1e-3;
  o.friction = 0.5;
  o.friction_velocity = 1e-2;
  o.obstacles = {
      std::make_shared<HalfSpace>("ground", Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitY())};
  add_contact(*t.model, o);
  t.sim = std::make_unique<Simulator>(t.model, rigid_options(0.01));
  t.rollout = rest_rollout(*t.sim, 30);
  set_rigid_velocity(*t.model, 0, {1.0, -0.5, 0.2}, {2.0, 1.0, -6.0}, t.rollout.initial.x,
                     t.rollout.initial.v);
  return t;
}

/// The ball's centre near a target at the end, and its top point's position and velocity.
std::shared_ptr<const Loss> throw_loss(const Model& model) {
  BodyPointTarget centre;
  centre.position = {0.4, kRadius, 0.1};
  BodyPointTarget top;
  top.point = Eigen::Vector3d(0.0, 2.0 * kRadius + 0.03, 0.0);
  top.position = {0.4, 2.0 * kRadius, 0.0};
  top.velocity = Eigen::Vector3d(1.0, 0.0, 0.0);
  top.weight = 3.0;
  top.velocity_weight = 0.5;
  return std::make_shared<BodyPointLoss>(model, std::vector{centre, top});
}

double loss_at(Throw& t, const ParameterSet& params, const Eigen::VectorXd& theta,
               const Loss& loss) {
  Rollout r = t.rollout;
  params.set(*t.sim, r, theta);
  return evaluate_loss(*t.sim, simulate(*t.sim, r), loss);
}

}  // namespace

TEST_CASE("adjoint/rigid parameters: a thrown ball's velocity gradients equal differences") {
  for (const ContactModel contact : {ContactModel::Barrier, ContactModel::Penalty}) {
    INFO((contact == ContactModel::Barrier ? "barrier" : "penalty"));
    Throw t = thrown_ball(contact);
    const auto loss = throw_loss(*t.model);
    const ParameterSet params(*t.sim, t.rollout,
                              {"rigid:ball.velocity", "rigid:ball.angular_velocity"});
    const Eigen::VectorXd theta = params.get(*t.sim, t.rollout);
    CHECK(close(theta, Eigen::Vector<double, 6>(1.0, -0.5, 0.2, 2.0, 1.0, -6.0), 1e-14));
    const Trajectory traj = simulate(*t.sim, t.rollout);
    REQUIRE(traj.converged());
    // It lands (the ball touches the ground by the end).
    CHECK(t.model->rigid_bodies[0].position(traj.final_state().x).y() < kRadius + 2e-3);
    const GradientResult adj = gradient(*t.sim, traj, *loss, params);
    CHECK(adj.report.trustworthy());
    const GradientResult tan = tangent_gradient(*t.sim, t.rollout, *loss, params);
    const Eigen::VectorXd fd = fd_gradient(
        [&](const Eigen::VectorXd& th) { return loss_at(t, params, th, *loss); }, theta);
    MESSAGE("adjoint " << adj.gradient.transpose() << "\nfd      " << fd.transpose()
                       << "\n|adj - fd| / |fd| = " << (adj.gradient - fd).norm() / fd.norm()
                       << " (spin alone "
                       << (adj.gradient - fd).tail<3>().norm() / fd.tail<3>().norm() << ")"
                       << ", |adj - tangent| / |adj| = "
                       << (adj.gradient - tan.gradient).norm() / adj.gradient.norm());
    CHECK(adj.gradient.tail<3>().norm() > 1e-3 * adj.gradient.norm());
    CHECK(close(adj.gradient, fd, 1e-5));
    CHECK(close(adj.gradient.tail<3>(), fd.tail<3>(), 1e-5));  // the spin on its own
    CHECK(tan.loss == doctest::Approx(adj.loss).epsilon(1e-13));
    CHECK(close(tan.gradient, adj.gradient, 1e-8));
  }
}

TEST_CASE("adjoint/rigid parameters: with x0, a_i' = omega x a_i follows the initial positions") {
  Throw t = thrown_ball(ContactModel::Penalty);
  t.rollout.steps = 10;
  const auto loss = throw_loss(*t.model);
  const ParameterSet params(*t.sim, t.rollout, {"rigid:ball.angular_velocity", "x0"});
  const Eigen::VectorXd theta = params.get(*t.sim, t.rollout);
  const GradientResult adj = gradient(*t.sim, simulate(*t.sim, t.rollout), *loss, params);
  const GradientResult tan = tangent_gradient(*t.sim, t.rollout, *loss, params);
  CHECK(close(tan.gradient, adj.gradient, 1e-8));
  // Along a random direction that turns the axes (a directional central difference).
  Eigen::VectorXd d = 1e-2 * random_matrix(static_cast<int>(theta.size()), 1);
  const double h = 1e-5;
  const double fd =
      (loss_at(t, params, theta + h * d, *loss) - loss_at(t, params, theta - h * d, *loss)) /
      (2.0 * h);
  MESSAGE("<grad, d> = " << adj.gradient.dot(d) << ", fd " << fd << " (relative difference "
                         << std::abs(adj.gradient.dot(d) - fd) / std::abs(fd) << ")");
  CHECK(adj.gradient.dot(d) == doctest::Approx(fd).epsilon(1e-5));
  // x0 alone (v0 held) has a different gradient: the coupling matters here.
  const ParameterSet x0_only(*t.sim, t.rollout, {"x0"});
  const GradientResult held = gradient(*t.sim, simulate(*t.sim, t.rollout), *loss, x0_only);
  const Eigen::VectorXd coupling = adj.gradient.tail(t.model->n_dofs()) - held.gradient;
  MESSAGE("|coupling| / |dL/dx0 at fixed v0| = " << coupling.norm() / held.gradient.norm());
  CHECK(coupling.norm() > 1e-3 * held.gradient.norm());
  CHECK(coupling.head<3>().norm() == 0.0);  // p' does not depend on x0
}

TEST_CASE("adjoint/rigid parameters: get and set round-trip and touch only the body's dofs") {
  auto model = std::make_shared<Model>();
  add_rigid_body(*model, sphere_spec("ball", 0.05, 1000.0, {0.0, 0.5, 0.0}));
  RigidBodySpec box = box_spec("box", {0.2, 0.1, 0.3}, 500.0);
  box.rotation = random_rotation(3);
  add_rigid_body(*model, box);
  RigidBodySpec floor = box_spec("floor", {1.0, 0.1, 1.0}, 500.0);
  floor.position = {0.0, -1.0, 0.0};
  floor.motion = KinematicGroup{};
  add_rigid_body(*model, floor);
  add_rigidity_term(*model);
  Simulator sim(model, rigid_options(0.01));
  Rollout rollout = rest_rollout(sim, 5);
  rollout.initial.v = random_matrix(model->n_dofs(), 1);

  const ParameterSet params(sim, rollout, {"rigid:box.angular_velocity", "rigid:box.velocity"});
  CHECK(params.size() == 6);
  CHECK(params.label(1) == "rigid:box.angular_velocity[1]");
  CHECK(params.label(5) == "rigid:box.velocity[2]");
  const Eigen::VectorXd theta = Eigen::Vector<double, 6>(0.3, -2.0, 1.5, 0.1, 0.2, -0.4);
  Rollout r = rollout;
  params.set(sim, r, theta);
  CHECK(close(params.get(sim, r), theta, 1e-14));
  // Only the box's velocities changed, to p' = u and a_i' = omega x a_i.
  const RigidBody& b = model->rigid_bodies[1];
  for (int i = 0; i < model->n_dofs(); ++i)
    if (i < b.dof(0) || i >= b.dof(12)) CHECK(r.initial.v[i] == rollout.initial.v[i]);
  const Eigen::Vector3d omega = theta.head<3>();
  CHECK(close(r.initial.v.segment<3>(b.dof(0)), theta.tail<3>(), 0.0));
  for (int j = 0; j < 3; ++j)
    CHECK(close(r.initial.v.segment<3>(b.dof(3 + 3 * j)),
                omega.cross(r.initial.x.segment<3>(b.dof(3 + 3 * j))), 1e-15));

  const auto available = ParameterSet::available(sim, rollout);
  const auto has = [&](const std::string& name) {
    for (const auto& [n, what] : available)
      if (n == name) return true;
    return false;
  };
  CHECK(has("rigid:ball.velocity"));
  CHECK(has("rigid:box.angular_velocity"));
  CHECK_FALSE(has("rigid:floor.velocity"));
}

TEST_CASE("adjoint/rigid parameters: unknown bodies, repeated blocks and v0 are errors") {
  Throw t = thrown_ball(ContactModel::Penalty);
  const Simulator& sim = *t.sim;
  const Rollout& r = t.rollout;
  const auto names = [&](std::vector<std::string> n) { return ParameterSet(sim, r, n); };
  CHECK_THROWS_WITH_AS(names({"rigid:bal.velocity"}),
                       "parameter 'rigid:bal.velocity': the model has no rigid body 'bal'; rigid "
                       "bodies:\n  ball",
                       InputError);
  CHECK_THROWS_WITH_AS(names({"rigid:ball.spin"}),
                       "parameter 'rigid:ball.spin': a rigid body offers 'rigid:BODY.velocity' "
                       "and 'rigid:BODY.angular_velocity'",
                       InputError);
  CHECK_THROWS_WITH_AS(
      names({"rigid:ball.angular_velocity", "rigid:ball.velocity", "rigid:ball.angular_velocity"}),
      "parameter 'rigid:ball.angular_velocity' is selected twice (also as "
      "'rigid:ball.angular_velocity')",
      InputError);
  CHECK_THROWS_WITH_AS(names({"v0", "rigid:ball.velocity"}),
                       "parameter 'rigid:ball.velocity' overlaps 'v0': 'v0' holds every initial "
                       "velocity; select one or the other",
                       InputError);
  CHECK_THROWS_WITH_AS(names({"rigid:ball.velocity", "v0"}), doctest::Contains("overlaps"),
                       InputError);

  auto model = std::make_shared<Model>();
  RigidBodySpec floor = box_spec("floor", {1.0, 0.1, 1.0}, 500.0);
  floor.motion = KinematicGroup{};
  add_rigid_body(*model, floor);
  Simulator held(model, rigid_options(0.01));
  CHECK_THROWS_WITH_AS(ParameterSet(held, rest_rollout(held, 3), {"rigid:floor.velocity"}),
                       "parameter 'rigid:floor.velocity': rigid body 'floor' is kinematic (its "
                       "motion is prescribed, not simulated)",
                       InputError);
}

TEST_CASE("adjoint/body point loss: value, derivatives against differences, and errors") {
  auto model = std::make_shared<Model>();
  RigidBodySpec box = box_spec("box", {0.2, 0.1, 0.3}, 500.0);
  box.rotation = random_rotation(3);
  box.position = {0.1, 0.2, 0.3};
  add_rigid_body(*model, sphere_spec("ball", 0.05, 1000.0, {0.0, 0.5, 0.0}));
  add_rigid_body(*model, box);
  const Model& m = *model;
  const Eigen::Vector3d corner = box.position + box.rotation * Eigen::Vector3d(0.1, 0.05, 0.15);
  BodyPointTarget a{1, corner, 4, {0.3, 0.0, 0.1}, Eigen::Vector3d(0.0, 1.0, 0.0), 2.0, 0.7};
  BodyPointTarget b{0, std::nullopt, kFinalStep, {0.0, 0.3, 0.0}, {}, 1.5};
  const BodyPointLoss loss(m, {a, b});

  // At rest and still: the corner is where it was put, the ball's centre at its centre.
  State s{m.X, Eigen::VectorXd::Zero(m.n_dofs()), 0.0, 0};
  const double expected = 0.5 * 2.0 * (corner - a.position).squaredNorm() + 0.5 * 0.7 * 1.0;
  CHECK(loss.evaluate(4, 9, s, nullptr, nullptr) == doctest::Approx(expected).epsilon(1e-14));
  CHECK(loss.evaluate(9, 9, s, nullptr, nullptr) == doctest::Approx(0.5 * 1.5 * 0.04));
  CHECK(loss.evaluate(3, 9, s, nullptr, nullptr) == 0.0);

  s.x += 0.05 * random_matrix(m.n_dofs(), 1);
  s.v = random_matrix(m.n_dofs(), 1);
  for (const int n : {4, 9}) {
    Eigen::VectorXd xbar = Eigen::VectorXd::Zero(m.n_dofs()), vbar = xbar;
    loss.evaluate(n, 9, s, &xbar, &vbar);
    const auto in_x = [&](const Eigen::VectorXd& x) {
      return loss.evaluate(n, 9, State{x, s.v, 0.0, 0}, nullptr, nullptr);
    };
    const auto in_v = [&](const Eigen::VectorXd& v) {
      return loss.evaluate(n, 9, State{s.x, v, 0.0, 0}, nullptr, nullptr);
    };
    CHECK(xbar.norm() > 0.0);
    CHECK((vbar.norm() > 0.0) == (n == 4));
    CHECK(close(xbar, fd_gradient(in_x, s.x), 1e-8, 1e-12));
    CHECK(close(vbar, fd_gradient(in_v, s.v), 1e-8, 1e-12));
  }

  a.body = 2;
  CHECK_THROWS_WITH_AS(BodyPointLoss(m, {b, a}),
                       "body point loss, target 1: rigid body 2 is not in the model (2 rigid "
                       "bodies)",
                       InputError);
  a.body = 1;
  a.velocity = Eigen::Vector2d(1.0, 0.0);
  CHECK_THROWS_WITH_AS(BodyPointLoss(m, {a}),
                       "body point loss, target 0: the velocity has 2 entries, expected 3",
                       InputError);
}

}  // namespace softgrad::test
