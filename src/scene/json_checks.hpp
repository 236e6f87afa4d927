/// @file json_checks.hpp
/// Internal: what the JSON parser lets through but a scene must not hold: lists and objects
/// nested deeper than kMaxJsonDepth (messages and copies of such values recurse, and no scene
/// needs more than a few levels), and a key given twice in one object (the parser would keep
/// the last one without a word).
#pragma once

#include <string>

#include "schema.hpp"

namespace softgrad::detail {

constexpr int kMaxJsonDepth = 64;

/// Checks well-formed JSON `text` from `src`.
/// @throws InputError "<source>: <pointer>: ..." at the first value nested too deep or the
///         first repeated key.
void check_json_structure(const Source& src, const std::string& text);

}  // namespace softgrad::detail
