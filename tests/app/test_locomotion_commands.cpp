// `softgrad train` and `softgrad compare` end to end on short biped episodes.
#include <doctest/doctest.h>

#include <csignal>
#include <fstream>
#include <sstream>

#include "app/cli.hpp"
#include "app/interrupt.hpp"
#include "app/scene_commands.hpp"
#include "app_test_support.hpp"
#include "cli_test_support.hpp"

using namespace softgrad;
using namespace softgrad::app;
using namespace softgrad::test;
using nlohmann::json;

namespace {

/// The biped with a sine gait on `steps`-step episodes of 10 ms, plus `extra` keys.
std::string biped_scene(int steps, const std::string& extra = "") {
  return R"({"name": "walker", "time": {"dt": 0.01, "duration": 0.1},
    "solver": {"newton_tolerance": 1e-7, "newton_max_iterations": 100},
    "creature": {"generator": "biped_2d"},
    "controller": {"type": "sine", "frequency": 4},
    "train": {"iterations": 4, "learning_rate": 0.3, "episode_steps": )" +
         std::to_string(steps) + "}, \"output\": {\"every\": 5}" +
         (extra.empty() ? "" : ", " + extra) + "}";
}

/// The data lines of a CSV file (its header checked).
std::vector<std::string> csv_rows(const std::string& path, const std::string& header) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  CHECK(line == header);
  std::vector<std::string> rows;
  while (std::getline(in, line)) rows.push_back(line);
  return rows;
}

}  // namespace

TEST_CASE("app/locomotion_commands: train writes the curve, the controller, the gait") {
  TempDir dir;
  write_text(dir.file("walker.json"), biped_scene(20));
  const std::string out = dir.file("train");
  const Outcome o = cli({"train", dir.file("walker.json"), "--out", out});
  CAPTURE(o.err);
  REQUIRE(o.code == 0);
  CHECK(contains(o.out, "walker: 4 iterations (adam), reward "));
  CHECK(contains(o.err, "softgrad: iteration 4/4: reward "));
  CHECK(csv_rows(out + "/loss.csv", "iteration,loss,reward,gradient_norm,simulated_steps,seconds")
            .size() == 4);
  CHECK(contains(read_text(out + "/loss.svg"), "<svg"));
  CHECK(contains(read_text(out + "/gait.svg"), "<svg"));
  CHECK(contains(read_text(out + "/rollout.pvd"), "rollout_000020.vtu"));
  const json controller = read_json(out + "/best_controller.json");
  CHECK(controller["type"] == "sine");
  CHECK(controller["parameters"].size() == 3 * 20 + 1);
  const json s = read_json(out + "/summary.json");
  CHECK(s["command"] == "train");
  CHECK(s["simulated_steps"] == 4 * 20);
  CHECK(s["episode_steps"] == 20);
  // Training moves the biped further than the initial gait, and the replay agrees.
  const double initial = s["initial_reward_m"], best = s["best_reward_m"];
  MESSAGE("biped, 0.2 s: " << initial << " m -> " << best << " m");
  CHECK(best > initial);
  CHECK(s["rollout_reward_m"].get<double>() == doctest::Approx(best).epsilon(1e-9));
}

