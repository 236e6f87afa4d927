/// @file element_adjacency.hpp
/// Pairs of elements of a body that share a face (an edge in 2D): the neighbourhoods of
/// smoothness penalties on per-element fields.
#pragma once

#include <utility>
#include <vector>

#include "softgrad/model.hpp"

namespace softgrad {

/// Each adjacent pair (e, f), e < f, once.
std::vector<std::pair<int, int>> element_adjacency(const Body& body);

}  // namespace softgrad
