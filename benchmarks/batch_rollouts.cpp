// Rollouts side by side: 2D-quadruped episodes (each with its own gait) run one by one on one
// thread, and as a batch (RolloutBatch: simulate, gradient) on 1 and 2 threads, on an idle machine
// and with a busy process beside it. Prints rollout-steps per second and the ratio to serial
// (each round times every way once; the median of the rounds' ratios), checks that every batch
// equals the serial runs bit for bit, and writes JSON.
//
//   batch_rollouts [--episodes 16] [--steps 100] [--repeats 9]
//                  [--out benchmarks/results/batch_rollouts.json]
#include <omp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "child_process.hpp"
#include "command_line.hpp"
#include "softgrad/batch.hpp"
#include "softgrad/controller.hpp"
#include "softgrad/creatures.hpp"
#include "softgrad/openmp_waiting.hpp"

namespace {

using namespace softgrad;
using softgrad::bench::Arguments;
using softgrad::bench::parse_command_line;
using Clock = std::chrono::steady_clock;
using json = nlohmann::ordered_json;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Episodes of the 2D quadruped, each with its own sinusoidal gait.
struct Episodes {
  Creature creature;
  SimulationOptions options;
  std::vector<Rollout> rollouts;
};

Episodes make_episodes(int n, int steps) {
  CreatureOptions co;
  co.steps = steps;
  Episodes e{make_quadruped_2d(co), {}, {}};
  e.options.dt = 0.01;
  e.options.newton.tolerance = 1e-7;
  e.options.newton.max_iterations = 100;
  const Simulator sim(e.creature.model, e.options);
  const int m = e.creature.n_muscles;
  for (int k = 0; k < n; ++k) {
    Rollout r = rest_rollout(sim, steps);
    auto gait = std::make_shared<SineController>(m, e.options.dt, 0.3, 2.0 + 0.1 * k);
    Eigen::VectorXd psi = gait->parameters();
    for (int i = 0; i < m; ++i) {
      psi[i] = 1.0;
      psi[m + i] = (0.6 + 0.05 * k) * (i % 7);
    }
    gait->set_parameters(psi);
    r.controller = gait;
    r.controlled_term = e.creature.muscle_term;
    e.rollouts.push_back(std::move(r));
  }
  return e;
}

/// A process that keeps one core busy until killed: "another busy process".
struct BusyProcess {
  pid_t pid = -1;
  BusyProcess() {
    pid = fork();
    if (pid == 0) {
      volatile double x = 1.0;
      for (;;) x = x * 1.0000001 + 1e-9;
    }
  }
  ~BusyProcess() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
};

/// Times of each way of running the same work, measured in rounds: every round runs each way
/// once, the order turning by one each round, so that a slow spell of a shared machine falls on
/// all of them alike. The ratio to serial is the median of the rounds' ratios.
struct Rounds {
  std::vector<std::vector<double>> seconds;  // [way][round]

  template <class Ways>
  Rounds(int repeats, const Ways& ways) : seconds(ways.size()) {
    for (const auto& way : ways) way();  // warm-up
    const int n = static_cast<int>(ways.size());
    for (int round = 0; round < repeats; ++round)
      for (int j = 0; j < n; ++j) {
        const int w = (j + round) % n;
        const auto t0 = Clock::now();
        ways[w]();
        seconds[w].push_back(seconds_since(t0));
      }
  }
  static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }
  double fastest(int w) const { return *std::min_element(seconds[w].begin(), seconds[w].end()); }
  double median_time(int w) const { return median(seconds[w]); }
  double ratio_to(int reference, int w) const {
    std::vector<double> r;
    for (size_t k = 0; k < seconds[w].size(); ++k)
      r.push_back(seconds[reference][k] / seconds[w][k]);
    return median(r);
  }
};