TEST_CASE("app/locomotion_commands: --resume continues a run exactly, its curve appended") {
  // 4 iterations in one go, and 2 then 2 more resumed: the same curve, bit for bit (Adam's
  // moments and step count, the point and the best are restored exactly).
  TempDir dir;
  write_text(dir.file("walker.json"), biped_scene(20));
  const auto curve = [&](const std::string& out) {
    std::vector<std::string> rows;
    for (const std::string& row :
         csv_rows(out + "/loss.csv", "iteration,loss,reward,gradient_norm,simulated_steps,seconds"))
      rows.push_back(row.substr(0, row.rfind(',')));  // without the seconds
    return rows;
  };
  REQUIRE(cli({"train", dir.file("walker.json"), "--out", dir.file("once"), "--quiet"}).code == 0);
  const std::string split = dir.file("split");
  REQUIRE(cli({"train", dir.file("walker.json"), "--out", split, "-n", "2", "--quiet"}).code == 0);
  const Outcome r = cli({"train", dir.file("walker.json"), "--out", split, "-n", "2", "--resume"});
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  CHECK(contains(r.err, "softgrad: iteration 4/4: reward "));
  CHECK(contains(r.out, "2 iterations (adam, resumed after 2)"));
  CHECK(curve(split) == curve(dir.file("once")));
  const json once = read_json(dir.file("once/summary.json"));
  const json resumed = read_json(split + "/summary.json");
  CHECK(resumed["resumed_after"] == 2);
  CHECK(resumed["total_iterations"] == 4);
  CHECK(resumed["best_reward_m"] == once["best_reward_m"]);
  CHECK(resumed["initial_reward_m"] == once["initial_reward_m"]);
  CHECK(resumed["simulated_steps"] == once["simulated_steps"]);
  CHECK(resumed["best_iteration"] == once["best_iteration"]);
}

TEST_CASE("app/locomotion_commands: an interrupted training writes its files and says why") {
  TempDir dir;
  write_text(dir.file("walker.json"), biped_scene(20));
  TrainSettings settings;
  settings.overrides.out = dir.file("train");
  settings.overrides.quiet = true;
  settings.stop = [] { return true; };  // as if Ctrl-C came during the first iteration
  std::ostringstream out, err;
  const json s = train_scene(load_scene(dir.file("walker.json")), settings, Console{out, err});
  CHECK(s["termination"] == "adam: stopped after 1 iterations");
  CHECK(csv_rows(dir.file("train/loss.csv"),
                 "iteration,loss,reward,gradient_norm,simulated_steps,seconds")
            .size() == 1);
  CHECK(read_json(dir.file("train/summary.json")) == s);
  CHECK(read_json(dir.file("train/best_controller.json"))["type"] == "sine");
}

TEST_CASE("app/locomotion_commands: SIGTERM and SIGINT raise the flag and name their exit code") {
  for (const int number : {SIGTERM, SIGINT}) {
    InterruptHandler handler;
    CHECK_FALSE(InterruptHandler::interrupted());
    std::raise(number);
    CHECK(InterruptHandler::interrupted());
    CHECK(InterruptHandler::exit_code() == 128 + number);
  }
}

TEST_CASE("app/locomotion_commands: train and compare reject scenes without a creature") {
  TempDir dir;
  write_text(dir.file("box.json"), tiny_scene_json());
  const Outcome o = cli({"train", dir.file("box.json")});
  CHECK(o.code == 1);
  CHECK(contains(o.err, "box.json: not a control scene: it needs a \"creature\""));
  CHECK(cli({"compare", dir.file("box.json")}).code == 1);
  write_text(dir.file("walker.json"), biped_scene(10));
  const Outcome b = cli({"compare", dir.file("walker.json"), "--budget", "5"});
  CHECK(b.code == 1);
  CHECK(contains(b.err, "compare: the budget (5 steps) is shorter than one episode (10 steps)"));
}

