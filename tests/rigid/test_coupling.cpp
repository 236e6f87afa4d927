// Rigid-soft coupling against central differences and known answers: the attachment's and the
// shape contact's derivatives (sliding and sticking friction, previous-state and parameter
// products); a soft block on a spinning bone conserves momentum; the contact forces of a block
// at rest on a kinematic box carry its weight; a paddle pushes a block at its own speed with the
// drag's force and never lets a vertex in; momentum survives a block hitting a free ball.
#include <doctest/doctest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <random>

#include "softgrad/contact.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/rigid_coupling.hpp"
#include "softgrad/shapes.hpp"
#include "softgrad/simulator.hpp"
#include "softgrad/stencil_term.hpp"
#include "support/finite_difference.hpp"
#include "support/rigid_models.hpp"
#include "support/term_derivatives.hpp"
#include "support/tiny_models.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

/// Adds a neo-Hookean block (E = 1e5 Pa, nu = 0.3, 1000 kg/m^3) [origin, origin + size] of n
/// cells; rigid bodies and terms come after it.
void add_block(Model& m, const Eigen::Vector3i& n, const Eigen::Vector3d& size,
               const Eigen::Vector3d& origin) {
  const auto mat = find_material("neo_hookean");
  add_body(m, "block", box_tet_mesh(n[0], n[1], n[2], size, origin), mat,
           material_params(*mat, 1e5, 0.3), 1000.0);
}

/// |a - b| / |b|, after checking both are non-zero.
double relative(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  CHECK(a.norm() > 0.0);
  CHECK(b.norm() > 0.0);
  return (a - b).norm() / b.norm();
}

/// Gradient vs differences of the value, assembled Hessian vs products (support), Hessian
/// products vs differences of the gradient, and the parameter and previous-state products of
/// pull_back vs differences of lambda . gradient; reports the relative errors.
void check_term(const EnergyTerm& term, const Eigen::VectorXd& x_prev, double dt,
                const Eigen::VectorXd& x) {
  TermEvaluation eval(term, x_prev, dt);
  TermData& d = eval.data();
  check_term_derivatives(term, d, x, static_cast<int>(x.size() / 3), 3, 1e-10, 1e-7, 1e-5);
  const Eigen::VectorXd g = term_gradient(term, d, x);
  const double e_g =
      relative(g, fd_gradient([&](const Eigen::VectorXd& y) { return term.value(d, y); }, x, 1e-7));
  double e_h = 0.0;
  for (int k = 0; k < 3; ++k) {
    const Eigen::VectorXd u = Eigen::VectorXd::NullaryExpr(
        x.size(), [k](Eigen::Index i) { return std::sin(1.3 * static_cast<double>(i) + k); });
    Eigen::VectorXd hu = Eigen::VectorXd::Zero(x.size());
    term.add_hessian_vector_product(d, x, u, hu);
    const double h = 1e-7;
    const Eigen::VectorXd fd =
        (term_gradient(term, d, x + h * u) - term_gradient(term, d, x - h * u)) / (2 * h);
    e_h = std::max(e_h, relative(hu, fd));
  }
  const Eigen::VectorXd lambda = Eigen::VectorXd::NullaryExpr(
      x.size(), [](Eigen::Index i) { return std::cos(0.3 * static_cast<double>(i)); });
  const auto lambda_g = [&](const Eigen::VectorXd& xp, const Eigen::VectorXd& p) {
    TermEvaluation e(term, xp, dt, p);
    return lambda.dot(term_gradient(term, e.data(), x));
  };
  const Eigen::VectorXd p0 = term.default_parameters();
  Eigen::VectorXd p_bar = Eigen::VectorXd::Zero(p0.size()), x_prev_bar = x_prev * 0.0;
  term.pull_back(d, x, lambda, {p_bar.data(), dt > 0 ? &x_prev_bar : nullptr});
  CHECK(p_bar.cwiseAbs().minCoeff() > 0.0);  // every parameter acts (friction too)
  const double e_p = relative(
      p_bar, fd_gradient([&](const Eigen::VectorXd& p) { return lambda_g(x_prev, p); }, p0));
  const double e_x =
      dt > 0 ? relative(x_prev_bar,
                        fd_gradient([&](const Eigen::VectorXd& xp) { return lambda_g(xp, p0); },
                                    x_prev, 1e-7))
             : 0.0;
  MESSAGE("relative errors: gradient " << e_g << ", Hessian products " << e_h
                                       << ", parameter products " << e_p
                                       << ", previous-state products " << e_x);
  CHECK(e_g < 1e-6);
  CHECK(e_h < 1e-5);
  CHECK(e_p < 1e-7);
  CHECK(e_x < 1e-5);
}

