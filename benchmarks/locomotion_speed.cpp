// Speed of the 2D creatures (issue bar: the quadruped forward at >= 10,000 steps/s on one core,
// backward no slower than forward): a fixed sinusoidal gait, Newton tolerance 1e-7 (what the
// locomotion training uses), one thread. Each configuration runs `--repeats` times after a
// warm-up; the table and the JSON give the fastest run (the least disturbed by other jobs).
//
//   locomotion_speed [--steps 1000] [--repeats 10] [--out benchmarks/results/locomotion_speed.json]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "softgrad/adjoint.hpp"
#include "softgrad/controller.hpp"
#include "softgrad/creatures.hpp"
#include "softgrad/openmp_waiting.hpp"

namespace {

using namespace softgrad;
using softgrad::bench::Arguments;
using softgrad::bench::parse_command_line;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Timing {
  double forward = 1e300, backward = 1e300;  // fastest of the repeats [s]
  double forward_median = 0.0;               // the median repeat [s]: how disturbed runs are
  double newton_per_step = 0.0;
  double factorizations_per_step = 0.0;
  int n_verts = 0, n_muscles = 0;
};

Timing measure(bool quadruped, int steps, int repeats) {
  CreatureOptions co;
  co.steps = steps;
  const Creature c = quadruped ? make_quadruped_2d(co) : make_biped_2d(co);
  SimulationOptions o;
  o.dt = 0.01;
  o.newton.tolerance = 1e-7;
  o.newton.max_iterations = 100;
  Simulator sim(c.model, o);
  Rollout r = rest_rollout(sim, steps);
  auto gait = std::make_shared<SineController>(c.n_muscles, o.dt, 0.3, 2.0);
  Eigen::VectorXd psi = gait->parameters();
  for (int i = 0; i < c.n_muscles; ++i) {
    psi[i] = 1.0;
    psi[c.n_muscles + i] = 0.9 * (i % 7);
  }
  gait->set_parameters(psi);
  r.controller = gait;
  r.controlled_term = c.muscle_term;
  const DisplacementLoss loss(*c.model, {}, Eigen::Vector2d::UnitX());
  const ParameterSet params(sim, r, {"controller"});
  Timing t;
  t.n_verts = c.model->n_verts;
  t.n_muscles = c.n_muscles;
  std::vector<double> forward_times;
  for (int k = 0; k <= repeats; ++k) {  // k = 0 warms up
    auto t0 = Clock::now();
    const Trajectory traj = simulate(sim, r);
    const double fw = seconds_since(t0);
    t0 = Clock::now();
    const GradientResult g = gradient(sim, traj, loss, params);
    const double bw = seconds_since(t0);
    if (!g.report.trustworthy()) std::cerr << "warning: the gradient is not trustworthy\n";
    if (k == 0) {
      long iterations = 0, factorizations = 0;
      for (const NewtonReport& rep : traj.reports()) {
        iterations += rep.iterations;
        factorizations += rep.factorizations;
      }
      t.newton_per_step = static_cast<double>(iterations) / steps;
      t.factorizations_per_step = static_cast<double>(factorizations) / steps;
      continue;
    }
    t.forward = std::min(t.forward, fw);
    t.backward = std::min(t.backward, bw);
    forward_times.push_back(fw);
  }
  std::sort(forward_times.begin(), forward_times.end());
  if (!forward_times.empty()) t.forward_median = forward_times[forward_times.size() / 2];
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  softgrad::restart_with_bounded_openmp_waiting(argv);
  int steps = 1000, repeats = 10;
  std::string out = "benchmarks/results/locomotion_speed.json";
  const bool ok =
      parse_command_line(argc, argv, "locomotion_speed",
                         "usage: locomotion_speed [--steps N] [--repeats N] [--out FILE.json]",
                         {{"--steps", [&](Arguments& a) { steps = a.integer(); }},
                          {"--repeats", [&](Arguments& a) { repeats = a.integer(); }},
                          {"--out", [&](Arguments& a) { out = a.value(); }}},
                         [&] {
                           if (steps < 1 || repeats < 1)
                             throw std::invalid_argument("--steps and --repeats must be positive");
                         });
  if (!ok) return 1;
  omp_set_num_threads(1);
  nlohmann::json records = nlohmann::json::array();
  std::printf("%-10s %6s %8s %14s %14s %12s %12s %12s %10s\n", "creature", "verts", "muscles",
              "forward st/s", "(median run)", "newton/step", "factor/step", "backward s",
              "bw / fw");
  for (const bool quadruped : {false, true}) {
    const Timing t = measure(quadruped, steps, repeats);
    const char* name = quadruped ? "quadruped" : "biped";
    std::printf("%-10s %6d %8d %14.0f %14.0f %12.2f %12.2f %12.3f %10.3f\n", name, t.n_verts,
                t.n_muscles, steps / t.forward, steps / t.forward_median, t.newton_per_step,
                t.factorizations_per_step, t.backward, t.backward / t.forward);
    records.push_back({{"creature", name},
                       {"n_verts", t.n_verts},
                       {"n_muscles", t.n_muscles},
                       {"steps", steps},
                       {"threads", 1},
                       {"newton_tolerance", 1e-7},
                       {"newton_iterations_per_step", t.newton_per_step},
                       {"factorizations_per_step", t.factorizations_per_step},
                       {"forward_seconds", t.forward},
                       {"forward_steps_per_second", steps / t.forward},
                       {"forward_steps_per_second_median_run", steps / t.forward_median},
                       {"repeats", repeats},
                       {"backward_seconds", t.backward},
                       {"backward_over_forward", t.backward / t.forward}});
  }
  std::ofstream(out) << records.dump(2) << "\n";
  std::cout << "wrote " << out << "\n";
  return 0;
}
