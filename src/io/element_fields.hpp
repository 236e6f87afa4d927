/// @file element_fields.hpp
/// What a frame shows inside each element: the volume ratio, the strain-energy density and the
/// Cauchy stress of the deformed state, from the element's material and parameters.
#pragma once

#include <vector>

#include "softgrad/io.hpp"
#include "softgrad/model.hpp"

namespace softgrad {

/// Cell fields of the state x, elements in model order (the order of combined_mesh):
///   "J"                     det F, the deformed over the rest volume;
///   "strain_energy_density" psi(F) [J/m^3 of rest volume; J/m^2 in 2D];
///   "cauchy_stress"         sigma = P F^T / J [Pa], 9 components (row-major 3x3; in 2D the
///                           in-plane 2x2 block, the rest zero).
/// Each body's material parameters are taken from `parameters` (one vector per Model::terms
/// entry, as a rollout holds them). An element the material cannot evaluate (inverted under a
/// model that forbids it) gets NaN density and stress. Empty when a body's material has no
/// density (springs): then there is no stress to show.
std::vector<CellField> element_fields(const Model& model, const Eigen::VectorXd& x,
                                      const TermParameters& parameters);

}  // namespace softgrad