Eigen::Matrix3d rotation(double angle, const Eigen::Vector3d& axis) {
  return Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
}

/// Writes body b's pose (p, A) into x.
void set_pose(const Model& m, int b, const Eigen::Vector3d& p, const Eigen::Matrix3d& A,
              Eigen::VectorXd& x) {
  const RigidBody& body = m.rigid_bodies[b];
  x.segment<3>(body.dof(0)) = p;
  for (int j = 0; j < 3; ++j) x.segment<3>(body.dof(3 + 3 * j)) = A.col(j);
}

/// sum m y over the soft vertices and the bodies' centres (translational masses m).
Eigen::Vector3d mass_sum(const Model& m, const Eigen::VectorXd& y) {
  const Eigen::VectorXd mass = m.translational_mass();
  Eigen::Vector3d s = Eigen::Vector3d::Zero();
  for (int a = 0; a < m.n_verts; ++a) s += mass[3 * a] * y.segment<3>(3 * a);
  return s;
}

/// The shape's signed distance at the soft vertex v, body b at positions x.
double body_distance(const Model& m, int b, int v, const Eigen::VectorXd& x, const Obstacle& o) {
  const RigidBody& body = m.rigid_bodies[b];
  const Eigen::Vector3d Y = body.matrix(x).transpose() * (x.segment<3>(3 * v) - body.position(x));
  return o.distance(Y.data(), 3);
}

/// Sum over the soft vertices of the term's force -dW/dx [N].
Eigen::Vector3d soft_force(const Model& m, const std::string& term, const Eigen::VectorXd& x) {
  const EnergyTerm& t = *m.terms[m.find_term(term)];
  TermEvaluation e(t, x);
  const Eigen::VectorXd g = term_gradient(t, e.data(), x);
  Eigen::Vector3d f = Eigen::Vector3d::Zero();
  for (int v = 0; v < m.n_mesh_verts(); ++v) f -= g.segment<3>(3 * v);
  return f;
}

}  // namespace

TEST_CASE("rigid/coupling: the attachment's derivatives, and zero energy under rigid motions") {
  auto m = std::make_shared<Model>();
  add_block(*m, {1, 1, 1}, {0.1, 0.1, 0.1}, Eigen::Vector3d::Zero());
  RigidBodySpec bone = box_spec("bone", {0.04, 0.03, 0.05}, 1000.0);
  bone.position = {0.05, 0.06, 0.04};
  bone.rotation = rotation(0.5, {1, 2, 3});
  add_rigid_body(*m, bone);
  add_attachment(*m, "grip", 0, {0, 3, 5, 6, 7}, 1e3);
  REQUIRE(m->terms.at(1)->name() == "attachment:grip");
  const EnergyTerm& term = *m->terms[1];
  // Moved rigidly as a whole, the springs stay at rest: W = 0 and g = 0.
  const Eigen::Matrix3d R = rotation(1.1, {-1, 0.3, 2});
  const Eigen::Vector3d c(0.3, -0.2, 0.5);
  Eigen::VectorXd x = m->X;
  for (int v = 0; v < 8; ++v) x.segment<3>(3 * v) = R * m->X.segment<3>(3 * v) + c;
  set_pose(*m, 0, R * m->rigid_bodies[0].position(m->X) + c, R * m->rigid_bodies[0].matrix(m->X),
           x);
  TermEvaluation at(term, m->X);
  CHECK(term.value(at.data(), x) < 1e-24);
  CHECK(term_gradient(term, at.data(), x).norm() < 1e-11);
  // Deformed, turned and sheared: derivatives (closed form and AD) against differences.
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int i = 0; i < x.size(); ++i) x[i] += 0.01 * u(gen);
  check_term(term, m->X, 0.0, x);
}

