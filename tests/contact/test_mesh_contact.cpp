// Mesh contact's pieces: the collision surface, the broad phase against brute force, and the
// term's derivatives (barrier and lagged friction) against central differences.
#include <doctest/doctest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <set>

#include "contact/broad_phase.hpp"
#include "contact/mesh_contact_term.hpp"
#include "softgrad/mesh_contact.hpp"
#include "softgrad/trajectory.hpp"
#include "support/rigid_models.hpp"
#include "support/term_derivatives.hpp"
#include "support/term_evaluation.hpp"
#include "support/tiny_models.hpp"

namespace softgrad::test {
namespace {

// Two soft boxes: a (0.1 m cube, 2 cells a side) and b above it, turned by `angle` about the
// vertical and lowered to `gap` above a's top (b's bottom face stays level).
std::shared_ptr<Model> stacked_boxes(double gap, double angle) {
  auto model = box_model("stable_neo_hookean", 1e4, 0.3, 1000.0, {2, 2, 2}, {0.1, 0.1, 0.1});
  Mesh top = box_tet_mesh(2, 1, 2, {0.08, 0.05, 0.08}, {-0.04, 0.0, -0.04});
  const Eigen::Matrix3d R = Eigen::AngleAxisd(angle, Eigen::Vector3d::UnitY()).toRotationMatrix();
  for (int v = 0; v < top.n_verts(); ++v)
    top.X.row(v) =
        (R * top.X.row(v).transpose() + Eigen::Vector3d(0.05, 0.1 + gap, 0.05)).transpose();
  const auto mat = find_material("stable_neo_hookean");
  Model& m = *model;
  m.terms.clear();
  add_body(m, "top", top, mat, material_params(*mat, 1e4, 0.3), 1000.0);
  add_elastic_terms(m);
  return model;
}

// The soft box of stacked_boxes with two rigid boxes in place of the soft top one: "a" 0.5 mm
// above the soft box, turned by `angle`, and "b" 0.5 mm above a, turned by twice that.
std::shared_ptr<Model> soft_box_and_rigid_boxes(double angle) {
  auto model = box_model("stable_neo_hookean", 1e4, 0.3, 1000.0, {2, 2, 2}, {0.1, 0.1, 0.1});
  Model& m = *model;
  m.terms.clear();
  RigidBodySpec a = box_spec("a", {0.06, 0.04, 0.06}, 500.0);
  a.position = Eigen::Vector3d(0.05, 0.1 + 5e-4 + 0.02, 0.05);
  a.rotation = Eigen::AngleAxisd(angle, Eigen::Vector3d::UnitY()).toRotationMatrix();
  RigidBodySpec b = box_spec("b", {0.04, 0.04, 0.04}, 500.0);
  b.position = Eigen::Vector3d(0.05, 0.1 + 5e-4 + 0.04 + 5e-4 + 0.02, 0.05);
  b.rotation = Eigen::AngleAxisd(2.0 * angle, Eigen::Vector3d::UnitY()).toRotationMatrix();
  add_rigid_body(m, a);
  add_rigid_body(m, b);
  add_elastic_terms(m);
  return model;
}

// The term's Hessian products against central differences of its gradient, and the adjoint's
// products with (stiffness, friction) and the previous positions against differences of
// gradients; the tangent product is their transpose. At x, with the step started at x_prev.
void check_products(const EnergyTerm& term, TermData& data, const Eigen::VectorXd& x_prev,
                    const Eigen::VectorXd& x) {
  // Hessian products against central differences of the gradient.
  for (int k = 0; k < 2; ++k) {
    const Eigen::VectorXd u = Eigen::VectorXd::NullaryExpr(
        x.size(), [k](Eigen::Index i) { return std::cos(0.9 * static_cast<double>(i) + k); });
    Eigen::VectorXd hu = Eigen::VectorXd::Zero(x.size()), gp = hu, gm = hu;
    term.add_hessian_vector_product(data, x, u, hu);
    const double h = 1e-8;
    term.value_and_gradient(data, x + h * u, gp);
    term.value_and_gradient(data, x - h * u, gm);
    const Eigen::VectorXd fd = (gp - gm) / (2 * h);
    CHECK(hu.norm() > 0.0);
    CHECK((hu - fd).norm() <= 1e-5 * hu.norm());
  }

  // lambda . d(dW/dx)/d(stiffness, friction) and /dx_prev against differences of gradients.
  const Eigen::VectorXd lambda = Eigen::VectorXd::NullaryExpr(
      x.size(), [](Eigen::Index i) { return std::cos(0.3 * static_cast<double>(i)); });
  Eigen::VectorXd p_bar = Eigen::VectorXd::Zero(2), x_prev_bar = Eigen::VectorXd::Zero(x.size());
  term.pull_back(data, x, lambda, {p_bar.data(), &x_prev_bar});
  const auto gradient_at = [&](const Eigen::VectorXd& xp, const Eigen::VectorXd& p) {
    TermEvaluation e(term, xp, 0.01, p);
    Eigen::VectorXd g = Eigen::VectorXd::Zero(x.size());
    term.value_and_gradient(e.data(), x, g);
    return g;
  };
  const Eigen::VectorXd p0 = term.default_parameters();
  for (int k = 0; k < 2; ++k) {
    Eigen::VectorXd pp = p0, pm = p0;
    const double h = 1e-4 * p0[k];
    pp[k] += h;
    pm[k] -= h;
    const double fd = lambda.dot(gradient_at(x_prev, pp) - gradient_at(x_prev, pm)) / (2 * h);
    INFO("parameter " << k);
    CHECK(std::abs(fd) > 1e-6);
    CHECK(p_bar[k] == doctest::Approx(fd).epsilon(1e-6));
  }
  const Eigen::VectorXd dir = Eigen::VectorXd::NullaryExpr(
      x.size(), [](Eigen::Index i) { return std::sin(0.77 * static_cast<double>(i)); });
  const double h = 1e-9;
  const double fd =
      lambda.dot(gradient_at(x_prev + h * dir, p0) - gradient_at(x_prev - h * dir, p0)) / (2 * h);
  CHECK(std::abs(fd) > 1e-6);
  CHECK(x_prev_bar.dot(dir) == doctest::Approx(fd).epsilon(1e-5));
  // The tangent product is the transpose of the adjoint's.
  Eigen::VectorXd out = Eigen::VectorXd::Zero(x.size());
  const Eigen::Vector2d dp(0.3, -0.7);
  term.push_forward(data, x, {dp.data(), &dir}, out);
  CHECK(lambda.dot(out) == doctest::Approx(p_bar.dot(dp) + x_prev_bar.dot(dir)).epsilon(1e-10));
}

double signed_volume(const Eigen::VectorXd& X, const CollisionSurface& s) {
  double v = 0.0;
  for (const auto& f : s.faces) {
    const Eigen::Vector3d a = X.segment<3>(3 * f[0]), b = X.segment<3>(3 * f[1]),
                          c = X.segment<3>(3 * f[2]);
    v += a.dot(b.cross(c)) / 6.0;
  }
  return v;
}

}  // namespace

TEST_CASE("mesh contact: a box's surface is closed, outward, and its edges are the faces'") {
  auto m = box_model("stable_neo_hookean", 1e4, 0.3, 1000.0, {3, 2, 2}, {0.3, 0.2, 0.1});
  const CollisionSurface s = extract_surface(*m);
  // 2 triangles per boundary square: 2 (3*2 + 2*2 + 3*2) squares.
  CHECK(s.faces.size() == 2 * 2 * (6 + 4 + 6));
  CHECK(s.edges.size() * 2 == s.faces.size() * 3);                                   // closed
  CHECK(s.vertices.size() - s.edges.size() + s.faces.size() == 2);                   // a sphere
  CHECK(signed_volume(m->X, s) == doctest::Approx(0.3 * 0.2 * 0.1).epsilon(1e-12));  // outward
  for (int v : s.vertices) {  // every surface vertex lies on the box's boundary
    const Eigen::Vector3d p = m->X.segment<3>(3 * v);
    const bool on = p.x() < 1e-12 || p.x() > 0.3 - 1e-12 || p.y() < 1e-12 || p.y() > 0.2 - 1e-12 ||
                    p.z() < 1e-12 || p.z() > 0.1 - 1e-12;
    CHECK(on);
  }
  // 2D: a rectangle's boundary, counter-clockwise (shoelace area).
  auto r = rectangle_model("neo_hookean", 1e4, 0.3, 1000.0, {3, 2}, {0.3, 0.2});
  const CollisionSurface s2 = extract_surface(*r);
  CHECK(s2.edges.size() == 10);
  double area = 0.0;
  for (const auto& e : s2.edges)
    area += 0.5 * (r->X[2 * e[0]] * r->X[2 * e[1] + 1] - r->X[2 * e[1]] * r->X[2 * e[0] + 1]);
  CHECK(area == doctest::Approx(0.06).epsilon(1e-12));
}

TEST_CASE("mesh contact: the broad phase finds every pair within reach that brute force finds") {
  auto m = stacked_boxes(4e-3, 0.4);
  const CollisionSurface s = extract_surface(*m);
  Eigen::VectorXd x = m->X;
  for (int i = 0; i < x.size(); ++i) x[i] += 2e-3 * std::sin(1.7 * i);
  Eigen::VectorXd dx = Eigen::VectorXd::NullaryExpr(
      x.size(), [](Eigen::Index i) { return 3e-3 * std::cos(0.9 * i); });
  // Static boxes, swept boxes, and a sweep with one vertex flung 10 m (its boxes span more
  // cells than the grid holds per box: every query meets them).
  for (const int variant : {0, 1, 2}) {
    const bool swept = variant > 0;
    if (variant == 2) dx.segment<3>(3 * s.vertices[7]) << 10.0, -3.0, 2.0;
    collision::BroadPhase broad;
    std::vector<collision::Candidate> found;
    const double r = 5e-3;
    broad.find(s, true, x, swept ? &dx : nullptr, r, found);
    const std::set<collision::Candidate> set(found.begin(), found.end());
    CHECK(set.size() == found.size());  // no duplicates
    // Brute force: boxes over the swept vertices, grown by r / 2 each.
    const auto box = [&](const std::vector<int>& verts) {
      Eigen::Vector3d lo = Eigen::Vector3d::Constant(1e300), hi = -lo;
      for (int v : verts) {
        const Eigen::Vector3d p = x.segment<3>(3 * v);
        const Eigen::Vector3d q = swept ? Eigen::Vector3d(p + dx.segment<3>(3 * v)) : p;
        lo = lo.cwiseMin(p.cwiseMin(q));
        hi = hi.cwiseMax(p.cwiseMax(q));
      }
      return std::make_pair(Eigen::Vector3d(lo.array() - r / 2),
                            Eigen::Vector3d(hi.array() + r / 2));
    };
    const auto meet = [](auto a, auto b) {
      return (a.first.array() <= b.second.array()).all() &&
             (b.first.array() <= a.second.array()).all();
    };
    int expected = 0;
    for (size_t i = 0; i < s.vertices.size(); ++i)
      for (size_t f = 0; f < s.faces.size(); ++f) {
        const auto& t = s.faces[f];
        if (t[0] == s.vertices[i] || t[1] == s.vertices[i] || t[2] == s.vertices[i]) continue;
        if (!meet(box({s.vertices[i]}), box({t[0], t[1], t[2]}))) continue;
        ++expected;
        CHECK(set.count({collision::Candidate::Kind::PointTriangle, static_cast<int>(i),
                         static_cast<int>(f)}) == 1);
      }
    for (size_t a = 0; a < s.edges.size(); ++a)
      for (size_t b = a + 1; b < s.edges.size(); ++b) {
        const auto &ea = s.edges[a], &eb = s.edges[b];
        if (ea[0] == eb[0] || ea[0] == eb[1] || ea[1] == eb[0] || ea[1] == eb[1]) continue;
        if (!meet(box({ea[0], ea[1]}), box({eb[0], eb[1]}))) continue;
        ++expected;
        CHECK(set.count({collision::Candidate::Kind::EdgeEdge, static_cast<int>(a),
                         static_cast<int>(b)}) == 1);
      }
    CHECK(static_cast<int>(found.size()) == expected);
    CHECK(expected > 100);  // the boxes are close: the test has pairs to find
  }
}

TEST_CASE("mesh contact: barrier and friction derivatives match central differences") {
  // The top box 0.5 mm above the bottom one, turned (edges cross at angles: point-triangle and
  // edge-edge pairs), then every vertex nudged; friction slides (0.3 mm) or sticks.
  struct Case {
    double angle, friction_velocity;
  };
  for (const Case c : {Case{0.35, 0.1}, Case{0.0, 0.01}, Case{0.35, 0.01}}) {
    INFO("angle " << c.angle << ", eps_v " << c.friction_velocity);
    auto m = stacked_boxes(5e-4, c.angle);
    MeshContactOptions o;
    o.stiffness = 1e3;
    o.friction = 0.4;
    // eps_v dt = 1e-3 m: all slips in the smoothed band; 1e-4 m: some slide (3e-4 m).
    o.friction_velocity = c.friction_velocity;
    add_mesh_contact(*m, o);
    const EnergyTerm& term = *m->terms.back();
    REQUIRE(term.name() == "mesh_contact");
    Eigen::VectorXd x_prev = m->X, x = m->X;
    for (int i = 0; i < x.size(); ++i) x_prev[i] += 5e-5 * std::sin(2.3 * i);
    for (int v = 0; v < m->n_verts; ++v) {
      x[3 * v] = x_prev[3 * v] + (v % 2 ? 3e-4 : 2e-5);
      x[3 * v + 1] = x_prev[3 * v + 1] + 4e-5 * std::cos(1.1 * v);
      x[3 * v + 2] = x_prev[3 * v + 2] - 1e-4;
    }
    TermEvaluation eval(term, x_prev, 0.01);
    CHECK(term.depends_on_previous_state(eval.data()));
    CHECK(std::isfinite(term.value(eval.data(), x)));
    CHECK(term.value(eval.data(), x) > 0.0);
    check_term_derivatives(term, eval.data(), x, m->n_verts, 3, 1e-9, 1e-8, 1e-5);
    check_products(term, eval.data(), x_prev, x);
  }
}

TEST_CASE("mesh contact: with rigid surfaces, derivatives match central differences") {
  // A rigid box on the soft box and another on it: soft-rigid and rigid-rigid pairs, whose
  // points move with the bodies' affine nodes (p + A X).
  auto m = soft_box_and_rigid_boxes(0.35);
  MeshContactOptions o;
  o.stiffness = 1e3;
  o.friction = 0.4;
  o.friction_velocity = 0.01;
  o.rigid_bodies = {0, 1};
  add_mesh_contact(*m, o);
  const auto& term = dynamic_cast<const MeshContactTerm<3>&>(*m->terms.back());
  const CollisionSurface& s = term.surface();
  CHECK(s.first_rigid_point == m->n_verts);
  CHECK(s.rigid_points.size() == 16);  // two boxes' corners
  CHECK(s.faces.size() == 48 + 24);    // the soft box's 6 x 4 squares, two boxes' 12
  Eigen::VectorXd x_prev = m->X, x = m->X;
  for (int i = 0; i < x.size(); ++i) x_prev[i] += 2e-5 * std::sin(2.3 * i);
  for (int v = 0; v < m->n_verts; ++v) {
    const double scale = v < m->n_mesh_verts() ? 1.0 : 0.1;  // rigid axes: points move by X da
    x[3 * v] = x_prev[3 * v] + scale * (v % 2 ? 3e-4 : 2e-5);
    x[3 * v + 1] = x_prev[3 * v + 1] + scale * 4e-5 * std::cos(1.1 * v);
    x[3 * v + 2] = x_prev[3 * v + 2] - scale * 1e-4;
  }
  TermEvaluation eval(term, x_prev, 0.01);
  // Both kinds of pairs are there.
  int soft_rigid = 0, rigid_rigid = 0;
  for (const auto& p : term.pairs(eval.data(), x)) {
    const bool first = p.v[0] >= s.first_rigid_point, last = p.v.back() >= s.first_rigid_point;
    if (first && last) ++rigid_rigid;
    if (first != last) ++soft_rigid;
  }
  MESSAGE(soft_rigid << " soft-rigid and " << rigid_rigid << " rigid-rigid pairs");
  CHECK(soft_rigid > 0);
  CHECK(rigid_rigid > 0);
  CHECK(term.depends_on_previous_state(eval.data()));
  check_term_derivatives(term, eval.data(), x, m->n_verts, 3, 1e-9, 1e-8, 1e-5);
  check_products(term, eval.data(), x_prev, x);
  // The CCD sees the rigid points move: a step that drives b down through a is cut before it.
  Eigen::VectorXd down = Eigen::VectorXd::Zero(x.size());
  down[3 * m->rigid_bodies[1].node + 1] = -0.01;
  const double t = term.max_step(eval.data(), m->X, down);
  MESSAGE("time of impact " << t);
  CHECK(t > 0.0);
  CHECK(t < 5e-4 / 0.01);
}

TEST_CASE("mesh contact: a long motion is swept in pieces up to the first impact") {
  // The top box moved down onto the bottom one by 1.5 cm (within one sweep: the boxes' edges
  // are 2.5-5 cm long), 50 m and 1e9 m (in pieces): the impact lies at the same distance along
  // the motion however long it is, and the line search's points up to the bound see the same
  // pairs as a fresh broad phase. Moved away, 50 m is swept whole (no bound) and 1e9 m is cut
  // where the last of 256 pieces ends. (A 200 m/s throw once spent 68 s of 2 steps in one
  // sweep's candidates.)
  auto m = stacked_boxes(4e-3, 0.4);
  add_mesh_contact(*m, {});
  const auto& term = dynamic_cast<const MeshContactTerm<3>&>(*m->terms.back());
  const Body& top = m->bodies[1];
  Eigen::VectorXd down = Eigen::VectorXd::Zero(m->X.size());
  for (int v = 0; v < top.mesh.n_verts(); ++v) down[3 * (top.vertex_offset + v) + 1] = -1.0;
  double reached = -1.0;
  for (const double length : {1.5e-2, 50.0, 1e9}) {
    CAPTURE(length);
    TermEvaluation eval(term, m->X, 0.01);
    const Eigen::VectorXd dx = length * down;
    const double t = term.max_step(eval.data(), m->X, dx);
    CHECK(t > 0.0);
    if (reached < 0.0) reached = t * length;
    CHECK(t * length == doctest::Approx(reached).epsilon(1e-9));  // the same impact
    const Eigen::VectorXd x = m->X + 0.9 * t * dx;  // a line search's point on the segment
    TermEvaluation fresh(term, m->X, 0.01);
    CHECK(term.value(eval.data(), x) == term.value(fresh.data(), x));
  }
  MESSAGE("impact after " << reached << " m of the motion (gap 4 mm)");
  CHECK(reached > 0.0);
  CHECK(reached < 4e-3);
  for (const double length : {50.0, 1e9}) {
    CAPTURE(length);
    TermEvaluation eval(term, m->X, 0.01);
    const Eigen::VectorXd dx = -length * down;
    const double t = term.max_step(eval.data(), m->X, dx);
    if (length == 50.0) CHECK(t == 1.0);
    if (length == 1e9) CHECK(t * length == doctest::Approx(256 * term.sweep_reach()).epsilon(1e-9));
    // Points past the first piece see the union of the pieces' candidates.
    for (const double at : {0.5 * t, 0.9 * t}) {
      const Eigen::VectorXd x = m->X + at * dx;
      TermEvaluation fresh(term, m->X, 0.01);
      CHECK(term.value(eval.data(), x) == term.value(fresh.data(), x));
    }
  }
}

TEST_CASE("mesh contact: bad options and rest states are reported") {
  auto m = stacked_boxes(5e-4, 0.3);
  MeshContactOptions o;
  o.stiffness = -1.0;
  CHECK_THROWS_WITH_AS(add_mesh_contact(*m, o), doctest::Contains("stiffness"), InputError);
  o = {};
  o.activation_distance = 0.06;  // wider than the cells (0.05 m): the body's own pairs
  CHECK_THROWS_WITH_AS(add_mesh_contact(*m, o), doctest::Contains("activation_distance"),
                       InputError);
  auto touching = stacked_boxes(0.0, 0.3);
  CHECK_THROWS_WITH_AS(add_mesh_contact(*touching, {}), doctest::Contains("touch or overlap"),
                       InputError);
  auto one = box_model("stable_neo_hookean", 1e4, 0.3, 1000.0, {1, 1, 1}, {0.1, 0.1, 0.1});
  o = {};
  o.self_contact = false;
  CHECK_THROWS_WITH_AS(add_mesh_contact(*one, o), doctest::Contains("two bodies"), InputError);
  o = {};
  o.min_gap = 2e-3;  // beyond dhat (1e-3)
  CHECK_THROWS_WITH_AS(add_mesh_contact(*m, o), doctest::Contains("min_gap"), InputError);
  o = {};
  o.max_stiffness_scale = 0.5;
  CHECK_THROWS_WITH_AS(add_mesh_contact(*m, o), doctest::Contains("max_stiffness_scale"),
                       InputError);
  // A state whose adaptive values do not fit the model's terms.
  auto ok = stacked_boxes(5e-4, 0.3);
  add_mesh_contact(*ok, {});
  const std::shared_ptr<const Model> model = ok;
  Simulator sim(model, {});
  Rollout r = rest_rollout(sim, 2);
  CHECK(r.initial.adaptive.size() == 2);
  r.initial.adaptive = Eigen::VectorXd::Ones(3);
  CHECK_THROWS_WITH_AS(simulate(sim, r), doctest::Contains("adaptive values"), InputError);
  r.initial.adaptive = Eigen::Vector2d(std::nan(""), 1e-3);
  CHECK_THROWS_WITH_AS(simulate(sim, r), doctest::Contains("adaptive values"), InputError);
  State s = sim.rest_state();
  s.adaptive = Eigen::VectorXd::Ones(5);
  CHECK_THROWS_WITH_AS(sim.step(s), doctest::Contains("adaptive values"), InputError);
}

}  // namespace softgrad::test
