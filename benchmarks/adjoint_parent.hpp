/// @file adjoint_parent.hpp
/// adjoint_cantilever's parent side: every configuration in a child process of its own, the
/// table, and the JSON file.
#pragma once

#include "adjoint_summary.hpp"

namespace softgrad::bench {

/// Runs every (size, backend, checkpoints) configuration of `o` in a child process, prints the
/// table and the summary and writes o.out. Returns the exit status (0).
/// @throws std::runtime_error if o.out cannot be written, or (--merge) read.
int run_all(const AdjointBenchOptions& o);

}  // namespace softgrad::bench
