/// @file rollout.hpp
/// Internal: the parts of a scene that define its rollout and what is differentiated: the
/// /initial section (initial velocities) and the /parameters list.
#pragma once

#include "object_reader.hpp"
#include "softgrad/scene.hpp"

namespace softgrad::detail {

/// Reads /initial into scene.initial_velocity (left empty when no velocity is given).
/// @pre scene.model holds the bodies and kinematic groups.
/// @throws InputError naming the key.
void read_initial(const ObjectReader& top, Scene& scene);

/// Reads /parameters into scene.parameters and resolves them as a ParameterSet would.
/// @pre the scene is complete otherwise (model, options, steps, initial velocity).
/// @throws InputError "<source>: /parameters/<i>: ..." for an unknown, ambiguous or repeated
///         name, listing the available names.
void read_parameters(const ObjectReader& top, Scene& scene);

}  // namespace softgrad::detail
