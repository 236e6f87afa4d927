// The first seed's robot numbers: the rigid quadruped's 10 s simulation with and without its
// gradient (s per simulation, gradient / forward; the seed: 8.17 s with gradients on one CPU, the
// gradient 5.5-8x the forward pass), and the simulations the gradient method needs to reach the
// best loss CMA-ES reaches on the ball throw and the arm reach, and each method's simulations to
// an error of 5 cm (ball) and 10 cm (hand) (softgrad compare, CMA-ES its only baseline).
// One thread; the quadruped's timings are the fastest of --repeats runs.
//
//   rigid_robots [--repeats 3] [--ball-budget 200000] [--arm-budget 320000]
//                [--out benchmarks/results/rigid_robots.json]
#include <omp.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "app/console.hpp"
#include "app/scene_commands.hpp"
#include "command_line.hpp"
#include "machine_info.hpp"
#include "softgrad/adjoint.hpp"
#include "softgrad/locomotion.hpp"
#include "softgrad/openmp_waiting.hpp"
#include "softgrad/scene.hpp"

namespace {

using namespace softgrad;
using json = nlohmann::ordered_json;

const char* const kUsage =
    "usage: rigid_robots [--repeats 3] [--ball-budget 200000] [--arm-budget 320000] "
    "[--out benchmarks/results/rigid_robots.json]";
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::filesystem::path scene_path(const std::string& name) {
  return std::filesystem::path(SOFTGRAD_SOURCE_DIR) / "scenes" / (name + ".json");
}

/// The quadruped's whole scene (10 s) with its sine gait: forward alone, and forward plus the
/// adjoint gradient with respect to the gait's parameters.
json quadruped(int repeats) {
  const Scene scene = load_scene(scene_path("quadruped_rigid"));
  Simulator sim(scene.model, scene.options);
  const Rollout r = scene.rollout(sim);
  const Locomotion& loc = *scene.locomotion;
  const auto loss = loc.make_loss();
  const ParameterSet params(sim, r, loc.trained_parameters());
  double forward = 1e300, with_gradient = 1e300, distance = 0.0, newton = 0.0;
  for (int k = 0; k < repeats; ++k) {
    auto t0 = Clock::now();
    const Trajectory t = simulate(sim, r);
    forward = std::min(forward, seconds_since(t0));
    t0 = Clock::now();
    const Trajectory t2 = simulate(sim, r);
    const GradientResult g = gradient(sim, t2, *loss, params);
    with_gradient = std::min(with_gradient, seconds_since(t0));
    distance = -g.loss;
    newton = 0.0;
    for (const NewtonReport& n : t.reports()) newton += n.iterations;
    newton /= t.steps();
  }
  std::cout << "quadruped_rigid, " << r.steps << " steps: forward " << forward
            << " s, with gradient " << with_gradient << " s (" << with_gradient / forward << "x), "
            << newton << " Newton iterations per step\n";
  return {{"scene", "quadruped_rigid"},
          {"bodies", scene.model->rigid_bodies.size()},
          {"joints", scene.model->joints.size()},
          {"motors", loc.creature.n_muscles},
          {"dofs", scene.model->n_dofs()},
          {"steps", r.steps},
          {"simulated_s", r.steps * scene.options.dt},
          {"controller", r.controller->name()},
          {"controller_parameters", params.size()},
          {"newton_iterations_per_step", newton},
          {"forward_s", forward},
          {"forward_and_gradient_s", with_gradient},
          {"gradient_over_forward", with_gradient / forward - 1.0},
          {"forward_and_gradient_over_forward", with_gradient / forward},
          {"distance_m", distance},
          {"seed_paper_with_gradient_s", 8.17}};
}

/// softgrad compare with CMA-ES as the only baseline: the simulations (episodes) each method
/// needs to reach CMA-ES's best loss.
json duel(const std::string& name, long budget, double distance) {
  app::CompareSettings settings;
  settings.budget = budget;
  settings.overrides.out =
      (std::filesystem::temp_directory_path() / ("rigid_robots_" + name)).string();
  settings.overrides.quiet = true;
  settings.overrides.threads = 1;
  Scene scene = load_scene(scene_path(name));
  std::shared_ptr<Locomotion> loc = std::make_shared<Locomotion>(*scene.locomotion);
  loc->compare.methods = {"cmaes"};
  scene.locomotion = loc;
  std::ostringstream out, err;
  const json s = app::compare_scene(std::move(scene), settings, app::Console{out, err, false});
  const long episode = s["episodes"].get<long>() * s["episode_steps"].get<long>();
  const json& grad = s["methods"][0];
  const json& cma = s["methods"][1];
  const auto loss = [](const json& reward) {
    return reward.is_null() ? json(nullptr) : json(-reward.get<double>());
  };
  const auto sims = [episode](const json& steps) {
    return steps.is_null() ? json(nullptr) : json(steps.get<long>() / episode);
  };
  // The simulations each method needs to bring the loss (1/2 |error|^2) below the one of an
  // error of `distance`.
  const double threshold = 0.5 * distance * distance;
  const auto sims_to = [&](const json& method) {
    for (const json& point : method["curve"])
      if (-point[1].get<double>() <= threshold) return json(point[0].get<long>() / episode);
    return json(nullptr);
  };
  json r{{"scene", name},
         {"parameters", grad["policy"]},
         {"episodes_per_evaluation", s["episodes"]},
         {"episode_steps", s["episode_steps"]},
         {"budget_steps", budget},
         {"gradient_best_loss", loss(grad["best_reward_m"])},
         {"cmaes_best_loss", loss(cma["best_reward_m"])},
         {"cmaes_simulations_to_its_best", sims(cma["steps_to_its_best"])},
         {"gradient_simulations_to_cmaes_best", sims(cma["gradient_steps_to_its_best"])},
         {"cmaes_over_gradient", cma["over_gradient_steps"]},
         {"error_m", distance},
         {"gradient_simulations_to_error", sims_to(grad)},
         {"cmaes_simulations_to_error", sims_to(cma)},
         {"gradient_wall_s", grad["wall_time_s"]},
         {"cmaes_wall_s", cma["wall_time_s"]}};
  std::cout << out.str();
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  softgrad::restart_with_bounded_openmp_waiting(argv);
  using softgrad::bench::Arguments;
  int repeats = 3;
  long ball_budget = 200000, arm_budget = 320000;
  std::string out = "benchmarks/results/rigid_robots.json";
  if (!softgrad::bench::parse_command_line(
          argc, argv, "rigid_robots", kUsage,
          {{"--repeats", [&](Arguments& a) { repeats = a.integer(); }},
           {"--ball-budget", [&](Arguments& a) { ball_budget = a.integer(); }},
           {"--arm-budget", [&](Arguments& a) { arm_budget = a.integer(); }},
           {"--out", [&](Arguments& a) { out = a.value(); }}},
          [&] {
            if (repeats < 1) throw std::invalid_argument("--repeats must be >= 1");
            if (ball_budget < 1 || arm_budget < 1)
              throw std::invalid_argument("--ball-budget and --arm-budget must be >= 1");
          }))
    return 1;
  omp_set_num_threads(1);
  json result{{"threads", 1},
              {"machine", softgrad::bench::machine_info<json>()},
              {"quadruped", quadruped(repeats)},
              {"ball_throw", duel("ball_throw", ball_budget, 0.05)},
              {"arm_reach", duel("arm_reach", arm_budget, 0.1)}};
  std::ofstream(out) << result.dump(2) << "\n";
  std::cout << "wrote " << out << "\n";
  return 0;
}
