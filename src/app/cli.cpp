#include "app/cli.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <exception>
#include <new>
#include <ostream>

#include "app/build_info.hpp"
#include "app/commands.hpp"
#include "app/number_option.hpp"
#include "softgrad/config.hpp"
#include "softgrad/detail/memory_limit.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/plugin.hpp"
#include "softgrad/scene.hpp"

namespace softgrad::app {
namespace {

// After an unexpected exception: the plugins loaded, whose code may have thrown it (an error
// in a user's material would otherwise name nothing of theirs).
std::string plugins_note() {
  const std::vector<std::string> files = loaded_plugin_files();
  if (files.empty()) return "";
  std::string note = " (plugins loaded in this run, whose code may have raised it:";
  for (const std::string& f : files) note += " " + f;
  return note + ")";
}

// "softgrad: error: <what>" and where to find help, for a command-line error.
std::string usage_error(const CLI::App* app, const CLI::Error& e) {
  std::string what = e.what();
  const std::vector<CLI::App*> chosen = app->get_subcommands();
  const std::vector<std::string> extra = app->remaining();
  if (chosen.empty() && !extra.empty() && extra.front().rfind('-', 0) != 0) {
    // A word where a command belongs: name it and the valid ones.
    what = "unknown command '" + extra.front() + "'; commands:";
    for (const CLI::App* sub : app->get_subcommands([](const CLI::App*) { return true; }))
      what += " " + sub->get_name();
  }
  std::string help = "softgrad";
  for (const CLI::App* sub : chosen) help += " " + sub->get_name();
  return "softgrad: error: " + what + "\nRun '" + help + " --help' for usage.\n";
}

// Parses `args`; returns the chosen command, or sets `code` when the program should exit now
// (help, version, usage error).
const Command* parse(CLI::App& program, const std::vector<Command>& commands,
                     const std::vector<std::string>& args, const Console& c, int& code) {
  std::vector<std::string> reversed(args.begin() + (args.empty() ? 0 : 1), args.end());
  std::reverse(reversed.begin(), reversed.end());  // CLI11 takes them last first
  try {
    program.parse(std::move(reversed));
  } catch (const CLI::ParseError& e) {
    code = program.exit(e, c.out, c.err) == 0 ? kExitOk : kExitInputError;
    return nullptr;
  }
  for (const Command& cmd : commands)
    if (cmd.parser->parsed()) return &cmd;
  code = kExitInputError;  // unreachable: a subcommand is required
  return nullptr;
}

}  // namespace

int run_cli(const std::vector<std::string>& args, const Console& c) {
  try {
    CLI::App program("softgrad: differentiable implicit soft-body simulation", "softgrad");
    program.set_version_flag("--version", build_info, "Print the version and the build's parts");
    program.require_subcommand(1);
    // --plugin goes with any command (fallthrough): plugins load before the command runs.
    std::vector<std::string> plugins;
    program.fallthrough();
    program.add_option("--plugin", plugins,
                       "Load a material plugin (a shared library, see examples/plugin) first; "
                       "may be repeated");
    bool allow_scene_plugins = false;
    program.add_flag("--allow-scene-plugins", allow_scene_plugins,
                     "Let a scene's \"plugins\" list load the libraries it names (code: only for "
                     "scenes you trust); without it they must be loaded with --plugin");
    std::string max_memory;
    program
        .add_option("--max-memory", max_memory,
                    "The memory a run may plan for (e.g. 8G, 512M): per-step tables and "
                    "rollouts larger than this are refused before they are allocated "
                    "(default: half of this machine's memory)")
        ->type_name("SIZE");
    program.failure_message(usage_error);
    program.footer("Run 'softgrad <command> --help' for the options of a command.\n");
    const std::vector<Command> commands = {
        add_run_command(program),       add_static_command(program),
        add_grad_command(program),      add_gradcheck_command(program),
        add_params_command(program),    add_scene_help_command(program),
        add_materials_command(program), add_sysid_command(program),
        add_record_command(program),    add_train_command(program),
        add_compare_command(program),   add_render_command(program)};
    // `render` takes every argument as the renderer's (its options are the Python package's).
    if (args.size() > 1 && args[1] == "render")
      return run_render(std::vector<std::string>(args.begin() + 2, args.end()));
    int code = kExitOk;
    const Command* chosen = parse(program, commands, args, c, code);
    if (!chosen) return code;
    // For this command only, as the scene-plugin policy below.
    struct RestoreMemoryLimit {
      ~RestoreMemoryLimit() { set_memory_limit(0.0); }
    } restore_memory;
    if (!max_memory.empty()) set_memory_limit(parse_memory_size(max_memory, "--max-memory"));
    for (const std::string& plugin : plugins) load_plugin(plugin);
    // For this command only: a program (the tests) may run several commands.
    struct RestorePolicy {
      ScenePlugins before = default_scene_plugins();
      ~RestorePolicy() { set_default_scene_plugins(before); }
    } restore;
    if (allow_scene_plugins) set_default_scene_plugins(ScenePlugins::Load);
    return chosen->execute(c);
  } catch (const InputError& e) {
    c.err << "softgrad: error: " << e.what() << std::endl;
    return kExitInputError;
  } catch (const ConvergenceError& e) {
    c.err << "softgrad: error: " << e.what() << std::endl;
    return kExitNewtonFailed;
  } catch (const InternalError& e) {
    c.err << "softgrad: internal error: " << e.what() << plugins_note() << std::endl;
  } catch (const std::bad_alloc&) {
    c.err << "softgrad: internal error: out of memory" << std::endl;
  } catch (const std::exception& e) {
    c.err << "softgrad: internal error: " << e.what() << plugins_note() << std::endl;
  } catch (...) {
    c.err << "softgrad: internal error: unknown exception" << plugins_note() << std::endl;
  }
  return kExitInternalError;
}

}  // namespace softgrad::app
