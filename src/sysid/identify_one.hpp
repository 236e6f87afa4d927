/// @file identify_one.hpp
/// Internal: one fit from the rollout's values (identify() runs it from several starts).
#pragma once

#include "softgrad/sysid.hpp"

namespace softgrad::detail {

/// identify() from one starting point, the rollout's current values.
SysIdReport identify_one(Simulator& sim, Rollout& rollout, const MarkerSet& markers,
                         const Recording& recording, const SysIdOptions& options);

}  // namespace softgrad::detail
