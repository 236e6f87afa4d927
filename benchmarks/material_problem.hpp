/// @file material_problem.hpp
/// material_throughput's test problem: random well-shaped tetrahedra, each with its own four
/// vertices, deformed at random, with random material parameters.
#pragma once

#include <cstdint>
#include <vector>

#include "softgrad/material_model.hpp"

namespace softgrad::bench {

/// Elements, rest shapes and current positions, stored in element order.
struct Problem {
  int n_elems = 0;
  std::vector<int> elems;
  std::vector<double> Dm_inv;
  std::vector<double> volume;
  std::vector<double> x;  ///< current positions, 4 vertices per element
  std::vector<double> youngs;
  std::vector<double> poisson;
};

/// n_elems random elements, each with its own four vertices, and random (youngs, poisson) in
/// [10 kPa, 10 MPa] (log-uniform) x [0, 0.45); the same for the same seed.
Problem make_problem(int n_elems, std::uint64_t seed);

/// Per-element parameters of `model` from each element's (youngs, poisson).
std::vector<double> params_for(const MaterialModel& model, const Problem& pr);

/// The first n_elems elements of `pr` with the parameters `params` (both must outlive it).
ElementBatch batch_of(const Problem& pr, const std::vector<double>& params, int n_elems);

}  // namespace softgrad::bench
