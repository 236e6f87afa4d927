/// @file number_option.hpp
/// A check for the command line's real-valued options.
#pragma once

#include <CLI/CLI.hpp>

namespace softgrad::app {

/// A finite number above `min` (or at least `min` when `inclusive`). CLI11's PositiveNumber,
/// NonNegativeNumber and Range let NaN through (every comparison with it is false), and
/// answer inf with a bound printed in 300 digits.
CLI::Validator finite_number(double min, bool inclusive);

/// A memory size: bytes, or a number with K, M, G or T (powers of 1024; "GB", "GiB" alike),
/// e.g. "8G", "512M", "1.5e9". @throws InputError naming `option` for anything else or a
/// size that is not positive.
double parse_memory_size(const std::string& text, const std::string& option);

}  // namespace softgrad::app
