// The locomotion keys of a scene: schema tables and the reader.
#include "locomotion_reader.hpp"

#include <algorithm>

#include "softgrad/errors.hpp"
#include "softgrad/locomotion.hpp"

namespace softgrad::detail {

namespace {

using enum KeyType;

constexpr Range kFromOne{1.0, kInf, true, false};
constexpr Range kFromTwo{2.0, kInf, true, false};
// Bounds that keep a policy's or a gait's parameter count (and its memory) sane.
constexpr Range kLayerSize{1.0, 1024.0, true, true};
constexpr Range kKeyframes{2.0, 10000.0, true, true};
constexpr int kMaxHiddenLayers = 8;

constexpr KeySpec kCreatureKeys[] = {
    {"generator",
     String,
     "",
     {},
     "",
     "",
     "a built-in creature (biped_2d, quadruped_2d, quadruped_3d, worm_3d; listed at the end); "
     "this or layout"},
    {"layout",
     Strings,
     "",
     {},
     "",
     "",
     "rows of cells, top row first: '#' body, 'L' leg (muscles on its vertical edges), '.' "
     "empty; the last row stands on the ground"},
    {"cell", Number, "m", kPositive, "", "0.05", "cell size"},
    {"resolution", Integer, "", kFromOne, "", "1", "3D creatures only: cubes per cell edge"},
    {"youngs", Number, "Pa", kPositive, "", "1e4",
     "Young's modulus (neo-Hookean); 3D creatures default to 5e4"},
    {"poisson", Number, "", Range{-1.0, 0.5, false, false}, "", "0.3", "Poisson's ratio"},
    {"density", Number, "kg/m^2", kPositive, "", "200",
     "mass density per area; 3D creatures: per volume [kg/m^3], default 1000"},
    {"muscle_stiffness", Number, "N/m", kPositive, "", "1e4",
     "stiffness of the muscle edges; 3D creatures: of the fibre muscles [Pa], default 1e5"},
    {"contact_stiffness", Number, "N/m", kPositive, "", "2e4",
     "penalty stiffness of the ground; 3D creatures: barrier stiffness, default 1e4"},
    {"friction", Number, "", kNonNegative, "", "0.8", "Coulomb coefficient (lagged friction)"},
    {"gap", Number, "m", kNonNegative, "", "1e-3", "height of the feet above the ground at rest"},
};

constexpr KeySpec kControllerKeys[] = {
    {"type",
     Choice,
     "",
     {},
     "sine|keyframes|open_loop|mlp",
     "sine",
     "sine: a gait (amplitude, phase, offset per muscle, one frequency); keyframes: piecewise "
     "linear through keys per period; open_loop: free per-step values; mlp: closed-loop policy"},
    {"a_max", Number, "", kPositive, "", "0.3",
     "the outputs are bounded by +-a_max: muscle activations (< 1), or a robot's motor targets "
     "(rad, m, N m or N)"},
    {"frequency", Number, "Hz", kPositive, "", "2", "sine: initial frequency"},
    {"amplitude", Number, "", kAnyNumber, "", "1", "sine: initial amplitude (tanh^-1 units)"},
    {"phase_step", Number, "rad", kAnyNumber, "", "0.9",
     "sine: initial phase of muscle m is phase_step (m mod phase_cycle)"},
    {"phase_cycle", Integer, "", kFromOne, "", "7", "sine: see phase_step"},
    {"offset", Number, "", kAnyNumber, "", "0", "sine: initial offset (tanh^-1 units)"},
    {"keys", Integer, "", kKeyframes, "", "4", "keyframes: keyframes per period"},
    {"period", Number, "s", kPositive, "", "0.5",
     "keyframes: the period; mlp: the clock period of the observations"},
    {"init_std", Number, "", kNonNegative, "", "0.5",
     "keyframes, open_loop: initial values N(0, init_std^2), seeded by /train/seed"},
    {"hidden", Integers, "", kLayerSize, "", "[32, 32]", "mlp: hidden layer sizes (at most 8)"},
    {"delta", Number, "", kNonNegative, "", "0.2",
     "mlp (and the baselines' policy): largest activation change per step, tanh^-1 units; 0: "
     "the outputs are a_max tanh(MLP(observations)) directly"},
    {"length_scale", Number, "m", kPositive, "", "0.1",
     "mlp (and the baselines' policy): observed positions are divided by it"},
    {"velocity_scale", Number, "m/s", kPositive, "", "0.5",
     "mlp (and the baselines' policy): observed velocities are divided by it"},
};

constexpr Variant kControllerVariants[] = {
    {"sine", "", "frequency|amplitude|phase_step|phase_cycle|offset"},
    {"keyframes", "", "keys|period|init_std"},
    {"mlp", "", "period|hidden"},
    {"open_loop", "", "init_std"}};

constexpr KeySpec kTaskKeys[] = {
    {"type",
     Choice,
     "",
     {},
     "distance|reach|throw|balance",
     "distance",
     "distance: the reward is the distance the centre of mass travels along direction over an "
     "episode [m]; the training loss is minus it. Robots also: reach (a rigid body's point to "
     "goals, held), throw (a body's point at a target at the end, by its launch velocities), "
     "balance (joints held at 0 after kicks); their loss is 1/2 |error|^2 averaged over the "
     "window, and the reward minus it"},
    {"direction", Vector, "", kAnyNumber, "", "[1, 0]", "distance: direction of travel, non-zero"},
    {"body", String, "", {}, "", "", "reach, throw: the rigid body (required)"},
    {"point", Vector, "m", kAnyNumber, "", "",
     "reach, throw: its point at rest; default its centre"},
    {"target", Vector, "m", kAnyNumber, "", "", "throw: the target; reach: the goals' centre"},
    {"spread", Vector, "m", kNonNegative, "", "[0, 0, 0]",
     "reach: goals are uniform in target +- spread"},
    {"episodes", Integer, "", kFromOne, "", "1",
     "reach: training goals per iteration; balance: kicks (alternating sign, growing)"},
    {"from", Number, "", Range{0.0, 1.0, true, true}, "", "0.5",
     "reach, balance: the loss averages over the states after this fraction of the episode"},
    {"joints", Strings, "", {}, "", "", "balance: the joints held at 0 (the first is kicked)"},
    {"weights", Numbers, "", kNonNegative, "", "", "balance: one weight per joint; default 1"},
    {"kick", Number, "rad/s", kPositive, "", "0.5",
     "balance: the largest initial speed of the first joint"},
};

constexpr KeySpec kTrainKeys[] = {
    {"optimizer", Choice, "", {}, "adam|lbfgs", "adam", "Adam, or Ceres' L-BFGS"},
    {"iterations", Integer, "", kNonNegative, "", "20", "Adam steps or L-BFGS iterations"},
    {"learning_rate", Number, "", kPositive, "", "0.1", "Adam's step size"},
    {"clip", Number, "", kNonNegative, "", "0", "clip the gradient to this norm (0: never)"},
    {"seed", Integer, "", kNonNegative, "", "1",
     "initial random controller values and the baselines' randomness"},
    {"episode_steps", Integer, "", kFromOne, "", "",
     "steps per training episode (also the baselines'); default duration / dt"},
};

constexpr KeySpec kCompareKeys[] = {
    {"budget", Integer, "", kNonNegative, "", "0",
     "simulated steps per method; 0: ten times what train's iterations take"},
    {"gradient_budget", Integer, "", kNonNegative, "", "0",
     "simulated steps of the gradient method, at most budget (0: budget)"},
    {"ppo_episodes", Integer, "", kFromOne, "", "8", "PPO: episodes per iteration"},
    {"ppo_epochs", Integer, "", kFromOne, "", "10", "PPO: passes over each batch"},
    {"ppo_minibatch", Integer, "", kFromOne, "", "64", "PPO: minibatch size"},
    {"ppo_learning_rate", Number, "", kPositive, "", "1e-3", "PPO: Adam step of policy and value"},
    {"ppo_log_std", Number, "", kAnyNumber, "", "-1",
     "PPO: initial log standard deviation of the actions"},
    {"ppo_reward_scale", Number, "1/m", kPositive, "", "100",
     "PPO: rewards are scaled by it for the value function (returns of order 1)"},
    {"methods",
     Strings,
     "",
     {},
     "",
     "",
     "the baselines to run against the gradient method: cmaes, ppo, es (default all that apply; "
     "a throw has no policy for ppo and es)"},
    {"cmaes_population", Integer, "", kNonNegative, "", "0",
     "CMA-ES: candidates per generation (0: 4 + 3 ln n)"},
    {"cmaes_sigma", Number, "", kPositive, "", "0.1",
     "CMA-ES: initial step size in the trained parameters' units"},
    {"es_population", Integer, "", kFromTwo, "", "16", "ES: candidates per iteration (even)"},
    {"es_sigma", Number, "", kPositive, "", "0.05", "ES: perturbation standard deviation"},
    {"es_learning_rate", Number, "", kPositive, "", "0.02", "ES: Adam step"},
    {"hidden", Integers, "", kLayerSize, "", "[32, 32]",
     "hidden sizes of the baselines' policy (at most 8)"},
    {"period", Number, "s", kPositive, "", "0.5", "clock period of the baselines' observations"},
};

Creature build_creature(const ObjectReader& c, const CreatureOptions& o, Locomotion& loc,
                        ModelBuilder& builder) {
  if (c.has("generator") == c.has("layout"))
    c.fail_here("give exactly one of 'generator' (a built-in creature) or 'layout' (cells)");
  if (c.has("layout")) {
    loc.generator = "layout";
    loc.layout = c.strings("layout");
    try {
      return make_cell_creature(builder, loc.layout, o);
    } catch (const InputError& e) {
      c.fail("layout", e.what());
    }
  }
  loc.generator = c.string("generator");
  const CreatureGenerator* g = find_creature_generator(loc.generator);
  if (!g) {
    std::string names;
    for (const CreatureGenerator& k : creature_generators()) names += std::string(" ") + k.name;
    c.fail("generator",
           "unknown creature '" + loc.generator + "'; built-in:" + names + " (or give a 'layout')");
  }
  if (g->make) {
    if (c.has("resolution"))
      c.fail("resolution", "'resolution' applies to 3D creatures; '" + loc.generator + "' is 2D");
    return g->make(builder, o);
  }
  // 3D: its own defaults (per-volume density, fibre muscles, barrier ground); keys override.
  Creature3dOptions o3;
  o3.steps = o.steps;
  const auto set = [&](const char* key, double& value) {
    if (c.has(key)) value = c.number(key);
  };
  set("cell", o3.cell);
  set("youngs", o3.youngs);
  set("poisson", o3.poisson);
  set("density", o3.density);
  set("muscle_stiffness", o3.muscle_stiffness);
  set("contact_stiffness", o3.contact_stiffness);
  set("friction", o3.friction);
  set("gap", o3.gap);
  if (c.has("resolution")) o3.resolution = c.integer("resolution");
  try {
    return g->make_3d(builder, o3);
  } catch (const InputError& e) {
    c.fail("generator", e.what());
  }
}

}  // namespace

namespace schema {
const Section creature{
    "/creature", "a soft creature with muscles on the ground (2D: penalty contact, 3D: barrier)",
    kCreatureKeys};
const Section controller{"/controller", "what drives the creature's muscles", kControllerKeys,
                         kControllerVariants};
const Section task{"/task", "the creature's objective over an episode", kTaskKeys};
const Section train{"/train", "softgrad train: gradient-based training through the simulator",
                    kTrainKeys};
const Section compare{"/compare", "softgrad compare: the model-free baselines (PPO, OpenAI-ES)",
                      kCompareKeys};
}  // namespace schema

// The "hidden" layer sizes of an MLP (each in kLayerSize by the schema), at most
// kMaxHiddenLayers of them.
namespace {

std::vector<int> hidden_sizes(const ObjectReader& c) {
  std::vector<int> sizes = c.integers("hidden");
  if (static_cast<int>(sizes.size()) > kMaxHiddenLayers)
    c.fail("hidden", std::to_string(sizes.size()) + " hidden layers; at most " +
                         std::to_string(kMaxHiddenLayers) + " are supported");
  return sizes;
}

}  // namespace

void read_controller(const ObjectReader& top, const Scene& scene, Locomotion& loc) {
  const ObjectReader c = top.object("controller", schema::controller);
  ControllerSpec& s = loc.controller;
  const std::string type = c.string("type");
  // The schema's choices, in the library's terms.
  s.type = type == "keyframes"   ? ControllerType::Keyframes
           : type == "open_loop" ? ControllerType::OpenLoop
           : type == "mlp"       ? ControllerType::Mlp
                                 : ControllerType::Sine;
  s.a_max = c.number("a_max");
  s.frequency = c.number("frequency");
  s.amplitude = c.number("amplitude");
  s.phase_step = c.number("phase_step");
  s.phase_cycle = c.integer("phase_cycle");
  s.offset = c.number("offset");
  s.keys = c.integer("keys");
  s.period = c.number("period");
  s.init_std = c.number("init_std");
  if (c.has("hidden")) s.hidden = hidden_sizes(c);
  s.delta = c.number("delta");
  s.length_scale = c.number("length_scale");
  s.velocity_scale = c.number("velocity_scale");
  if (s.type == ControllerType::Keyframes && !(s.period >= 2 * scene.options.dt))
    c.fail("period", "the period must span at least two time steps (dt = " +
                         format_number(scene.options.dt) + " s)");
}

void read_training(const ObjectReader& top, const Scene& scene, Locomotion& loc) {
  const ObjectReader t = top.object("train", schema::train);
  LocomotionTrainSpec& s = loc.train;
  s.optimizer = t.string("optimizer") == "lbfgs" ? Optimizer::Lbfgs : Optimizer::Adam;
  s.iterations = t.integer("iterations");
  s.learning_rate = t.number("learning_rate");
  s.clip = t.number("clip");
  s.seed = static_cast<std::uint64_t>(t.integer("seed"));
  s.episode_steps = t.has("episode_steps") ? t.integer("episode_steps") : scene.steps;

  const ObjectReader c = top.object("compare", schema::compare);
  LocomotionCompareSpec& p = loc.compare;
  p.budget = c.integer("budget");
  p.gradient_budget = c.integer("gradient_budget");
  p.ppo_episodes = c.integer("ppo_episodes");
  p.ppo_epochs = c.integer("ppo_epochs");
  p.ppo_minibatch = c.integer("ppo_minibatch");
  p.ppo_learning_rate = c.number("ppo_learning_rate");
  p.ppo_log_std = c.number("ppo_log_std");
  p.ppo_reward_scale = c.number("ppo_reward_scale");
  p.methods = c.strings("methods");
  for (const std::string& m : p.methods)
    if (m != "cmaes" && m != "ppo" && m != "es")
      c.fail("methods", "unknown method '" + m + "'; the baselines are cmaes, ppo and es");
  p.cmaes_population = c.integer("cmaes_population");
  if (p.cmaes_population == 1) c.fail("cmaes_population", "CMA-ES needs at least 2 candidates");
  p.cmaes_sigma = c.number("cmaes_sigma");
  p.es_population = c.integer("es_population");
  if (p.es_population % 2 != 0)
    c.fail("es_population", "the population must be even (antithetic pairs)");
  p.es_sigma = c.number("es_sigma");
  p.es_learning_rate = c.number("es_learning_rate");
  if (c.has("hidden")) p.hidden = hidden_sizes(c);
  p.period = c.number("period");
  p.delta = loc.controller.delta;
}

int creature_dim(const ObjectReader& top) {
  const ObjectReader c = top.object("creature", schema::creature);
  int dim = 2;  // layouts are 2D
  if (c.has("generator")) {
    const CreatureGenerator* g = find_creature_generator(c.string("generator"));
    if (g) dim = g->dim;  // an unknown name fails later with the list of names
  }
  if (top.has("dim") && top.integer("dim") != dim)
    top.fail("dim", "the creature is " + std::to_string(dim) + "D; remove 'dim' or set it to " +
                        std::to_string(dim));
  return dim;
}

void reject_locomotion_keys(const ObjectReader& top) {
  for (const char* key : {"controller", "task", "train", "compare"})
    if (top.has(key))
      top.fail(key, "'" + std::string(key) +
                        "' needs a 'creature' (a locomotion scene) or 'rigid_bodies' (a robot)");
}

int control_steps(const ObjectReader& top, int scene_steps) {
  const ObjectReader t = top.object("train", schema::train);
  return std::max(scene_steps, t.has("episode_steps") ? t.integer("episode_steps") : 0);
}

std::shared_ptr<Locomotion> read_creature(const ObjectReader& top, const Scene& scene,
                                          ModelBuilder& builder) {
  for (const char* key : {"bodies", "gravity", "forces", "rigid_bodies", "joints", "motors"})
    if (top.has(key))
      top.fail(key, "a creature scene builds its own body, gravity and ground; remove '" +
                        std::string(key) + "'");
  auto loc = std::make_shared<Locomotion>();
  read_controller(top, scene, *loc);
  if (!(loc->controller.a_max < 1.0))
    fail_at(top.source(), child_pointer(top.path("controller"), "a_max"),
            format_number(loc->controller.a_max) +
                " is outside (0, 1): a creature's muscle activations lie in (-1, 1)");
  read_training(top, scene, *loc);
  const ObjectReader c = top.object("creature", schema::creature);
  CreatureOptions o;
  o.cell = c.number("cell");
  o.youngs = c.number("youngs");
  o.poisson = c.number("poisson");
  o.density = c.number("density");
  o.muscle_stiffness = c.number("muscle_stiffness");
  o.contact_stiffness = c.number("contact_stiffness");
  o.friction = c.number("friction");
  o.gap = c.number("gap");
  // Activations are stored for the longest rollout: a run, or a training episode.
  o.steps = std::max(scene.steps, loc->train.episode_steps);
  loc->controller_steps = o.steps;
  loc->creature = build_creature(c, o, *loc, builder);
  const int dim = builder.model().dim;

  const ObjectReader task = top.object("task", schema::task);
  // Read, so that a type that is not one ("jump") or not a creature's is refused, not ignored.
  if (task.string("type") != "distance")
    task.fail("type",
              "a creature's task is 'distance'; reach, throw and balance are for robots "
              "(rigid bodies with motors)");
  Eigen::VectorXd d = Eigen::VectorXd::Zero(dim);
  d[0] = 1.0;
  d = task.vector("direction", dim, d);
  if (!(d.norm() > 0)) task.fail("direction", "the direction must be non-zero");
  loc->direction = d.normalized();
  return loc;
}

void finish_control_problem(const ObjectReader& top, Scene& scene,
                            std::shared_ptr<Locomotion> loc) {
  loc->creature.model = scene.model;
  // The controller's sizes and bounds are checked by building it once (a throw has none: it
  // trains the launch).
  if (loc->task.type != TaskType::Throw) {
    try {
      loc->make_controller(scene.options.dt);
    } catch (const InputError& e) {
      fail_at(top.source(), top.path("controller"), e.what());
    }
  }
  scene.locomotion = std::move(loc);
}

}  // namespace softgrad::detail
