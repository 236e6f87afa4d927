/// @file scene_sysid.hpp
/// Internal: the scene sections of system identification: /markers, /initial/bend (a bent
/// initial pose) and /sysid (what softgrad sysid fits).
#pragma once

#include "object_reader.hpp"
#include "softgrad/scene.hpp"

namespace softgrad::detail {

/// Reads /markers into scene.markers, checking that each lies inside a body.
/// @pre scene.model holds the bodies. @throws InputError naming /markers/<i>/...
void read_markers(const ObjectReader& top, Scene& scene);

/// Reads /initial/bend (if present) into scene.initial_position (kinematic dofs stay at rest).
/// @pre scene.model holds the bodies and kinematic groups.
void read_bend(const ObjectReader& initial, Scene& scene);

/// Reads /sysid (if present) into scene.sysid, resolving its parameter names.
/// @pre the scene is complete otherwise.
void read_sysid(const ObjectReader& top, Scene& scene);

}  // namespace softgrad::detail