namespace {

/// A shape's surface point S and its outward normal n (body frame).
struct SurfacePoint {
  Eigen::Vector3d S, n;
};

/// Eight points on each shape's surface: faces, edges and corners of a box, spread over a
/// sphere, on a capsule's cylinder and caps, on a cylinder's side and flat faces.
std::vector<SurfacePoint> surface_points(const Shape& shape) {
  std::vector<SurfacePoint> pts;
  if (const auto* box = dynamic_cast<const Box*>(&shape)) {
    const Eigen::Vector3d h = box->half_extents();
    pts = {{{0.03, h.y(), -0.02}, Eigen::Vector3d::UnitY()},
           {{-h.x(), 0.01, 0.03}, -Eigen::Vector3d::UnitX()},
           {{0.02, -0.01, h.z()}, Eigen::Vector3d::UnitZ()},
           {{-0.04, -h.y(), 0.01}, -Eigen::Vector3d::UnitY()},
           {{h.x(), h.y(), 0.0}, Eigen::Vector3d(1, 1, 0).normalized()},
           {{0.01, -h.y(), -h.z()}, Eigen::Vector3d(0, -1, -1).normalized()},
           {{h.x(), -h.y(), h.z()}, Eigen::Vector3d(1, -1, 1).normalized()},
           {{-h.x(), h.y(), -h.z()}, Eigen::Vector3d(-1, 1, -1).normalized()}};
  } else if (const auto* cylinder = dynamic_cast<const Cylinder*>(&shape)) {
    const double r = cylinder->radius(), half = 0.5 * cylinder->length();
    for (int k = 0; k < 8; ++k) {
      const double a = 0.9 * k + 0.3;
      const Eigen::Vector3d radial(std::cos(a), 0.0, std::sin(a));
      if (k < 4)  // on the side
        pts.push_back({Eigen::Vector3d(0.0, half * (0.7 - 0.4 * k), 0.0) + r * radial, radial});
      else  // inside the rim of alternate faces
        pts.push_back(
            {(0.3 + 0.15 * (k - 4)) * r * radial + Eigen::Vector3d(0.0, k % 2 ? half : -half, 0.0),
             Eigen::Vector3d(0.0, k % 2 ? 1.0 : -1.0, 0.0)});
    }
  } else {
    const auto* capsule = dynamic_cast<const Capsule*>(&shape);
    const double r = capsule ? capsule->radius() : dynamic_cast<const Sphere&>(shape).radius(),
                 half = capsule ? 0.5 * capsule->length() : 0.0;
    for (int k = 0; k < 8; ++k) {
      const double a = 0.9 * k + 0.3;
      // Capsules: k < 4 on the cylinder (n normal to y), the rest on alternate caps.
      Eigen::Vector3d n(std::cos(a), half > 0 && k < 4 ? 0.0 : std::sin(2.1 * k + 0.5),
                        std::sin(a));
      n.normalize();
      const double y = half > 0 && k < 4 ? half * (0.7 - 0.4 * k) : (n.y() > 0 ? half : -half);
      pts.push_back({Eigen::Vector3d(0.0, y, 0.0) + r * n, n});
    }
  }
  return pts;
}

}  // namespace

