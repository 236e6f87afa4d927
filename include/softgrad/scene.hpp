/// @file scene.hpp
/// Scenes: a JSON file -> a Model, simulation options, duration, outputs, and optionally an
/// initial velocity, a loss and the parameters to differentiate it by (for `softgrad grad`).
/// The format is documented in scenes/README.md. Every problem is an InputError naming the file
/// and the JSON path (a JSON pointer such as /bodies/0/material/poisson) and saying how to fix it.
#pragma once

#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "softgrad/io.hpp"
#include "softgrad/loss.hpp"
#include "softgrad/model.hpp"
#include "softgrad/simulator.hpp"
#include "softgrad/sysid.hpp"
#include "softgrad/trajectory.hpp"

namespace softgrad {

struct Locomotion;  // locomotion.hpp
struct Scene;

/// A marker of the scene's "markers": a named point of a body that recordings track.
struct SceneMarker {
  std::string name;
  Eigen::VectorXd position;  ///< rest position [m] (dim entries), inside a body
};

/// The scene's "sysid" block: what `softgrad sysid` identifies and how.
struct SceneSysId {
  struct Parameter {
    std::string name;  ///< a ParameterSet name
    /// Starting guess for every entry, bounds (NaN / -inf / inf: the scene's value and the
    /// parameter's own range).
    double initial = std::numeric_limits<double>::quiet_NaN();
    double lower = -std::numeric_limits<double>::infinity();
    double upper = std::numeric_limits<double>::infinity();
  };
  std::vector<Parameter> parameters;  ///< empty: the scene has no "sysid"
  SysIdMethod method = SysIdMethod::LevenbergMarquardt;
  bool log = true;  ///< positive parameters in log space
  RobustLoss robust = RobustLoss::None;
  double robust_scale = 1e-3;  ///< [m]
  int max_iterations = 50;
  double smoothness = 0.0;  ///< lbfgs: weight of the smoothness penalty on fields
  int starts = 1;           ///< fits from several starting points (SysIdOptions::starts)
  double start_spread = 0.5;
  /// "experiments": recordings of variants of the scene, fitted together.
  struct Experiment {
    std::filesystem::path data;          ///< the recording, resolved against the scene's folder
    std::shared_ptr<const Scene> scene;  ///< the scene with the experiment's patch applied
  };
  std::vector<Experiment> experiments;
  /// "validation": held-out recordings (SysIdOptions::validation), and "patience".
  std::vector<Experiment> validation;
  int patience = 0;
};

/// What a run writes.
struct OutputOptions {
  std::string directory = "out";  ///< relative to the working directory unless absolute
  int every = 1;                  ///< write a frame every `every` steps (0: no frames)
  bool vtu = true;                ///< .vtu per frame plus a .pvd collection
  VtuEncoding vtu_encoding = VtuEncoding::zlib;  ///< "vtu_format": zlib, raw or ascii
};

struct Scene {
  std::filesystem::path file;  ///< where it came from (for messages); empty for strings
  std::string name;
  std::shared_ptr<const Model> model;  ///< fixed once loaded
  SimulationOptions options;
  double duration = 1.0;      ///< [s]
  int steps = 100;            ///< round(duration / dt)
  bool static_solve = false;  ///< "mode": "static"
  OutputOptions output;
  /// Initial velocities (n_dofs) [m/s] from "initial"; zero at kinematic dofs. Empty: at rest.
  Eigen::VectorXd initial_velocity;
  /// The scene's "loss" (a SumLoss of its entries); null when it declares none.
  std::shared_ptr<const Loss> loss;
  /// The fewest steps for which every loss entry applies at least once (0 when all apply at the
  /// final state): a run cut shorter (--steps) would leave an entry out.
  int loss_min_steps = 0;
  /// The scene's "parameters": names a ParameterSet accepts (validated at load time).
  std::vector<std::string> parameters;
  /// Initial positions (n_dofs) [m] from "initial"/"bend"; empty: the rest positions.
  Eigen::VectorXd initial_position;
  /// The scene's "markers" (empty when it declares none).
  std::vector<SceneMarker> markers;
  /// The scene's "sysid" block.
  SceneSysId sysid;
  /// A locomotion scene's creature, controller, task and training settings ("creature" and the
  /// keys beside it); null for other scenes. Its creature's model is `model`.
  std::shared_ptr<const Locomotion> locomotion;
  /// Values far outside physical ranges (a modulus, density or size), one message each, also
  /// logged as warnings when loading; `--strict` refuses a scene that has any.
  std::vector<std::string> warnings;

  /// The rollout the scene describes for a simulator built from its model and options: the rest
  /// state with the initial velocity, `steps` steps; a static scene is one equilibrium at the
  /// final load time steps * dt. A locomotion scene's rollout drives the muscles with its
  /// controller (initial parameters).
  Rollout rollout(const Simulator& sim) const;
  /// The same for the scene's own model and options, without a simulator.
  Rollout rollout() const;
};

/// What a scene's "plugins" list may do. A scene file is data that people exchange: by default
/// it runs no code, and every library it names must already be loaded by the user (`--plugin`,
/// `softgrad.load_plugin`). Load is the user's opt-in (`--allow-scene-plugins`,
/// `softgrad.load(..., allow_plugins=True)`): the scene loads them, with a notice naming each.
enum class ScenePlugins { MustBeLoaded, Load };

/// The policy of the load_scene and parse_scene calls that name none; the command line sets it
/// from --allow-scene-plugins before its command runs. Default: MustBeLoaded.
void set_default_scene_plugins(ScenePlugins plugins);
ScenePlugins default_scene_plugins();

/// Reads and validates a scene file. Relative mesh paths resolve against the file's folder.
/// @throws InputError for a missing file, malformed JSON (with line and column), unknown keys,
///         wrong types, values out of range, missing meshes, bad regions, a plugin that is not
///         loaded when `plugins` is MustBeLoaded.
Scene load_scene(const std::filesystem::path& file, ScenePlugins plugins = default_scene_plugins());

/// The same from a JSON string; `origin` names it in messages and is the base for relative paths.
Scene parse_scene(const std::string& json_text, const std::filesystem::path& origin,
                  ScenePlugins plugins = default_scene_plugins());

/// Human-readable reference of every scene key (types, units, ranges, defaults).
std::string scene_reference();

}  // namespace softgrad
