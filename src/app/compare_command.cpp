// `softgrad compare`: gradient-based training against CMA-ES (the seed paper's comparison), PPO
// and OpenAI-ES on one control scene, with the same episodes and the same budget of simulated
// steps.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <ostream>
#include <utility>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/compare_report.hpp"
#include "app/gradient_problem.hpp"
#include "app/interrupt.hpp"
#include "app/locomotion_problem.hpp"
#include "app/output_lock.hpp"
#include "app/scene_commands.hpp"
#include "softgrad/cmaes.hpp"
#include "softgrad/detail/task_pool.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/rl/evolution_strategy.hpp"
#include "softgrad/rl/locomotion_env.hpp"
#include "softgrad/rl/ppo.hpp"

namespace softgrad::app {
namespace {

using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

struct CompareArgs {
  std::string scene;
  CompareSettings settings;
};

void finish(MethodRun& m, Clock::time_point start) {
  m.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (const CurveSample& s : m.curve) m.best = std::max(m.best, s.reward);
}

using Stop = std::function<bool()>;

/// "mlp (1234 parameters)", or the trained values' names for a throw.
std::string policy_name(const Rollout& r, const ParameterSet& params) {
  const std::string what = r.controller ? r.controller->name() : "launch velocities";
  return what + " (" + std::to_string(params.size()) + " parameters)";
}

MethodRun run_gradient(LocomotionProblem& p, long budget, const Console& c, bool talk,
                       const Stop& stop) {
  MethodRun m{
      "gradient (" + std::string(to_string(p.locomotion().train.optimizer)) + ")", "", {}, 0, 0.0};
  const auto start = Clock::now();
  const long episode = static_cast<long>(p.episodes.size()) * p.episode_steps();
  const int iterations = static_cast<int>(budget / episode);
  TrainOptions o = train_options(p.locomotion(), iterations);
  o.stop = stop;
  o.on_iteration = [&](const TrainIteration& it) {
    if (talk)
      c.err << "softgrad: gradient iteration " << it.iteration << "/" << iterations << ": reward "
            << fmt("%.6g", -it.loss) << ", " << it.simulated_steps << " steps" << std::endl;
  };
  std::vector<Episode> episodes = p.episodes;
  const ParameterSet params(*p.sim, episodes.front().rollout, p.parameters);
  m.policy = policy_name(episodes.front().rollout, params);
  const TrainReport report = train(*p.sim, episodes, params, o);
  m.curve = gradient_curve(report);
  m.steps_used = report.simulated_steps;
  finish(m, start);
  return m;
}

/// CMA-ES on the parameters gradient training optimises, from the same start: each generation's
/// candidates run every episode side by side; the curve is the best mean reward so far.
MethodRun run_cmaes(LocomotionProblem& p, long budget, int threads, const Console& c, bool talk,
                    const Stop& stop) {
  const LocomotionCompareSpec& s = p.locomotion().compare;
  const Rollout& first = p.episodes.front().rollout;
  const ParameterSet params(*p.sim, first, p.parameters);
  CmaEsOptions o;
  o.population = s.cmaes_population;
  o.sigma = s.cmaes_sigma;
  o.seed = p.locomotion().train.seed;
  CmaEs es(params.get(*p.sim, first), o);
  MethodRun m{"CMA-ES", policy_name(first, params), {}, 0, 0.0};
  const auto start = Clock::now();
  RolloutBatch batch(p.scene.model, p.scene.options, threads);
  const long generation =
      static_cast<long>(es.population()) * static_cast<long>(p.episodes.size()) * p.episode_steps();
  const int generations = static_cast<int>(budget / generation);
  double best = std::numeric_limits<double>::infinity();
  std::vector<double> losses;
  for (int g = 0; g < generations && !stop(); ++g) {
    best = std::min(best, mean_loss(p, batch, params, es.ask(), losses, m.steps_used));
    es.tell(losses);
    m.curve.push_back({m.steps_used, -best});
    if (talk)
      c.err << "softgrad: CMA-ES generation " << g + 1 << "/" << generations << ": reward "
            << fmt("%.6g", -best) << ", " << m.steps_used << " steps" << std::endl;
  }
  finish(m, start);
  return m;
}

/// The MLP policy both baselines start from (MlpController's seeded initial network).
Mlp initial_policy(const LocomotionProblem& p) {
  const Locomotion& loc = p.locomotion();
  return MlpController(*p.scene.model, loc.creature.n_muscles, p.scene.options.dt,
                       loc.policy_options())
      .network();
}

/// The baselines' curve: the initial policy at 0 steps, then each iteration's policy.
void add_rl_curve(MethodRun& m, const rl::TrainingResult& r) {
  m.curve.push_back({0, r.initial_return});
  for (const rl::CurvePoint& q : r.curve)
    m.curve.push_back({q.steps, std::isnan(q.policy_return) ? q.mean_return : q.policy_return});
  m.steps_used = r.training_steps;
}

/// The baselines' environments: one per worker of the task pool (threads, and the processes
/// of an MPI run), each with its own simulator.
rl::EnvPool environments(LocomotionProblem& p, const TaskPool& pool) {
  Rollout episode = p.rollout;
  episode.controller.reset();
  const Locomotion& loc = p.locomotion();
  return rl::EnvPool(
      [&p, episode, options = rl::locomotion_options(loc)] {
        return std::make_unique<rl::LocomotionEnv>(
            std::make_unique<Simulator>(p.scene.model, p.scene.options), episode, options);
      },
      pool);
}

rl::IterationCallback rl_progress(const std::string& name, int iterations, const Console& c,
                                  bool talk) {
  return [&c, name, iterations, talk](int it, const rl::CurvePoint& q) {
    if (talk)
      c.err << "softgrad: " << name << " iteration " << it + 1 << "/" << iterations << ": reward "
            << fmt("%.6g", q.policy_return) << " m, " << q.steps << " steps" << std::endl;
  };
}

MethodRun run_ppo(LocomotionProblem& p, long budget, const TaskPool& pool, const Console& c,
                  bool talk, const Stop& stop) {
  const Locomotion& loc = p.locomotion();
  const LocomotionCompareSpec& s = loc.compare;
  rl::EnvPool envs = environments(p, pool);
  rl::PpoOptions o;
  o.iterations = static_cast<int>(budget / (static_cast<long>(s.ppo_episodes) * p.episode_steps()));
  o.episodes_per_iteration = s.ppo_episodes;
  o.epochs = s.ppo_epochs;
  o.minibatch_size = s.ppo_minibatch;
  o.policy_adam.learning_rate = s.ppo_learning_rate;
  o.value_adam.learning_rate = s.ppo_learning_rate;
  o.initial_log_std = s.ppo_log_std;
  o.reward_scale = s.ppo_reward_scale;
  o.seed = loc.train.seed;
  o.stop = stop;
  const Mlp policy = initial_policy(p);
  MethodRun m{"PPO", "mlp (" + std::to_string(policy.n_parameters()) + " parameters)", {}, 0, 0.0};
  const auto start = Clock::now();
  if (o.iterations > 0)
    add_rl_curve(m, rl::train_ppo(envs, policy, o, rl_progress("PPO", o.iterations, c, talk)));
  finish(m, start);
  return m;
}

MethodRun run_es(LocomotionProblem& p, long budget, const TaskPool& pool, const Console& c,
                 bool talk, const Stop& stop) {
  const Locomotion& loc = p.locomotion();
  const LocomotionCompareSpec& s = loc.compare;
  rl::EnvPool envs = environments(p, pool);
  rl::EsOptions o;
  o.iterations =
      static_cast<int>(budget / (static_cast<long>(s.es_population) * p.episode_steps()));
  o.population = s.es_population;
  o.sigma = s.es_sigma;
  o.adam.learning_rate = s.es_learning_rate;
  o.seed = loc.train.seed;
  o.stop = stop;
  const Mlp policy = initial_policy(p);
  MethodRun m{"ES", "mlp (" + std::to_string(policy.n_parameters()) + " parameters)", {}, 0, 0.0};
  const auto start = Clock::now();
  if (o.iterations > 0)
    add_rl_curve(m, rl::train_es(envs, policy, o, rl_progress("ES", o.iterations, c, talk)));
  finish(m, start);
  return m;
}

}  // namespace

json compare_scene(Scene scene, const CompareSettings& args, const Console& c) {
  LogRedirect logs(c, args.overrides.verbosity());
  apply_threads(args.overrides.threads);
  LocomotionProblem p = locomotion_problem(std::move(scene), args.overrides);
  const Locomotion& loc = p.locomotion();
  const long episode = static_cast<long>(p.episodes.size()) * p.episode_steps();
  const long budget = args.budget > 0          ? args.budget
                      : loc.compare.budget > 0 ? loc.compare.budget
                                               : 10L * loc.train.iterations * episode;
  if (budget < episode)
    throw InputError("compare: the budget (" + std::to_string(budget) +
                     " steps) is shorter than one episode (" + std::to_string(episode) + " steps)");
  // The baselines' episodes side by side: --threads workers (default: one per core) in each
  // process, and over the processes of an MPI run; every process trains identically, the
  // first one reports and writes.
  const TaskPool pool(args.overrides.threads);
  const bool leader = pool.rank() == 0;
  const std::filesystem::path dir = p.scene.output.directory;
  std::optional<OutputLock> lock;
  if (leader) lock.emplace(dir);
  const bool talk = !args.overrides.quiet && leader;
  const long gradient_budget =
      loc.compare.gradient_budget > 0 ? std::min(budget, loc.compare.gradient_budget) : budget;
  // A stop request ends the method that runs and skips the others; the curves so far are
  // written as usual, with "interrupted": true.
  const Stop stop = [&args] { return args.stop && args.stop(); };
  const auto wants = [&](const char* method) {
    const auto& m = loc.compare.methods;
    return m.empty() || std::find(m.begin(), m.end(), method) != m.end();
  };
  // The model-free policies need motors or muscles to drive; a throw has none.
  const bool policy = p.rollout.controller != nullptr;
  std::vector<MethodRun> runs = {run_gradient(p, gradient_budget, c, talk, stop)};
  if (wants("cmaes")) runs.push_back(run_cmaes(p, budget, args.overrides.threads, c, talk, stop));
  if (policy && wants("ppo")) runs.push_back(run_ppo(p, budget, pool, c, talk, stop));
  if (policy && wants("es")) runs.push_back(run_es(p, budget, pool, c, talk, stop));
  const bool interrupted = stop();
  const Verdict v = judge(runs);
  const json summary = summary_json(p, runs, v, budget, gradient_budget, interrupted);
  if (!leader) return summary;
  write_files(dir, runs, summary, p.scene.name, p.reward_label());
  c.out << report_text(p, budget, runs, v) << "  output: " << dir.string()
        << " (compare.csv, compare.json, compare.svg)\n"
        << std::flush;
  return summary;
}

Command add_compare_command(CLI::App& program) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = program.add_subcommand(
      "compare", "Gradient-based training against CMA-ES, PPO and OpenAI-ES on a control scene");
  cmd->add_option("scene", args->scene, "Scene file (JSON) with a creature or a robot task")
      ->required();
  add_common_options(*cmd, args->settings.overrides);
  cmd->add_option("-b,--budget", args->settings.budget,
                  "Simulated steps per method (default: the scene's compare.budget)")
      ->check(CLI::Range(1L, 1000000000L));
  cmd->footer(
      "All methods train on the same episodes (train.episode_steps) with fixed seeds and at most\n"
      "BUDGET simulated steps each (forward steps; the gradient method's adjoint steps are not\n"
      "counted, the baselines' evaluation episodes neither). Rewards are distances travelled\n"
      "[m], or minus the task's loss. Writes compare.csv, compare.json and compare.svg into OUT\n"
      "and prints, per method, the steps it needs to reach 90% of the best reward any method\n"
      "reaches, and for each baseline the steps the gradient method needs to reach its best.\n");
  return {cmd, [args](const Console& c) {
            InterruptHandler interrupt;  // Ctrl-C, SIGTERM: the curves so far are written
            CompareSettings settings = args->settings;
            settings.stop = [] { return InterruptHandler::interrupted(); };
            compare_scene(load_scene(args->scene), settings, c);
            return InterruptHandler::interrupted() ? InterruptHandler::exit_code() : kExitOk;
          }};
}

}  // namespace softgrad::app
