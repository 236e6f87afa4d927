#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app_test_support.hpp"
#include "cli_test_support.hpp"
#include "softgrad/config.hpp"
#include "softgrad/detail/ad/batched_projection.hpp"
#include "softgrad/detail/memory_limit.hpp"
#include "solvers/cpu/linear_operator.hpp"

using namespace softgrad;
using namespace softgrad::app;
using namespace softgrad::test;
using nlohmann::json;

TEST_CASE("app/cli: usage errors print 'softgrad: error:' and exit with 1") {
  const struct {
    std::vector<std::string> args;
    const char* says;
  } cases[] = {
      {{}, "subcommand"},
      {{"simulate"},
       "unknown command 'simulate'; commands: run static grad gradcheck params scene-help "
       "materials"},
      {{"run"}, "SCENE is required"},
      {{"run", "a.json", "--solver", "lu"}, "lu"},
      {{"run", "a.json", "--threads", "0"}, "--threads"},
      {{"run", "a.json", "--steps", "-3"}, "--steps"},
      {{"run", "a.json", "--steps", "many"}, "--steps"},
      {{"run", "a.json", "--quiet", "--verbose"}, "--verbose"},
      {{"static", "a.json", "--steps", "3"}, "--steps"},
  };
  for (const auto& c : cases) {
    const Outcome o = cli(c.args);
    CAPTURE(o.err);
    CHECK(o.code == 1);
    CHECK(o.out.empty());
    CHECK(o.err.rfind("softgrad: error: ", 0) == 0);
    CHECK(contains(o.err, c.says));
    CHECK(contains(o.err, "--help' for usage"));
  }
}

TEST_CASE("app/cli: --help and --version print on stdout and exit with 0") {
  const Outcome top = cli({"--help"});
  CHECK(top.code == 0);
  for (const char* command :
       {"run", "static", "grad", "gradcheck", "params", "scene-help", "materials"})
    CHECK(contains(top.out, command));
  const Outcome run = cli({"run", "--help"});
  CHECK(run.code == 0);
  for (const char* option : {"SCENE FILE REQUIRED", "--out", "--steps", "--solver", "--threads",
                             "--quiet", "--verbose", "Exit codes"})
    CHECK_MESSAGE(contains(run.out, option), std::string(option));
  CHECK(cli({"static", "--help"}).code == 0);
  const Outcome version = cli({"--version"});
  CHECK(version.code == 0);
  CHECK(contains(version.out, SOFTGRAD_VERSION));
}

TEST_CASE("app/cli: scene-help prints the scene reference, materials the parameter tables") {
  const Outcome help = cli({"scene-help"});
  CHECK(help.code == 0);
  CHECK(help.out == scene_reference());
  const Outcome materials = cli({"materials"});
  CHECK(materials.code == 0);
  CHECK(materials.out == materials_text());
}

TEST_CASE("app/cli: a missing or invalid scene is an InputError with exit code 1") {
  TempDir dir;
  const Outcome missing = cli({"run", dir.file("missing.json")});
  CHECK(missing.code == 1);
  CHECK(missing.err.rfind("softgrad: error: ", 0) == 0);
  CHECK(contains(missing.err, "missing.json"));
  write_text(dir.file("bad.json"), tiny_scene_json(R"("materal": 1)"));
  const Outcome bad = cli({"static", dir.file("bad.json")});
  CHECK(bad.code == 1);
  CHECK(contains(bad.err, "materal"));
}

TEST_CASE("app/cli: run writes the output where --out says and reports on stdout") {
  TempDir dir;
  write_text(dir.file("tiny.json"), tiny_scene_json());
  const Outcome o = cli({"run", dir.file("tiny.json"), "--steps", "3", "--every", "2", "--solver",
                         "pcg", "--threads", "1", "--out", dir.file("o")});
  CAPTURE(o.err);
  REQUIRE(o.code == 0);
  CHECK(contains(o.out, "tiny: completed, 3/3 steps in "));
  CHECK(contains(o.out, "  frames:  3 in " + dir.file("o/tiny.pvd")));
  CHECK(contains(o.out, "  summary: " + dir.file("o/summary.json")));
  CHECK(contains(o.err, "softgrad: step 3/3 (100%)"));  // not a terminal: lines
  const json j = read_json(dir.file("o/summary.json"));
  CHECK(j["solver"] == "pcg");
  CHECK(j["threads"] == 1);
  CHECK(j["steps_completed"] == 3);
  CHECK(j["scene_file"] == dir.file("tiny.json"));
}

