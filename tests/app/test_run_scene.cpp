#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

#include "app/progress.hpp"
#include "app_test_support.hpp"
#include "cli_test_support.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/run_scene.hpp"

using namespace softgrad;
using namespace softgrad::app;
using namespace softgrad::test;
using nlohmann::json;

TEST_CASE("app/run_scene: a completed run writes frames, a collection and its summary") {
  TempDir dir;
  Scene scene = tiny_scene(dir.file("out"), 4);
  scene.output.every = 2;
  const RunResult r = run_scene(scene);
  CHECK(r.status == RunStatus::Completed);
  CHECK(exit_code(r) == 0);
  CHECK(r.steps_completed() == 4);
  CHECK(r.frames_written == 3);  // steps 0, 2, 4
  CHECK(r.pvd_path == std::filesystem::path(dir.file("out/tiny.pvd")));

  const json j = read_json(dir.file("out/summary.json"));
  CHECK(j["command"] == "run");
  CHECK(j["scene"] == "tiny");
  CHECK(j["mode"] == "dynamic");
  CHECK(j["solver"] == "cholmod");
  CHECK(j["dim"] == 3);
  CHECK(j["n_verts"] == 12);
  CHECK(j["n_elems"] == 12);
  CHECK(j["dt"] == 0.01);
  CHECK(j["steps_requested"] == 4);
  CHECK(j["steps_completed"] == 4);
  CHECK(j["status"] == "completed");
  CHECK(j["failed_step"].is_null());
  CHECK(j["message"] == "");
  CHECK(j["threads"].get<int>() >= 1);
  for (const char* key :
       {"time", "newton_iterations", "linear_iterations", "factorizations", "wall_time_s"})
    CHECK_MESSAGE(j[key].size() == 4, key);
  for (int k = 0; k < 4; ++k) {  // CHOLMOD: each step factorises, chord steps reuse
    CHECK(j["factorizations"][k].get<int>() >= 1);
    CHECK(j["factorizations"][k].get<int>() <= j["newton_iterations"][k].get<int>());
  }
  CHECK(j["time"][3].get<double>() == doctest::Approx(0.04));
  CHECK(j["newton_iterations"][0].get<int>() >= 1);
  CHECK(j["unconverged_steps"].empty());
  CHECK(j["output"]["frames"] == 3);
  CHECK(j["output"]["every"] == 2);
  CHECK(j["steps_per_second"].get<double>() > 0);

  // The box sags: kinetic energy rises from zero, potential falls, total = kinetic + potential.
  const json& e = j["energy"];
  REQUIRE(e["total"].size() == 4);
  CHECK(j["initial_energy"]["kinetic"] == 0.0);
  CHECK(e["kinetic"][0].get<double>() > 0.0);
  CHECK(e["potential"][3].get<double>() < j["initial_energy"]["potential"].get<double>());
  for (int k = 0; k < 4; ++k)
    CHECK(e["total"][k].get<double>() ==
          doctest::Approx(e["kinetic"][k].get<double>() + e["potential"][k].get<double>()));

  // The collection lists the frames with their times; the frames parse as VTK.
  const std::string pvd = read_text(dir.file("out/tiny.pvd"));
  CHECK(count_of(pvd, "<DataSet ") == 3);
  CHECK(pvd.find("timestep=\"0.04\" group=\"\" part=\"0\" file=\"tiny_000004.vtu\"") !=
        std::string::npos);
  const std::string vtu = read_text(dir.file("out/tiny_000002.vtu"));
  CHECK(vtu.find("NumberOfPoints=\"12\" NumberOfCells=\"12\"") != std::string::npos);
  CHECK(vtu.find("</VTKFile>") != std::string::npos);
}

TEST_CASE("app/run_scene: the last state is written when the steps are not a multiple of every") {
  TempDir dir;
  Scene scene = tiny_scene(dir.file("out"), 3);
  scene.output.every = 2;
  const RunResult r = run_scene(scene);
  CHECK(r.frames_written == 3);  // steps 0, 2, 3
  CHECK(std::filesystem::exists(dir.file("out/tiny_000003.vtu")));
}

TEST_CASE("app/run_scene: the collection lists frames at step * dt, without summed round-off") {
  TempDir dir;
  Scene scene = tiny_scene(dir.file("out"), 500);
  scene.output.every = 250;
  const RunResult r = run_scene(scene);  // 500 steps of 10 ms: t sums to 4.999999999999938
  REQUIRE(r.steps_completed() == 500);
  CHECK(r.steps.back().time != 5.0);
  const std::string pvd = read_text(dir.file("out/tiny.pvd"));
  CHECK(pvd.find("timestep=\"2.5\" group=\"\" part=\"0\" file=\"tiny_000250.vtu\"") !=
        std::string::npos);
  CHECK(pvd.find("timestep=\"5\" group=\"\" part=\"0\" file=\"tiny_000500.vtu\"") !=
        std::string::npos);
}

TEST_CASE("app/run_scene: with every 0 or vtu off only the summary is written") {
  TempDir dir;
  Scene scene = tiny_scene(dir.file("out"), 1);
  scene.output.every = 0;
  const RunResult r = run_scene(scene);
  CHECK(r.frames_written == 0);
  CHECK(r.pvd_path.empty());
  CHECK(read_json(dir.file("out/summary.json"))["output"]["pvd"].is_null());
  CHECK_FALSE(std::filesystem::exists(dir.file("out/tiny.pvd")));
}

