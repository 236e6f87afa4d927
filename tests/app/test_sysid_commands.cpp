// `softgrad record` and `softgrad sysid` end to end on a small 2D cantilever, and the errors
// they give for bad recordings and settings.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "app/cli.hpp"
#include "app/scene_commands.hpp"
#include "app/sysid_scene.hpp"
#include "app_test_support.hpp"
#include "cli_test_support.hpp"
#include "softgrad/parameters.hpp"
#include "support/vtu_reader.hpp"

using namespace softgrad;
using namespace softgrad::app;
using namespace softgrad::test;
using nlohmann::json;

namespace {

namespace fs = std::filesystem;

// A 0.3 x 0.05 m beam of 6 x 2 cells clamped at x = 0, released from a bent pose for 0.2 s;
// E = 5e4 Pa and alpha = 2 are the truth; the sysid block starts from 8e4 and 1.
// Each test case writes into its own TempDir: CTest runs the cases in parallel processes.
fs::path beam_scene(const TempDir& dir, const std::string& extra = "") {
  const fs::path file = dir.file("beam.json");
  write_text(file, R"({"name": "beam", "dim": 2, "time": {"dt": 0.01, "duration": 0.2},
    "gravity": [0, 0], "damping": {"alpha": 2},
    "bodies": [{"mesh": {"generator": "rectangle", "resolution": [6, 2], "size": [0.3, 0.05]},
                "material": {"model": "neo_hookean", "youngs": 5e4, "poisson": 0.3}}],
    "boundary": [{"region": {"plane": {"point": [0, 0], "normal": [-1, 0]}}}],
    "initial": {"bend": {"deflection": 0.03, "length": 0.3, "origin": [0, 0.025]}},
    "markers": [{"name": "tip", "position": [0.3, 0.025]}, {"name": "mid", "position": [0.16, 0.03]}],
    "sysid": {"parameters": [{"name": "youngs", "initial": 8e4},
                             {"name": "damping.alpha", "initial": 1, "upper": 10}]})" +
                       extra + "}");
  return file;
}

}  // namespace

TEST_CASE("app/sysid: record then sysid recovers E and damping with a complete report") {
  TempDir dir;
  const fs::path scene = beam_scene(dir);
  const fs::path data = dir.file("beam.csv");
  const Outcome rec = cli({"record", scene.string(), "--out", data.string(), "--frame-rate", "75"});
  REQUIRE_MESSAGE(rec.code == 0, rec.err);
  CHECK(contains(rec.out, "beam: 16 frames of 2 markers over 0.2 s"));
  const fs::path out = dir.file("beam_fit");
  const Outcome fit =
      cli({"sysid", scene.string(), "--data", data.string(), "--out", out.string()});
  REQUIRE_MESSAGE(fit.code == 0, fit.err);
  CHECK(contains(fit.out, "beam: lm, "));
  const json report = read_json(out / "report.json");
  for (const char* key : {"command",
                          "softgrad_version",
                          "scene",
                          "scene_file",
                          "data",
                          "method",
                          "parameters",
                          "frames",
                          "observations",
                          "residuals",
                          "rms_before",
                          "rms_after",
                          "cost_before",
                          "cost_after",
                          "iterations",
                          "simulations",
                          "sensitivity_simulations",
                          "gradient_simulations",
                          "seconds",
                          "converged",
                          "termination"})
    CHECK_MESSAGE(report.contains(key), key);
  CHECK(report["observations"] == 32);
  CHECK(report["residuals"] == 64);
  REQUIRE(report["parameters"].size() == 2);
  CHECK(report["parameters"][0]["name"] == "youngs");
  CHECK(report["parameters"][0]["initial"] == 8e4);
  CHECK(report["parameters"][0]["estimate"].get<double>() == doctest::Approx(5e4).epsilon(1e-4));
  CHECK(report["parameters"][1]["estimate"].get<double>() == doctest::Approx(2.0).epsilon(1e-4));
  CHECK(report["parameters"][1]["stddev"].get<double>() >= 0.0);
  CHECK(report["rms_after"].get<double>() < 1e-4 * report["rms_before"].get<double>());
  CHECK(report["simulations"].get<int>() > 2);
  const std::string svg = read_text((out / "fit.svg").string());
  CHECK(contains(svg, "marker tip, y"));
  CHECK(contains(svg, "recorded"));
  CHECK(contains(svg, "initial guess"));
}

