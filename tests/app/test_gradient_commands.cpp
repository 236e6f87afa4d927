// `softgrad grad`, `gradcheck` and `params` end to end on a tiny scene with a loss.
#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>

#include "app/cli.hpp"
#include "app/gradient_problem.hpp"
#include "app_test_support.hpp"
#include "cli_test_support.hpp"

using namespace softgrad;
using namespace softgrad::app;
using namespace softgrad::test;
using nlohmann::json;

namespace {

// The tiny box (2 steps of 10 ms) thrown upwards and damped, its free end (x = 0.2) pulled 1 cm
// down, differentiated by Young's modulus, damping and the initial velocities.
std::string gradient_scene(const std::string& extra = "") {
  return tiny_scene_json(
      R"("damping": {"alpha": 0.5, "beta": 0}, "initial": {"velocity": [0, 0.3, 0]},
         "loss": [{"type": "position", "region": {"plane": {"point": [0.2, 0, 0],
                   "normal": [1, 0, 0]}}, "offset": [0, -0.01, 0], "weight": 100}],
         "parameters": ["youngs", "damping.alpha", "v0"])" +
      (extra.empty() ? "" : ", " + extra));
}

// The loss of `scene_file` at Young's modulus `youngs`, simulated through the API.
double loss_with_youngs(const std::string& scene_file, double youngs) {
  GradientArgs args;
  args.scene = scene_file;
  args.params = {"youngs"};
  GradientProblem p = load_gradient_problem(args);
  Rollout r = p.rollout;
  p.params.set(*p.sim, r, Eigen::VectorXd::Constant(1, youngs));
  return evaluate_loss(*p.sim, simulate(*p.sim, r), *p.scene.loss);
}

}  // namespace

TEST_CASE("app/gradient_commands: params lists the names with descriptions") {
  TempDir dir;
  write_text(dir.file("g.json"), gradient_scene());
  const Outcome o = cli({"params", dir.file("g.json")});
  CAPTURE(o.err);
  REQUIRE(o.code == 0);
  CHECK(contains(o.out, "Parameters of tiny"));
  CHECK(contains(o.out, "\n  v0                       initial velocities (36 values, m/s)\n"));
  CHECK(contains(o.out,
                 "\n  elastic:body0.youngs[]   a field: one value per element (12 values, "
                 "Pa)\n"));
  CHECK(contains(o.out, "\n  damping.beta             one value, s\n"));
  CHECK(contains(o.out, "The scene selects: youngs damping.alpha v0\n"));
  CHECK(cli({"params", dir.file("none.json")}).code == 1);
}

TEST_CASE("app/gradient_commands: grad prints the loss, the gradient table and the report") {
  TempDir dir;
  write_text(dir.file("g.json"), gradient_scene());
  const Outcome o = cli({"grad", dir.file("g.json"), "--out", dir.file("g_out.json")});
  CAPTURE(o.err);
  REQUIRE(o.code == 0);
  CHECK(contains(o.out, "tiny: loss "));
  CHECK(contains(o.out, " after 2 steps of 0.01 s; 38 parameters\n"));
  CHECK(contains(o.out, "\n  parameter       value          dL/dtheta\n"));
  CHECK(contains(o.out, "\n  youngs          100000         -"));
  CHECK(contains(o.out, "\n  damping.alpha   0.5            -"));
  CHECK(contains(o.out, "\n  v0 (36 values)  norm 0.848528  norm "));
  CHECK(contains(o.out, "adjoint: cholmod, 2 steps\n"));
  CHECK(contains(o.out, "  memory: peak "));
  CHECK(contains(o.out, "  gradient: " + dir.file("g_out.json")));
  CHECK(o.err.empty());

  // The JSON holds every entry; the loss is the simulated one; dL/dE matches a central difference.
  const json j = read_json(dir.file("g_out.json"));
  CHECK(j["command"] == "grad");
  CHECK(j["steps"] == 2);
  CHECK(j["n_parameters"] == 38);
  REQUIRE(j["parameters"].size() == 3);
  CHECK(j["parameters"][2]["name"] == "v0");
  CHECK(j["parameters"][2]["gradient"].size() == 36);
  CHECK(j["parameters"][2]["value"][4] == doctest::Approx(0.3));  // vertex 1, y
  CHECK(j["parameters"][2]["value"][0] == 0.0);                   // a clamped vertex
  const double loss = j["loss"];
  CHECK(loss == doctest::Approx(loss_with_youngs(dir.file("g.json"), 1e5)).epsilon(1e-12));
  const double h = 1.0;
  const double fd = (loss_with_youngs(dir.file("g.json"), 1e5 + h) -
                     loss_with_youngs(dir.file("g.json"), 1e5 - h)) /
                    (2 * h);
  const double dl_de = j["parameters"][0]["gradient"][0];
  CHECK(std::abs(fd) > 0.0);
  CHECK(dl_de == doctest::Approx(fd).epsilon(1e-5));
  CHECK(j["adjoint"]["backend"] == "cholmod");
  CHECK(j["adjoint"]["unconverged_steps"].empty());
}

