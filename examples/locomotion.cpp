// Teach the seed's 2D quadruped to walk by gradients through the simulator: a sinusoidal gait
// (amplitude, phase and offset per muscle, one frequency) trained with Adam on 1 s episodes,
// then run for a 10 s episode, and again with the time step halved three times: backward Euler's
// numerical dissipation shrinks with dt, and a gait tuned at one dt moves less at a finer one.
//
//   locomotion [iterations (12)] [episode steps (100)] [refinements (3)]
#include <cmath>
#include <iostream>

#include "softgrad/controller.hpp"
#include "softgrad/creatures.hpp"
#include "softgrad/openmp_waiting.hpp"
#include "softgrad/training.hpp"

using namespace softgrad;

namespace {

SimulationOptions options(double dt = 0.01) {
  SimulationOptions o;
  o.dt = dt;
  o.newton.tolerance = 1e-7;  // 1e-7 gradients are plenty for training
  o.newton.max_iterations = 100;
  return o;
}

/// Distance the quadruped's centre of mass travels along +x in `seconds` with the sine gait of
/// parameters `psi`, simulated with time step `dt`.
double distance(const Eigen::VectorXd& psi, double seconds, double dt) {
  CreatureOptions co;
  co.steps = static_cast<int>(std::lround(seconds / dt));
  const Creature quad = make_quadruped_2d(co);
  Simulator sim(quad.model, options(dt));
  Rollout r = rest_rollout(sim, co.steps);
  auto gait = std::make_shared<SineController>(quad.n_muscles, dt, 0.3, 2.0);
  gait->set_parameters(psi);
  r.controller = std::move(gait);
  r.controlled_term = quad.muscle_term;
  const DisplacementLoss loss(*quad.model, {}, Eigen::Vector2d::UnitX());
  return -evaluate_loss(sim, simulate(sim, r), loss);
}

}  // namespace

int main(int argc, char** argv) {
  softgrad::restart_with_bounded_openmp_waiting(argv);
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 12;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 100;
  const int refinements = argc > 3 ? std::atoi(argv[3]) : 3;
  CreatureOptions co;
  co.steps = steps;
  const Creature quad = make_quadruped_2d(co);
  Simulator sim(quad.model, options());
  Rollout rollout = rest_rollout(sim, steps);
  // Start from a fixed, asymmetric gait: amplitude 1, phases spread over the muscles, 2 Hz.
  auto gait = std::make_shared<SineController>(quad.n_muscles, 0.01, 0.3, 2.0);
  Eigen::VectorXd psi = gait->parameters();
  for (int i = 0; i < quad.n_muscles; ++i) {
    psi[i] = 1.0;
    psi[quad.n_muscles + i] = 0.9 * (i % 7);
  }
  gait->set_parameters(psi);
  rollout.controller = gait;
  rollout.controlled_term = quad.muscle_term;
  const DisplacementLoss loss(*quad.model, {}, Eigen::Vector2d::UnitX());
  TrainOptions t;
  t.iterations = iterations;
  t.learning_rate = 0.3;
  t.on_iteration = [](const TrainIteration& it) {
    std::cout << "iteration " << it.iteration << ": " << -it.loss << " m, " << it.simulated_steps
              << " simulated steps, " << it.seconds << " s\n";
  };
  const TrainReport report =
      train(sim, rollout, loss, ParameterSet(sim, rollout, {"controller"}), t);
  const Eigen::VectorXd best = rollout.controller->parameters();
  std::cout << "best " << steps * 0.01 << " s episode: " << -report.best_loss << " m\n";
  for (int k = 0; k <= refinements; ++k) {
    const double dt = 0.01 / (1 << k), d10 = distance(best, 10.0, dt);
    std::cout << "10 s episode with the trained gait, dt = " << dt << " s: " << d10
              << " m = " << d10 / quad.body_length << " body lengths\n";
  }
}