TEST_CASE("app/sysid: a stop request ends the fit at its estimate, which is reported") {
  TempDir dir;
  const fs::path scene = beam_scene(dir);
  const fs::path data = dir.file("beam.csv");
  REQUIRE(cli({"record", scene.string(), "--out", data.string(), "--frame-rate", "75"}).code == 0);
  for (const char* method : {"lm", "lbfgs"}) {
    CAPTURE(method);
    SysIdSettings settings;
    settings.data = {data.string()};
    settings.out = dir.file(std::string("stopped_") + method);
    settings.method = method;
    settings.verbosity = Verbosity::Quiet;
    int asked = 0;
    // As a signal during the first iteration (Ceres asks after its initial evaluation too).
    settings.stop = [&asked] { return ++asked >= 2; };
    std::ostringstream out, err;
    const json result = sysid_scene(load_scene(scene), settings, Console{out, err, false});
    const json report = read_json(fs::path(settings.out) / "report.json");
    CHECK(report == result);
    CHECK(report["interrupted"] == true);
    CHECK(report["converged"] == false);
    CHECK(report["iterations"].get<int>() == 1);
    // Moved from the initial guess, not yet at the truth (5e4).
    const double E = report["parameters"][0]["estimate"].get<double>();
    CHECK(E != 8e4);
    CHECK(std::abs(E - 5e4) > 1e-4 * 5e4);
    CHECK(report["rms_after"].get<double>() < report["rms_before"].get<double>());
    CHECK(std::filesystem::exists(fs::path(settings.out) / "fit.svg"));
    CHECK(contains(out.str(), "interrupted"));
  }
}

TEST_CASE("app/sysid: a fitted field is written over the mesh and drawn per element") {
  TempDir dir;
  const fs::path scene = beam_scene(dir);
  const fs::path data = dir.file("beam.csv");
  REQUIRE(cli({"record", scene.string(), "--out", data.string(), "--frame-rate", "75"}).code == 0);
  const fs::path out = dir.file("field_fit");
  const Outcome fit = cli({"sysid", scene.string(), "--data", data.string(), "--params", "youngs[]",
                           "--method", "lbfgs", "--max-iterations", "3", "--out", out.string()});
  REQUIRE_MESSAGE(fit.code == 0, fit.err);
  CHECK(contains(fit.out, "field:  " + (out / "field.vtu").string()));
  const json report = read_json(out / "report.json");
  const std::string vtu = read_text((out / "field.vtu").string());
  const std::vector<double> estimate = vtu_array(vtu, "youngs[] estimate");
  const std::vector<double> initial = vtu_array(vtu, "youngs[] initial");
  REQUIRE(estimate.size() == 24);  // 6 x 2 cells, 2 triangles each
  REQUIRE(report["parameters"].size() == 24);
  for (size_t e = 0; e < estimate.size(); ++e) {
    CHECK(estimate[e] == report["parameters"][e]["estimate"].get<double>());
    CHECK(initial[e] == report["parameters"][e]["initial"].get<double>());
  }
  CHECK(vtu_array(vtu, "youngs[] stddev").size() == 24);
  const std::string svg = read_text((out / "fit.svg").string());
  CHECK(contains(svg, "field youngs[] per element"));
}

TEST_CASE("app/sysid: bad recordings are errors naming the file and line, exit code 1") {
  TempDir dir;
  const fs::path scene = beam_scene(dir);
  const auto run = [&](const std::string& text) {
    const fs::path data = dir.file("bad.csv");
    write_text(data, text);
    return cli({"sysid", scene.string(), "--data", data.string(), "--out", dir.file("bad_out")});
  };
  const std::string file = dir.file("bad.csv");
  const std::string head = "time,marker,x,y\n0,tip,0.3,0.055\n";
  struct Case {
    std::string text, message;
  };
  const Case cases[] = {
      {head + "0.01,knee,0.3,0.05\n", file + ":3: unknown marker 'knee'"},
      {head + "0.02,tip,0.3,0.05\n0.01,tip,0.3,0.05\n",
       file + ":4: time 0.01 is before the previous frame's time 0.02 (times must not decrease)"},
      {head + "0.01,tip,nan,0.05\n", file + ":3: coordinate 0 'nan' is not a finite number"},
      {head + "0.01,tip,0.3\n", file + ":3: expected 4 comma-separated fields"},
      {head + "0.5,tip,0.3,0.05\n",
       file + ": the recording ends at t = 0.5 s, after the scene's 0.2 s"},
  };
  for (const Case& c : cases) {
    const Outcome o = run(c.text);
    CHECK(o.code == 1);
    CHECK_MESSAGE(contains(o.err, "softgrad: error: " + c.message), o.err);
  }
  const Outcome missing = cli({"sysid", scene.string(), "--data", dir.file("none.csv")});
  CHECK(missing.code == 1);
  CHECK(contains(missing.err, "none.csv: cannot open the recording"));
}

