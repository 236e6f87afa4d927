// `softgrad gradcheck`: the adjoint gradient of a scene's loss against finite differences.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <ostream>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/gradcheck.hpp"
#include "app/number_option.hpp"
#include "app/progress.hpp"

namespace softgrad::app {
namespace {

struct GradcheckArgs {
  GradcheckArgs() { gradient.max_newton_tolerance = 1e-9; }
  GradientArgs gradient;
  GradcheckOptions check;
};

// How the differences are taken, and the tolerance every run used.
void print_setup(const Console& c, const GradientProblem& p, const GradcheckOptions& o,
                 double loss) {
  char line[512];
  std::snprintf(
      line, sizeof line,
      "gradcheck %s: loss %.9e %s; %d parameter%s\n"
      "  central differences of the re-simulated loss, h = %g max(max_block |theta|, %g)\n"
      "  Newton tolerance %g for every run, the adjoint's included (the scene's: %g)\n",
      p.scene.name.c_str(), loss, rollout_text(p).c_str(), p.params.size(),
      p.params.size() == 1 ? "" : "s", o.step, o.floor, p.scene.options.newton.tolerance,
      p.scene_newton_tolerance);
  c.out << line << std::flush;
}

int execute(const GradcheckArgs& args, const Console& c) {
  std::optional<Progress> progress;  // outlives the log redirection using it
  LogRedirect logs(c, args.gradient.overrides.verbosity());
  apply_threads(args.gradient.overrides.threads);
  GradientProblem p = load_gradient_problem(args.gradient);
  const GradientRun run = run_gradient(p, args.gradient.checkpoint, args.gradient.adjoint_solver);
  print_setup(c, p, args.check, run.result.loss);

  // Progress over the finite-difference runs, from the first (which knows their number).
  const auto start = std::chrono::steady_clock::now();
  const Progress::Style style =
      Progress::choose(args.gradient.overrides.verbosity(), c.err_is_terminal);
  const auto on_run = [&](int done, int total) {
    if (!progress) {
      progress.emplace(c.err, style, total, "run");
      logs.set_before_message([&progress] { progress->clear(); });
    }
    progress->update(
        done, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  };
  const GradcheckResult result = gradcheck(p, run.result, args.check, on_run);
  if (progress) progress->finish();

  char line[256];
  std::snprintf(line, sizeof line,
                "gradcheck: %zu check%s (%d simulations in %.2f s), largest relative error %.2e "
                "(%s); tolerance %.0e: %s\n",
                result.rows.size(), result.rows.size() == 1 ? "" : "s", result.simulations,
                result.seconds, result.max_error, result.worst.c_str(), args.check.tolerance,
                result.passed ? "passed" : "FAILED");
  c.out << gradcheck_table(result) << line << std::flush;
  return result.passed ? kExitOk : kExitCheckFailed;
}

}  // namespace

Command add_gradcheck_command(CLI::App& program) {
  auto args = std::make_shared<GradcheckArgs>();
  CLI::App* cmd = program.add_subcommand(
      "gradcheck", "Compare the adjoint gradient with finite differences of the re-simulated loss");
  add_gradient_options(*cmd, args->gradient);
  cmd->add_option("--entries", args->check.entries,
                  "Entries checked per block of more values (besides one random direction)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--step", args->check.step,
                  "Relative finite-difference step H (default 1e-4): h = H max(max |block|, 0.01)")
      ->check(finite_number(0.0, false));
  cmd->add_option("--tolerance", args->check.tolerance,
                  "Largest relative error that passes (default 1e-4)")
      ->check(finite_number(0.0, false));
  cmd->add_option("--newton-tolerance", args->gradient.newton_tolerance,
                  "Newton tolerance of every run, the adjoint's included (default: the scene's, "
                  "at most 1e-9)")
      ->check(finite_number(0.0, false));
  cmd->footer(
      "Checks every scalar parameter, a few entries of each larger block and one random\n"
      "direction per block. Exit codes: 0 passed, 1 bad input or arguments, 2 a Newton solve\n"
      "failed, 3 internal error, 4 a relative error exceeds the tolerance.\n");
  return {cmd, [args](const Console& c) { return execute(*args, c); }};
}

}  // namespace softgrad::app
