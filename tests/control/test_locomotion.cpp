// Creatures on the ground and training them to walk by gradients through the simulator.
#include <doctest/doctest.h>

#include "softgrad/adjoint.hpp"
#include "softgrad/controller.hpp"
#include "softgrad/creatures.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/training.hpp"

namespace softgrad::test {
namespace {

struct Walk {
  Creature creature;
  std::unique_ptr<Simulator> sim;
  Rollout rollout;
};

Walk walker(const Creature& c, int steps, std::shared_ptr<Controller> controller) {
  Walk w{c, nullptr, {}};
  SimulationOptions opt;
  opt.dt = 0.01;
  opt.newton.tolerance = 1e-7;  // training needs 1e-7 gradients, not 1e-11
  opt.newton.max_iterations = 100;
  w.sim = std::make_unique<Simulator>(c.model, opt);
  w.rollout = rest_rollout(*w.sim, steps);
  w.rollout.controller = std::move(controller);
  w.rollout.controlled_term = c.muscle_term;
  return w;
}

double travelled(const Walk& w) {
  const DisplacementLoss loss(*w.creature.model, {}, Eigen::Vector2d::UnitX());
  return -evaluate_loss(*w.sim, simulate(*w.sim, w.rollout), loss);
}

/// The fixed demo gait: amplitude 1 and phases 0.9 (m mod 7), a fixed, asymmetric start.
std::shared_ptr<SineController> demo_gait(int n_muscles) {
  auto gait = std::make_shared<SineController>(n_muscles, 0.01, 0.3, 2.0);
  Eigen::VectorXd psi = gait->parameters();
  for (int i = 0; i < n_muscles; ++i) {
    psi[i] = 1.0;                        // amplitude
    psi[n_muscles + i] = 0.9 * (i % 7);  // phase
  }
  gait->set_parameters(psi);
  return gait;
}

/// Two 150-step walks of the quadruped with the demo gait, under the Newton options that
/// `configure(options, run)` sets for run 0 and run 1: their trajectories and the gradients of
/// the distance walked with respect to the gait (each checked trustworthy).
struct TwoWalks {
  std::vector<Trajectory> runs;
  std::vector<Eigen::VectorXd> gradients;
};

template <class Configure>
TwoWalks two_walks(const Configure& configure) {
  CreatureOptions o;
  o.steps = 150;
  const Creature c = make_quadruped_2d(o);
  const auto gait = demo_gait(c.n_muscles);
  const DisplacementLoss loss(*c.model, {}, Eigen::Vector2d::UnitX());
  TwoWalks result;
  for (int run = 0; run < 2; ++run) {
    Walk w = walker(c, 150, gait);
    SimulationOptions opt = w.sim->options();
    configure(opt.newton, run);
    w.sim = std::make_unique<Simulator>(c.model, opt);
    result.runs.push_back(simulate(*w.sim, w.rollout));
    const ParameterSet params(*w.sim, w.rollout, {"controller"});
    const GradientResult g = gradient(*w.sim, result.runs.back(), loss, params);
    CHECK(g.report.trustworthy());
    result.gradients.push_back(g.gradient);
  }
  return result;
}

}  // namespace

TEST_CASE("locomotion: the seed's creatures have their sizes") {
  CreatureOptions o;
  o.steps = 10;
  const Creature biped = make_biped_2d(o), quad = make_quadruped_2d(o);
  CHECK(biped.model->n_verts == 29);
  CHECK(biped.n_muscles == 20);
  CHECK(quad.model->n_verts == 55);
  CHECK(quad.n_muscles == 40);
  CHECK(quad.body_length == doctest::Approx(0.6));
  CHECK_THROWS_WITH_AS(make_cell_creature({"##", "#"}, o), doctest::Contains("row 1"), InputError);
  CHECK_THROWS_WITH_AS(make_cell_creature({"#x"}, o), doctest::Contains("unknown cell 'x'"),
                       InputError);
}

TEST_CASE("locomotion: without activation a creature stands still (no net horizontal force)") {
  CreatureOptions o;
  o.steps = 100;
  Walk w = walker(make_quadruped_2d(o), 100, std::make_shared<OpenLoopController>(40, 100, 0.3));
  const double d = travelled(w);
  MESSAGE("drift without activation: " << d << " m");
  CHECK(std::abs(d) < 1e-6);
}

TEST_CASE("locomotion: chord steps keep states and gradients and save factorizations") {
  // Chord steps with an earlier factorization (NewtonOptions::chord_window) against Newton
  // steps only: each step's state may differ by about the tolerance (1e-7 * 0.6 m * 0.01 =
  // 6e-10 m, times 1 / (1 - chord_contraction)).
  const auto [runs, gradients] = two_walks([](NewtonOptions& newton, int run) {
    if (run == 1) newton.chord_window = 0.0;  // Newton steps only
  });
  long factorizations[2] = {0, 0};
  double worst = 0.0;
  for (int k = 0; k < 2; ++k)
    for (const NewtonReport& r : runs[k].reports()) {
      CHECK(r.converged());
      CHECK(r.factorizations <= r.iterations);
      factorizations[k] += r.factorizations;
    }
  for (const NewtonReport& r : runs[1].reports()) CHECK(r.factorizations == r.iterations);
  for (int n = 0; n <= 150; ++n)
    worst = std::max(worst, (runs[0].state(n).x - runs[1].state(n).x).lpNorm<Eigen::Infinity>());
  MESSAGE("factorizations " << factorizations[0] << " (chord steps) vs " << factorizations[1]
                            << "; largest state difference " << worst << " m");
  CHECK(factorizations[0] < 0.8 * factorizations[1]);
  CHECK(worst < 1e-7);
  CHECK((gradients[0] - gradients[1]).norm() <= 1e-5 * gradients[1].norm());
}

TEST_CASE("locomotion: corrected friction directions keep states and gradients, cut iterations") {
  // NewtonOptions::correct_directions (friction steps go to each vertex's 1D minimiser) against
  // plain Newton directions: the same minimiser each step, found in fewer iterations.
  const auto [runs, gradients] =
      two_walks([](NewtonOptions& newton, int run) { newton.correct_directions = run == 0; });
  long iterations[2] = {0, 0};
  double worst = 0.0;
  for (int k = 0; k < 2; ++k)
    for (const NewtonReport& r : runs[k].reports()) {
      CHECK(r.converged());
      iterations[k] += r.iterations;
    }
  for (int n = 0; n <= 150; ++n)
    worst = std::max(worst, (runs[0].state(n).x - runs[1].state(n).x).lpNorm<Eigen::Infinity>());
  MESSAGE("Newton iterations " << iterations[0] << " (corrected) vs " << iterations[1]
                               << "; largest state difference " << worst << " m");
  CHECK(worst < 1e-7);
  CHECK((gradients[0] - gradients[1]).norm() <= 1e-5 * gradients[1].norm());
  CHECK(iterations[0] < iterations[1]);
}

TEST_CASE("locomotion: gradient training of a gait makes the quadruped move forward") {
  CreatureOptions o;
  o.steps = 100;
  const auto gait = demo_gait(40);
  Walk w = walker(make_quadruped_2d(o), 100, gait);
  const double before = travelled(w);
  const DisplacementLoss loss(*w.creature.model, {}, Eigen::Vector2d::UnitX());
  const ParameterSet params(*w.sim, w.rollout, {"controller"});
  TrainOptions t;
  t.iterations = 6;
  t.learning_rate = 0.3;
  const TrainReport r = train(*w.sim, w.rollout, loss, params, t);
  const double after = travelled(w);
  MESSAGE("distance in 1 s: " << before << " m before, " << after << " m after "
                              << r.gradient_evaluations << " gradients (" << r.simulated_steps
                              << " simulated steps, " << r.history.back().seconds << " s)");
  CHECK(after > before + 0.02);  // 2 cm more in 1 s: a third of a cell per second
  CHECK(-r.best_loss == doctest::Approx(after).epsilon(1e-9));
}

}  // namespace softgrad::test
