// Writes, for each scene file given, what the refactorings of softgrad must not change: every
// state of the scene's rollout (binary doubles, for a bitwise comparison), the Newton iterations
// per step, and the loss and gradients (adjoint with all states stored, adjoint with
// checkpoints, forward sensitivities) of the scene's loss, or of a centre-of-mass loss, with
// respect to the scene's parameters. scripts/compare_scene_results.sh runs it on two revisions
// and compares the outputs.
//
//   dump_scene_results OUT_DIR SCENE.json...
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "softgrad/adjoint.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/locomotion.hpp"
#include "softgrad/log.hpp"
#include "softgrad/scene.hpp"

using namespace softgrad;
using json = nlohmann::ordered_json;

namespace {

constexpr int kMaxSteps = 120;
constexpr int kMaxStepsLarge = 10;  // for models of more than 20,000 dofs (the Armadillo)

std::vector<double> values(const Eigen::VectorXd& v) { return {v.data(), v.data() + v.size()}; }

// Each block's number of values (so that a comparison can match blocks by name).
std::vector<int> block_sizes(const ParameterSet& params) {
  std::vector<int> sizes;
  for (const ParameterSet::Block& b : params.blocks()) sizes.push_back(b.size);
  return sizes;
}

// The scene's own parameters, then every scalar and tied per-element group, v0 and the
// controller, each once.
std::vector<std::string> parameter_names(const Scene& scene, const Simulator& sim,
                                         const Rollout& rollout) {
  std::vector<std::string> names = scene.parameters;
  for (const auto& p : scene.sysid.parameters) names.push_back(p.name);
  for (const auto& [name, what] : ParameterSet::available(sim, rollout)) {
    const bool field = name.ends_with("[]");
    const bool per_step = what.starts_with("per-step");
    if (name == "x0" || name == "kinematic" || field || per_step) continue;
    names.push_back(name);
  }
  // Drop names that select the same block as an earlier one.
  std::vector<std::string> unique;
  for (const std::string& n : names) {
    std::vector<std::string> trial = unique;
    trial.push_back(n);
    try {
      ParameterSet(sim, rollout, trial);
      unique = trial;
    } catch (const InputError&) {
    }
  }
  return unique;
}

json dump_scene(const std::filesystem::path& file, const std::filesystem::path& out) {
  Scene scene = load_scene(file);
  Simulator sim(scene.model, scene.options);
  Rollout rollout = scene.rollout(sim);
  if (scene.locomotion) rollout.steps = scene.locomotion->train.episode_steps;
  rollout.steps =
      std::min(rollout.steps, sim.model().n_dofs() > 20000 ? kMaxStepsLarge : kMaxSteps);
  json j{{"scene", scene.name}, {"steps", rollout.steps}};
  const Trajectory traj = simulate(sim, rollout);
  std::vector<int> iterations;
  for (const NewtonReport& r : traj.reports()) iterations.push_back(r.iterations);
  j["newton_iterations"] = iterations;
  std::ofstream states(out / (scene.name + ".states.bin"), std::ios::binary);
  for (int n = 0; n <= traj.steps(); ++n) {
    const State& s = traj.state(n);
    states.write(reinterpret_cast<const char*>(s.x.data()), s.x.size() * sizeof(double));
    states.write(reinterpret_cast<const char*>(s.v.data()), s.v.size() * sizeof(double));
  }
  // The loss: the scene's, the locomotion objective, or the centre of mass near the rest one.
  std::shared_ptr<const Loss> loss = scene.loss;
  if (!loss && scene.locomotion) loss = scene.locomotion->make_loss();
  if (!loss) {
    const CenterOfMassLoss rest(sim.model(), {}, {});
    CenterOfMassTarget target;
    target.position = rest.center(sim.model().X).array() + 0.01;
    target.velocity = Eigen::VectorXd::Zero(sim.model().dim);
    loss = std::make_shared<CenterOfMassLoss>(sim.model(), std::vector<int>{},
                                              std::vector<CenterOfMassTarget>{target});
  }
  const std::vector<std::string> names = parameter_names(scene, sim, rollout);
  j["parameters"] = names;
  const ParameterSet params(sim, rollout, names);
  j["parameter_sizes"] = block_sizes(params);
  const GradientResult g = gradient(sim, traj, *loss, params);
  j["loss"] = g.loss;
  j["gradient"] = values(g.gradient);
  const Trajectory checkpointed = simulate(sim, rollout, {.checkpoint_every = 0});
  j["checkpointed_gradient"] = values(gradient(sim, checkpointed, *loss, params).gradient);
  // Forward sensitivities for the small blocks (not v0, not controllers).
  std::vector<std::string> small;
  for (const std::string& n : names)
    if (n != "v0" && n != "controller") small.push_back(n);
  if (!small.empty() && !rollout.controller) {
    const ParameterSet few(sim, rollout, small);
    j["tangent_parameters"] = small;
    j["tangent_parameter_sizes"] = block_sizes(few);
    j["tangent_gradient"] = values(tangent_gradient(sim, rollout, *loss, few).gradient);
  }
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: dump_scene_results OUT_DIR SCENE.json...\n");
    return 1;
  }
  set_log_level(LogLevel::Error);
  const std::filesystem::path out = argv[1];
  std::filesystem::create_directories(out);
  json all = json::array();
  for (int i = 2; i < argc; ++i) {
    std::fprintf(stderr, "%s\n", argv[i]);
    try {
      all.push_back(dump_scene(argv[i], out));
    } catch (const std::exception& e) {
      all.push_back({{"scene_file", argv[i]}, {"error", e.what()}});
    }
  }
  std::ofstream(out / "results.json") << all.dump(1) << "\n";
  return 0;
}
