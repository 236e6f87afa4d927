/// @file regions.hpp
/// Internal: vertex selection by region (box, plane or explicit indices) on the rest positions
/// of a model, in model numbering.
#pragma once

#include <vector>

#include "object_reader.hpp"
#include "softgrad/model.hpp"

namespace softgrad::detail {

/// Relative tolerance of region tests: a vertex within kRegionTolerance * L of a box or plane
/// (L the diagonal of the rest bounding box) counts as inside.
inline constexpr double kRegionTolerance = 1e-6;

/// Resolves a body reference (a name or a 0-based index) at `pointer`.
/// @throws InputError naming the pointer and listing the bodies.
int find_body(const Source& src, const Json& ref, const std::string& pointer, const Model& model);

/// The vertices selected by parent[key] (a region section), sorted and unique, in model
/// numbering. @throws InputError naming the region's pointer for a malformed region, a bad body
/// or index, or a region that selects no vertex.
std::vector<int> select_region(const ObjectReader& parent, const char* key, const Model& model);

}  // namespace softgrad::detail
