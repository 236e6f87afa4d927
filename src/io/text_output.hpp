/// @file text_output.hpp
/// Internal: building text files in memory and writing them so that readers never see a
/// half-written file.
#pragma once

#include <string>
#include <string_view>

namespace softgrad::detail {

/// Appends `v` with `digits` significant digits (like %.9g, locale-independent).
void append_number(std::string& out, double v, int digits = 9);
/// Appends the shortest form of `v` that reads back exactly (up to 17 digits).
void append_number_exact(std::string& out, double v);
/// Appends the decimal form of `v`.
void append_int(std::string& out, long long v);

/// True if `name` is non-empty and can go in an XML attribute unescaped (no < > & " ').
bool is_xml_attribute_safe(std::string_view name);

/// Writes `contents` to `path` + ".tmp" and renames it over `path`.
/// @throws InputError "cannot write '<path>': <reason>" on failure.
void write_file_atomically(const std::string& path, std::string_view contents);

}  // namespace softgrad::detail
