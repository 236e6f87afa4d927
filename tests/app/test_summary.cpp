#include <doctest/doctest.h>

#include "app_test_support.hpp"
#include "scene/summary.hpp"
#include "softgrad/config.hpp"

using namespace softgrad;
using namespace softgrad::test;

TEST_CASE("app/summary: a run's summary holds per-step arrays and the failure") {
  TempDir dir;
  Scene scene = tiny_scene(dir.file("out"));
  scene.file = "scenes/tiny.json";
  RunResult r;
  r.status = RunStatus::NewtonFailed;
  r.steps_requested = 5;
  r.steps = {{1, 0.01, 3, 0, 2, true, 1.0, -2.0, 0.5}, {2, 0.02, 5, 7, 0, false, 2.0, -4.0, 1.5}};
  r.failed_step = 3;
  r.failure.status = NewtonReport::Status::LineSearchFailed;
  r.message = "no descent";
  r.wall_time_s = 4.0;
  r.output_directory = "out";
  r.pvd_path = "out/tiny.pvd";
  r.frames_written = 2;
  const auto j = run_summary(scene, r);
  CHECK(j.begin().key() == "command");  // keys in the documented order
  CHECK(j["softgrad_version"] == SOFTGRAD_VERSION);
  CHECK(j["scene_file"] == "scenes/tiny.json");
  CHECK(j["n_dofs"] == 36);
  CHECK(j["status"] == "newton_failed");
  CHECK(j["failed_step"] == 3);
  CHECK(j["newton_status"] == "line_search_failed");
  CHECK(j["message"] == "no descent");
  CHECK(j["steps_completed"] == 2);
  CHECK(j["newton_iterations"] == nlohmann::ordered_json::array({3, 5}));
  CHECK(j["linear_iterations"] == nlohmann::ordered_json::array({0, 7}));
  CHECK(j["factorizations"] == nlohmann::ordered_json::array({2, 0}));
  CHECK(j["wall_time_s"] == nlohmann::ordered_json::array({0.5, 1.5}));
  CHECK(j["energy"]["total"] == nlohmann::ordered_json::array({-1.0, -2.0}));
  CHECK(j["unconverged_steps"] == nlohmann::ordered_json::array({2}));
  CHECK(j["mean_newton_iterations"] == 4.0);
  CHECK(j["steps_per_second"] == 0.5);
  CHECK(j["output"]["pvd"] == "out/tiny.pvd");
}

TEST_CASE("app/summary: a static summary names its status and sizes") {
  TempDir dir;
  const Scene scene = tiny_scene(dir.file("out"));
  StaticResult r;
  r.report.iterations = 4;
  r.max_displacement = 0.25;
  const auto j = static_summary(scene, r);
  CHECK(j["command"] == "static");
  CHECK(j["status"] == "converged");
  CHECK(j["iterations"] == 4);
  CHECK(j["max_displacement"] == 0.25);
  CHECK(j["output"]["pvd"].is_null());
}

TEST_CASE("app/summary: JSON files are written whole, or an InputError names the path") {
  TempDir dir;
  write_json_file(dir.file("a.json"), {{"x", 1}, {"bad utf8", "\xff"}});
  CHECK(read_json(dir.file("a.json"))["x"] == 1);
  CHECK(dir.hidden_files() == 0);
  const std::string msg = input_error_of([&] {
    write_json_file(dir.file("missing/a.json"), {{"x", 1}});
  });
  CHECK(msg.rfind("cannot write '" + dir.file("missing/a.json") + "'", 0) == 0);
}