TEST_CASE("rigid/coupling: shape contact derivatives, sliding and sticking, every shape") {
  RigidBodySpec specs[4] = {box_spec("box", {0.2, 0.1, 0.16}, 800.0),
                            sphere_spec("ball", 0.05, 800.0, Eigen::Vector3d::Zero()),
                            box_spec("capsule", {1, 1, 1}, 800.0),
                            box_spec("cylinder", {1, 1, 1}, 800.0)};
  specs[2].shape = std::make_shared<Capsule>("", Eigen::Vector3d::Zero(), 0.12, 0.04);
  specs[3].shape = std::make_shared<Cylinder>("", Eigen::Vector3d::Zero(), 0.12, 0.05);
  for (const RigidBodySpec& spec : specs)
    for (const ContactModel kind : {ContactModel::Barrier, ContactModel::Penalty}) {
      const bool barrier = kind == ContactModel::Barrier;
      INFO(spec.name << (barrier ? ", barrier" : ", penalty"));
      auto m = std::make_shared<Model>();
      add_block(*m, {1, 1, 1}, {0.1, 0.1, 0.1}, {2.0, 0.0, 0.0});  // far from the body at rest
      add_rigid_body(*m, spec);
      ShapeContactOptions o;
      o.model = kind;
      o.friction = 0.4;
      o.friction_velocity = 0.1;  // eps_v dt = 1e-3 m, far above the difference steps
      add_shape_contact(*m, o);
      REQUIRE(m->terms.at(1)->name() == "shape_contact");
      // At the start of the step: the body turned, each vertex near its surface point (gaps
      // within dhat; the penalty's also inside, except at the box's edges and corners). Over the
      // step: the body moves and turns, each vertex slides 5 mm along the tangent plane or sticks
      // (0.1 mm).
      const std::vector<SurfacePoint> pts = surface_points(*m->rigid_bodies[0].shape);
      const Eigen::Vector3d p_n(0.1, 0.2, -0.1), p(0.102, 0.199, -0.099);
      const Eigen::Matrix3d A_n = rotation(0.4, {1, -2, 1}), A = rotation(0.01, {3, 1, 2}) * A_n;
      Eigen::VectorXd x_prev = m->X, x = m->X;
      set_pose(*m, 0, p_n, A_n, x_prev);
      set_pose(*m, 0, p, A, x);
      for (int v = 0; v < 8; ++v) {
        const double inside[8] = {-2.5e-3, -1.5e-3, -8e-4, -3e-4, 2e-4, 6e-4, -2e-3, -5e-4};
        const bool edge = dynamic_cast<const Box*>(spec.shape.get()) && v >= 4;  // or corner
        const double gap = barrier || edge ? 3e-4 + 8e-5 * v : inside[v];
        const Eigen::Vector3d Y = pts[v].S + gap * pts[v].n;
        const Eigen::Vector3d t = pts[v].n.cross(Eigen::Vector3d(1, 2, 3)).normalized();
        x_prev.segment<3>(3 * v) = p_n + A_n * Y;
        x.segment<3>(3 * v) = p + A * (Y + (v % 2 ? 5e-3 : 1e-4) * t);
      }
      check_term(*m->terms[1], x_prev, 0.01, x);
    }
}