TEST_CASE("app/cli: --quiet leaves stderr empty, --verbose describes the run") {
  TempDir dir;
  write_text(dir.file("tiny.json"), tiny_scene_json());
  const Outcome quiet = cli({"run", dir.file("tiny.json"), "-q", "--out", dir.file("q")});
  CHECK(quiet.code == 0);
  CHECK(quiet.err.empty());
  const Outcome verbose =
      cli({"run", dir.file("tiny.json"), "-n", "1", "-v", "--out", dir.file("v")});
  CHECK(verbose.code == 0);
  CHECK(contains(verbose.err, "softgrad: tiny: 3D, 12 vertices, 12 elements"));
}

TEST_CASE("app/cli: a Newton failure exits with 2 and names the step") {
  TempDir dir;
  write_text(
      dir.file("hard.json"),
      tiny_scene_json(R"("solver": {"newton_max_iterations": 1, "newton_tolerance": 1e-30})"));
  const Outcome o = cli({"run", dir.file("hard.json"), "--out", dir.file("o")});
  CHECK(o.code == 2);
  CHECK(contains(o.out, "tiny: newton_failed, 0/2 steps"));
  CHECK(contains(o.err, "softgrad: error: Newton failed in step 1 (t = 0.01 s): max_iterations"));
  CHECK(read_json(dir.file("o/summary.json"))["status"] == "newton_failed");
  const Outcome s = cli({"static", dir.file("hard.json"), "--out", dir.file("s")});
  CHECK(s.code == 2);
  CHECK(contains(s.err, "softgrad: error: static solve failed: max_iterations"));
}

TEST_CASE("app/cli: static writes the equilibrium and its summary") {
  TempDir dir;
  write_text(dir.file("tiny.json"), tiny_scene_json());
  const Outcome o = cli({"static", dir.file("tiny.json"), "--out", dir.file("o"), "-q"});
  CAPTURE(o.err);
  REQUIRE(o.code == 0);
  CHECK(contains(o.out, "tiny: static equilibrium converged after "));
  CHECK(read_json(dir.file("o/summary.json"))["status"] == "converged");
  CHECK(std::filesystem::exists(dir.file("o/tiny_000000.vtu")));
}

TEST_CASE("app/cli: --version names the build's optional parts and the BLAS in use") {
  const Outcome version = cli({"--version"});
  REQUIRE(version.code == 0);
  for (const char* part :
       {"CUDA:", "MPI:", "Python:", "BLAS:", "CHOLMOD:", "SpMV:", "PSD:", "threads:"}) {
    INFO(part);
    CHECK(contains(version.out, part));
  }
  CHECK(contains(version.out, SOFTGRAD_HAS_MPI ? "MPI:     built" : "MPI:     not built"));
  CHECK(contains(version.out, ".so"));  // the library dgemm_ resolves to
  CHECK(contains(version.out, std::string("SpMV:    ") + block_product_kernel() + " kernel"));
  CHECK(contains(version.out, std::string("PSD:     ") +
                                  ad::projection_kernel_name(ad::best_projection_kernel()) +
                                  " kernel"));
}

TEST_CASE("app/cli: --max-memory bounds per-step tables before they are allocated") {
  // A per-step force on 2 vertices for 3e8 steps (duration / dt) is 1.2e9 values: it asked for
  // gigabytes whatever --steps said, and ended in "internal error: out of memory".
  TempDir dir;
  const std::string steps_force =
      R"("forces": [{"type": "steps", "region": {"indices": [2, 5]}, "force": [0, 1, 0]}])";
  std::string scene = tiny_scene_json(steps_force);
  scene.replace(scene.find(R"("duration": 0.02)"), 16, R"("duration": 3e6)");
  write_text(dir.file("long.json"), scene);
  const Outcome long_run = cli({"--max-memory", "8G", "run", dir.file("long.json"), "--steps", "2",
                                "--out", dir.file("out")});
  CHECK(long_run.code == kExitInputError);
  CHECK(contains(long_run.err,
                 "long.json: /forces/0: a force for each of 300000000 steps on 6 dofs (steps: "
                 "the scene's duration / dt, or train.episode_steps)"));
  // The same table at the scene's own length (12 values) fits the default limit, not 512 bytes.
  write_text(dir.file("short.json"), tiny_scene_json(steps_force));
  CHECK(cli({"run", dir.file("short.json"), "--out", dir.file("out"), "--quiet"}).code == 0);
  const Outcome small = cli(
      {"--max-memory", "512", "run", dir.file("short.json"), "--out", dir.file("out"), "--quiet"});
  CHECK(small.code == kExitInputError);
  CHECK(contains(small.err,
                 "needs about 5.76e-07 GB, more than the memory limit of 5.12e-07 GB (set for "
                 "this run; --max-memory sets it)"));
  const Outcome bad = cli({"--max-memory", "lots", "run", dir.file("short.json")});
  CHECK(bad.code == kExitInputError);
  CHECK(contains(bad.err, "--max-memory: 'lots' is not a memory size"));
  CHECK(memory_limit() > 1e6);  // the limit was this command's only
}
