/// @file identify_one.hpp
/// Internal: one fit from the experiments' values (identify() runs it from several starts).
#pragma once

#include "experiment_set.hpp"
#include "softgrad/sysid.hpp"

namespace softgrad::detail {

/// identify() from one starting point: the first experiment's current values.
SysIdReport identify_one(ExperimentSet& experiments, const SysIdOptions& options);

}  // namespace softgrad::detail
