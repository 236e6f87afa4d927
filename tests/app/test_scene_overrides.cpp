#include <doctest/doctest.h>

#include <sstream>

#include "app/scene_overrides.hpp"
#include "app_test_support.hpp"
#include "softgrad/errors.hpp"
#include "solvers/cuda_backend.hpp"

using namespace softgrad;
using namespace softgrad::app;

TEST_CASE("app/scene_overrides: set values replace the scene's, unset ones keep them") {
  Scene scene;
  scene.steps = 100;
  scene.output.directory = "out/scene";
  scene.output.every = 2;
  apply_overrides(SceneOverrides{}, scene);
  CHECK(scene.steps == 100);
  CHECK(scene.output.directory == "out/scene");
  CHECK(scene.output.every == 2);
  CHECK(scene.options.linear.kind == "cholmod");

  SceneOverrides o;
  o.out = "elsewhere";
  o.steps = 0;
  o.every = 5;
  o.solver = "pcg";
  apply_overrides(o, scene);
  CHECK(scene.steps == 0);
  CHECK(scene.output.directory == "elsewhere");
  CHECK(scene.output.every == 5);
  CHECK(scene.options.linear.kind == "pcg");
}

TEST_CASE(
    "app/scene_overrides: a matrix-free solver drops the ichol preconditioner with a warning") {
  test::LogCapture logs;
  Scene scene;
  scene.options.linear = {"pcg", "ichol"};
  SceneOverrides o;
  o.solver = "cholmod";
  apply_overrides(o, scene);
  CHECK(scene.options.linear.preconditioner == "ichol");  // ignored by cholmod: left alone
  CHECK(logs.messages.empty());
  o.solver = "matfree";
  apply_overrides(o, scene);
  CHECK(scene.options.linear.preconditioner == "jacobi");
  REQUIRE(logs.messages.size() == 1);
  CHECK(logs.messages[0].find("--solver matfree") != std::string::npos);
}

TEST_CASE("app/scene_overrides: --strict refuses a scene with plausibility warnings") {
  Scene scene;
  scene.warnings = {"s.json: /bodies/0/material/youngs: 5 Pa is far outside ..."};
  SceneOverrides o;
  CHECK_NOTHROW(apply_overrides(o, scene));
  o.strict = true;
  CHECK_THROWS_WITH_AS(apply_overrides(o, scene),
                       "--strict: the scene has 1 implausible value:\n  s.json: "
                       "/bodies/0/material/youngs: 5 Pa is far outside ...",
                       InputError);
  scene.warnings.clear();
  CHECK_NOTHROW(apply_overrides(o, scene));
}

TEST_CASE("app/scene_overrides: negative counts are an InputError") {
  Scene scene;
  SceneOverrides o;
  o.steps = -2;
  CHECK(test::input_error_of([&] { apply_overrides(o, scene); }) == "--steps must be >= 0, got -2");
}

TEST_CASE("app/scene_overrides: --quiet and --verbose pick the verbosity") {
  CHECK(SceneOverrides{}.verbosity() == Verbosity::Normal);
  SceneOverrides o;
  o.quiet = true;
  CHECK(o.verbosity() == Verbosity::Quiet);
  o = {};
  o.verbose = true;
  CHECK(o.verbosity() == Verbosity::Verbose);
}

TEST_CASE("app/scene_overrides: --device picks the GPU or CPU linear solver") {
  Scene scene;
  SceneOverrides o;
  o.device = "cuda";
  if (softgrad::detail::cuda_backend_built()) {
    apply_overrides(o, scene);
    CHECK(scene.options.linear.kind == "cuda");
  } else {
    CHECK_THROWS_WITH_AS(apply_overrides(o, scene),
                         "--device cuda: this build of softgrad has no CUDA backend; reconfigure "
                         "with -DSOFTGRAD_WITH_CUDA=ON on a machine with nvcc, or use --device cpu",
                         InputError);
  }
  o.solver = "cholmod";
  CHECK_THROWS_AS(apply_overrides(o, scene), InputError);
  // --device cpu replaces a scene's GPU solver by the same CG on the CPU.
  scene.options.linear.kind = "cuda";
  SceneOverrides cpu;
  cpu.device = "cpu";
  apply_overrides(cpu, scene);
  CHECK(scene.options.linear.kind == "pcg");
}
