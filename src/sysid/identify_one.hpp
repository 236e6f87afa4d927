/// @file identify_one.hpp
/// Internal: one fit from the experiments' values (identify() runs it from several starts).
#pragma once

#include "experiment_set.hpp"
#include "softgrad/sysid.hpp"

namespace softgrad::detail {

/// identify() from one starting point: the first experiment's current values; `validation`
/// (may be null): the held-out experiments of SysIdOptions::validation.
SysIdReport identify_one(ExperimentSet& experiments, const SysIdOptions& options,
                         ExperimentSet* validation = nullptr);

}  // namespace softgrad::detail
