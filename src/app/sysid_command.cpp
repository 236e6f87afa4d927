// `softgrad sysid`: the scene's parameters fitted to recordings of its markers: of the scene
// itself (--data), or of the experiments its sysid block lists.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <ostream>
#include <utility>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/interrupt.hpp"
#include "app/output_lock.hpp"
#include "app/scene_commands.hpp"
#include "app/scene_overrides.hpp"
#include "app/sysid_field.hpp"
#include "app/sysid_report.hpp"
#include "app/sysid_scene.hpp"
#include "scene/summary.hpp"
#include "softgrad/detail/task_pool.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/frame_writer.hpp"

namespace softgrad::app {
namespace {

using json = nlohmann::ordered_json;

struct SysIdArgs {
  std::string scene;
  SysIdSettings settings;
  bool quiet = false;
  bool verbose = false;
};

/// The recordings of --data (each of the scene itself), else the scene's sysid experiments.
std::vector<MarkerExperiment> experiments(Scene scene, const SysIdSettings& args) {
  const std::string what = scene_label(scene);
  MarkerScene base = marker_scene(std::move(scene), what);
  std::vector<MarkerExperiment> runs;
  if (!args.data.empty()) {
    for (const std::string& data : args.data) {
      MarkerScene p = marker_scene(base.scene, what);
      Recording rec = read_scene_recording(data, p);
      runs.push_back({data, std::move(p), std::move(rec)});
    }
    return runs;
  }
  const int n = static_cast<int>(base.scene.sysid.experiments.size());
  if (n == 0)
    throw InputError(what +
                     ": no recording: give --data FILE, or list recordings of the scene in "
                     "/sysid/experiments");
  for (int k = 0; k < n; ++k) {
    const std::string data = base.scene.sysid.experiments[k].data.string();
    MarkerScene p = experiment_scene(base, k);
    Recording rec = read_scene_recording(data, p);
    runs.push_back({data, std::move(p), std::move(rec)});
  }
  return runs;
}

}  // namespace

json sysid_scene(Scene scene, const SysIdSettings& args, const Console& c) {
  LogRedirect logs(c, args.verbosity);
  apply_threads(args.threads);
  // The held-out recordings of /sysid/validation: measured after every iteration, never fitted.
  std::vector<SysIdExperiment> held_out;
  if (!scene.sysid.validation.empty()) {
    const MarkerScene base = marker_scene(scene, scene_label(scene));
    for (int k = 0; k < static_cast<int>(base.scene.sysid.validation.size()); ++k) {
      const MarkerScene p = validation_scene(base, k);
      const Recording rec = read_scene_recording(base.scene.sysid.validation[k].data.string(), p);
      held_out.push_back({p.scene.model, p.sim->options(), p.rollout, p.markers, rec});
    }
  }
  const int patience = scene.sysid.patience;
  std::vector<MarkerExperiment> runs = experiments(std::move(scene), args);
  SysIdOptions options = sysid_options(runs.front().scene, args.params);
  if (!args.method.empty() && args.method != "lm" && args.method != "lbfgs")
    throw InputError("sysid: unknown method '" + args.method + "' (known: lm, lbfgs)");
  if (!args.method.empty())
    options.method = args.method == "lbfgs" ? SysIdMethod::Lbfgs : SysIdMethod::LevenbergMarquardt;
  if (args.max_iterations > 0) options.max_iterations = args.max_iterations;
  if (args.starts > 0) options.starts = args.starts;
  options.threads = args.threads;
  options.verbose = false;
  options.stop = args.stop;
  std::vector<SysIdExperiment> fit;
  for (const MarkerExperiment& e : runs)
    fit.push_back({e.scene.scene.model, e.scene.sim->options(), e.scene.rollout, e.scene.markers,
                   e.recording});
  options.validation = std::move(held_out);
  options.patience = patience;
  const std::filesystem::path dir = args.out;
  const bool leader = TaskPool().rank() == 0;  // in an MPI run the first process reports
  std::optional<OutputLock> lock;              // fail now, not after the fit
  if (leader) lock.emplace(dir);
  const SysIdReport report = identify(fit, options);
  json result = sysid_report_json(runs, report);
  if (!leader) return result;
  write_json_file(dir / "report.json", result);
  // A fitted field is also drawn per element and written over the mesh (field.vtu).
  const std::vector<ParameterSet::Block> fields =
      fitted_fields(runs.front().scene, options.parameters);
  std::vector<LinePlot> more = field_plots(fields, report);
  if (!report.progress.empty()) more.insert(more.begin(), progress_plot(report));
  write_fit_plot((dir / "fit.svg").string(), runs, report, more);
  write_field_vtu(dir / "field.vtu", runs.front().scene, fields, report,
                  runs.front().scene.scene.output.vtu_encoding);
  c.out << sysid_summary(runs, report) << "  report: " << (dir / "report.json").string()
        << "\n  plot:   " << (dir / "fit.svg").string() << std::endl;
  if (!fields.empty()) c.out << "  field:  " << (dir / "field.vtu").string() << std::endl;
  return result;
}

Command add_sysid_command(CLI::App& program) {
  auto args = std::make_shared<SysIdArgs>();
  CLI::App* cmd = program.add_subcommand(
      "sysid", "Identify the scene's parameters from a recording of its markers");
  cmd->add_option("SCENE", args->scene, "Scene file (.json) with \"markers\" and \"sysid\"")
      ->type_name("FILE")
      ->required();
  cmd->add_option("-d,--data", args->settings.data,
                  "Recording: CSV of time,marker,x,y(,z); several --data fit them together "
                  "(default: the recordings the scene's /sysid/experiments list)")
      ->type_name("FILE");
  cmd->add_option("-o,--out", args->settings.out, "Folder for report.json and fit.svg")
      ->type_name("DIR")
      ->capture_default_str();
  cmd->add_option("--params", args->settings.params,
                  "Parameters to identify instead of the scene's sysid block (from the scene's "
                  "values)")
      ->delimiter(',');
  cmd->add_option("--method", args->settings.method, "Solver (default: the scene's sysid.method)")
      ->check(CLI::IsMember({"lm", "lbfgs"}));
  cmd->add_option("--starts", args->settings.starts,
                  "Fits from this many starting points side by side, the best kept (default: "
                  "the scene's sysid.starts)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--max-iterations", args->settings.max_iterations, "Solver iteration limit")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("-j,--threads", args->settings.threads,
                  "Threads: of the element loops, and the workers of --starts or of several "
                  "experiments (default: OMP_NUM_THREADS, one worker per core)")
      ->check(CLI::Range(1, 4096));
  CLI::Option* quiet = cmd->add_flag("-q,--quiet", args->quiet, "Only errors on stderr");
  CLI::Option* verbose =
      cmd->add_flag("-v,--verbose", args->verbose, "Also informational messages on stderr");
  quiet->excludes(verbose);
  cmd->footer(
      "Writes DIR/report.json (estimates, standard deviations, residuals before and after,\n"
      "per experiment too, iterations, simulations, seconds) and DIR/fit.svg (recorded and\n"
      "fitted markers), and prints a summary. Several recordings (--data twice, or the\n"
      "scene's /sysid/experiments, each a patch of the scene) share the parameters.\n"
      "Ctrl-C or SIGTERM ends the fit at its current estimate, which is written as usual.\n"
      "Exit codes: 0 done, 1 bad input (scene, recording: file and line), 2 a forward\n"
      "Newton solve failed, 3 internal error, 130/143 interrupted (SIGINT/SIGTERM).\n");
  return {cmd, [args](const Console& c) {
            SysIdSettings settings = args->settings;
            settings.verbosity = args->quiet     ? Verbosity::Quiet
                                 : args->verbose ? Verbosity::Verbose
                                                 : Verbosity::Normal;
            InterruptHandler interrupt;  // Ctrl-C, SIGTERM: the estimate so far is reported
            settings.stop = [] { return InterruptHandler::interrupted(); };
            sysid_scene(load_scene(args->scene), settings, c);
            return InterruptHandler::interrupted() ? InterruptHandler::exit_code() : kExitOk;
          }};
}

}  // namespace softgrad::app
