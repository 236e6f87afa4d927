/// @file scene_tables.hpp
/// Internal: scene values read from array files (.npy or text, see io/number_table.hpp) -- a
/// body's per-vertex masses, its material's per-element fields, a per-step force table.
#pragma once

#include <string>
#include <vector>

#include "object_reader.hpp"
#include "softgrad/model.hpp"

namespace softgrad::detail {

/// The numbers of the file that `j` (a string at `pointer`) names, relative to the scene's
/// folder; exactly `count` of them, whatever the array's shape (`what` says what they are).
/// @throws InputError "<scene>: <pointer>: <file>: ..." for a bad file or count.
std::vector<double> read_scene_table(const Source& src, const Json& j, const std::string& pointer,
                                     std::size_t count, const std::string& what);

/// /bodies/<i>/vertex_masses: replaces the lumped masses of the body just added (the model's
/// last) by the file's, one per vertex, each positive.
void read_vertex_masses(const ObjectReader& body, Model& model);

/// /bodies/<i>/material/fields: per-element values of the material's keys for the body just
/// added (the model's last). `material` is the material's JSON; keys the model names natively
/// set its parameters; youngs and poisson are mapped to them per element, the other taken from
/// the material's scalar value. Every element's parameters are validated.
void read_material_fields(const Source& src, const Json& material, const std::string& pointer,
                          Model& model);

/// The initial values of a "steps" force on `dofs` dofs: /forces/<i>/file's table of `n_steps` x
/// dofs values (or one step's, repeated), else `per_vertex` on every vertex at every step.
std::vector<double> step_force_values(const ObjectReader& force, int n_steps, std::size_t dofs,
                                      const Eigen::VectorXd& per_vertex);

}  // namespace softgrad::detail
