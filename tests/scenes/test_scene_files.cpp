// Every scene in scenes/ loads, validates and takes one step (or one static solve) to a finite
// state: the scenes are the examples, and each is a smoke test.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "softgrad/scene.hpp"
#include "softgrad/simulator.hpp"
#include "softgrad/trajectory.hpp"
#include "solvers/cpu/amg_preconditioner.hpp"

using namespace softgrad;

namespace {

namespace fs = std::filesystem;

fs::path scene_dir() { return fs::path(SOFTGRAD_SOURCE_DIR) / "scenes"; }

// The scenes whose load or first step exceeds the 1 s budget of a Debug test case.
bool is_large(const fs::path& scene) { return scene.stem().string().rfind("armadillo", 0) == 0; }

std::vector<fs::path> scene_files() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(scene_dir()))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

// One step (dynamic) or one static solve from rest.
State first_step(const Scene& scene, NewtonReport& report) {
  Simulator sim(scene.model, scene.options);
  State s = sim.rest_state();
  s.t = scene.static_solve ? scene.options.dt : 0.0;
  report = scene.static_solve ? sim.solve_static(s) : sim.step(s);
  return s;
}

// The smoke test: converged, finite, and (for checks) the state after the step.
State smoke(const Scene& scene, NewtonReport* report_out = nullptr) {
  NewtonReport report;
  const State s = first_step(scene, report);
  CAPTURE(report.message);
  CHECK(report.converged());
  CHECK(s.x.allFinite());
  CHECK(s.v.allFinite());
  CHECK(s.x.size() == scene.model->n_dofs());
  if (report_out) *report_out = report;
  return s;
}

// The vertex whose rest position is nearest to `point`.
int vertex_near(const Model& model, const Eigen::VectorXd& point) {
  int best = 0;
  for (int v = 1; v < model.n_verts; ++v) {
    if ((model.X.segment(v * model.dim, model.dim) - point).norm() <
        (model.X.segment(best * model.dim, model.dim) - point).norm())
      best = v;
  }
  return best;
}

// The position after the first step of the vertex nearest to rest position `point`.
Eigen::VectorXd moved(const Scene& scene, const State& s, const Eigen::VectorXd& point) {
  const int dim = scene.model->dim;
  return s.x.segment(vertex_near(*scene.model, point) * dim, dim);
}

// True if the model has a contact term (its bodies may rest on obstacles instead of being held)
// or a joint to the world (which holds a rigid body).
// (or on one another, or floats freely in a collision: tests/contact checks those scenes' physics)
bool rests_on_obstacles(const Model& model) {
  for (const auto& term : model.terms)
    if (term->name() == "contact" || term->name() == "rigid_contact" ||
        term->name() == "mesh_contact")
      return true;
  for (const Joint& j : model.joints)
    if (j.parent < 0) return true;
  return false;
}

}  // namespace

TEST_CASE("scenes/scene_files: every scene loads and validates") {
  const std::vector<fs::path> files = scene_files();
  CHECK(files.size() >= 6);
  for (const fs::path& file : files) {
    if (is_large(file)) continue;  // in the slow suite below
    CAPTURE(file.string());
    const Scene scene = load_scene(file);
    CHECK(scene.name == file.stem().string());
    CHECK(scene.model->n_verts > 0);
    if (!scene.locomotion && !rests_on_obstacles(*scene.model))
      CHECK_FALSE(scene.model->kinematic.empty());  // creatures stand
    CHECK(scene.steps >= 1);
  }
}

Scene load(const std::string& name) { return load_scene(scene_dir() / (name + ".json")); }

TEST_CASE("scenes/scene_files: the cantilever sags after one step") {
  const Scene scene = load("cantilever");
  const State s = smoke(scene);
  // The free end moves down; the clamped end stays.
  CHECK(moved(scene, s, Eigen::Vector3d(1, 0, 0))[1] < 0.0);
  CHECK(moved(scene, s, Eigen::Vector3d(0, 0, 0)) == Eigen::Vector3d::Zero());
}

TEST_CASE("scenes/scene_files: the static cantilever bends down") {
  const Scene scene = load("cantilever_static");
  const double tip = moved(scene, smoke(scene), Eigen::Vector3d(1, 0, 0))[1];
  // About 0.14 m: Euler-Bernoulli's q L^4 / (8 E I) = 0.29 m, halved by the coarse tetrahedra.
  CAPTURE(tip);
  CHECK(tip < -0.05);
  CHECK(tip > -0.2);
}

TEST_CASE("scenes/scene_files: the hanging sheet falls between its corners") {
  const Scene scene = load("hanging_sheet");
  const State s = smoke(scene);
  CHECK(moved(scene, s, Eigen::Vector2d(0.5, -1.0))[1] < -1.0);
  CHECK(moved(scene, s, Eigen::Vector2d(0, 0)) == Eigen::Vector2d(0, 0));
}

