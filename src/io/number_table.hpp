/// @file number_table.hpp
/// Internal: arrays of numbers that a scene takes from a file (per-vertex masses, per-element
/// material fields, per-step force tables): NumPy's .npy or text (.csv, .txt).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace softgrad::detail {

/// A C-ordered array of doubles and its shape.
struct NumberTable {
  std::vector<double> values;
  std::vector<std::size_t> shape;  ///< .npy: the array's shape; text: {rows, columns}
};

/// Reads `file`:
///  - .npy (format 1.0, 2.0 or 3.0): little-endian float64, float32, int64 or int32, C order,
///    at most 4 dimensions; its size checked against the file's before anything is allocated;
///  - any other name: text, one row per line, numbers separated by commas, spaces or tabs,
///    every row as long as the first; blank lines and lines starting with '#' skipped.
/// Every value must be a finite number. `what` names the table in messages.
/// @throws InputError naming the file (and the line and column of text, the header's problem of
///   .npy) for a missing or unreadable file, a malformed one, a value that is not a finite
///   number, rows of different lengths, an empty table.
NumberTable read_number_table(const std::filesystem::path& file, const std::string& what);

}  // namespace softgrad::detail
