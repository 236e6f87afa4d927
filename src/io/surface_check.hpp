/// @file surface_check.hpp
/// Internal: what tetrahedralise() asks of a surface before TetGen sees it.
#pragma once

#include <string>

#include "softgrad/io.hpp"

namespace softgrad::detail {

/// Relative tolerances of the checks: two vertices closer than kSurfaceWeldTolerance times the
/// bounding box's diagonal are one point; a triangle whose height over its longest edge is
/// below kSurfaceFlatTolerance has no area. Both are far below TetGen's own tolerance (1e-8).
inline constexpr double kSurfaceWeldTolerance = 1e-10;
inline constexpr double kSurfaceFlatTolerance = 1e-10;

/// Refuses, with InputError "<where>: ..." naming the place by its coordinates, a surface
/// that TetGen cannot fill or may crash on: a vertex on no triangle, two (nearly) coincident
/// vertices, a triangle without area, a face given twice, an edge on one triangle (a hole or a
/// dangling triangle) or on more than two (not a manifold), two neighbours that traverse their
/// shared edge the same way (inconsistent orientation), or a vertex where two sheets touch.
/// Self-intersection is TetGen's check (exact predicates), run in its child process.
void check_closed_surface(const SurfaceMesh& surface, const std::string& where);

}  // namespace softgrad::detail
