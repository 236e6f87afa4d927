/// @file scene_test_support.hpp
/// Inline scenes for the scene tests: a minimal valid scene with one small body, to which a test
/// adds or replaces keys, and the InputError message of a scene that should fail.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "softgrad/errors.hpp"
#include "softgrad/scene.hpp"

namespace softgrad::test {

/// A 2 x 1 x 1 m box of 2 x 1 x 1 cells (12 tets, 12 vertices) of neo_hookean.
inline const std::string kBox =
    R"({"mesh": {"generator": "box", "resolution": [2, 1, 1], "size": [2, 1, 1]},
        "material": {"model": "neo_hookean"}})";

/// A 1 x 1 m rectangle of 2 x 2 cells (8 triangles, 9 vertices) of neo_hookean.
inline const std::string kRectangle =
    R"({"mesh": {"generator": "rectangle", "resolution": [2, 2], "size": [1, 1]},
        "material": {"model": "neo_hookean"}})";

/// A 3D scene of `body` (default kBox) plus `extra` top-level keys ("" or `"key": value, ...`).
inline std::string scene_json(const std::string& extra = "", const std::string& body = kBox) {
  return "{\"bodies\": [" + body + "]" + (extra.empty() ? "" : ", " + extra) + "}";
}

/// A 2D scene of kRectangle plus `extra`.
inline std::string scene_json_2d(const std::string& extra = "") {
  return scene_json("\"dim\": 2" + (extra.empty() ? "" : ", " + extra), kRectangle);
}

/// A 3D scene whose one body has the given material object.
inline std::string scene_with_material(const std::string& material) {
  return scene_json("",
                    R"({"mesh": {"generator": "box", "resolution": [1, 1, 1], "size": [1, 1, 1]},
                            "material": )" +
                        material + "}");
}

/// The scene named "inline.json" in messages.
inline Scene parse(const std::string& json) { return parse_scene(json, "inline.json"); }

/// The InputError message of parsing `json` as "inline.json", or "(no error)".
inline std::string error_of(const std::string& json) {
  try {
    parse(json);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

inline bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

}  // namespace softgrad::test