TEST_CASE("app/gradient_commands: the adjoint solver and checkpointing give the same gradient") {
  TempDir dir;
  json scene = json::parse(gradient_scene());
  scene["time"]["duration"] = 0.04;  // four steps: checkpoints every 2 recompute some states
  write_text(dir.file("g.json"), scene.dump());
  const auto gradient_of = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"grad",  dir.file("g.json"),  "--params", "youngs,poisson",
                                  "--out", dir.file("out.json")};
    args.insert(args.end(), extra.begin(), extra.end());
    const Outcome o = cli(args);
    CAPTURE(o.err);
    REQUIRE(o.code == 0);
    const json j = read_json(dir.file("out.json"));
    return std::vector<double>{j["parameters"][0]["gradient"][0],
                               j["parameters"][1]["gradient"][0]};
  };
  const std::vector<double> reference = gradient_of({});
  for (const auto& extra :
       std::vector<std::vector<std::string>>{{"--checkpoint", "0"},
                                             {"--checkpoint", "3"},
                                             {"--adjoint-solver", "pcg"},
                                             {"--adjoint-solver", "matfree"},
                                             {"--solver", "pcg", "--threads", "1"}}) {
    CAPTURE(extra.back());
    const std::vector<double> g = gradient_of(extra);
    CHECK(g[0] == doctest::Approx(reference[0]).epsilon(1e-6));
    CHECK(g[1] == doctest::Approx(reference[1]).epsilon(1e-6));
  }
}

TEST_CASE("app/gradient_commands: a stop request ends grad in either pass without a gradient") {
  TempDir dir;
  json scene = json::parse(gradient_scene());
  scene["time"]["duration"] = 0.04;  // four steps, checkpoints every 2
  write_text(dir.file("g.json"), scene.dump());
  GradientArgs args;
  args.scene = dir.file("g.json");
  args.params = {"youngs"};
  GradientProblem p = load_gradient_problem(args);
  const GradientRun whole = run_gradient(p, 2, "");
  REQUIRE_FALSE(whole.interrupted());
  REQUIRE(whole.result.gradient.size() == 1);
  // The stop is asked before each of the 4 forward steps, then before each of the 4 backward
  // steps: answering true at the k-th question stops after k - 1 steps.
  for (const int k : {1, 3, 5, 8, 9}) {
    CAPTURE(k);
    int asked = 0;
    const GradientRun run = run_gradient(p, 2, "", [&] { return ++asked == k; });
    CHECK(run.interrupted() == (k <= 8));
    if (k <= 4) {
      CHECK(run.interrupted_after_forward_steps == k - 1);
    } else if (k <= 8) {
      CHECK(run.interrupted_after_forward_steps == -1);
      CHECK(run.result.report.interrupted);
      CHECK(run.result.report.steps == k - 5);
    }
    if (run.interrupted()) {
      CHECK(run.result.gradient.size() == 0);
    } else {  // asked 8 times, never stopped: the same gradient, bit for bit
      CHECK(asked == 8);
      CHECK(run.result.gradient[0] == whole.result.gradient[0]);
    }
  }
}

TEST_CASE("app/gradient_commands: gradcheck compares with finite differences") {
  TempDir dir;
  write_text(dir.file("g.json"), gradient_scene());
  const Outcome o = cli({"gradcheck", dir.file("g.json"), "--entries", "2"});
  CAPTURE(o.out);
  CAPTURE(o.err);
  REQUIRE(o.code == 0);
  CHECK(contains(o.out, "gradcheck tiny: loss "));
  CHECK(contains(o.out,
                 "Newton tolerance 1e-09 for every run, the adjoint's included (the "
                 "scene's: 1e-09)"));
  CHECK(contains(o.out, "\n  youngs "));
  CHECK(contains(o.out, "\n  damping.alpha "));
  CHECK(contains(o.out, "\n  v0 along random d "));
  CHECK(count_of(o.out, "\n  v0[") == 2);
  CHECK(contains(o.out, "gradcheck: 5 checks (10 simulations in "));
  CHECK(contains(o.out, "tolerance 1e-04: passed\n"));
  CHECK(contains(o.err, "softgrad: run 10/10 (100%)"));
  // Scalars are always checked; --entries only samples the larger blocks.
  const Outcome few = cli({"gradcheck", dir.file("g.json"), "--entries", "0", "-q"});
  CHECK(few.code == 0);
  CHECK(contains(few.out, "gradcheck: 3 checks (6 simulations in "));

  // A parameter at the edge of its range gets a one-sided difference; an impossible tolerance
  // fails with exit code 4.
  const Outcome edge = cli({"gradcheck", dir.file("g.json"), "--params", "damping.beta",
                            "--newton-tolerance", "1e-8", "--tolerance", "1e-30", "-q"});
  CAPTURE(edge.out);
  CHECK(edge.code == kExitCheckFailed);
  CHECK(contains(edge.out, "(forward)"));
  CHECK(contains(edge.out, "Newton tolerance 1e-08 for every run"));
  CHECK(contains(edge.out, "tolerance 1e-30: FAILED\n"));
  CHECK(edge.err.empty());
}

