// A scene's locomotion problem: creature generators, the controller it asks for, the objective.
#include "softgrad/locomotion.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "softgrad/errors.hpp"

namespace softgrad {
namespace {

Creature make_worm_3d_6(const Creature3dOptions& options) { return make_worm_3d(6, options); }

constexpr CreatureGenerator kGenerators[] = {
    {"biped_2d", "the seed's 2D biped: 6 x 4 cells, 29 vertices, 20 muscles", 2, make_biped_2d,
     nullptr},
    {"quadruped_2d", "the seed's 2D quadruped: 12 x 4 cells, 55 vertices, 40 muscles", 2,
     make_quadruped_2d, nullptr},
    {"quadruped_3d",
     "DiffPD's quadruped: a 4 x 1 x 4-cell body on four legs 2 cells tall, 82 vertices, "
     "144 tetrahedra (resolution 1), 8 fibre muscles",
     3, nullptr, make_quadruped_3d},
    {"worm_3d",
     "a caterpillar of 6 x 2 x 2 cells, 63 vertices, 144 tetrahedra (resolution 1), 12 fibre "
     "muscles along its top and bottom halves",
     3, nullptr, make_worm_3d_6},
};

/// N(0, std^2) values from a seeded generator (std::normal_distribution is not portable across
/// standard libraries; Box-Muller on mt19937_64 is).
Eigen::VectorXd normal_values(int n, double std, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const double two_pi = 6.283185307179586;
  Eigen::VectorXd z(n);
  for (int i = 0; i < n; ++i) {
    const double u1 = (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53;
    const double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    z[i] = std * std::sqrt(-2.0 * std::log(u1)) * std::cos(two_pi * u2);
  }
  return z;
}

/// The sinusoidal gait of the spec: amplitude, phases phase_step (m mod phase_cycle), offset.
std::shared_ptr<Controller> make_sine(const ControllerSpec& c, int m, double dt) {
  auto sine = std::make_shared<SineController>(m, dt, c.a_max, c.frequency);
  Eigen::VectorXd psi = sine->parameters();
  for (int i = 0; i < m; ++i) {
    psi[i] = c.amplitude;
    psi[m + i] = c.phase_step * (i % c.phase_cycle);
    psi[2 * m + i] = c.offset;
  }
  sine->set_parameters(psi);
  return sine;
}

}  // namespace

std::span<const CreatureGenerator> creature_generators() { return kGenerators; }

const CreatureGenerator* find_creature_generator(const std::string& name) {
  for (const CreatureGenerator& g : kGenerators)
    if (name == g.name) return &g;
  return nullptr;
}

std::shared_ptr<Controller> Locomotion::make_controller(double dt) const {
  const ControllerSpec& c = controller;
  const int m = creature.n_muscles;
  switch (c.type) {
    case ControllerType::Sine:
      return make_sine(c, m, dt);
    case ControllerType::Keyframes: {
      auto keys = std::make_shared<KeyframeController>(m, c.keys, c.period, dt, c.a_max);
      keys->set_parameters(normal_values(c.keys * m, c.init_std, train.seed));
      return keys;
    }
    case ControllerType::OpenLoop: {
      const int steps = std::max(controller_steps, train.episode_steps);
      auto open = std::make_shared<OpenLoopController>(m, steps, c.a_max);
      open->set_parameters(normal_values(steps * m, c.init_std, train.seed));
      return open;
    }
    case ControllerType::Mlp:
      return std::make_shared<MlpController>(*creature.model, m, dt,
                                             mlp_options(c.hidden, c.delta, c.period));
  }
  throw InputError("controller: unknown type");
}

std::shared_ptr<const Loss> Locomotion::make_loss() const {
  return std::make_shared<DisplacementLoss>(*creature.model, std::vector<int>{}, direction);
}

std::function<double(const State&, const State&)> Locomotion::progress_reward() const {
  auto com = std::make_shared<const CenterOfMassLoss>(*creature.model, std::vector<int>{},
                                                      std::vector<CenterOfMassTarget>{});
  return [com, d = direction](const State& prev, const State& next) {
    return d.dot(com->center(next.x) - com->center(prev.x));
  };
}

MlpController::Options Locomotion::mlp_options(const std::vector<int>& hidden, double delta,
                                               double period) const {
  MlpController::Options o;
  o.hidden = hidden;
  o.a_max = controller.a_max;
  o.delta = delta;
  o.period = period;
  o.length_scale = controller.length_scale;
  o.velocity_scale = controller.velocity_scale;
  o.seed = train.seed;
  return o;
}

MlpController::Options Locomotion::policy_options() const {
  return mlp_options(compare.hidden, compare.delta, compare.period);
}

}  // namespace softgrad
