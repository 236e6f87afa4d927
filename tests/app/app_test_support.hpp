/// @file app_test_support.hpp
/// Helpers for the app tests: a small clamped box scene built in code, file and JSON readers,
/// and a scene file written to disk for the command-line tests.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "io/io_test_support.hpp"
#include "softgrad/scene.hpp"
#include "support/tiny_models.hpp"

namespace softgrad::test {

/// A 0.2 x 0.1 x 0.1 m neo-Hookean box of 2 x 1 x 1 cells (12 vertices, 12 tets) clamped at
/// x = 0 and sagging under gravity: `steps` steps of 10 ms, every frame, into `out`.
inline Scene tiny_scene(const std::filesystem::path& out, int steps = 3) {
  Scene scene;
  scene.name = "tiny";
  auto model = box_model("neo_hookean", 1e5, 0.3, 1000.0, {2, 1, 1}, {0.2, 0.1, 0.1});
  add_gravity(*model, Eigen::Vector3d(0, -9.81, 0));
  fix_vertices(*model, vertices_at(*model, 0, 0.0), "clamp");
  scene.model = model;
  scene.options.dt = 0.01;
  scene.options.newton.tolerance = 1e-6;
  scene.steps = steps;
  scene.duration = steps * scene.options.dt;
  scene.output.directory = out.string();
  scene.output.every = 1;
  return scene;
}

/// The same box as a scene file: `extra` adds top-level keys ("" or `"key": value, ...`).
inline std::string tiny_scene_json(const std::string& extra = "") {
  return R"({"name": "tiny", "time": {"dt": 0.01, "duration": 0.02},
    "bodies": [{"mesh": {"generator": "box", "resolution": [2, 1, 1], "size": [0.2, 0.1, 0.1]},
                "material": {"model": "neo_hookean", "youngs": 1e5, "poisson": 0.3}}],
    "boundary": [{"name": "clamp", "region": {"plane": {"point": [0, 0, 0], "normal": [-1, 0, 0]}}}])" +
         (extra.empty() ? std::string() : ", " + extra) + "}";
}

/// Parses a JSON file (fails the test if it cannot).
inline nlohmann::json read_json(const std::filesystem::path& path) {
  const std::string text = read_text(path.string());
  REQUIRE_MESSAGE(!text.empty(), "missing or empty: " << path);
  return nlohmann::json::parse(text);
}

/// Number of non-overlapping occurrences of `needle` in `text`.
inline int count_of(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

/// The text of the <DataArray> named `name` in a .vtu file's text, or "" if there is none.
inline std::string data_array(const std::string& vtu, const std::string& name) {
  const size_t begin = vtu.find("Name=\"" + name + "\"");
  if (begin == std::string::npos) return "";
  return vtu.substr(begin, vtu.find("</DataArray>", begin) - begin);
}

}  // namespace softgrad::test
