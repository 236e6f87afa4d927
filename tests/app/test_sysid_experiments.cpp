// `softgrad sysid` on several recordings: the scene's /sysid/experiments (each a merge patch of
// the scene), repeated --data, `softgrad record --experiment`, and the errors of bad experiments.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>

#include "app/cli.hpp"
#include "app_test_support.hpp"
#include "cli_test_support.hpp"

using namespace softgrad;
using namespace softgrad::test;
using nlohmann::json;

namespace {

namespace fs = std::filesystem;

// A 0.3 x 0.05 m beam of 6 x 2 cells clamped at x = 0, released from a bent pose; E = 5e4 Pa
// and alpha = 2 are the truth; the sysid block starts from 8e4 and 1 and lists `experiments`.
fs::path beam_scene(const TempDir& dir, const json& experiments) {
  json scene = json::parse(R"({"name": "beam", "dim": 2, "time": {"dt": 0.01, "duration": 0.2},
    "gravity": [0, 0], "damping": {"alpha": 2},
    "bodies": [{"mesh": {"generator": "rectangle", "resolution": [6, 2], "size": [0.3, 0.05]},
                "material": {"model": "neo_hookean", "youngs": 5e4, "poisson": 0.3}}],
    "boundary": [{"region": {"plane": {"point": [0, 0], "normal": [-1, 0]}}}],
    "initial": {"bend": {"deflection": 0.03, "length": 0.3, "origin": [0, 0.025]}},
    "markers": [{"name": "tip", "position": [0.3, 0.025]}],
    "sysid": {"parameters": [{"name": "youngs", "initial": 8e4},
                             {"name": "damping.alpha", "initial": 1, "upper": 10}]}})");
  scene["sysid"]["experiments"] = experiments;
  const fs::path file = dir.file("beam.json");
  write_text(file, scene.dump(2));
  return file;
}

// Experiment 0: the scene; 1: bent the other way and shorter, with a second marker.
json two_experiments() {
  return json::parse(R"([{"data": "released.csv"},
    {"data": "plucked.csv", "patch": {"initial": {"bend": {"deflection": -0.02}},
      "time": {"duration": 0.15},
      "markers": [{"name": "tip", "position": [0.3, 0.025]},
                  {"name": "mid", "position": [0.15, 0.025]}]}}])");
}

}  // namespace

TEST_CASE("app/sysid: the scene's experiments recorded and fitted together, a report for each") {
  TempDir dir;
  const fs::path scene = beam_scene(dir, two_experiments());
  for (int k : {0, 1}) {
    const std::string data = dir.file(k == 0 ? "released.csv" : "plucked.csv");
    const Outcome rec = cli({"record", scene.string(), "--experiment", std::to_string(k), "--out",
                             data, "--frame-rate", "50"});
    REQUIRE_MESSAGE(rec.code == 0, rec.err);
    CHECK_MESSAGE(contains(rec.out, k == 0 ? "beam: 11 frames of 1 marker over 0.2 s"
                                           : "beam: 8 frames of 2 markers over 0.14 s"),
                  rec.out);
  }
  const fs::path out = dir.file("fit");
  const Outcome fit = cli({"sysid", scene.string(), "--out", out.string()});
  REQUIRE_MESSAGE(fit.code == 0, fit.err);
  CHECK(contains(fit.out, "experiment 1 (" + dir.file("plucked.csv") + "): "));
  const json report = read_json(out / "report.json");
  REQUIRE(report["data"].size() == 2);
  CHECK(report["data"][1] == dir.file("plucked.csv"));
  CHECK(report["observations"] == 11 + 16);
  CHECK(report["residuals"] == 2 * 27);
  CHECK(report["parameters"][0]["estimate"].get<double>() == doctest::Approx(5e4).epsilon(1e-4));
  CHECK(report["parameters"][1]["estimate"].get<double>() == doctest::Approx(2.0).epsilon(1e-4));
  REQUIRE(report["experiments"].size() == 2);
  const json& second = report["experiments"][1];
  CHECK(second["observations"] == 16);
  CHECK(second["frames"] == 8);
  CHECK(second["rms_after"].get<double>() < 1e-4 * second["rms_before"].get<double>());
  CHECK(report["cost_before"].get<double>() ==
        doctest::Approx(report["experiments"][0]["cost_before"].get<double>() +
                        second["cost_before"].get<double>()));
  const std::string svg = read_text((out / "fit.svg").string());
  CHECK(contains(svg, "experiment 1: marker mid, y"));

  // Two --data recordings of the scene itself: the same fit as the one recording, observed twice.
  const fs::path twice = dir.file("twice");
  const Outcome again = cli({"sysid", scene.string(), "--data", dir.file("released.csv"), "--data",
                             dir.file("released.csv"), "--out", twice.string()});
  REQUIRE_MESSAGE(again.code == 0, again.err);
  const json doubled = read_json(twice / "report.json");
  CHECK(doubled["observations"] == 22);
  CHECK(doubled["parameters"][0]["estimate"].get<double>() == doctest::Approx(5e4).epsilon(1e-4));
}