TEST_CASE("rigid/coupling: a soft block on a spinning bone conserves momentum in free flight") {
  auto m = std::make_shared<Model>();
  add_block(*m, {3, 3, 3}, {0.09, 0.09, 0.09}, Eigen::Vector3d::Zero());
  const Eigen::Vector3d c(0.045, 0.045, 0.045);
  RigidBodySpec bone = box_spec("bone", {0.04, 0.04, 0.04}, 2000.0);
  bone.position = c;
  add_rigid_body(*m, bone);
  add_elastic_terms(*m);
  add_rigidity_term(*m);
  std::vector<int> inner;  // the 8 interior vertices, inside the bone
  for (int v = 0; v < m->n_mesh_verts(); ++v)
    if ((m->X.segment<3>(3 * v) - c).lpNorm<Eigen::Infinity>() < 0.02) inner.push_back(v);
  REQUIRE(inner.size() == 8);
  add_attachment(*m, "bone", 0, inner, 1e5);
  Simulator sim(m, rigid_options(0.01));
  State s = sim.rest_state();
  const Eigen::Vector3d v0(0.5, 1.0, -0.3), omega(2.0, -3.0, 5.0);
  for (int v = 0; v < m->n_mesh_verts(); ++v)
    s.v.segment<3>(3 * v) = v0 + omega.cross(Eigen::Vector3d(s.x.segment<3>(3 * v) - c));
  set_rigid_velocity(*m, 0, v0, omega, s.x, s.v);
  const double M = m->translational_mass().sum() / 3.0;
  const Eigen::Vector3d P0 = mass_sum(*m, s.v), c0 = mass_sum(*m, s.x) / M;
  const RigidBody& body = m->rigid_bodies[0];
  double p_err = 0.0, c_err = 0.0, grip = 0.0;
  for (int n = 0; n < 20; ++n) {
    REQUIRE(sim.step(s).converged());
    p_err = std::max(p_err, (mass_sum(*m, s.v) - P0).norm() / P0.norm());
    c_err = std::max(c_err, (mass_sum(*m, s.x) / M - c0 - s.t * P0 / M).norm());
    for (int v : inner) {
      const Eigen::Vector3d X = body.body_point(m->X, m->X.segment<3>(3 * v));
      grip = std::max(grip, (s.x.segment<3>(3 * v) - body.point(s.x, X)).norm());
    }
  }
  const double angle = Eigen::AngleAxisd(Eigen::Matrix3d(body.matrix(s.x))).angle();
  MESSAGE("momentum error " << p_err << " (relative), centre of mass off its line by " << c_err
                            << " m, bone turned " << angle << " rad, attached vertices within "
                            << grip << " m of their bone points");
  CHECK(p_err < 1e-12);
  CHECK(c_err < 1e-12);
  CHECK(angle > 1.0);  // |omega| t = 1.23 rad
  CHECK(grip < 1e-3);
}

namespace {

/// A 0.1 x 0.05 x 0.1 m block (2 x 1 x 2 cells) on (penalty) or 0.5 mm above a kinematic box (its
/// top at y = 0), under gravity, with shape contact of the given model; two bottom vertices are
/// held horizontally (a static problem needs it: nothing else resists sliding or turning).
std::shared_ptr<Model> block_on_table(ContactModel kind) {
  auto m = std::make_shared<Model>();
  // The penalty's block starts touching: its contact holds it up in the first Newton step.
  const double gap = kind == ContactModel::Barrier ? 5e-4 : 0.0;
  add_block(*m, {2, 1, 2}, {0.1, 0.05, 0.1}, {0.0, gap, 0.0});
  RigidBodySpec table = box_spec("table", {0.3, 0.1, 0.3}, 1000.0);
  table.position = {0.05, -0.05, 0.05};
  table.motion = KinematicGroup{};
  add_rigid_body(*m, table);
  add_elastic_terms(*m);
  add_gravity(*m, Eigen::Vector3d(0.0, -kG, 0.0));
  ShapeContactOptions o;
  o.model = kind;
  o.stiffness = kind == ContactModel::Barrier ? 1e4 : 1e5;
  o.activation_distance = kind == ContactModel::Barrier ? 1e-3 : 1e-5;
  add_shape_contact(*m, o);
  // Bottom vertices (i, 0, k) are i + 3 * 2 * k: hold (1, 0, 1) in x and z, (2, 0, 1) in z.
  KinematicGroup roller;
  roller.name = "roller";
  roller.verts = {7};
  roller.axes = {true, false, true};
  m->kinematic.push_back(roller);
  roller.name = "guide";
  roller.verts = {8};
  roller.axes = {false, false, true};
  m->kinematic.push_back(roller);
  return m;
}

}  // namespace

