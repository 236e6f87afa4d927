// Every rigid-body term's derivatives against central differences, at deformed, turned states:
// the orthogonality energy, each joint type with its limits engaged, each motor mode (with and
// without saturation) and its target product, and rigid contact with friction (its
// previous-state product).
#include <doctest/doctest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <random>

#include "softgrad/contact.hpp"
#include "softgrad/detail/assembly.hpp"
#include "softgrad/shapes.hpp"
#include "support/finite_difference.hpp"
#include "support/rigid_models.hpp"
#include "support/term_derivatives.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

/// x = rest positions with every body turned a little, moved and sheared by `shear`.
Eigen::VectorXd perturbed(const Model& model, std::mt19937_64& gen, double shear) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::VectorXd x = model.X;
  for (const RigidBody& b : model.rigid_bodies) {
    const Eigen::Matrix3d R =
        Eigen::AngleAxisd(0.2 * u(gen), Eigen::Vector3d(u(gen), u(gen), u(gen)).normalized())
            .toRotationMatrix();
    Eigen::Matrix3d A = R * b.matrix(model.X);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) A(i, j) += shear * u(gen);
    x.segment<3>(b.dof(0)) += 0.01 * Eigen::Vector3d(u(gen), u(gen), u(gen));
    for (int j = 0; j < 3; ++j) x.segment<3>(b.dof(3 + 3 * j)) = A.col(j);
  }
  return x;
}

/// Gradient vs differences of the value, assembled Hessian vs products, and the Hessian's
/// products vs differences of the gradient (three directions).
void check_term(const EnergyTerm& term, TermData& d, const Eigen::VectorXd& x, int n_verts) {
  check_term_derivatives(term, d, x, n_verts, 3, 1e-10, 1e-6, 1e-5);
  Eigen::VectorXd g0 = term_gradient(term, d, x);
  CHECK(g0.norm() > 0.0);
  for (int k = 0; k < 3; ++k) {
    const Eigen::VectorXd u = Eigen::VectorXd::NullaryExpr(
        x.size(), [k](Eigen::Index i) { return std::sin(1.3 * static_cast<double>(i) + k); });
    Eigen::VectorXd hu = Eigen::VectorXd::Zero(x.size());
    term.add_hessian_vector_product(d, x, u, hu);
    const double h = 1e-6;
    const Eigen::VectorXd fd =
        (term_gradient(term, d, x + h * u) - term_gradient(term, d, x - h * u)) / (2 * h);
    CHECK(hu.norm() > 0.0);
    CHECK(close(hu, fd, 1e-5, 1e-7 * g0.norm()));
  }
}

std::shared_ptr<Model> two_boxes() {
  auto model = std::make_shared<Model>();
  RigidBodySpec a = box_spec("a", {0.3, 0.1, 0.2}, 800.0),
                b = box_spec("b", {0.1, 0.4, 0.1}, 1200.0);
  a.position = {0.0, 1.0, 0.0};
  b.position = {0.2, 1.2, 0.05};
  b.rotation = Eigen::AngleAxisd(0.4, Eigen::Vector3d(1, 1, 0).normalized()).toRotationMatrix();
  add_rigid_body(*model, a);
  add_rigid_body(*model, b);
  return model;
}

}  // namespace

TEST_CASE("rigid/derivatives: the orthogonality energy") {
  auto model = two_boxes();
  add_rigidity_term(*model);
  std::mt19937_64 gen(3);
  const Eigen::VectorXd x = perturbed(*model, gen, 0.05);
  TermEvaluation eval(*model->terms[1], model->X);
  check_term(*model->terms[1], eval.data(), x, model->n_verts);
}

TEST_CASE("rigid/derivatives: each joint type, its limits engaged") {
  for (const JointType type :
       {JointType::Hinge, JointType::Ball, JointType::Slider, JointType::Fixed}) {
    for (const int parent : {0, -1}) {
      INFO(to_string(type) << (parent < 0 ? " to the world" : " between two bodies"));
      auto model = two_boxes();
      JointSpec spec = hinge_spec("j", parent, 1, {0.1, 1.1, 0.0}, {0.3, 0.2, 1.0}, *model);
      spec.type = type;
      if (type == JointType::Hinge || type == JointType::Slider) {
        // Limits this close to 0 are engaged (in their band or beyond) at the perturbed states.
        spec.lower = -1e-3;
        spec.upper = 1e-3;
      }
      add_joint(*model, spec);
      add_joint_term(*model);
      std::mt19937_64 gen(7);
      const Eigen::VectorXd x = perturbed(*model, gen, 0.02);
      TermEvaluation eval(*model->terms[1], model->X);
      check_term(*model->terms[1], eval.data(), x, model->n_verts);
    }
  }
}