TEST_CASE("app/sysid: bad experiments are errors naming the experiment and the key") {
  TempDir dir;
  const auto error = [&](const json& experiments, std::vector<std::string> args) {
    const fs::path scene = beam_scene(dir, experiments);
    args.insert(args.begin() + 1, scene.string());
    const Outcome o = cli(args);
    CHECK(o.code == 1);
    return o.err;
  };
  const std::string scene = dir.file("beam.json");
  const std::vector<std::string> sysid{"sysid", "--out", dir.file("out")};
  CHECK(contains(error(json::parse(R"([{"data": "a.csv", "patch": 3}])"), sysid),
                 scene + ": /sysid/experiments/0/patch: expected an object"));
  CHECK(contains(error(json::parse(R"([{"patch": {}}])"), sysid),
                 scene + ": /sysid/experiments/0/data: missing required key 'data'"));
  CHECK(contains(
      error(json::parse(R"([{"data": "a.csv"}, {"data": "b.csv", "patch": {"time": {"dt": -1}}}])"),
            sysid),
      scene + " (sysid experiment 1): /time/dt: "));
  CHECK(contains(error(json::parse(R"([{"data": "a.csv", "patch": {"markers": null}}])"), sysid),
                 "(sysid experiment 0): the scene declares no \"markers\""));
  CHECK(contains(error(json::array(), sysid), scene + ": no recording: give --data FILE"));
  CHECK(contains(error(json::parse(R"([{"data": "missing.csv"}])"), sysid),
                 "missing.csv: cannot open the recording"));
  CHECK(contains(error(json::parse(R"([{"data": "a.csv"}])"),
                       {"record", "--experiment", "2", "--out", dir.file("x.csv")}),
                 scene + ": no sysid experiment 2 (the scene lists 1 in /sysid/experiments)"));
}

TEST_CASE("app/sysid: held-out recordings are measured every iteration, never fitted") {
  TempDir dir;
  // Record both experiments of the two-experiment scene; the plucked one with E = 7e4 Pa, so
  // that the held-out error is lowest before the fit reaches the fitted recording's 5e4.
  json experiments = two_experiments();
  experiments[1]["patch"]["bodies"] = json::parse(
      R"([{"mesh": {"generator": "rectangle", "resolution": [6, 2], "size": [0.3, 0.05]},
           "material": {"model": "neo_hookean", "youngs": 7e4, "poisson": 0.3}}])");
  const fs::path recorder = beam_scene(dir, experiments);
  for (int k : {0, 1}) {
    const Outcome rec =
        cli({"record", recorder.string(), "--experiment", std::to_string(k), "--out",
             dir.file(k == 0 ? "released.csv" : "plucked.csv"), "--frame-rate", "50"});
    REQUIRE_MESSAGE(rec.code == 0, rec.err);
  }
  json scene = read_json(recorder);
  scene["sysid"]["experiments"] = json::array({experiments[0]});
  scene["sysid"]["validation"] = json::array({experiments[1]});
  scene["sysid"]["validation"][0]["patch"].erase("bodies");  // the fitted model, held out
  scene["sysid"]["parameters"] = json::parse(R"([{"name": "youngs", "initial": 9e4}])");
  scene["sysid"]["method"] = "lbfgs";
  const fs::path file = dir.file("held_out.json");
  write_text(file, scene.dump(2));

  const fs::path out = dir.file("fit");
  const Outcome fit = cli({"sysid", file.string(), "--out", out.string()});
  REQUIRE_MESSAGE(fit.code == 0, fit.err);
  CHECK_MESSAGE(contains(fit.out, "held-out rms error"), fit.out);
  const json report = read_json(out / "report.json");
  REQUIRE(report["data"] == dir.file("released.csv"));  // only the fitted recording
  const json& progress = report["progress"];
  REQUIRE(progress.size() >= 3);
  CHECK(progress[0]["iteration"] == 0);
  // The estimate is the iterate with the lowest held-out error: between 9e4 and the fitted
  // recording's 5e4, nearer 7e4 than the fitted optimum would be.
  const int best = report["best_iteration"];
  double lowest = INFINITY;
  for (const json& q : progress) lowest = std::min(lowest, q["validation_rms"].get<double>());
  CHECK(progress[best]["validation_rms"].get<double>() == lowest);
  CHECK(best < progress.back()["iteration"].get<int>());
  const double E = report["parameters"][0]["estimate"];
  CHECK(E > 5.5e4);
  CHECK(E < 9e4);
  CHECK(contains(read_text((out / "fit.svg").string()), "held-out recordings"));

  // With patience 1 the fit stops one iteration after the held-out error last improved.
  scene["sysid"]["patience"] = 1;
  write_text(file, scene.dump(2));
  const fs::path out2 = dir.file("fit2");
  const Outcome early = cli({"sysid", file.string(), "--out", out2.string()});
  REQUIRE_MESSAGE(early.code == 0, early.err);
  const json stopped = read_json(out2 / "report.json");
  CHECK(stopped["stopped_early"] == true);
  CHECK(stopped["progress"].back()["iteration"].get<int>() ==
        stopped["best_iteration"].get<int>() + 1);

  // patience needs held-out recordings; held-out recordings need one start.
  scene["sysid"].erase("validation");
  write_text(file, scene.dump(2));
  const Outcome bad = cli({"sysid", file.string(), "--out", dir.file("bad")});
  CHECK(bad.code != 0);
  CHECK_MESSAGE(contains(bad.err, "/sysid/patience: patience goes with held-out recordings"),
                bad.err);
}