TEST_CASE("rigid/coupling: the contact forces carry a block resting on a kinematic box") {
  for (const ContactModel kind : {ContactModel::Barrier, ContactModel::Penalty}) {
    const bool barrier = kind == ContactModel::Barrier;
    INFO((barrier ? "barrier" : "penalty"));
    auto m = block_on_table(kind);
    SimulationOptions opt = rigid_options(0.01);
    opt.newton.tolerance = 1e-12;
    Simulator sim(m, opt);
    State s = sim.rest_state();
    REQUIRE(sim.solve_static(s).converged());
    const double weight = kG * m->translational_mass().head(3 * m->n_mesh_verts()).sum() / 3.0;
    const Eigen::Vector3d f = soft_force(*m, "shape_contact", s.x);
    double lowest = 1e300;
    const Box top("table", Eigen::Vector3d::Zero(), Eigen::Vector3d(0.15, 0.05, 0.15));
    for (int v = 0; v < m->n_mesh_verts(); ++v)
      lowest = std::min(lowest, body_distance(*m, 0, v, s.x, top));
    MESSAGE("contact force " << f.transpose() << " N, weight " << weight << " N, relative error "
                             << std::abs(f.y() - weight) / weight << "; lowest vertex at " << lowest
                             << " m");
    CHECK(std::abs(f.y() - weight) < 1e-8 * weight);
    CHECK(f.head<1>().norm() + std::abs(f.z()) < 1e-8 * weight);
    if (barrier) CHECK(lowest > 0.0);
    if (!barrier) CHECK(lowest < 0.0);  // a penalty carries weight by penetrating
  }
}

TEST_CASE("rigid/coupling: a moving paddle pushes a block at its speed and never lets it in") {
  // A frictionless ground, drag alpha M v: in steady contact the paddle pushes with alpha m V.
  auto m = std::make_shared<Model>();
  add_block(*m, {2, 1, 2}, {0.1, 0.05, 0.1}, {0.0, 5e-4, 0.0});
  // The integrator puts the paddle at its end-of-step place before Newton starts: its step
  // V dt (0.2 mm) stays well below the ~1 mm gap that the barrier keeps, or the start would be
  // infeasible.
  const double V = 0.02, alpha = 10.0;
  RigidBodySpec paddle = box_spec("paddle", {0.02, 0.1, 0.2}, 1000.0);
  paddle.position = {-0.0149, 0.03, 0.05};  // its face 4.9 mm from the block, reaching below ground
  KinematicGroup motion;
  motion.motion = KinematicGroup::Motion::Translate;
  motion.velocity = {V, 0.0, 0.0};
  paddle.motion = motion;
  add_rigid_body(*m, paddle);
  add_elastic_terms(*m);
  add_gravity(*m, Eigen::Vector3d(0.0, -kG, 0.0));
  add_damping(*m, alpha, 0.0);
  ContactOptions ground;
  ground.obstacles = {
      std::make_shared<HalfSpace>("ground", Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitY())};
  add_contact(*m, ground);
  add_shape_contact(*m, ShapeContactOptions{});
  REQUIRE(m->find_term("contact") >= 0);
  Simulator sim(m, rigid_options(0.01));
  State s = sim.rest_state();
  const Box face("paddle", Eigen::Vector3d::Zero(), Eigen::Vector3d(0.01, 0.05, 0.1));
  double closest = 1e300;
  for (int n = 0; n < 100; ++n) {
    REQUIRE(sim.step(s).converged());
    for (int v = 0; v < m->n_mesh_verts(); ++v)
      closest = std::min(closest, body_distance(*m, 0, v, s.x, face));
  }
  const double mass = m->translational_mass().head(3 * m->n_mesh_verts()).sum() / 3.0;
  double vx = 0.0;  // the block's mean velocity
  for (int v = 0; v < m->n_mesh_verts(); ++v) vx += m->mass[3 * v] * s.v[3 * v] / mass;
  const double push = soft_force(*m, "shape_contact", s.x).x();
  MESSAGE("block speed " << vx << " m/s (paddle " << V << ", relative error " << vx / V - 1
                         << "); push " << push << " N (alpha m V: relative error "
                         << push / (alpha * mass * V) - 1 << "); closest approach " << closest
                         << " m");
  CHECK(closest > 0.0);
  CHECK(closest < 1e-3);  // it did push
  CHECK(vx == doctest::Approx(V).epsilon(1e-7));
  CHECK(push == doctest::Approx(alpha * mass * V).epsilon(1e-7));
}