TEST_CASE("rigid/derivatives: motors in each mode, and their targets' products") {
  struct Case {
    MotorMode mode;
    double max_force;
  };
  // The limits put K e / tau_max near 1, where the saturation bends.
  for (const Case c : {Case{MotorMode::Position, 1e300}, Case{MotorMode::Position, 5.0},
                       Case{MotorMode::Velocity, 1e300}, Case{MotorMode::Velocity, 20.0},
                       Case{MotorMode::Force, 0.5}}) {
    INFO(std::string(to_string(c.mode)) << ", limit " << c.max_force);
    auto model = two_boxes();
    JointSpec spec = hinge_spec("j", 0, 1, {0.1, 1.1, 0.0}, {0.3, 0.2, 1.0}, *model);
    if (c.mode == MotorMode::Force) spec.type = JointType::Slider;
    add_joint(*model, spec);
    MotorSpec m{"m", 0, c.mode, 2.0, 0.3, c.max_force, 0.0};
    add_motors(*model, {m}, 3);
    std::mt19937_64 gen(11);
    const Eigen::VectorXd x_prev = perturbed(*model, gen, 0.0);
    const Eigen::VectorXd x = perturbed(*model, gen, 0.01);
    Eigen::VectorXd targets(3);
    targets << 0.2, -0.3, 0.1;
    TermEvaluation eval(*model->terms[1], x_prev, 0.01, targets, /*step=*/1);
    check_term(*model->terms[1], eval.data(), x, model->n_verts);
    // lambda . d(dW/dx)/d(target of step 1) against differences of the gradient.
    const Eigen::VectorXd lambda = Eigen::VectorXd::NullaryExpr(
        x.size(), [](Eigen::Index i) { return std::cos(0.7 * static_cast<double>(i)); });
    Eigen::VectorXd bar = Eigen::VectorXd::Zero(3);
    model->terms[1]->pull_back(eval.data(), x, lambda, {bar.data(), nullptr});
    const double h = 1e-6;
    Eigen::VectorXd tp = targets, tm = targets;
    tp[1] += h;
    tm[1] -= h;
    TermEvaluation ep(*model->terms[1], x_prev, 0.01, tp, 1),
        em(*model->terms[1], x_prev, 0.01, tm, 1);
    const double fd = lambda.dot(term_gradient(*model->terms[1], ep.data(), x) -
                                 term_gradient(*model->terms[1], em.data(), x)) /
                      (2 * h);
    CHECK(bar[1] != 0.0);
    CHECK(bar[1] == doctest::Approx(fd).epsilon(1e-6));
    CHECK(bar[0] == 0.0);  // other steps' targets do not act in step 1
    CHECK(bar[2] == 0.0);
  }
}

TEST_CASE("rigid/derivatives: rigid contact with friction, and its previous-state product") {
  for (const ContactModel kind : {ContactModel::Penalty, ContactModel::Barrier}) {
    INFO((kind == ContactModel::Barrier ? "barrier" : "penalty"));
    auto model = std::make_shared<Model>();
    const bool barrier = kind == ContactModel::Barrier;
    // A sphere just above (barrier) or in (penalty) a tilted ground, a box on its corner.
    const Eigen::Vector3d n = Eigen::Vector3d(0.1, 1.0, 0.05).normalized();
    add_rigid_body(*model, sphere_spec("ball", 0.1, 1000.0, (barrier ? 0.1003 : 0.0995) * n));
    RigidBodySpec box = box_spec("box", {0.1, 0.1, 0.1}, 1000.0);
    box.rotation = Eigen::AngleAxisd(0.3, Eigen::Vector3d::UnitZ()).toRotationMatrix();
    double lowest = 1e9;  // the lowest corner's height above the ground, the box at the origin
    for (int k = 0; k < 8; ++k)
      lowest = std::min(
          lowest, n.dot(box.rotation * Eigen::Vector3d(k & 1 ? 0.05 : -0.05, k & 2 ? 0.05 : -0.05,
                                                       k & 4 ? 0.05 : -0.05)));
    const Eigen::Vector3d base(0.5, 0.0, 0.0);
    const double gap = barrier ? 3e-4 : -5e-4;
    box.position = base + (gap - n.dot(base) - lowest) * n;
    add_rigid_body(*model, box);
    ContactOptions o;
    o.model = kind;
    o.stiffness = 1e4;
    o.friction = 0.5;
    o.activation_distance = 1e-3;
    // eps_v dt = 1e-3 m: the friction's smoothing band is far wider than the difference steps.
    o.friction_velocity = 0.1;
    o.obstacles = {std::make_shared<HalfSpace>("ground", Eigen::Vector3d::Zero(), n)};
    add_contact(*model, o);
    REQUIRE(model->terms.size() == 2);  // inertia, then the contact
    CHECK(model->terms[1]->name() == "rigid_contact");
    // Tangential slips over the step: the ball slides (5e-3 m > eps), the box sticks (1e-4 m).
    const Eigen::Vector3d t1 = n.cross(Eigen::Vector3d::UnitZ()).normalized(), t2 = n.cross(t1);
    Eigen::VectorXd x = model->X;
    x.segment<3>(0) += 4e-3 * t1 + 3e-3 * t2;
    x.segment<3>(12) += 1e-4 * t2;
    TermEvaluation eval(*model->terms[1], model->X, 0.01);
    check_term(*model->terms[1], eval.data(), x, model->n_verts);
    // lambda . d(dW/dx)/dx_prev against differences of the gradient in x_prev.
    const Eigen::VectorXd lambda = Eigen::VectorXd::NullaryExpr(
        x.size(), [](Eigen::Index i) { return std::cos(0.3 * static_cast<double>(i)); });
    Eigen::VectorXd x_prev_bar = Eigen::VectorXd::Zero(x.size());
    model->terms[1]->pull_back(eval.data(), x, lambda, {nullptr, &x_prev_bar});
    const Eigen::VectorXd fd = fd_gradient(
        [&](const Eigen::VectorXd& xp) {
          TermEvaluation e(*model->terms[1], xp, 0.01);
          return lambda.dot(term_gradient(*model->terms[1], e.data(), x));
        },
        model->X, 1e-7);
    CHECK(x_prev_bar.norm() > 0.0);
    CHECK(close(x_prev_bar, fd, 1e-5, 1e-9 * fd.norm()));
  }
}
