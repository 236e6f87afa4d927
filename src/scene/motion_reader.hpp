/// @file motion_reader.hpp
/// Internal: a scene's prescribed motions ("motion": "fixed", or an object with "translate" or
/// "rotate"), shared by /boundary and /rigid_bodies.
#pragma once

#include "object_reader.hpp"
#include "softgrad/kinematic_group.hpp"

namespace softgrad::detail {

/// Reads the key "motion" of `bc` (absent or "fixed": held) into the group's motion, velocity,
/// centre, axis and angular velocity. @throws InputError naming the key.
void read_motion(const ObjectReader& bc, int dim, KinematicGroup& group);

}  // namespace softgrad::detail