TEST_CASE(
    "app/record: frame rates and noise that are not numbers, or too many frames, are refused") {
  // --frame-rate 1e12 overflowed the frame count (0 frames, exit 0); NaN passed the option's
  // range check and meant the default.
  TempDir dir;
  const fs::path scene = beam_scene(dir);
  const auto refused = [&](const std::vector<std::string>& extra, const std::string& what) {
    std::vector<std::string> args = {"record", scene.string(), "--out", dir.file("x.csv")};
    args.insert(args.end(), extra.begin(), extra.end());
    const Outcome o = cli(args);
    CHECK(o.code == 1);
    CHECK_MESSAGE(contains(o.err, what), o.err);
    CHECK_FALSE(fs::exists(dir.file("x.csv")));
  };
  refused({"--frame-rate", "1e12"}, "more than the limit of 10 million");
  refused({"--frame-rate", "nan"}, "expected a finite number > 0, got 'nan'");
  refused({"--frame-rate", "inf"}, "expected a finite number > 0, got 'inf'");
  refused({"--frame-rate", "0"}, "expected a finite number > 0, got '0'");
  refused({"--noise", "nan"}, "expected a finite number >= 0, got 'nan'");
}

TEST_CASE("app/sysid: a marker outside the mesh is an error naming its key") {
  TempDir dir;
  const fs::path file = dir.file("outside.json");
  write_text(file, R"({"dim": 2, "time": {"dt": 0.01, "duration": 0.02},
    "bodies": [{"mesh": {"generator": "rectangle", "resolution": [2, 1], "size": [0.3, 0.05]},
                "material": {"model": "neo_hookean"}}],
    "markers": [{"name": "tip", "position": [0.4, 0.025]}]})");
  const Outcome o = cli({"record", file.string(), "--out", dir.file("x.csv")});
  CHECK(o.code == 1);
  CHECK(contains(o.err, file.string() + ": /markers/0/position: marker 'tip' at (0.4, 0.025) is "
                                        "outside the mesh"));
}

TEST_CASE("app/record: --set writes parameters and field halves, noise is seeded") {
  TempDir dir;
  MarkerScene p = load_marker_scene(beam_scene(dir).string());
  apply_setting("damping.alpha=0.7", p);
  apply_setting("youngs[x<0.15]=9e4", p);
  const ParameterSet alpha(*p.sim, p.rollout, {"damping.alpha"});
  CHECK(alpha.get(*p.sim, p.rollout)[0] == 0.7);
  const ParameterSet field(*p.sim, p.rollout, {"youngs[]"});
  const Eigen::VectorXd E = field.get(*p.sim, p.rollout);
  CHECK(E.maxCoeff() == 9e4);
  CHECK(E.minCoeff() == 5e4);
  CHECK((E.array() == 9e4).count() == E.size() / 2);
  const auto error = [&](const std::string& s) {
    try {
      apply_setting(s, p);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK(error("youngs") ==
        "--set 'youngs': expected NAME=VALUE or NAME[AXIS<C]=VALUE (AXIS x, y or z)");
  CHECK(error("youngs=abc") == "--set 'youngs=abc': 'abc' is not a finite number");
  CHECK(contains(error("yungs=1"), "--set 'yungs=1': "));
  CHECK(error("youngs[z<1]=1e5") == "--set 'youngs[z<1]=1e5': the scene is 2D: use x or y");
  CHECK(error("youngs[x>5]=1e5") ==
        "--set 'youngs[x>5]=1e5': no element centroid satisfies the condition");
  CHECK(contains(error("youngs=-1"), "--set 'youngs=-1': "));

  // Same seed, same noise; the noise has about the requested deviation.
  MarkerScene q = load_marker_scene(beam_scene(dir).string());
  const Recording clean = record_markers(q, 0.0, 0.0, 1);
  const Recording a = record_markers(q, 0.0, 1e-3, 5), b = record_markers(q, 0.0, 1e-3, 5);
  CHECK(clean.times.size() == 21);
  double sum2 = 0.0;
  for (size_t i = 0; i < a.observations.size(); ++i) {
    CHECK(a.observations[i].position == b.observations[i].position);
    sum2 += (a.observations[i].position - clean.observations[i].position).squaredNorm();
  }
  CHECK(std::sqrt(sum2 / (2.0 * a.observations.size())) == doctest::Approx(1e-3).epsilon(0.2));
}
