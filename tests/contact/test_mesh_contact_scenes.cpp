// The mesh-contact scenes run to their end with no intersecting surface triangles at any step
// (an exact, independent test), and each does what physics says: momentum is conserved in a
// collision, a ball comes to rest where the static solution with the same barrier is, the
// folded rod's upper half lies on its lower half, the squeezed cube fills the plates' gap.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "contact/mesh_contact_term.hpp"
#include "softgrad/adjoint.hpp"
#include "softgrad/mesh_contact.hpp"
#include "softgrad/rigid_body.hpp"
#include "softgrad/scene.hpp"
#include "support/exact_intersections.hpp"
#include "support/rigid_models.hpp"
#include "support/term_evaluation.hpp"
#include "support/tiny_models.hpp"

namespace softgrad::test {
namespace {

std::string scene_text(const std::string& name) {
  std::ifstream in(std::filesystem::path(SOFTGRAD_SOURCE_DIR) / "scenes" / (name + ".json"));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Simulates the scene (text), checking every state for intersecting triangles.
Trajectory run_checked(const Scene& scene, double newton_tolerance = 0.0) {
  SimulationOptions options = scene.options;
  if (newton_tolerance > 0.0) options.newton.tolerance = newton_tolerance;
  Simulator sim(scene.model, options);
  const Trajectory t = simulate(sim, scene.rollout(sim));
  CHECK(t.converged());
  // The contact term's surface (rigid bodies' included), or every deformable body's.
  const Model& m = *scene.model;
  CollisionSurface surface;
  for (const auto& term : m.terms)
    if (const auto* c = dynamic_cast<const MeshContactTerm<3>*>(term.get())) surface = c->surface();
  if (surface.faces.empty()) surface = extract_surface(m);
  int intersecting = 0;
  Eigen::VectorXd points;
  for (int n = 0; n <= t.steps(); ++n) {
    surface_points(surface, t.state(n).x, points);
    intersecting += count_intersecting_triangles(points, surface.faces);
  }
  CHECK(intersecting == 0);
  return t;
}

// The vertices of body `name` (model numbering).
std::vector<int> body_vertices(const Model& m, const std::string& name) {
  for (const Body& b : m.bodies)
    if (b.name == name) {
      std::vector<int> v(b.mesh.n_verts());
      for (int i = 0; i < b.mesh.n_verts(); ++i) v[i] = b.vertex_offset + i;
      return v;
    }
  FAIL("no body " << name);
  return {};
}

double extreme(const Eigen::VectorXd& x, const std::vector<int>& verts, int axis, bool highest) {
  double e = highest ? -1e300 : 1e300;
  for (int v : verts) e = highest ? std::max(e, x[3 * v + axis]) : std::min(e, x[3 * v + axis]);
  return e;
}

Eigen::Vector3d momentum(const Model& m, const State& s, const std::vector<int>& verts) {
  Eigen::Vector3d p = Eigen::Vector3d::Zero();
  for (int v : verts) p += m.mass.segment<3>(3 * v).cwiseProduct(s.v.segment<3>(3 * v));
  return p;
}

}  // namespace

TEST_CASE("mesh contact scenes: colliding beams conserve momentum and part") {
  const Scene scene = parse_scene(scene_text("colliding_beams"), "colliding_beams.json");
  const Trajectory t = run_checked(scene, 1e-10);
  const Model& m = *scene.model;
  std::vector<int> all(m.n_verts);
  for (int v = 0; v < m.n_verts; ++v) all[v] = v;
  const Eigen::Vector3d p0 = momentum(m, t.state(0), all);
  CHECK(p0.norm() > 0.0);
  double worst = 0.0;
  for (int n = 1; n <= t.steps(); ++n)
    worst = std::max(worst, (momentum(m, t.state(n), all) - p0).norm() / p0.norm());
  MESSAGE("largest relative momentum change " << worst);
  CHECK(worst < 1e-8);
  // They met: the right beam, at rest before, moves away along +x; the left one slowed down.
  const Eigen::Vector3d right = momentum(m, t.final_state(), body_vertices(m, "right"));
  const Eigen::Vector3d left = momentum(m, t.final_state(), body_vertices(m, "left"));
  CHECK(right.x() > 0.5 * p0.x());
  CHECK(left.x() < 0.5 * p0.x());
}

// "large": 36 s under the sanitizers; the crate and squeezed-cube scenes cover the same code there.
TEST_CASE("mesh contact scenes: the ball comes to rest on the block where statics puts it" *
          doctest::test_suite("large")) {
  run_checked(parse_scene(scene_text("ball_on_block"), "ball_on_block.json"));  // as shipped
  // The ball's vertical axis held in x and z and one equator vertex in z: nearly symmetric, so
  // these hold almost nothing, and they remove the rigid modes a static solve cannot fix and
  // the faceted ball's rocking (each facet it could rest on is an equilibrium).
  std::string text = scene_text("ball_on_block");
  const std::string held =
      R"("boundary": [{"name": "axis", "region": {"body": "ball", "indices": [52, 57, 62, 67, 72]}, )"
      R"("axes": ["x", "z"]}, {"name": "equator", "region": {"body": "ball", "indices": [64]}, )"
      R"("axes": ["z"]}, )";
  text.replace(text.find("\"boundary\": ["), 13, held);
  text.replace(text.find("\"duration\": 1.0"), 15, "\"duration\": 3.0");
  text.replace(text.find("\"alpha\": 2.0"), 12, "\"alpha\": 20.0");  // at rest by then
  const Scene scene = parse_scene(text, "ball_on_block.json");
  const Trajectory t = run_checked(scene);
  const Model& m = *scene.model;
  const int centre = body_vertices(m, "ball")[62];
  const double dynamic = t.final_state().x[3 * centre + 1];
  // Statics from the ball lowered to 0.5 mm above the block (within the barrier's reach).
  Simulator sim(scene.model, scene.options);
  State s = t.state(0);
  for (int v : body_vertices(m, "ball")) s.x[3 * v + 1] -= 0.02 - 5e-4;
  s.v.setZero();
  REQUIRE(sim.solve_static(s).converged());
  const double statics = s.x[3 * centre + 1];
  MESSAGE("ball centre at rest: dynamics " << dynamic << " m, statics " << statics << " m");
  CHECK(statics < 0.16 - 1e-3);  // it sinks into the soft block
  CHECK(dynamic == doctest::Approx(statics).epsilon(1e-5));
}

// "large": 30 s under the sanitizers; self-contact is covered there by the mesh contact units.
TEST_CASE("mesh contact scenes: the folded rod's upper half lies on its lower half" *
          doctest::test_suite("large")) {
  const Scene scene = parse_scene(scene_text("folding_rod"), "folding_rod.json");
  const Trajectory t = run_checked(scene);
  const Model& m = *scene.model;
  // The outer third (rest x > 0.4) was carried over onto the inner part. Where it lies over it
  // (|z| < 0.01, well inside the lower layer's width), it rests on its top (y = 0.022); without
  // self-contact it would fall through to the ground.
  const Eigen::VectorXd& x = t.final_state().x;
  int over = 0;
  for (int v = 0; v < m.n_verts; ++v) {
    if (!(m.X[3 * v] > 0.4 + 1e-9 && m.X[3 * v] < 0.6 - 1e-9)) continue;
    if (std::abs(x[3 * v + 2]) >= 0.01 || x[3 * v] > 0.28) continue;
    ++over;
    CHECK(x[3 * v + 1] > 0.02);
  }
  CHECK(over >= 4);

  // The control: without self-contact the same fold passes through itself, and the exact test
  // sees it.
  std::string text = scene_text("folding_rod");
  text.replace(text.find("\"self_contact\": true"), 20, "\"self_contact\": false");
  const Scene free = parse_scene(text, "folding_rod.json");
  Simulator sim(free.model, free.options);
  const Trajectory through = simulate(sim, free.rollout(sim));
  const CollisionSurface surface = extract_surface(*free.model);
  CHECK(count_intersecting_triangles(through.final_state().x, surface.faces) > 0);
}

TEST_CASE("mesh contact scenes: the squeezed cube fills the gap between the plates") {
  const Scene scene = parse_scene(scene_text("squeezed_cube"), "squeezed_cube.json");
  const Trajectory t = run_checked(scene);
  const Model& m = *scene.model;
  const Eigen::VectorXd& x = t.final_state().x;
  const auto cube = body_vertices(m, "cube");
  const double press = extreme(x, body_vertices(m, "press"), 1, false);
  const double floor = extreme(x, body_vertices(m, "floor"), 1, true);
  const double top = extreme(x, cube, 1, true), bottom = extreme(x, cube, 1, false);
  CHECK(press == doctest::Approx(0.104 - 0.05 * 0.64).epsilon(1e-9));
  // Within the barrier's reach (1 mm) of both plates, never through them.
  CHECK(press - top > 0.0);
  CHECK(press - top < 1e-3);
  CHECK(bottom - floor > 0.0);
  CHECK(bottom - floor < 1e-3);
}

TEST_CASE("mesh contact scenes: 2D blocks dropped on one another never cross") {
  auto model = rectangle_model("stable_neo_hookean", 1e4, 0.3, 500.0, {4, 2}, {0.2, 0.05});
  const auto mat = find_material("stable_neo_hookean");
  add_body(*model, "top", disk_tri_mesh(3, 6, {0.08, 0.08}, {0.06, 0.06}), mat,
           material_params(*mat, 1e4, 0.3), 500.0);
  model->terms.clear();
  add_elastic_terms(*model);
  add_gravity(*model, Eigen::Vector2d(0.0, -9.81));
  fix_vertices(*model, vertices_at(*model, 1, 0.0));
  MeshContactOptions o;
  o.friction = 0.3;
  add_mesh_contact(*model, o);
  SimulationOptions options;
  options.dt = 0.01;
  Simulator sim(model, options);
  Rollout r;
  r.initial.x = model->X;
  r.initial.v = Eigen::VectorXd::Zero(model->n_dofs());
  r.steps = 60;
  const Trajectory t = simulate(sim, r);
  CHECK(t.converged());
  const CollisionSurface surface = extract_surface(*model);
  int intersecting = 0;
  for (int n = 0; n <= t.steps(); ++n)
    intersecting += count_intersecting_edges_2d(t.state(n).x, surface.edges);
  CHECK(intersecting == 0);
  // The disk fell (from 0.06 m) onto the block's top (y = 0.05), which it presses in a little,
  // and stopped there: without contact it would have fallen through (0.18 m in 0.6 s).
  double lowest = 1e300, speed = 0.0;
  for (int v = model->bodies[1].vertex_offset; v < model->n_verts; ++v) {
    lowest = std::min(lowest, t.final_state().x[2 * v + 1]);
    speed = std::max(speed, t.final_state().v.segment<2>(2 * v).norm());
  }
  CHECK(lowest > 0.045);
  CHECK(lowest < 0.0505);
  CHECK(speed < 0.05);
}

}  // namespace softgrad::test

namespace softgrad::test {

TEST_CASE("mesh contact scenes: gradients through an impact match central differences") {
  // The beams meet within the first steps; the loss is where the struck beam's centre of mass
  // is, and how fast it moves, after 24 steps. Parameters: the thrown beam's initial velocity
  // (a direction), the barrier's stiffness and the friction coefficient.
  std::string text = scene_text("colliding_beams");
  text.replace(text.find("\"between_bodies\": true"), 22,
               "\"between_bodies\": true, \"friction\": 0.4, \"friction_velocity\": 0.05");
  const Scene scene = parse_scene(text, "colliding_beams.json");
  SimulationOptions options = scene.options;
  options.newton.tolerance = 1e-12;
  Simulator sim(scene.model, options);
  Rollout r = scene.rollout(sim);
  r.steps = 24;
  const Model& m = *scene.model;
  CenterOfMassTarget target;
  target.position = Eigen::Vector3d(0.2, 0.01, 0.0);
  target.velocity = Eigen::Vector3d(1.5, 0.1, 0.0);
  const CenterOfMassLoss loss(m, body_vertices(m, "right"), {target});
  const ParameterSet params(sim, r, {"mesh_contact.stiffness", "mesh_contact.friction", "v0"});
  const Trajectory t = simulate(sim, r);
  REQUIRE(t.converged());
  const GradientResult g = gradient(sim, t, loss, params);
  CHECK(g.report.trustworthy());
  const Eigen::VectorXd theta = params.get(sim, r);
  const auto loss_at = [&](const Eigen::VectorXd& th) {
    Rollout rr = r;
    params.set(sim, rr, th);
    return evaluate_loss(sim, simulate(sim, rr), loss);
  };
  for (int i : {0, 1}) {
    INFO(params.label(i));
    const double h = 1e-5 * theta[i];
    Eigen::VectorXd tp = theta, tm = theta;
    tp[i] += h;
    tm[i] -= h;
    const double fd = (loss_at(tp) - loss_at(tm)) / (2 * h);
    MESSAGE(params.label(i) << ": adjoint " << g.gradient[i] << ", central difference " << fd);
    CHECK(std::abs(fd) > 1e-9);
    CHECK(g.gradient[i] == doctest::Approx(fd).epsilon(1e-5));
  }
  // Along a direction of the initial velocities (the thrown beam's vertices only).
  Eigen::VectorXd d = Eigen::VectorXd::Zero(params.size());
  for (int v : body_vertices(m, "left"))
    for (int k = 0; k < 3; ++k) d[2 + 3 * v + k] = (k == 0 ? 0.1 : 0.02) * std::sin(1.3 * v + k);
  const double h = 1e-4;
  const double fd = (loss_at(theta + h * d) - loss_at(theta - h * d)) / (2 * h);
  MESSAGE("v0 direction: adjoint " << g.gradient.dot(d) << ", central difference " << fd);
  CHECK(std::abs(fd) > 1e-9);
  CHECK(g.gradient.dot(d) == doctest::Approx(fd).epsilon(1e-5));
}

}  // namespace softgrad::test

namespace softgrad::test {

TEST_CASE("mesh contact scenes: a cube sliding on a slab decelerates at mu g") {
  // A soft cube (5 cm) thrown at 1 m/s along a fixed slab it touches (0.5 mm gap, within the
  // barrier's reach): Coulomb friction slows it at mu g until it stops. The barrier is soft
  // enough (kappa 100 N/m over ~30 pairs) that the cube rests well inside dhat: near dhat the
  // barrier's curvature vanishes, the cube chatters, and the normal force lagged from the
  // start of each step (the friction's) misses much of the support.
  auto model = box_model("stable_neo_hookean", 1e5, 0.3, 1000.0, {4, 1, 2}, {0.4, 0.02, 0.2},
                         {-0.1, -0.02, -0.1});
  const auto mat = find_material("stable_neo_hookean");
  add_body(*model, "cube", box_tet_mesh(2, 2, 2, {0.05, 0.05, 0.05}, {0.0, 5e-4, -0.025}), mat,
           material_params(*mat, 1e5, 0.3), 1000.0);
  model->terms.clear();
  add_elastic_terms(*model);
  add_gravity(*model, Eigen::Vector3d(0.0, -9.81, 0.0));
  std::vector<int> slab(model->bodies[0].mesh.n_verts());
  for (size_t v = 0; v < slab.size(); ++v) slab[v] = static_cast<int>(v);
  fix_vertices(*model, slab);
  const double mu = 0.4;
  MeshContactOptions o;
  o.stiffness = 100.0;
  o.friction = mu;
  o.friction_velocity = 1e-3;
  add_mesh_contact(*model, o);
  SimulationOptions options;
  options.dt = 0.005;
  options.newton.tolerance = 1e-9;
  options.newton.max_iterations = 200;
  Simulator sim(model, options);
  Rollout r;
  r.initial.x = model->X;
  r.initial.v = Eigen::VectorXd::Zero(model->n_dofs());
  const int first = model->bodies[1].vertex_offset;
  for (int v = first; v < model->n_verts; ++v) r.initial.v[3 * v] = 1.0;
  r.steps = 80;
  const Trajectory t = simulate(sim, r);
  REQUIRE(t.converged());
  std::vector<int> cube;
  for (int v = first; v < model->n_verts; ++v) cube.push_back(v);
  const auto vx = [&](int n) { return momentum(*model, t.state(n), cube).x(); };
  double mass = 0.0;
  for (int v : cube) mass += model->mass[3 * v];
  // Sliding between 0.05 s and 0.2 s (it would stop at 0.255 s).
  // Sliding from 0.12 s (the start's bounce on the barrier, 0.5 mm above its rest gap, has
  // died out) to 0.18 s (it stops at 0.255 s).
  const double a = (vx(24) - vx(36)) / (mass * 0.06);
  MESSAGE("deceleration " << a << " m/s^2, mu g = " << mu * 9.81);
  CHECK(a == doctest::Approx(mu * 9.81).epsilon(0.02));
  CHECK(std::abs(vx(80)) / mass < 0.01);  // and it stopped
}

}  // namespace softgrad::test

namespace softgrad::test {

TEST_CASE("mesh contact scenes: rigid fingers catch a soft cube and lift it by friction") {
  const Scene scene = parse_scene(scene_text("rigid_gripper"), "rigid_gripper.json");
  Simulator sim(scene.model, scene.options);
  const Trajectory t = simulate(sim, scene.rollout(sim));
  REQUIRE(t.converged());
  const Model& m = *scene.model;
  const auto cube = body_vertices(m, "cube");
  const CollisionSurface surface = extract_surface(m);
  // The cube's surface and the fingers' boxes (world triangles appended), exactly, every step.
  int intersecting = 0;
  for (int n = 0; n <= t.steps(); ++n) {
    const Eigen::VectorXd& x = t.state(n).x;
    std::vector<double> points(x.data(), x.data() + 3 * m.n_mesh_verts());
    std::vector<std::array<int, 3>> triangles = surface.faces;
    for (const char* name : {"left", "right"}) {
      const RigidBody& b = m.rigid_bodies[find_rigid_body(m, name)];
      // The drawing surface repeats corners per face: weld them, so that neighbouring faces
      // share their edges.
      std::vector<int> index(b.surface.rows());
      std::vector<Eigen::Vector3d> corners;
      const int first = static_cast<int>(points.size()) / 3;
      for (int i = 0; i < b.surface.rows(); ++i) {
        const Eigen::Vector3d X = b.surface.row(i).transpose();
        int k = 0;
        while (k < static_cast<int>(corners.size()) && corners[k] != X) ++k;
        if (k == static_cast<int>(corners.size())) {
          corners.push_back(X);
          const Eigen::Vector3d p = b.point(x, X);
          points.insert(points.end(), p.data(), p.data() + 3);
        }
        index[i] = first + k;
      }
      for (int f = 0; f < b.triangles.rows(); ++f)
        triangles.push_back(
            {index[b.triangles(f, 0)], index[b.triangles(f, 1)], index[b.triangles(f, 2)]});
    }
    intersecting += count_intersecting_triangles(
        Eigen::Map<const Eigen::VectorXd>(points.data(), static_cast<Eigen::Index>(points.size())),
        triangles);
  }
  CHECK(intersecting == 0);
  // Squeezed (the fingers stopped short of their targets, at the servos' force limit) and
  // lifted: the palm rose 6 cm from 0.3 s, and the cube (released at 3 cm) rose with it.
  const Eigen::VectorXd& x = t.final_state().x;
  const double gap = m.rigid_bodies[find_rigid_body(m, "right")].position(x).x() -
                     m.rigid_bodies[find_rigid_body(m, "left")].position(x).x();
  MESSAGE("fingers' centres " << gap << " m apart; cube's lowest point "
                              << extreme(x, cube, 1, false) << " m");
  CHECK(gap < 0.08);  // closer than the uncompressed cube's width allows (0.06 + 2 x 0.01)
  CHECK(gap > 0.07);  // but the cube holds them off their targets (0.066 apart)
  CHECK(extreme(x, cube, 1, false) > 0.03 + 0.04);  // lifted
}

}  // namespace softgrad::test

namespace softgrad::test {
namespace {

// The ball on the block with a barrier far too weak for the ball's weight (0.1 N/m), its
// vertical axis held in x and z as in the rest test above, damped to rest within `duration`.
std::string weak_barrier_ball(bool adaptive, double stiffness, double duration) {
  std::string text = scene_text("ball_on_block");
  const std::string held =
      R"("boundary": [{"name": "axis", "region": {"body": "ball", "indices": [52, 57, 62, 67, 72]}, )"
      R"("axes": ["x", "z"]}, {"name": "equator", "region": {"body": "ball", "indices": [64]}, )"
      R"("axes": ["z"]}, )";
  text.replace(text.find("\"boundary\": ["), 13, held);
  text.replace(text.find("\"duration\": 1.0"), 15, "\"duration\": " + std::to_string(duration));
  text.replace(text.find("\"alpha\": 2.0"), 12, "\"alpha\": 20.0");
  text.replace(text.find("\"stiffness\": 1e4"), 16,
               "\"stiffness\": " + std::to_string(stiffness) +
                   ", \"adaptive_stiffness\": " + (adaptive ? "true" : "false"));
  return text;
}

// The closest gap between the surfaces at x [m] (activation_distance if none is closer).
double closest_gap(const Model& m, const Eigen::VectorXd& x) {
  const auto& term = dynamic_cast<const MeshContactTerm<3>&>(*m.terms[m.find_term("mesh_contact")]);
  auto data = term.make_data();
  double gap = 1e-3;
  for (const auto& p : term.pairs(*data, x)) gap = std::min(gap, p.distance);
  return gap;
}

}  // namespace

// Label "large" (as the other whole-scene runs below): CI runs it in the optimised suite only;
// the sanitizer pass covers the adaptive barrier through the gradient case that follows.
TEST_CASE("mesh contact: adaptive stiffness holds a gap a weak barrier lets collapse" *
          doctest::test_suite("large")) {
  // Fixed at 0.1 N/m, the barrier holds the 2.6 N ball at a gap far below min_gap (1 um).
  const Scene fixed = parse_scene(weak_barrier_ball(false, 0.1, 3.0), "weak.json");
  const Trajectory tf = run_checked(fixed);
  const double gap_fixed = closest_gap(*fixed.model, tf.final_state().x);
  CHECK(tf.final_state().adaptive.size() == 0);
  // Adaptive: kappa doubles while the gap is below min_gap and closing.
  const Scene adaptive = parse_scene(weak_barrier_ball(true, 0.1, 3.0), "weak.json");
  const Trajectory ta = run_checked(adaptive);
  REQUIRE(ta.final_state().adaptive.size() == 2);
  const double scale = ta.final_state().adaptive[0];
  const double gap = closest_gap(*adaptive.model, ta.final_state().x);
  MESSAGE("closest gap at rest: " << gap_fixed << " m at 0.1 N/m, " << gap
                                  << " m adaptive (stiffness x" << scale << ")");
  CHECK(gap_fixed < 1e-6);
  CHECK(scale > 1.0);
  CHECK(std::exp2(std::round(std::log2(scale))) == scale);  // doubled, never anything else
  CHECK(ta.final_state().adaptive[1] == doctest::Approx(gap).epsilon(1e-12));
  CHECK(gap > 2.0 * gap_fixed);
  // The scale is the rollout's: it only grew, and only while the gap was below min_gap.
  for (int n = 1; n <= ta.steps(); ++n) {
    const Eigen::VectorXd& a = ta.state(n).adaptive;
    const Eigen::VectorXd& b = ta.state(n - 1).adaptive;
    CHECK(a[0] >= b[0]);
    if (a[0] > b[0]) {
      CHECK(a[0] == 2.0 * b[0]);
      CHECK(a[1] < 1e-6);
      CHECK(b[1] < 1e-6);
      CHECK(a[1] < b[1]);
    }
  }
  // At rest the ball is where statics puts it with the stiffness the rollout ended with.
  const Scene stiffer = parse_scene(weak_barrier_ball(false, 0.1 * scale, 3.0), "weak.json");
  Simulator sim(stiffer.model, stiffer.options);
  State s = ta.final_state();
  s.adaptive.resize(0);
  s.v.setZero();
  REQUIRE(sim.solve_static(s).converged());
  const int centre = body_vertices(*stiffer.model, "ball")[62];
  MESSAGE("ball centre at rest " << ta.final_state().x[3 * centre + 1] << " m, statics "
                                 << s.x[3 * centre + 1] << " m");
  CHECK(ta.final_state().x[3 * centre + 1] == doctest::Approx(s.x[3 * centre + 1]).epsilon(1e-7));
  CHECK(closest_gap(*stiffer.model, s.x) == doctest::Approx(gap).epsilon(1e-3));
}

TEST_CASE("mesh contact: gradients through adaptive stiffness match central differences") {
  // The ball lands on the weak barrier, which stiffens during the impact; the loss is the
  // ball's centre of mass after 30 steps. Parameters: the stiffness and the initial velocities.
  const Scene scene = parse_scene(weak_barrier_ball(true, 0.1, 0.3), "weak.json");
  SimulationOptions options = scene.options;
  options.newton.tolerance = 1e-12;
  Simulator sim(scene.model, options);
  const Rollout r = scene.rollout(sim);
  const Model& m = *scene.model;
  CenterOfMassTarget target;
  target.position = Eigen::Vector3d(0.0, 0.15, 0.0);
  target.velocity = Eigen::Vector3d(0.0, 0.1, 0.0);
  const CenterOfMassLoss loss(m, body_vertices(m, "ball"), {target});
  const ParameterSet params(sim, r, {"mesh_contact.stiffness", "v0"});
  const Trajectory t = simulate(sim, r);
  REQUIRE(t.converged());
  const double scale = t.final_state().adaptive[0];
  MESSAGE("stiffness scale after the impact: " << scale);
  REQUIRE(scale > 1.0);
  const GradientResult g = gradient(sim, t, loss, params);
  CHECK(g.report.trustworthy());
  const Eigen::VectorXd theta = params.get(sim, r);
  const auto loss_at = [&](const Eigen::VectorXd& th) {
    Rollout rr = r;
    params.set(sim, rr, th);
    const Trajectory tt = simulate(sim, rr);
    CHECK(tt.final_state().adaptive[0] == scale);  // the same doublings: a smooth neighbourhood
    return evaluate_loss(sim, tt, loss);
  };
  const double h = 1e-5 * theta[0];
  Eigen::VectorXd tp = theta, tm = theta;
  tp[0] += h;
  tm[0] -= h;
  const double fd_k = (loss_at(tp) - loss_at(tm)) / (2 * h);
  MESSAGE("stiffness: adjoint " << g.gradient[0] << ", central difference " << fd_k);
  CHECK(std::abs(fd_k) > 1e-9);
  CHECK(g.gradient[0] == doctest::Approx(fd_k).epsilon(1e-5));
  Eigen::VectorXd d = Eigen::VectorXd::Zero(params.size());
  for (int v : body_vertices(m, "ball"))
    for (int k = 0; k < 3; ++k) d[1 + 3 * v + k] = (k == 1 ? 0.1 : 0.02) * std::sin(0.7 * v + k);
  const double hv = 1e-4;
  const double fd_v = (loss_at(theta + hv * d) - loss_at(theta - hv * d)) / (2 * hv);
  MESSAGE("v0 direction: adjoint " << g.gradient.dot(d) << ", central difference " << fd_v);
  CHECK(std::abs(fd_v) > 1e-9);
  CHECK(g.gradient.dot(d) == doctest::Approx(fd_v).epsilon(1e-5));
  // Checkpointed, the adjoint recomputes the doublings from the stored states.
  const Trajectory tc = simulate(sim, r, TrajectoryOptions{0});
  CHECK(tc.checkpoint_every() > 1);
  const GradientResult gc = gradient(sim, tc, loss, params);
  CHECK((gc.gradient - g.gradient).norm() <= 1e-10 * g.gradient.norm());
  // Forward sensitivities take the same scale.
  const GradientResult tg =
      tangent_gradient(sim, r, loss, ParameterSet(sim, r, {"mesh_contact.stiffness"}));
  CHECK(tg.gradient[0] == doctest::Approx(g.gradient[0]).epsilon(1e-8));
}

}  // namespace softgrad::test

namespace softgrad::test {
namespace {

// The rigid drop scene without its ball (the crate alone on the block), its friction `mu`.
std::string crate_on_block(double mu) {
  std::string text = scene_text("rigid_drop");
  const auto ball = text.find(",\n    {\"name\": \"ball\"");
  REQUIRE(ball != std::string::npos);
  text.erase(ball, text.find("}\n  ],", ball) + 1 - ball);
  text.replace(text.find("\"friction\": 0.3"), 15, "\"friction\": " + std::to_string(mu));
  return text;
}

}  // namespace

TEST_CASE("mesh contact scenes: a rigid crate and ball land on a soft block and never cross") {
  const Scene scene = parse_scene(scene_text("rigid_drop"), "rigid_drop.json");
  const Trajectory t = run_checked(scene);  // every surface, the rigid ones' included
  const Model& m = *scene.model;
  const Eigen::VectorXd& x = t.final_state().x;
  const RigidBody& crate = m.rigid_bodies[find_rigid_body(m, "crate")];
  const RigidBody& ball = m.rigid_bodies[find_rigid_body(m, "ball")];
  // The crate lies flat on the block's top (y = 0.1, sunk a little into the soft block) and the
  // ball on the crate's top, both at rest.
  const double crate_y = crate.position(x).y(), ball_y = ball.position(x).y();
  MESSAGE("crate centre at y = " << crate_y << " m, ball centre at y = " << ball_y << " m");
  CHECK(crate_y > 0.1 + 0.03 - 0.005);
  CHECK(crate_y < 0.1 + 0.03 + 0.001);
  CHECK(std::abs(crate.direction(x, Eigen::Vector3d::UnitY()).normalized().y()) > 0.999);
  CHECK(ball_y == doctest::Approx(crate_y + 0.03 + 0.04).epsilon(2e-3));
  const Eigen::VectorXd& v = t.final_state().v;
  MESSAGE("speeds: crate " << v.segment<3>(crate.dof(0)).norm() << " m/s, ball "
                           << v.segment<3>(ball.dof(0)).norm() << " m/s");
  CHECK(v.segment<3>(crate.dof(0)).norm() < 0.01);
  CHECK(std::abs(v[ball.dof(1)]) < 0.01);  // no longer falling or bouncing
}

TEST_CASE("mesh contact scenes: a rigid crate at rest on a soft block is held by its weight") {
  // Frictionless, at rest: the barrier's force on the crate is its weight, straight up.
  std::string text = crate_on_block(0.0);
  text.replace(text.find("\"duration\": 1.5"), 15, "\"duration\": 3.0");
  const Scene scene = parse_scene(text, "crate.json");
  const Trajectory t = run_checked(scene);
  const Model& m = *scene.model;
  const RigidBody& crate = m.rigid_bodies[find_rigid_body(m, "crate")];
  const int k = m.find_term("mesh_contact");
  const State& s = t.final_state();
  TermEvaluation eval(*m.terms[k], s.x, 0.01);
  Eigen::VectorXd g = Eigen::VectorXd::Zero(m.n_dofs());
  m.terms[k]->value_and_gradient(eval.data(), s.x, g);
  const Eigen::Vector3d force = -g.segment<3>(crate.dof(0));
  MESSAGE("contact force on the crate " << force.transpose() << " N, weight " << crate.mass * 9.81
                                        << " N");
  CHECK(s.v.segment<3>(crate.dof(0)).norm() < 1e-3);
  CHECK(force.y() == doctest::Approx(crate.mass * 9.81).epsilon(1e-3));
  CHECK(std::abs(force.x()) < 1e-3 * force.y());
  CHECK(std::abs(force.z()) < 1e-3 * force.y());
}

TEST_CASE("mesh contact scenes: two rigid boxes collide conserving momentum") {
  // No gravity, no soft body: a box thrown at another, free one, turned.
  auto model = std::make_shared<Model>();
  RigidBodySpec a = box_spec("a", {0.1, 0.1, 0.1}, 500.0);
  RigidBodySpec b = box_spec("b", {0.08, 0.12, 0.1}, 800.0);
  b.position = Eigen::Vector3d(0.2, 0.02, 0.01);
  b.rotation =
      Eigen::AngleAxisd(0.4, Eigen::Vector3d(0.3, 1.0, 0.2).normalized()).toRotationMatrix();
  add_rigid_body(*model, a);
  add_rigid_body(*model, b);
  add_rigidity_term(*model);
  MeshContactOptions o;
  o.rigid_bodies = {0, 1};
  add_mesh_contact(*model, o);
  Simulator sim(model, rigid_options(0.005));
  Rollout r = rest_rollout(sim, 60);
  r.initial.v.segment<3>(model->rigid_bodies[0].dof(0)) = Eigen::Vector3d(1.0, 0.0, 0.0);
  const Trajectory t = simulate(sim, r);
  REQUIRE(t.converged());
  const auto momentum = [&](const State& s) {
    return Eigen::Vector3d(linear_momentum(*model, 0, s.v) + linear_momentum(*model, 1, s.v));
  };
  const Eigen::Vector3d p0 = momentum(t.state(0));
  double worst = 0.0;
  int intersecting = 0;
  Eigen::VectorXd points;
  const auto& term = dynamic_cast<const MeshContactTerm<3>&>(*model->terms.back());
  for (int n = 1; n <= t.steps(); ++n) {
    worst = std::max(worst, (momentum(t.state(n)) - p0).norm() / p0.norm());
    surface_points(term.surface(), t.state(n).x, points);
    intersecting += count_intersecting_triangles(points, term.surface().faces);
  }
  MESSAGE("largest relative momentum change " << worst);
  CHECK(worst < 1e-9);
  CHECK(intersecting == 0);
  // They met: b moves off along +x, a slowed down.
  const State& s = t.final_state();
  CHECK(linear_momentum(*model, 1, s.v).x() > 0.3 * p0.x());
  CHECK(linear_momentum(*model, 0, s.v).x() < 0.7 * p0.x());
}

TEST_CASE(
    "mesh contact scenes: gradients through a rigid crate's landing match central differences") {
  // The crate lands on the soft block within the first steps; the loss is where its centre is
  // and how fast it moves after 20 steps. Parameters: the barrier's stiffness and friction and
  // the crate's initial velocity.
  const Scene scene = parse_scene(crate_on_block(0.4), "crate.json");
  SimulationOptions options = scene.options;
  options.newton.tolerance = 1e-12;
  Simulator sim(scene.model, options);
  Rollout r = scene.rollout(sim);
  r.steps = 20;
  const Model& m = *scene.model;
  const RigidBody& crate = m.rigid_bodies[find_rigid_body(m, "crate")];
  r.initial.v.segment<3>(crate.dof(0)) = Eigen::Vector3d(0.3, -0.5, 0.1);
  CenterOfMassTarget target;
  target.position = Eigen::Vector3d(0.05, 0.12, 0.0);
  target.velocity = Eigen::Vector3d(0.1, 0.0, 0.0);
  const CenterOfMassLoss loss(m, {crate.node}, {target});
  const ParameterSet params(
      sim, r, {"mesh_contact.stiffness", "mesh_contact.friction", "rigid:crate.velocity"});
  const Trajectory t = simulate(sim, r);
  REQUIRE(t.converged());
  const GradientResult g = gradient(sim, t, loss, params);
  CHECK(g.report.trustworthy());
  const Eigen::VectorXd theta = params.get(sim, r);
  const auto loss_at = [&](const Eigen::VectorXd& th) {
    Rollout rr = r;
    params.set(sim, rr, th);
    return evaluate_loss(sim, simulate(sim, rr), loss);
  };
  for (int i = 0; i < params.size(); ++i) {
    INFO(params.label(i));
    const double h = 1e-5 * std::max(1.0, std::abs(theta[i]));
    Eigen::VectorXd tp = theta, tm = theta;
    tp[i] += h;
    tm[i] -= h;
    const double fd = (loss_at(tp) - loss_at(tm)) / (2 * h);
    MESSAGE(params.label(i) << ": adjoint " << g.gradient[i] << ", central difference " << fd);
    CHECK(std::abs(fd) * std::max(1.0, std::abs(theta[i])) > 1e-7);  // the loss moves
    CHECK(g.gradient[i] == doctest::Approx(fd).epsilon(1e-5));
  }
}

}  // namespace softgrad::test