bool same_states(const std::vector<Trajectory>& a, const std::vector<Trajectory>& b) {
  for (size_t k = 0; k < a.size(); ++k)
    if (a[k].final_state().x != b[k].final_state().x) return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  softgrad::restart_with_bounded_openmp_waiting(argv);
  int episodes = 16, steps = 100, repeats = 9;
  std::string out = "benchmarks/results/batch_rollouts.json";
  const bool ok = parse_command_line(
      argc, argv, "batch_rollouts",
      "usage: batch_rollouts [--episodes N] [--steps N] [--repeats N] [--out F]",
      {{"--episodes", [&](Arguments& a) { episodes = a.integer(); }},
       {"--steps", [&](Arguments& a) { steps = a.integer(); }},
       {"--repeats", [&](Arguments& a) { repeats = a.integer(); }},
       {"--out", [&](Arguments& a) { out = a.value(); }}},
      [&] {
        if (episodes < 1 || steps < 1 || repeats < 1)
          throw std::invalid_argument("--episodes, --steps and --repeats must be positive");
      });
  if (!ok) return 1;
  omp_set_num_threads(1);
  const Episodes e = make_episodes(episodes, steps);
  const DisplacementLoss loss(*e.creature.model, {}, Eigen::Vector2d::UnitX());
  Simulator sim(e.creature.model, e.options);
  const ParameterSet params(sim, e.rollouts[0], {"controller"});
  // The serial reference: one by one on one thread.
  std::vector<Trajectory> reference;
  for (const Rollout& r : e.rollouts) reference.push_back(simulate(sim, r));
  const double total_steps = static_cast<double>(episodes) * steps;
  json records = json::array();
  bool identical = true;
  std::printf("%-8s %-28s %8s %16s %16s %10s\n", "machine", "how", "threads", "rollout-steps/s",
              "(median run)", "/ serial");  // the ratio: median of the rounds' ratios
  for (const bool loaded : {false, true}) {
    std::unique_ptr<BusyProcess> busy;
    if (loaded) busy = std::make_unique<BusyProcess>();
    if (loaded) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const std::vector<double> load = bench::load_average();
    for (const bool with_gradient : {false, true}) {
      // Made once, as a training loop would: like the serial runs' one Simulator, the batches'
      // per-worker Simulators analyse their patterns in the warm-up only.
      RolloutBatch one(e.creature.model, e.options, 1), two(e.creature.model, e.options, 2);
      std::vector<Trajectory> batch_one, batch_two;
      const auto run_batch = [&](RolloutBatch& runner, std::vector<Trajectory>& batch) {
        batch = runner.simulate(e.rollouts);
        if (with_gradient) runner.gradient(batch, loss, params);
      };
      const std::vector<std::function<void()>> ways = {[&] {
                                                         for (const Rollout& r : e.rollouts) {
                                                           const Trajectory traj = simulate(sim, r);
                                                           if (with_gradient)
                                                             gradient(sim, traj, loss, params);
                                                         }
                                                       },
                                                       [&] { run_batch(one, batch_one); },
                                                       [&] { run_batch(two, batch_two); }};
      const Rounds rounds(repeats, ways);
      identical =
          identical && same_states(batch_one, reference) && same_states(batch_two, reference);
      const char* machine = loaded ? "loaded" : "idle";
      const std::string what = with_gradient ? "rollouts + gradients" : "rollouts";
      const auto record = [&](int w, const std::string& how, int threads) {
        const double fastest = total_steps / rounds.fastest(w);
        const double median = total_steps / rounds.median_time(w);
        const double ratio = rounds.ratio_to(0, w);
        std::printf("%-8s %-28s %8d %16.0f %16.0f %10.2f\n", machine, how.c_str(), threads, fastest,
                    median, ratio);
        records.push_back({{"machine", machine},
                           {"work", what},
                           {"how", how},
                           {"threads", threads},
                           {"episodes", episodes},
                           {"steps_per_episode", steps},
                           {"rollout_steps_per_second", fastest},
                           {"rollout_steps_per_second_median_run", median},
                           {"ratio_to_serial", ratio},
                           {"load_average_1min", load[0]}});
      };
      record(0, "serial " + what, 1);
      record(1, "batch " + what, 1);
      record(2, "batch " + what, 2);
    }
  }
  std::printf("batches equal the serial runs bit for bit: %s\n", identical ? "yes" : "NO");
  const json result{{"benchmark", "batch_rollouts"},
                    {"creature", "quadruped_2d"},
                    {"cpu", bench::cpu_model()},
                    {"hardware_threads", std::thread::hardware_concurrency()},
                    {"machine", bench::machine_info()},
                    {"newton_tolerance", 1e-7},
                    {"repeats", repeats},
                    {"bitwise_equal_to_serial", identical},
                    {"runs", records}};
  std::ofstream(out) << result.dump(2) << "\n";
  std::cout << "wrote " << out << "\n";
  return identical ? 0 : 1;
}
