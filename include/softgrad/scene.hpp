/// @file scene.hpp
/// Scenes: a JSON file -> a Model, simulation options, duration and outputs. The format is
/// documented in scenes/README.md. Every problem is an InputError naming the file and the JSON
/// path (a JSON pointer such as /bodies/0/material/poisson) and saying how to fix it.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "softgrad/model.hpp"
#include "softgrad/simulator.hpp"

namespace softgrad {

/// What a run writes.
struct OutputOptions {
  std::string directory = "out";  ///< relative to the working directory unless absolute
  int every = 1;                  ///< write a frame every `every` steps (0: no frames)
  bool vtu = true;                ///< .vtu per frame plus a .pvd collection
};

struct Scene {
  std::filesystem::path file;  ///< where it came from (for messages); empty for strings
  std::string name;
  std::shared_ptr<Model> model;
  SimulationOptions options;
  double duration = 1.0;      ///< [s]
  int steps = 100;            ///< round(duration / dt)
  bool static_solve = false;  ///< "mode": "static"
  OutputOptions output;
};

/// Reads and validates a scene file. Relative mesh paths resolve against the file's folder.
/// @throws InputError for a missing file, malformed JSON (with line and column), unknown keys,
///         wrong types, values out of range, missing meshes, bad regions.
Scene load_scene(const std::filesystem::path& file);

/// The same from a JSON string; `origin` names it in messages and is the base for relative paths.
Scene parse_scene(const std::string& json_text, const std::filesystem::path& origin);

/// Human-readable reference of every scene key (types, units, ranges, defaults).
std::string scene_reference();

}  // namespace softgrad
