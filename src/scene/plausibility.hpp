/// @file plausibility.hpp
/// Internal: values a scene may hold but that are far outside physical ranges (a modulus in
/// MPa given as Pa, a mesh in millimetres read as metres). They are warnings, not errors: the
/// simulator can run them, but Newton usually fails at the first step without naming the key.
/// `--strict` (SceneOverrides) turns them into errors.
#pragma once

#include <string>
#include <vector>

#include "softgrad/material_model.hpp"
#include "softgrad/mesh.hpp"

namespace softgrad::detail {

/// Each check logs its findings as warnings "<where>: ..." and appends them to `warnings`.
/// A model's own parameters: every one in Pa (moduli), and a "poisson" among them.
void check_material_parameters(const std::string& where, const MaterialModel& model,
                               const std::vector<double>& params,
                               std::vector<std::string>& warnings);
/// Young's modulus and Poisson's ratio as the scene gives them.
void check_youngs_poisson(const std::string& where, double youngs, double poisson,
                          std::vector<std::string>& warnings);
/// A body's density (3D only: 2D densities are per unit thickness) and size.
void check_density_and_size(const std::string& where, double density, const Mesh& mesh,
                            std::vector<std::string>& warnings);

/// Two bodies over one space (a mesh given twice, or placed into another): their masses and
/// stiffnesses add where they overlap. Warns when the centre of an element of `mesh` lies
/// inside an element of `other`'s mesh.
void check_overlap(const std::string& where, const Mesh& mesh, const std::string& other_name,
                   const Mesh& other, std::vector<std::string>& warnings);

}  // namespace softgrad::detail
