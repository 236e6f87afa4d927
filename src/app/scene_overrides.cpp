#include "app/scene_overrides.hpp"

#include <omp.h>

#include <CLI/CLI.hpp>

#include "softgrad/config.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/log.hpp"
#include "solvers/cuda_backend.hpp"

namespace softgrad::app {

Verbosity SceneOverrides::verbosity() const {
  if (quiet) return Verbosity::Quiet;
  return verbose ? Verbosity::Verbose : Verbosity::Normal;
}

void apply_overrides(const SceneOverrides& o, Scene& scene) {
  if (o.strict && !scene.warnings.empty()) {
    std::string what = "--strict: the scene has " + std::to_string(scene.warnings.size()) +
                       " implausible value" + (scene.warnings.size() == 1 ? "" : "s") + ":";
    for (const std::string& w : scene.warnings) what += "\n  " + w;
    throw InputError(what);
  }
  if (o.steps < -1) throw InputError("--steps must be >= 0, got " + std::to_string(o.steps));
  if (o.every < -1) throw InputError("--every must be >= 0, got " + std::to_string(o.every));
  if (!o.out.empty()) scene.output.directory = o.out;
  if (o.steps >= 0) scene.steps = o.steps;
  if (o.every >= 0) scene.output.every = o.every;
  if (!o.vtu_format.empty()) scene.output.vtu_encoding = parse_vtu_encoding(o.vtu_format);
  std::string solver = o.solver;
  if (o.device == "cuda") {
    if (!detail::cuda_backend_built())
      throw InputError(
          "--device cuda: this build of softgrad has no CUDA backend; reconfigure with "
          "-DSOFTGRAD_WITH_CUDA=ON on a machine with nvcc, or use --device cpu");
    if (!solver.empty() && solver != "cuda")
      throw InputError(
          "--device cuda runs the linear solves on the GPU; it cannot be combined "
          "with --solver " +
          solver);
    solver = "cuda";
  } else if (o.device == "cpu" && solver.empty() && scene.options.linear.kind == "cuda") {
    solver = "pcg";  // the same conjugate gradients, on the CPU
  }
  if (!solver.empty()) {
    LinearSolverOptions& linear = scene.options.linear;
    linear.kind = solver;
    // CG without an assembled matrix has only the Jacobi preconditioner; "amg" has its own.
    const bool own_preconditioner =
        linear.kind == "matfree" || linear.kind == "cuda" || linear.kind == "amg";
    if (own_preconditioner && linear.preconditioner != "jacobi") {
      log(LogLevel::Warn, "--solver " + linear.kind + ": the scene's '" + linear.preconditioner +
                              "' preconditioner needs 'pcg'; " +
                              (linear.kind == "amg" ? "using multigrid" : "using 'jacobi'"));
      linear.preconditioner = "jacobi";
    }
  }
}

void apply_threads(int threads) {
  if (threads > 0) omp_set_num_threads(threads);
}

void add_common_options(CLI::App& command, SceneOverrides& o) {
  command.add_option("-o,--out", o.out, "Output directory (default: the scene's output.directory)");
  command
      .add_option("--vtu-format", o.vtu_format,
                  "How .vtu frames store arrays: zlib (default), raw (binary) or ascii")
      ->check(CLI::IsMember({"zlib", "raw", "ascii"}));
  command.add_option("--solver", o.solver, "Linear solver (default: the scene's solver.linear)")
      ->check(CLI::IsMember({"cholmod", "pcg", "amg", "matfree", "cuda"}));
  command
      .add_option("--device", o.device,
                  "Where the linear solves run: cpu, or cuda (the GPU; needs a CUDA build)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  command.add_option("-j,--threads", o.threads, "OpenMP threads (default: OMP_NUM_THREADS)")
      ->check(CLI::Range(1, 4096));
  CLI::Option* quiet =
      command.add_flag("-q,--quiet", o.quiet, "Only errors on stderr: no progress, no warnings");
  CLI::Option* verbose =
      command.add_flag("-v,--verbose", o.verbose, "Also informational messages on stderr");
  quiet->excludes(verbose);
  command.add_flag("--strict", o.strict,
                   "Refuse a scene with values far outside physical ranges (normally warnings)");
}

}  // namespace softgrad::app
