/// @file memory_limit.hpp
/// The memory a run may plan for. Tables sized from the input (per-step forces, motor targets
/// and muscle activations, a rollout's step reports and checkpoints) are checked against it
/// before they are allocated, so that a duration or an episode length far too long for the
/// machine is an input error naming it, not "out of memory" after minutes of work.
#pragma once

#include <string>

namespace softgrad {

/// The limit in bytes: half of this machine's physical memory unless set_memory_limit set one
/// (the command line's --max-memory).
double memory_limit();

/// Sets the limit for this process; 0 restores the default.
/// @throws InputError unless `bytes` is a finite number >= 0.
void set_memory_limit(double bytes);

/// "<what> needs about X GB, more than the memory limit of Y GB (...)" as an InputError when
/// `bytes` exceeds memory_limit(), or when `entries` (the table's values) exceed what one
/// table can index (2^31 - 1).
void require_memory(double bytes, const std::string& what, double entries = 0.0);

/// The same for a per-step parameter table of `entries` values, held several times over (the
/// parameters, a rollout's copy, a gradient, an optimiser's moments: 48 bytes a value).
/// `what` says what the table is and where its length comes from.
inline void require_table_memory(double entries, const std::string& what) {
  require_memory(48.0 * entries, what, entries);
}

}  // namespace softgrad
