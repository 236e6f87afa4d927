/// @file schema.hpp
/// Internal: the scene schema. One table per JSON section lists its keys with type, unit, valid
/// range, default and description (STYLE §7). The same tables drive validation (ObjectReader),
/// defaults and scene_reference(). Every error is an InputError "<file>: <JSON pointer>: <what>".
#pragma once

#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

namespace softgrad::detail {

using Json = nlohmann::json;

/// A closed, open or half-open interval of valid numbers. NaN is never inside.
struct Range {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_inclusive = false;
  bool max_inclusive = false;

  bool contains(double v) const {
    const bool lo = min_inclusive ? v >= min : v > min;
    const bool hi = max_inclusive ? v <= max : v < max;
    return lo && hi;
  }
  /// "(0, inf)", "[-1, 0.5)", or "any" when unbounded.
  std::string text() const;
};

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr Range kAnyNumber{};
inline constexpr Range kPositive{0.0, kInf, false, false};
inline constexpr Range kNonNegative{0.0, kInf, true, false};
inline constexpr Range kAtLeastOne{1.0, kInf, true, false};
inline constexpr Range kAtLeastTwo{2.0, kInf, true, false};

enum class KeyType {
  Number,   ///< a finite JSON number, checked against the range
  Integer,  ///< an integral JSON number, checked against the range
  Boolean,
  String,
  Choice,    ///< a string out of `choices` ("a|b|c")
  Vector,    ///< `dim` finite numbers, each checked against the range
  Integers,  ///< a list of integers, each checked against the range
  Object,    ///< a nested section
  List,      ///< a list of objects of one section
  Motion,    ///< "fixed" or an object
  BodyRef,   ///< a body name or a 0-based body index
  Time,      ///< a time in s that falls on a step, or "final"
  Strings,   ///< a list of strings
  Numbers    ///< a list of finite numbers of any length, each checked against the range
};

/// One key of a section. `default_text` is nullptr for a required key, "" for an optional key
/// without a default (its description says what absence means), otherwise the default as text:
/// the value itself for Number, Integer, Boolean, String and Choice keys (the getters parse it),
/// documentation only for the others (a vector's default depends on dim and is passed in).
struct KeySpec {
  const char* key;
  KeyType type;
  const char* unit;  ///< SI unit; "" when dimensionless or not a number
  Range range;       ///< numbers, integers, and entries of vectors
  const char* choices;
  const char* default_text;
  const char* description;

  bool required() const { return default_text == nullptr; }
};

/// The keys one value of a section's "type" takes among the keys that depend on the type (those
/// named in any of the section's variants; the others apply to every type). ObjectReader
/// reports a missing required key and a key that does not apply, for every section alike.
struct Variant {
  const char* type;
  const char* required;  ///< keys the type needs, "|"-separated ("" for none)
  const char* optional;  ///< keys it may have besides
};

/// The keys of one JSON object kind, e.g. "/bodies/*/material".
struct Section {
  constexpr Section(const char* path_, const char* title_, std::span<const KeySpec> keys_,
                    std::span<const Variant> variants_ = {})
      : path(path_), title(title_), keys(keys_), variants(variants_) {}
  const char* path;   ///< JSON pointer pattern, * for list indices
  const char* title;  ///< one-line summary
  std::span<const KeySpec> keys;
  std::span<const Variant> variants;  ///< by "type"; empty when no key depends on it
};

/// The scene's sections, in document order (the reference prints them in this order).
namespace schema {
extern const Section top, time, damping, solver, output, body, mesh, material, boundary, region,
    box, plane, motion, translate, rotate, force, initial, loss, creature, controller, task, train,
    compare;
// Rigid bodies, joints and motors (rigid_reader.cpp).
extern const Section rigid_body, shape, rotation, joint, motor, attachment;
// System identification and contact (sysid_schema.cpp).
extern const Section contact, obstacle, markers, bend, sysid, sysid_parameter, sysid_experiment;
std::span<const Section* const> all();
}  // namespace schema

/// Where a scene came from: its display name in messages and the base folder of relative paths.
struct Source {
  std::string name;
  std::filesystem::path dir;
};

/// Throws InputError "<source>: <pointer>: <what>" ("<source>: top level: ..." for "").
[[noreturn]] void fail_at(const Source& src, const std::string& pointer, const std::string& what);

/// pointer + "/" + key, escaping '~' and '/' as JSON Pointer requires.
std::string child_pointer(const std::string& pointer, const std::string& key);

/// How a JSON value is shown in type errors: "the number 5", "the string \"abc\"", "a list [0]".
std::string describe_json(const Json& j);

/// The candidate closest to `key` by edit distance if it is plausibly a typo, else "".
std::string closest_key(const std::string& key, const std::vector<std::string>& candidates);

/// The shortest text of a number ("0.01", "1e+06", "inf").
std::string format_number(double v);

}  // namespace softgrad::detail
