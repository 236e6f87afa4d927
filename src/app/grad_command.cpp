// `softgrad grad`: the gradient of a scene's loss with respect to its parameters.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <memory>
#include <ostream>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/gradient_problem.hpp"
#include "app/interrupt.hpp"
#include "scene/summary.hpp"
#include "softgrad/frame_writer.hpp"

namespace softgrad::app {
namespace {

struct GradArgs {
  GradientArgs gradient;
  std::string out;  ///< --out: the gradient as JSON ("": none)
};

// "<scene>: loss L after T steps of dt s; N parameters".
std::string headline(const GradientProblem& p, double loss) {
  char line[256];
  std::snprintf(line, sizeof line, "%s: loss %.9e %s; %d parameter%s\n", p.scene.name.c_str(), loss,
                rollout_text(p).c_str(), p.params.size(), p.params.size() == 1 ? "" : "s");
  return line;
}

int execute(const GradArgs& args, const Console& c) {
  const GradientArgs& g = args.gradient;
  LogRedirect logs(c, g.overrides.verbosity());
  apply_threads(g.overrides.threads);
  GradientProblem p = load_gradient_problem(g);
  if (!args.out.empty()) prepare_output_file(args.out);  // fail now, not after the work
  if (g.overrides.verbose) {
    c.err << "softgrad: " << p.scene.name << ": " << p.scene.model->n_dofs() << " dofs, "
          << p.rollout.steps << " steps, solver " << p.scene.options.linear.kind << ", adjoint "
          << (g.adjoint_solver.empty() ? p.scene.options.linear.kind : g.adjoint_solver)
          << std::endl;
  }
  InterruptHandler interrupt;
  const GradientRun run = run_gradient(p, g.checkpoint, g.adjoint_solver,
                                       [] { return InterruptHandler::interrupted(); });
  if (run.interrupted()) {
    // A gradient needs the whole rollout and the whole sweep: there is nothing partial to keep.
    const int steps = p.rollout.static_solve ? 1 : p.rollout.steps;  // as the trajectory counts
    c.err << "softgrad: " << p.scene.name << ": interrupted ";
    if (run.interrupted_after_forward_steps >= 0)
      c.err << "after " << run.interrupted_after_forward_steps << " of " << steps
            << " forward steps";
    else
      c.err << "in the backward pass, after " << run.result.report.steps << " of " << steps
            << " steps";
    c.err << "; no gradient" << (args.out.empty() ? "" : ", nothing written to " + args.out)
          << std::endl;
    return InterruptHandler::exit_code();
  }
  if (!std::isfinite(run.result.loss) || !run.result.gradient.allFinite()) {
    c.err << "softgrad: error: " << p.scene.name << ": the loss (" << run.result.loss
          << ") or its gradient is not finite: a loss weight, target or parameter so large "
             "that the loss or the adjoint overflows; no gradient"
          << (args.out.empty() ? "" : ", nothing written to " + args.out) << std::endl;
    return kExitInputError;
  }
  if (!args.out.empty()) write_json_file(args.out, gradient_json(p, run));
  c.out << headline(p, run.result.loss) << gradient_table(p, run.result.gradient)
        << adjoint_report_text(run);
  if (!args.out.empty()) c.out << "  gradient: " << args.out << "\n";
  c.out << std::flush;
  return kExitOk;
}

}  // namespace

Command add_grad_command(CLI::App& program) {
  auto args = std::make_shared<GradArgs>();
  CLI::App* cmd = program.add_subcommand(
      "grad", "Gradient of the scene's loss with respect to its parameters, by the adjoint method");
  add_gradient_options(*cmd, args->gradient);
  cmd->add_option("-o,--out", args->out, "Write the full gradient as JSON to FILE")
      ->type_name("FILE");
  cmd->footer(
      "Prints the loss, a table of parameters with their gradient (blocks of many values as a\n"
      "summary: norm, largest entry) and the adjoint's report. Exit codes: 0 done, 1 bad input\n"
      "or arguments, 2 a forward Newton solve failed, 3 internal error, 130 interrupted by\n"
      "Ctrl-C, 143 by SIGTERM (no gradient then: it needs the whole rollout and sweep).\n");
  return {cmd, [args](const Console& c) { return execute(*args, c); }};
}

}  // namespace softgrad::app
