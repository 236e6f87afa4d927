#include <doctest/doctest.h>

#include "app/static_solve.hpp"
#include "app_test_support.hpp"
#include "softgrad/errors.hpp"

using namespace softgrad;
using namespace softgrad::app;
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
