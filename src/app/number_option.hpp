/// @file number_option.hpp
/// A check for the command line's real-valued options.
#pragma once

#include <CLI/CLI.hpp>

namespace softgrad::app {

/// A finite number above `min` (or at least `min` when `inclusive`). CLI11's PositiveNumber,
/// NonNegativeNumber and Range let NaN through (every comparison with it is false), and
/// answer inf with a bound printed in 300 digits.
CLI::Validator finite_number(double min, bool inclusive);

}  // namespace softgrad::app