TEST_CASE("app/run_scene: a Newton failure stops the run, keeps what was done and exits with 2") {
  TempDir dir;
  LogCapture logs;
  Scene scene = tiny_scene(dir.file("out"), 3);
  scene.options.newton.max_iterations = 1;
  scene.options.newton.tolerance = 1e-30;
  const RunResult r = run_scene(scene);
  CHECK(r.status == RunStatus::NewtonFailed);
  CHECK(exit_code(r) == 2);
  CHECK(r.failed_step == 1);
  CHECK(r.steps_completed() == 0);
  CHECK(r.failure.status == NewtonReport::Status::MaxIterations);
  CHECK_FALSE(r.message.empty());
  CHECK(r.frames_written == 1);  // frame 0

  const json j = read_json(dir.file("out/summary.json"));
  CHECK(j["status"] == "newton_failed");
  CHECK(j["failed_step"] == 1);
  CHECK(j["newton_status"] == "max_iterations");
  CHECK(j["message"] == r.message);
  CHECK(j["steps_completed"] == 0);
  CHECK(j["newton_iterations"].empty());
  CHECK(count_of(read_text(dir.file("out/tiny.pvd")), "<DataSet ") == 1);
}

TEST_CASE("app/run_scene: under on_failure continue unconverged steps are kept and listed") {
  TempDir dir;
  LogCapture logs;
  Scene scene = tiny_scene(dir.file("out"), 2);
  scene.options.newton.max_iterations = 1;
  scene.options.newton.tolerance = 1e-30;
  scene.options.on_failure = FailurePolicy::Continue;
  const RunResult r = run_scene(scene);
  CHECK(r.status == RunStatus::Completed);
  CHECK(exit_code(r) == 0);
  const json j = read_json(dir.file("out/summary.json"));
  CHECK(j["unconverged_steps"] == json::array({1, 2}));
  CHECK(j["failed_step"].is_null());
}

TEST_CASE("app/run_scene: an interrupt stops before the next step and still writes the summary") {
  TempDir dir;
  Scene scene = tiny_scene(dir.file("out"), 3);
  volatile std::sig_atomic_t flag = 1;
  RunOptions options;
  options.interrupt = &flag;
  const RunResult r = run_scene(scene, options);
  CHECK(r.status == RunStatus::Interrupted);
  CHECK(exit_code(r) == 130);
  CHECK(r.steps_completed() == 0);
  CHECK(read_json(dir.file("out/summary.json"))["status"] == "interrupted");
}

TEST_CASE("app/run_scene: the step callback is called once per step") {
  TempDir dir;
  Scene scene = tiny_scene(dir.file("out"), 2);
  std::ostringstream os;
  Progress progress(os, Progress::Style::Lines, scene.steps);
  RunOptions options;
  options.on_step = [&progress](int done, double t) { progress.update(done, t); };
  const RunResult r = run_scene(scene, options);
  CHECK(count_of(os.str(), "softgrad: step ") == 2);
  CHECK(os.str().find("step 2/2 (100%)") != std::string::npos);
}

TEST_CASE("app/run_scene: a static scene takes one equilibrium per load step") {
  TempDir dir;
  Scene scene = tiny_scene(dir.file("out"), 2);
  scene.static_solve = true;
  const RunResult r = run_scene(scene);
  CHECK(r.status == RunStatus::Completed);
  const json j = read_json(dir.file("out/summary.json"));
  CHECK(j["mode"] == "static");
  CHECK(j["energy"]["kinetic"] == json::array({0.0, 0.0}));
  CHECK(j["time"][1].get<double>() == doctest::Approx(0.02));
}

TEST_CASE("app/run_scene: bad scenes and unwritable output are InputErrors") {
  TempDir dir;
  Scene scene = tiny_scene(dir.file("out"), 1);
  scene.steps = -1;
  CHECK(input_error_of([&] { run_scene(scene); }) == "the number of steps must be >= 0");
  CHECK(input_error_of([] { run_scene(Scene{}); }).find("no model") != std::string::npos);
  scene.steps = 1;
  scene.options.linear.kind = "nope";
  CHECK(input_error_of([&] { run_scene(scene); }).find("unknown kind 'nope'") != std::string::npos);
  scene.options.linear.kind = "cholmod";
  write_text(dir.file("taken"), "a file, not a folder");
  scene.output.directory = dir.file("taken");
  CHECK(input_error_of([&] { run_scene(scene); }).find("'" + dir.file("taken") + "'") !=
        std::string::npos);
}

TEST_CASE("app/run_scene: sizes are checked before anything is allocated") {
  // A generated mesh of 6e9 tetrahedra, and 1e8 steps of a rollout, ended in "internal error:
  // out of memory" (exit 3); both are input errors naming the size, at once.
  TempDir dir;
  write_text(dir.file("big.json"),
             R"({"name": "big", "time": {"dt": 0.01, "duration": 0.02},
    "bodies": [{"mesh": {"generator": "box", "resolution": [1000, 1000, 1000],
                         "size": [0.2, 0.1, 0.1]},
                "material": {"model": "neo_hookean", "youngs": 1e5, "poisson": 0.3}}]})");
  const Outcome big = cli({"run", dir.file("big.json"), "--out", dir.file("out")});
  CHECK(big.code == app::kExitInputError);
  CHECK(big.err.find("/bodies/0/mesh/resolution: the resolution makes about 6e+09 elements") !=
        std::string::npos);
  write_text(dir.file("tiny.json"),
             tiny_scene_json(R"("loss": [{"type": "center_of_mass", "position": [0, 0, 0]}])"));
  const Outcome steps =
      cli({"grad", dir.file("tiny.json"), "--steps", "1000000000", "--params", "youngs"});
  CHECK(steps.code == app::kExitInputError);
  CHECK_MESSAGE(steps.err.find("a rollout of 1000000000 steps needs about") != std::string::npos,
                steps.err);
}
