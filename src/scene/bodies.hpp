/// @file bodies.hpp
/// Internal: the /bodies section of a scene: meshes (files or generators), materials
/// (youngs/poisson or the model's own parameters) and densities, appended to a Model.
#pragma once

#include <vector>

#include "object_reader.hpp"
#include "softgrad/material_model.hpp"
#include "softgrad/model.hpp"

namespace softgrad::detail {

/// Reads /bodies/<index> and appends the body to `model` (whose dim is the scene's); values far
/// outside physical ranges are appended to `warnings` (and logged).
/// @throws InputError naming the pointer of the offending key.
void add_scene_body(const Source& src, const Json& j, int index, Model& model,
                    std::vector<std::string>& warnings);

/// Reads a material section at `pointer`: the model and its parameter vector. Implausible
/// values go to `warnings` when given.
/// @throws InputError naming the pointer of the offending key.
std::pair<std::shared_ptr<const MaterialModel>, std::vector<double>> read_material(
    const Source& src, const Json& j, const std::string& pointer,
    std::vector<std::string>* warnings = nullptr);

}  // namespace softgrad::detail
