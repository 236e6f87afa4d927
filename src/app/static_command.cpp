// `softgrad static`: the static equilibrium of a scene from its rest state.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <ostream>

#include "app/commands.hpp"
#include "app/output_lock.hpp"
#include "app/scene_overrides.hpp"
#include "softgrad/static_solve.hpp"

namespace softgrad::app {
namespace {

struct StaticArgs {
  std::string scene;
  SceneOverrides overrides;
};

// The final report: stdout for the outcome, stderr for a failure.
void print_report(const Console& c, const Scene& scene, const StaticResult& r) {
  char line[256];
  std::snprintf(line, sizeof line,
                "%s: static equilibrium %s after %d Newton iterations in %.2f s\n"
                "  max displacement %.6g m, potential energy %.6g J\n",
                scene.name.c_str(), r.converged() ? "converged" : "not found", r.report.iterations,
                r.wall_time_s, r.max_displacement, r.potential_energy);
  c.out << line;
  if (!r.pvd_path.empty()) c.out << "  frame:   " << r.pvd_path.string() << "\n";
  c.out << "  summary: " << r.summary_path.string() << std::endl;
  if (!r.converged()) {
    c.err << "softgrad: error: static solve failed: " << softgrad::to_string(r.report.status)
          << ": " << r.report.message << std::endl;
  }
}

int execute(const StaticArgs& args, const Console& c) {
  LogRedirect logs(c, args.overrides.verbosity());
  apply_threads(args.overrides.threads);
  Scene scene = load_scene(args.scene);
  apply_overrides(args.overrides, scene);
  const OutputLock lock(scene.output.directory);
  const StaticResult result = static_solve(scene);
  print_report(c, scene, result);
  return exit_code(result);
}

}  // namespace

Command add_static_command(CLI::App& program) {
  auto args = std::make_shared<StaticArgs>();
  CLI::App* cmd = program.add_subcommand(
      "static", "Static equilibrium from the rest state: one .vtu frame and summary.json");
  cmd->add_option("SCENE", args->scene, "Scene file (.json)")->type_name("FILE")->required();
  add_common_options(*cmd, args->overrides);
  cmd->footer(
      "Exit codes: 0 converged, 1 bad input or arguments, 2 Newton failed, 3 internal error.\n");
  return {cmd, [args](const Console& c) { return execute(*args, c); }};
}

}  // namespace softgrad::app