TEST_CASE("scenes/scene_files: the twisting bar's end turns about its axis") {
  const Scene scene = load("twisting_bar");
  const State s = smoke(scene);
  // The end's corner at (1, -0.1, -0.1) turns by pi dt about x.
  const double angle = 3.141592653589793 * scene.options.dt;
  const Eigen::Vector3d expected(1.0, -0.1 * std::cos(angle) + 0.1 * std::sin(angle),
                                 -0.1 * std::sin(angle) - 0.1 * std::cos(angle));
  CHECK((moved(scene, s, Eigen::Vector3d(1, -0.1, -0.1)) - expected).norm() < 1e-12);
}

TEST_CASE("scenes/scene_files: the squashed block's top plate moves down") {
  const Scene scene = load("squashed_block");
  const State s = smoke(scene);
  CHECK(moved(scene, s, Eigen::Vector3d(0, 0.2, 0))[1] == doctest::Approx(0.2 - 0.05 * 0.01));
  CHECK(moved(scene, s, Eigen::Vector3d(0.1, 0.1, 0.1))[1] < 0.1);
}

TEST_CASE("scenes/scene_files: the gradient cantilever declares a loss and parameters") {
  const Scene scene = load("cantilever_gradient");
  REQUIRE(scene.loss);
  CHECK(scene.loss_min_steps == 20);  // the centre-of-mass term at t = 0.2 s
  CHECK(scene.parameters == std::vector<std::string>{"youngs", "poisson", "damping.alpha", "v0"});
  // Thrown upwards: the free vertices start at 0.5 m/s, the clamped ones at rest.
  CHECK(scene.initial_velocity[3 * vertex_near(*scene.model, Eigen::Vector3d(0.5, 0, 0)) + 1] ==
        0.5);
  CHECK(scene.initial_velocity.segment<3>(0) == Eigen::Vector3d::Zero());
  // At rest the tip is 3 cm above its target: the position term alone is 4 w/2 (0.03)^2.
  State rest;
  rest.x = scene.model->X;
  rest.v = Eigen::VectorXd::Zero(rest.x.size());
  CHECK(scene.loss->evaluate(scene.steps, scene.steps, rest, nullptr, nullptr) ==
        doctest::Approx(4 * 50 * 0.03 * 0.03));
  smoke(scene);
}

TEST_CASE("scenes/scene_files: the armadillo loads and takes a step" *
          doctest::test_suite("slow")) {
  const auto start = std::chrono::steady_clock::now();
  const Scene scene = load_scene(scene_dir() / "armadillo.json");
  CHECK(scene.model->n_verts == 14779);
  CHECK(scene.model->kinematic.at(0).verts.size() > 100);
  const auto loaded = std::chrono::steady_clock::now();
  NewtonReport report;
  smoke(scene, &report);
  const auto stepped = std::chrono::steady_clock::now();
  MESSAGE("armadillo: load " << std::chrono::duration<double>(loaded - start).count() << " s, step "
                             << std::chrono::duration<double>(stepped - loaded).count() << " s ("
                             << report.iterations << " Newton iterations)");
}

// The big-mesh scene on multigrid CG, one step (about 10 s; "large": optimised builds only).
// From rest, the stress a step sets up travels c dt = sqrt(E / rho) dt = 0.1 m from the clamp,
// so the free end 0.8 m away only falls under gravity: by g dt^2 in backward Euler.
TEST_CASE("scenes/scene_files: the long beam on multigrid - its free end falls by g dt^2" *
          doctest::test_suite("large")) {
  const Scene scene = load_scene(scene_dir() / "long_beam.json");
  CHECK(scene.model->n_verts == 97 * 25 * 25);  // 96 x 24 x 24 cells of 6 tets
  CHECK(scene.options.linear.kind == "amg");
  if (!amg_available()) return;  // the scene loads; stepping it needs hypre
  Simulator sim(scene.model, scene.options);
  State s = sim.rest_state();
  const NewtonReport report = sim.step(s);
  CAPTURE(report.message);
  REQUIRE(report.converged());
  CHECK(report.linear_iterations > 0);
  const double dt = scene.options.dt;
  int tip = 0;
  for (int v = 0; v < scene.model->n_verts; ++v) {
    if (scene.model->X[3 * v] < 0.8 - 1e-9) continue;
    ++tip;
    CHECK(s.x[3 * v + 1] - scene.model->X[3 * v + 1] ==
          doctest::Approx(-9.81 * dt * dt).epsilon(1e-6));
  }
  CHECK(tip == 25 * 25);
}