TEST_CASE("rigid/coupling: a block hitting a free ball off-centre with friction keeps momentum") {
  auto m = std::make_shared<Model>();
  add_block(*m, {2, 2, 2}, {0.06, 0.06, 0.06}, Eigen::Vector3d::Zero());
  // The ball's centre 1 cm above the line of the block's face-centre vertex: a glancing hit.
  add_rigid_body(*m, sphere_spec("ball", 0.03, 1000.0, {0.095, 0.04, 0.03}));
  add_elastic_terms(*m);
  add_rigidity_term(*m);
  ShapeContactOptions o;
  o.friction = 0.5;
  add_shape_contact(*m, o);
  Simulator sim(m, rigid_options(1e-3));
  State s = sim.rest_state();
  for (int v = 0; v < m->n_mesh_verts(); ++v) s.v[3 * v] = 1.0;
  const Eigen::Vector3d P0 = mass_sum(*m, s.v);
  const Sphere ball("ball", Eigen::Vector3d::Zero(), 0.03);
  double p_err = 0.0, closest = 1e300;
  for (int n = 0; n < 40; ++n) {
    REQUIRE(sim.step(s).converged());
    p_err = std::max(p_err, (mass_sum(*m, s.v) - P0).norm() / P0.norm());
    for (int v = 0; v < m->n_mesh_verts(); ++v)
      closest = std::min(closest, body_distance(*m, 0, v, s.x, ball));
  }
  const Eigen::Vector3d P_ball = linear_momentum(*m, 0, s.v);
  const Eigen::Vector3d spin = m->rigid_bodies[0].angular_velocity(s.x, s.v);
  MESSAGE("momentum error " << p_err << " (relative); the ball took " << P_ball.transpose() / P0.x()
                            << " of the momentum and spins at " << spin.transpose()
                            << " rad/s; closest approach " << closest << " m");
  CHECK(p_err < 1e-12);
  CHECK(P_ball.x() > 0.3 * P0.x());
  CHECK(P_ball.y() > 0.05 * P0.x());  // pushed up and away along the contact normal
  CHECK(spin.z() > 1.0);              // friction drags its lower left side down: it turns about +z
  CHECK(closest > 0.0);
}

