/// @file commands.hpp
/// The subcommands of the softgrad program. Each add_*_command registers its options on the
/// program's CLI::App and returns what runs when the user chooses it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/console.hpp"
#include "softgrad/scene.hpp"

namespace CLI {
class App;
}

namespace softgrad::app {

/// A registered subcommand: its parser and its action, which returns the exit code.
struct Command {
  CLI::App* parser = nullptr;
  std::function<int(const Console&)> execute;
};

/// `run SCENE [--out DIR] [--steps N] [--every N] [--solver S] [--threads N] [--quiet|--verbose]`
Command add_run_command(CLI::App& program);
/// `static SCENE [--out DIR] [--solver S] [--threads N] [--quiet|--verbose]`
Command add_static_command(CLI::App& program);
/// `grad SCENE [--params a,b] [--out FILE] [--checkpoint K] [--adjoint-solver S] [--steps N]
///  [--solver S] [--threads N] [--quiet|--verbose]`: the adjoint gradient of the scene's loss.
Command add_grad_command(CLI::App& program);
/// `gradcheck SCENE [the options of grad but --out] [--entries N] [--step H] [--tolerance T]
///  [--newton-tolerance T]`: the adjoint gradient against finite differences.
Command add_gradcheck_command(CLI::App& program);
/// `sysid SCENE --data FILE [--out DIR] [--params a,b] [--method lm|lbfgs]`: the scene's
/// parameters identified from a recording of its markers (report.json, fit.svg).
Command add_sysid_command(CLI::App& program);
/// `record SCENE --out FILE [--noise SIGMA] [--seed N] [--frame-rate HZ] [--set NAME=VALUE]`:
/// the scene's markers as a recording.
Command add_record_command(CLI::App& program);
/// `train SCENE [--out DIR] [--iterations N] [--resume]`: a locomotion scene's controller
/// trained by gradients through the simulator.
Command add_train_command(CLI::App& program);
/// `compare SCENE [--budget STEPS] [--out DIR]`: gradients against PPO and OpenAI-ES.
Command add_compare_command(CLI::App& program);
/// `params SCENE`: the parameters a scene offers to differentiate by.
Command add_params_command(CLI::App& program);
/// `scene-help`: the scene file reference.
Command add_scene_help_command(CLI::App& program);
/// `materials`: the registered material models and their parameters.
Command add_materials_command(CLI::App& program);
/// `render OUT_DIR [...]`: pictures of a run, drawn by the Python package (softgrad.render).
Command add_render_command(CLI::App& program);
/// Runs `python3 -m softgrad.render ARGS` with the package that belongs to this library (the
/// process is replaced). @throws InputError when the package or the interpreter is missing.
int run_render(const std::vector<std::string>& args);

/// The text `softgrad materials` prints: each registered model with its properties and a table
/// of its parameters (key, unit, valid range, default, description).
std::string materials_text();

/// The text `softgrad params SCENE` prints: every selectable parameter name with its
/// description, and the scene's own selection.
std::string params_text(const Scene& scene);

}  // namespace softgrad::app
