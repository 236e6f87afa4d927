#include <doctest/doctest.h>

#include "app_test_support.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/static_solve.hpp"
#include "support/vtu_reader.hpp"

using namespace softgrad;
using namespace softgrad::test;
using nlohmann::json;

TEST_CASE("app/static_solve: the equilibrium is written as one frame with its summary") {
  TempDir dir;
  const Scene scene = tiny_scene(dir.file("out"));
  const StaticResult r = static_solve(scene);
  REQUIRE(r.converged());
  CHECK(exit_code(r) == 0);
  CHECK(r.max_displacement > 0.0);
  CHECK(r.max_displacement < 0.1);
  CHECK(r.frames_written == 1);

  const json j = read_json(dir.file("out/summary.json"));
  CHECK(j["command"] == "static");
  CHECK(j["status"] == "converged");
  CHECK(j["newton_status"] == "converged");
  CHECK(j["iterations"].get<int>() >= 1);
  CHECK(j["energy"].get<double>() == doctest::Approx(r.potential_energy));
  // It sagged: the potential energy fell below its rest value.
  Simulator sim(scene.model, scene.options);
  CHECK(r.potential_energy < sim.potential_energy(scene.model->X));
  CHECK(j["max_displacement"].get<double>() == doctest::Approx(r.max_displacement));
  CHECK(j["n_verts"] == 12);
  CHECK(j["output"]["frames"] == 1);
  const std::string pvd = read_text(dir.file("out/tiny.pvd"));
  CHECK(count_of(pvd, "<DataSet ") == 1);
  CHECK(std::filesystem::exists(dir.file("out/tiny_000000.vtu")));
}

TEST_CASE("app/static_solve: a Newton failure is reported with exit code 2") {
  TempDir dir;
  LogCapture logs;
  Scene scene = tiny_scene(dir.file("out"));
  scene.options.newton.max_iterations = 1;
  scene.options.newton.tolerance = 1e-30;
  const StaticResult r = static_solve(scene);
  CHECK_FALSE(r.converged());
  CHECK(exit_code(r) == 2);
  const json j = read_json(dir.file("out/summary.json"));
  CHECK(j["status"] == "newton_failed");
  CHECK(j["newton_status"] == "max_iterations");
  CHECK(j["message"] == r.report.message);
}

TEST_CASE("app/static_solve: a scene with nothing held fixed is an InputError") {
  TempDir dir;
  Scene scene = tiny_scene(dir.file("out"));
  auto unheld = box_model("neo_hookean", 1e5, 0.3, 1000.0, {2, 1, 1}, {0.2, 0.1, 0.1});
  add_gravity(*unheld, Eigen::Vector3d(0, -9.81, 0));
  scene.model = unheld;  // the same box with no kinematic group
  CHECK(input_error_of([&] { static_solve(scene); }).find("boundary conditions") !=
        std::string::npos);
}

TEST_CASE(
    "app/static_solve: a neo-Hookean cube on rollers stretched uniaxially, as in closed form") {
  // Rollers on x = 0, y = 0 and z = 0 (each holds only its normal component) and the face
  // x = 1 pulled to x = a: the deformation is homogeneous, F = diag(a, t, t), which linear
  // tetrahedra represent exactly. With psi = mu/2 (I_C - 3) - mu ln J + lambda/2 (ln J)^2,
  // the lateral stress P_22 = mu (t - 1/t) + lambda ln(J) / t vanishes, and the pull is
  // P_11 = mu (a - 1/a) + lambda ln(J) / a per unit reference area.
  const double E = 1e4, nu = 0.3, a = 1.2;
  const double mu = E / (2 * (1 + nu)), lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
  double t = 1.0;
  for (int k = 0; k < 50; ++k) {  // Newton on f(t) = mu (t^2 - 1) + lambda ln(a t^2)
    const double f = mu * (t * t - 1) + lambda * std::log(a * t * t);
    t -= f / (2 * mu * t + 2 * lambda / t);
  }
  const double J = a * t * t;
  const double P11 = mu * (a - 1 / a) + lambda * std::log(J) / a;

  TempDir dir;
  Scene scene = load_scene(std::string(SOFTGRAD_SOURCE_DIR) + "/scenes/stretched_cube.json");
  scene.output.directory = dir.file("out");
  const StaticResult r = static_solve(scene);
  REQUIRE(r.converged());
  // Every vertex at (a X, t Y, t Z).
  Simulator sim(scene.model, scene.options);
  State s = sim.rest_state();
  s.t = 1.0;  // the load time: the pull's full 0.2 m
  REQUIRE(sim.solve_static(s).converged());
  const Model& m = *scene.model;
  for (int v = 0; v < m.n_verts; ++v) {
    CHECK(s.x[3 * v] == doctest::Approx(a * m.X[3 * v]).epsilon(1e-9));
    CHECK(s.x[3 * v + 1] == doctest::Approx(t * m.X[3 * v + 1]).epsilon(1e-9));
    CHECK(s.x[3 * v + 2] == doctest::Approx(t * m.X[3 * v + 2]).epsilon(1e-9));
  }
  MESSAGE("stretch " << a << ": lateral stretch " << t << ", P11 " << P11 << " Pa");
  REQUIRE(r.reactions.size() == 4);
  CHECK(r.reactions[3].first == "pull");
  CHECK(r.reactions[3].second.x() == doctest::Approx(P11).epsilon(1e-8));
  CHECK(r.reactions[0].second.x() == doctest::Approx(-P11).epsilon(1e-8));
  // The lateral rollers carry nothing: the lateral stress is zero.
  CHECK(std::abs(r.reactions[1].second.y()) < 1e-8 * P11);
  CHECK(std::abs(r.reactions[2].second.z()) < 1e-8 * P11);
  const json j = read_json(dir.file("out/summary.json"));
  CHECK(j["reactions"][3]["name"] == "pull");
  CHECK(j["reactions"][3]["force"][0].get<double>() == doctest::Approx(P11).epsilon(1e-8));

  // The frame (zlib, the default): J and sigma_11 = P_11 a / J in every element, the lateral
  // stress zero, and the per-vertex reactions of the pulled face adding up to the pull.
  const std::string vtu = read_text(dir.file("out/" + scene.name + "_000000.vtu"));
  const std::vector<double> Jf = vtu_array(vtu, "J");
  const std::vector<double> sigma = vtu_array(vtu, "cauchy_stress");
  REQUIRE(sigma.size() == 9 * Jf.size());
  for (size_t e = 0; e < Jf.size(); ++e) {
    CHECK(Jf[e] == doctest::Approx(J).epsilon(1e-9));
    CHECK(sigma[9 * e] == doctest::Approx(P11 * a / J).epsilon(1e-8));
    CHECK(std::abs(sigma[9 * e + 4]) < 1e-7 * P11);
  }
  const std::vector<double> reaction = vtu_array(vtu, "reaction");
  REQUIRE(reaction.size() == static_cast<size_t>(m.n_dofs()));
  double pull = 0.0;
  for (const int v : m.kinematic[3].verts) pull += reaction[3 * v];
  CHECK(pull == doctest::Approx(P11).epsilon(1e-8));
  // Free components carry no reaction.
  std::vector<bool> held(m.n_dofs(), false);
  for (const int dof : m.kinematic_dofs()) held[dof] = true;
  int loaded_free = 0;
  for (int i = 0; i < m.n_dofs(); ++i) loaded_free += !held[i] && reaction[i] != 0.0;
  CHECK(loaded_free == 0);
}