TEST_CASE("rigid/coupling: refused attachments and shape contacts name the problem") {
  auto m = std::make_shared<Model>();
  add_block(*m, {1, 1, 1}, {0.1, 0.1, 0.1}, Eigen::Vector3d::Zero());
  add_rigid_body(*m, sphere_spec("ball", 0.02, 1000.0, {0.05, 0.3, 0.05}));
  RigidBodySpec mesh = box_spec("rock", {1, 1, 1}, 1000.0);
  Eigen::MatrixXd V;
  Eigen::MatrixXi F;
  box_spec("", {0.1, 0.1, 0.1}, 1.0).shape->surface_mesh(3, V, F);
  mesh.shape = std::make_shared<TriangleMesh>("", V, F);
  mesh.position = {0.5, 0.5, 0.5};
  add_rigid_body(*m, mesh);
  const auto refuse_attachment = [&](int body, std::vector<int> verts, double k, const char* msg) {
    CHECK_THROWS_WITH_AS(add_attachment(*m, "grip", body, std::move(verts), k),
                         doctest::Contains(msg), InputError);
  };
  refuse_attachment(2, {0}, 1e3, "attachment 'grip': rigid body 2 is not in the model (it has 2)");
  refuse_attachment(-1, {0}, 1e3, "attachment 'grip': rigid body -1 is not in the model");
  refuse_attachment(0, {}, 1e3, "attachment 'grip': no vertices to attach");
  refuse_attachment(0, {1, 8}, 1e3,
                    "attachment 'grip': vertex 8 is not a vertex of the model's deformable bodies "
                    "(0 .. 7)");
  refuse_attachment(0, {3, 1, 3}, 1e3, "attachment 'grip': vertex 3 is listed twice");
  refuse_attachment(0, {1}, 0.0, "attachment 'grip': the stiffness 0 N/m must be positive");
  refuse_attachment(0, {1}, NAN, "the stiffness nan N/m must be positive");
  add_attachment(*m, "grip", 0, {1}, 1e3);
  refuse_attachment(1, {2}, 1e3, "attachment 'grip': another attachment has this name");
  const auto refuse_contact = [&](auto change, const char* msg) {
    ShapeContactOptions o;
    change(o);
    CHECK_THROWS_WITH_AS(add_shape_contact(*m, o), doctest::Contains(msg), InputError);
  };
  using O = ShapeContactOptions;
  refuse_contact([](O& o) { o.bodies = {1}; },
                 "shape contact: rigid body 'rock' has a mesh shape, which shape contact does "
                 "not support");
  refuse_contact([](O& o) { o.bodies = {3}; },
                 "shape contact: rigid body 3 is not in the model (it has 2)");
  refuse_contact([](O& o) { o.bodies = {0, 0}; }, "shape contact: rigid body 0 is listed twice");
  refuse_contact([](O& o) { o.vertices = {8}; },
                 "shape contact: vertex 8 is not a vertex of the model's deformable bodies");
  refuse_contact([](O& o) { o.vertices = {2, 2}; }, "shape contact: vertex 2 is listed twice");
  refuse_contact([](O& o) { o.stiffness = -1.0; },
                 "shape contact: the stiffness -1 N/m must be positive and finite");
  refuse_contact([](O& o) { o.friction = -0.1; },
                 "shape contact: the friction coefficient -0.1 must be finite and >= 0");
  refuse_contact([](O& o) { o.activation_distance = 0.0; },
                 "shape contact: the activation distance 0 m must be positive");
  refuse_contact([](O& o) { o.friction_velocity = NAN; },
                 "shape contact: the friction velocity nan m/s must be positive");
  // A vertex moved into the ball at rest.
  m->X.segment<3>(3 * 7) = Eigen::Vector3d(0.05, 0.29, 0.05);
  refuse_contact([](O&) {},
                 "shape contact: vertex 7 is not outside rigid body 'ball' at rest (signed "
                 "distance -0.01 m): barrier contact needs a penetration-free start");
  // Penalty contact starts anywhere; the mesh body is left out when no body is named.
  ShapeContactOptions penalty;
  penalty.model = ContactModel::Penalty;
  const size_t n_terms = m->terms.size();
  add_shape_contact(*m, penalty);
  REQUIRE(m->terms.size() == n_terms + 1);
  const auto& term = dynamic_cast<const StencilTerm&>(*m->terms.back());
  CHECK(term.n_stencils() == 8);  // the ball's pairs only
  Eigen::VectorXd p = term.default_parameters();
  p[0] = 0.0;
  CHECK_THROWS_WITH_AS(term.validate_parameters(p.data()),
                       doctest::Contains("shape contact stiffness must be positive"), InputError);
}
