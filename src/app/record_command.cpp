// `softgrad record`: a scene's markers as a recording (CSV), to make reproducible test data.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <ostream>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/number_option.hpp"
#include "app/scene_overrides.hpp"
#include "app/sysid_scene.hpp"
#include "softgrad/frame_writer.hpp"

namespace softgrad::app {
namespace {

struct RecordArgs {
  std::string scene;
  std::string out;
  double noise = 0.0;
  std::uint64_t seed = 1;
  double frame_rate = 0.0;
  std::vector<std::string> settings;
  int experiment = -1;  ///< --experiment: the scene's sysid experiment (-1: the scene itself)
  int threads = 0;
};

int execute(const RecordArgs& args, const Console& c) {
  LogRedirect logs(c, Verbosity::Normal);
  apply_threads(args.threads);
  MarkerScene p = load_marker_scene(args.scene);
  if (args.experiment >= 0) p = experiment_scene(p, args.experiment);
  for (const std::string& s : args.settings) apply_setting(s, p);
  prepare_output_file(args.out);  // fail now, not after the simulation
  const Recording rec = record_markers(p, args.frame_rate, args.noise, args.seed);
  write_recording(args.out, rec, p.markers);
  c.out << p.scene.name << ": " << rec.times.size() << " frames of " << p.markers.size()
        << " marker" << (p.markers.size() == 1 ? "" : "s") << " over " << rec.duration() << " s -> "
        << args.out << std::endl;
  return kExitOk;
}

}  // namespace

Command add_record_command(CLI::App& program) {
  auto args = std::make_shared<RecordArgs>();
  CLI::App* cmd = program.add_subcommand(
      "record", "Simulate a scene and write its markers as a recording (CSV) for softgrad sysid");
  cmd->add_option("SCENE", args->scene, "Scene file (.json) with \"markers\"")
      ->type_name("FILE")
      ->required();
  cmd->add_option("-o,--out", args->out, "Recording to write (CSV)")->type_name("FILE")->required();
  cmd->add_option("--noise", args->noise,
                  "Gaussian noise added to every coordinate: standard deviation [m]")
      ->check(finite_number(0.0, true));
  cmd->add_option("--seed", args->seed, "Seed of the noise (std::mt19937_64)")
      ->capture_default_str();
  cmd->add_option("--frame-rate", args->frame_rate,
                  "Frames per second (default: one per time step)")
      ->check(finite_number(0.0, false));
  cmd->add_option("--experiment", args->experiment,
                  "Record the scene's sysid experiment K (/sysid/experiments/K: the scene with "
                  "that experiment's patch)")
      ->type_name("K")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--set", args->settings,
                  "NAME=VALUE: set a parameter first (youngs, damping.alpha, contact.friction,\n"
                  "...); NAME[AXIS<C]=VALUE sets the elements of a field with centroid "
                  "coordinate AXIS below C (> above)")
      ->type_name("SETTING");
  cmd->add_option("-j,--threads", args->threads, "OpenMP threads (default: OMP_NUM_THREADS)")
      ->check(CLI::Range(1, 4096));
  cmd->footer("Exit codes: 0 done, 1 bad input or arguments, 2 a Newton solve failed.\n");
  return {cmd, [args](const Console& c) { return execute(*args, c); }};
}

}  // namespace softgrad::app