// The CI-sized Armadillo: the shipped scene (all 54,855 tets, default settings) for its first
// 10 steps. Label "large": optimised builds only (CI's sanitizer pass leaves it out).
TEST_CASE("scenes/scene_files: the armadillo stands - 10 steps without an inverted element" *
          doctest::test_suite("large")) {
  const Scene scene = load_scene(scene_dir() / "armadillo.json");
  Simulator sim(scene.model, scene.options);
  State s = sim.rest_state();
  const Eigen::VectorXd X = scene.model->X;
  const int head = [&] {  // the highest vertex
    int top = 0;
    for (int v = 1; v < scene.model->n_verts; ++v)
      if (X[3 * v + 1] > X[3 * top + 1]) top = v;
    return top;
  }();
  double energy = sim.kinetic_energy(s.v) + sim.potential_energy(s.x);
  for (int step = 1; step <= 10; ++step) {
    const NewtonReport report = sim.step(s);
    CAPTURE(step);
    CAPTURE(report.message);
    REQUIRE(report.converged());
    REQUIRE(count_inverted_elements(*scene.model, s.x) == 0);
    // Backward Euler with mass damping and a fixed support only dissipates: the total energy
    // (kinetic + elastic + gravitational) never rises.
    const double next = sim.kinetic_energy(s.v) + sim.potential_energy(s.x);
    CHECK(next <= energy + 1e-9 * std::abs(energy));
    energy = next;
  }
  // The feet stay where they are pinned, and the body sags under its weight.
  for (int v : scene.model->kinematic.at(0).verts)
    CHECK((s.x.segment<3>(3 * v) - X.segment<3>(3 * v)).norm() == 0.0);
  CHECK(s.x[3 * head + 1] < X[3 * head + 1] - 1e-3);
}

TEST_CASE("scenes/scene_files: the can rolls down the ramp at 2/3 g sin and on along the floor") {
  const Scene scene = load("rolling_can");
  Simulator sim(scene.model, scene.options);
  const Trajectory traj = simulate(sim, scene.rollout(sim));  // to the scene's end
  REQUIRE(traj.steps() == scene.steps);
  const Model& m = *scene.model;
  const RigidBody& can = m.rigid_bodies.at(0);
  const RigidBody& standing = m.rigid_bodies.at(1);
  const double angle = 0.3, r = 0.05, dt = scene.options.dt;
  const Eigen::Vector3d n(-std::sin(angle), std::cos(angle), 0.0),
      down(-std::cos(angle), -std::sin(angle), 0.0);
  const Eigen::Vector3d p0 = can.position(traj.state(0).x);
  for (int k = 0; k <= scene.steps; ++k) {
    const Eigen::Vector3d p = can.position(traj.state(k).x);
    INFO("step " << k << ": " << p.transpose());
    // Its side never enters the ramp or the floor (planes: its axis spheres are exact there).
    CHECK(std::max(p.dot(n), p.y()) > r);
  }
  // On the ramp (t = 0.1 .. 0.5 s, from rest): s = a t^2 / 2 with a = g sin / (1 + 1/2) for
  // I = m r^2 / 2; a ball's inertia (2/5) would be 7% faster. Backward Euler at dt = 2 ms
  // loses 0.8% of it.
  const int k1 = static_cast<int>(std::lround(0.1 / dt)),
            k2 = static_cast<int>(std::lround(0.5 / dt));
  const double s1 = down.dot(can.position(traj.state(k1).x) - p0),
               s2 = down.dot(can.position(traj.state(k2).x) - p0);
  const double t1 = k1 * dt, t2 = k2 * dt;
  const double a = 2.0 * (s2 - s1) / (t2 * t2 - t1 * t1);
  MESSAGE("rolling_can: a = " << a << " m/s^2, 2/3 g sin = " << 2.0 / 3.0 * 9.81 * std::sin(angle));
  CHECK(a == doctest::Approx(2.0 / 3.0 * 9.81 * std::sin(angle)).epsilon(0.02));
  // Without slipping: omega r = v.
  const State& s = traj.state(k2);
  const double v = down.dot(can.position(s.v));
  CHECK(can.angular_velocity(s.x, s.v).norm() * r / v == doctest::Approx(1.0).epsilon(0.02));
  // It ends rolling along the floor, well past the ramp's foot.
  const Eigen::Vector3d end = can.position(traj.state(scene.steps).x);
  CHECK(end.x() < -0.5);
  CHECK(end.y() == doctest::Approx(r).epsilon(0.02));
  // The standing can rests on the post's top face (y = 0.3) on its rim, where it was put.
  const Eigen::Vector3d q0 = standing.position(traj.state(0).x),
                        q = standing.position(traj.state(scene.steps).x);
  CHECK(q.y() - 0.06 > 0.3);
  CHECK(q.y() - 0.06 < 0.301);
  CHECK((q - q0).cwiseAbs().maxCoeff() < 1e-3);
  CHECK(std::abs(q.x() - q0.x()) + std::abs(q.z() - q0.z()) < 1e-9);
}
