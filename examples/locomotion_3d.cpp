// Train the 3D creatures briefly by gradients through the simulator and write the best rollout
// of each as a ParaView series (OUT/<creature>.pvd):
//   quadruped  a sinusoidal gait (amplitude, phase and offset per leg muscle) maximising the
//              distance its centre of mass travels along +x;
//   worm       the same for the caterpillar;
//   column     tendon activations (keyframes) bringing the column's tip to a target point and
//              holding it there over the last fifth of the episode.
//
//   locomotion_3d [creature (all)] [iterations (10)] [episode steps (60)]
//                 [out dir (out/locomotion_3d)]
//                 [contact: barrier | penalty (barrier)]
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <string>

#include "softgrad/controller.hpp"
#include "softgrad/creatures.hpp"
#include "softgrad/io.hpp"
#include "softgrad/openmp_waiting.hpp"
#include "softgrad/training.hpp"

using namespace softgrad;

namespace {

SimulationOptions options() {
  SimulationOptions o;
  o.dt = 0.01;
  o.newton.tolerance = 1e-7;  // 1e-7 gradients are plenty for training
  o.newton.max_iterations = 100;
  return o;
}

/// Writes every state of the rollout as OUT/name_NNNN.vtu listed in OUT/name.pvd.
void write_series(Simulator& sim, const Rollout& rollout, const std::string& out,
                  const std::string& name) {
  std::filesystem::create_directories(out);
  PvdWriter pvd(out + "/" + name + ".pvd");
  const Mesh& mesh = sim.model().bodies[0].mesh;
  const Trajectory traj = simulate(sim, rollout);
  for (int n = 0; n <= traj.steps(); ++n) {
    const std::string file = name + "_" + std::to_string(10000 + n).substr(1) + ".vtu";
    write_vtu(out + "/" + file, mesh, traj.state(n).x);
    pvd.add_frame(traj.state(n).t, file);
  }
}

TrainOptions adam(int iterations, double learning_rate, const char* unit, double sign) {
  TrainOptions t;
  t.iterations = iterations;
  t.learning_rate = learning_rate;
  t.on_iteration = [unit, sign](const TrainIteration& it) {
    std::cout << "  iteration " << it.iteration << ": " << sign * it.loss << unit << ", "
              << it.simulated_steps << " simulated steps, " << it.seconds << " s\n";
  };
  return t;
}

/// Trains a sine gait of a creature on the ground to walk along +x.
void walk(const std::string& name, const Creature& c, int iterations, int steps,
          const std::string& out) {
  Simulator sim(c.model, options());
  Rollout r = rest_rollout(sim, steps);
  auto gait = std::make_shared<SineController>(c.n_muscles, 0.01, 0.3, 2.0);
  Eigen::VectorXd psi = gait->parameters();
  for (int i = 0; i < c.n_muscles; ++i) {
    psi[i] = 1.0;                          // amplitude
    psi[c.n_muscles + i] = 0.9 * (i % 7);  // phases: a fixed, asymmetric start
  }
  gait->set_parameters(psi);
  r.controller = gait;
  r.controlled_term = c.muscle_term;
  const DisplacementLoss loss(*c.model, {}, Eigen::Vector3d::UnitX());
  const double before = -evaluate_loss(sim, simulate(sim, r), loss);
  std::cout << name << ": " << c.model->n_verts << " vertices, " << c.model->bodies[0].n_elems()
            << " tetrahedra, " << c.n_muscles << " muscles; distance in " << steps * 0.01
            << " s before training: " << before << " m\n";
  const TrainReport report =
      train(sim, r, loss, ParameterSet(sim, r, {"controller"}), adam(iterations, 0.3, " m", -1.0));
  std::cout << name << ": after " << report.gradient_evaluations
            << " gradients: " << -report.best_loss << " m = " << -report.best_loss / c.body_length
            << " body lengths (" << report.history.back().seconds << " s)\n";
  write_series(sim, r, out, name);
}

/// Trains per-step tendon activations to bring the column's tip to a target.
void reach(int iterations, int steps, const std::string& out) {
  Creature3dOptions co;
  co.steps = steps;
  co.youngs = 5e5;  // stiffer than the walkers: about 4 Hz, so it settles within the episode
  co.muscle_stiffness = 1e6;
  const TendonColumn col = make_tendon_column(6, co);
  SimulationOptions so = options();
  Simulator sim(col.creature.model, so);
  Rollout r = rest_rollout(sim, steps);
  // Four keyframes per two episodes: activations ramp smoothly through three of them.
  r.controller = std::make_shared<KeyframeController>(8, 4, 2 * steps * 0.01, 0.01, 0.3);
  r.controlled_term = col.creature.muscle_term;
  const Eigen::Vector3d target(0.08, 0.26, 0.05);
  // The tip at the target over the last fifth of the episode.
  std::vector<PositionTarget> targets;
  for (int n = steps - steps / 5; n <= steps; ++n) targets.push_back({n, col.tip, target, 1.0});
  const PositionLoss loss(*col.creature.model, targets);
  const auto tip_error = [&]() {
    const Trajectory t = simulate(sim, r);
    return (t.final_state().x.segment<3>(3 * col.tip) - target).norm();
  };
  std::cout << "column: " << sim.model().n_verts << " vertices, tip at "
            << sim.model().X.segment<3>(3 * col.tip).transpose() << ", target "
            << target.transpose() << "; final tip error before training: " << tip_error() << " m\n";
  const TrainReport report =
      train(sim, r, loss, ParameterSet(sim, r, {"controller"}), adam(iterations, 0.3, "", 1.0));
  std::cout << "column: after " << report.gradient_evaluations << " gradients: final tip error "
            << tip_error() << " m (" << report.history.back().seconds << " s)\n";
  write_series(sim, r, out, "column");
}

}  // namespace

int main(int argc, char** argv) {
  softgrad::restart_with_bounded_openmp_waiting(argv);
  const std::string which = argc > 1 ? argv[1] : "all";
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 10;
  const int steps = argc > 3 ? std::atoi(argv[3]) : 60;
  const std::string out = argc > 4 ? argv[4] : "out/locomotion_3d";
  Creature3dOptions co;
  co.steps = steps;
  if (argc > 5)
    co.contact = std::string(argv[5]) == "penalty" ? ContactModel::Penalty : ContactModel::Barrier;
  if (which == "all" || which == "quadruped")
    walk("quadruped", make_quadruped_3d(co), iterations, steps, out);
  if (which == "all" || which == "worm") walk("worm", make_worm_3d(6, co), iterations, steps, out);
  if (which == "all" || which == "column") reach(iterations, steps, out);
}