TEST_CASE("app/locomotion_commands: compare runs the four methods on one budget") {
  TempDir dir;
  write_text(dir.file("walker.json"),
             biped_scene(10, R"("compare": {"ppo_episodes": 2, "ppo_minibatch": 10,
                                "es_population": 4, "cmaes_population": 4, "hidden": [8]})"));
  const std::string out = dir.file("cmp");
  const Outcome o =
      cli({"compare", dir.file("walker.json"), "--budget", "120", "--out", out, "--quiet"});
  CAPTURE(o.err);
  REQUIRE(o.code == 0);
  CHECK(contains(o.out, "walker: 1 x 10-step episodes, budget 120 simulated steps per method"));
  CHECK(contains(o.out, "steps to 90% of best"));
  CHECK(contains(o.out, "gradient (adam)"));
  const json s = read_json(out + "/compare.json");
  REQUIRE(s["methods"].size() == 4);
  // 12 gradient iterations; CMA-ES 3 generations of 4; PPO 6 iterations of 2 episodes; ES 3 of
  // 4 candidates.
  CHECK(s["methods"][1]["method"] == "CMA-ES");
  for (int k = 0; k < 4; ++k) CHECK(s["methods"][k]["steps_used"] == 120);
  CHECK(s["methods"][0]["curve"].size() == 12);
  CHECK(s["methods"][1]["curve"].size() == 3);
  CHECK(s["methods"][2]["curve"].size() == 1 + 6);
  CHECK(s["methods"][3]["curve"].size() == 1 + 3);
  // CMA-ES's curve is its best so far: it never falls.
  for (size_t k = 1; k < s["methods"][1]["curve"].size(); ++k)
    CHECK(s["methods"][1]["curve"][k][1].get<double>() >=
          s["methods"][1]["curve"][k - 1][1].get<double>());
  CHECK(s["cmaes_best_reward_m"] == s["methods"][1]["best_reward_m"]);
  double best = -1e300;
  for (const json& m : s["methods"]) best = std::max(best, m["best_reward_m"].get<double>());
  CHECK(s["best_reward_m"].get<double>() == best);
  CHECK(s["threshold_90_percent_m"].get<double>() == doctest::Approx(0.9 * best));
  // Somebody reaches 90% of the best; its steps are a curve point within the budget.
  bool reached = false;
  for (const json& m : s["methods"])
    if (!m["steps_to_90_percent"].is_null()) {
      reached = true;
      CHECK(m["steps_to_90_percent"].get<long>() <= 120);
    }
  CHECK(reached);
  const std::vector<std::string> rows =
      csv_rows(out + "/compare.csv", "method,simulated_steps,reward");
  CHECK(rows.size() == 12 + 3 + 7 + 4);
  CHECK(contains(read_text(out + "/compare.svg"), "PPO"));
}

TEST_CASE("app/locomotion_commands: a stop request ends compare with the curves so far") {
  TempDir dir;
  write_text(dir.file("walker.json"),
             biped_scene(10, R"("compare": {"ppo_episodes": 2, "ppo_minibatch": 10,
                                "es_population": 4, "hidden": [8]})"));
  CompareSettings settings;
  settings.budget = 120;
  settings.overrides.out = dir.file("cmp");
  settings.overrides.quiet = true;
  int asked = 0;
  settings.stop = [&asked] { return ++asked > 4; };  // as a signal during the 5th iteration
  std::ostringstream out, err;
  const json result =
      compare_scene(load_scene(dir.file("walker.json")), settings, app::Console{out, err, false});
  const json s = read_json(dir.file("cmp") + "/compare.json");
  CHECK(s == result);
  CHECK(s["interrupted"] == true);
  REQUIRE(s["methods"].size() == 4);
  CHECK(s["methods"][0]["curve"].size() == 5);  // the gradient method stopped after 5 of 12
  CHECK(s["methods"][0]["steps_used"] == 50);
  CHECK(s["methods"][1]["curve"].empty());      // CMA-ES: skipped
  CHECK(s["methods"][2]["curve"].size() == 1);  // PPO and ES: their initial policies only
  CHECK(s["methods"][3]["curve"].size() == 1);
  CHECK(csv_rows(dir.file("cmp") + "/compare.csv", "method,simulated_steps,reward").size() == 7);
}

TEST_CASE("app/locomotion_commands: compare's learning curves do not depend on its threads") {
  TempDir dir;
  write_text(dir.file("walker.json"),
             biped_scene(10, R"("compare": {"ppo_episodes": 3, "ppo_minibatch": 10,
                                "es_population": 4, "hidden": [8]})"));
  std::vector<std::string> curves;
  for (const char* threads : {"1", "3"}) {
    const std::string out = dir.file(std::string("cmp") + threads);
    const Outcome o = cli({"compare", dir.file("walker.json"), "--budget", "90", "--threads",
                           threads, "--out", out, "--quiet"});
    CAPTURE(o.err);
    REQUIRE(o.code == 0);
    curves.push_back(read_text(out + "/compare.csv"));
  }
  CHECK(curves[0] == curves[1]);
  CHECK(csv_rows(dir.file("cmp1") + "/compare.csv", "method,simulated_steps,reward").size() > 6);
}
