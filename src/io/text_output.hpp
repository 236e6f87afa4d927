/// @file text_output.hpp
/// Internal: building text files in memory and writing them so that readers never see a
/// half-written file.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace softgrad::detail {

/// Appends `v` with `digits` significant digits (like %.9g, locale-independent).
void append_number(std::string& out, double v, int digits = 9);
/// `v` with `digits` significant digits, as a string (append_number's text).
std::string number_text(double v, int digits = 3);
/// Appends the shortest form of `v` that reads back exactly (up to 17 digits).
void append_number_exact(std::string& out, double v);
/// Appends the decimal form of `v`.
void append_int(std::string& out, long long v);

/// True if `name` is non-empty and can go in an XML attribute unescaped (no < > & " ').
bool is_xml_attribute_safe(std::string_view name);

/// Creates the new file `folder`/.`stem`.XXXXXX, the X's random (mkostemp: O_EXCL, so no
/// existing file or link is opened), with the permissions open(2) would give. Returns its
/// descriptor and sets `name`, or returns -1 with errno set.
int create_unique_file(const std::filesystem::path& folder, const std::string& stem,
                       std::string& name);

/// Writes all `bytes` at `data` to `fd`, retrying interrupted and partial writes; false with
/// errno set on an error.
bool write_all(int fd, const void* data, size_t bytes);

/// Writes `contents` to a new file of a unique name beside `path` (create_unique_file) and
/// renames it over `path`: readers never see a half-written file, and a link planted at `path`
/// or at any temporary name is replaced or ignored, never written through.
/// @throws InputError "cannot write '<path>': <reason>" on failure.
void write_file_atomically(const std::string& path, std::string_view contents);

}  // namespace softgrad::detail
