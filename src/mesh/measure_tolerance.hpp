/// @file measure_tolerance.hpp
/// Internal: the threshold below which an element counts as degenerate, shared by validate_mesh
/// and the mesh readers so that both reject exactly the same elements.
#pragma once

#include "softgrad/mesh.hpp"

namespace softgrad::detail {

/// Relative size of the smallest acceptable element: measure > kDegenerateRatio * diag^dim.
constexpr double kDegenerateRatio = 1e-12;

/// kDegenerateRatio * (diagonal of the bounding box of mesh.X)^dim; 0 for an empty mesh.
/// @pre mesh.X has mesh.dim columns and finite entries.
double degenerate_measure_tolerance(const Mesh& mesh);

}  // namespace softgrad::detail