TEST_CASE("app/gradient_commands: bad input is an error with exit code 1, a failed step 2") {
  TempDir dir;
  write_text(dir.file("g.json"), gradient_scene());
  write_text(dir.file("no_loss.json"), tiny_scene_json());
  std::string heavy = gradient_scene(), far = gradient_scene();
  heavy.replace(heavy.find(R"("weight": 100)"), 13, R"("weight": 1e31)");
  far.replace(far.find("[0, -0.01, 0]"), 13, "[0, -1e200, 0]");
  write_text(dir.file("heavy.json"), heavy);
  write_text(dir.file("far.json"), far);
  write_text(dir.file("no_params.json"),
             tiny_scene_json(R"("loss": [{"type": "position", "vertex": 1, "time": 0.02,
                                            "offset": [0, 0, 0]}])"));
  const struct {
    std::vector<std::string> args;
    const char* says;
  } cases[] = {
      {{"grad", dir.file("no_loss.json")}, "no_loss.json: the scene declares no loss"},
      {{"gradcheck", dir.file("no_loss.json")}, "declares no loss"},
      {{"grad", dir.file("no_params.json")}, "no parameters to differentiate by: give --params"},
      {{"grad", dir.file("g.json"), "--params", "youngs,bogus"},
       "--params: unknown parameter 'bogus'; available:"},
      {{"grad", dir.file("no_params.json"), "--params", "v0", "--steps", "1"},
       "--steps 1: the scene's loss needs 2 steps (an entry of /loss applies from step 2 on)"},
      {{"grad", dir.file("g.json"), "--adjoint-solver", "lu"}, "--adjoint-solver"},
      {{"grad", dir.file("g.json"), "--checkpoint", "-1"}, "--checkpoint"},
      {{"gradcheck", dir.file("g.json"), "--step", "0"}, "--step"},
      // Checked before the work: the folder of --out cannot be made (a file has its name).
      {{"grad", dir.file("g.json"), "--out", dir.file("g.json/out.json")},
       "cannot create the output directory"},
      {{"grad", dir.file("missing.json")}, "missing.json: scene file not found"},
      {{"grad", dir.file("heavy.json")}, "/loss/0/weight: a weight above 1e30 overflows"},
  };
  for (const auto& c : cases) {
    const Outcome o = cli(c.args);
    CAPTURE(o.err);
    CHECK(o.code == kExitInputError);
    CHECK(o.err.rfind("softgrad: error: ", 0) == 0);
    CHECK(contains(o.err, c.says));
  }
  // A target so far away that the loss overflows: no infinite gradient printed with exit 0.
  const Outcome overflow =
      cli({"grad", dir.file("far.json"), "--out", dir.file("far_gradient.json")});
  CHECK(overflow.code == kExitInputError);
  CHECK(contains(overflow.err,
                 "softgrad: error: tiny: the loss (inf) or its gradient is not finite"));
  CHECK_FALSE(std::filesystem::exists(dir.file("far_gradient.json")));
  // A folder of --out that does not exist yet is made.
  const Outcome made = cli({"grad", dir.file("g.json"), "--out", dir.file("new/dir/g.json")});
  CAPTURE(made.err);
  CHECK(made.code == 0);
  CHECK(std::filesystem::is_regular_file(dir.file("new/dir/g.json")));
  // Newton cannot converge in one iteration: the forward run stops, with exit code 2.
  write_text(
      dir.file("stiff.json"),
      gradient_scene(R"("solver": {"newton_max_iterations": 1, "newton_tolerance": 1e-12})"));
  const Outcome failed = cli({"grad", dir.file("stiff.json")});
  CHECK(failed.code == kExitNewtonFailed);
  CHECK(contains(failed.err, "softgrad: error: step "));
  CHECK(contains(failed.err, "did not converge"));
}
