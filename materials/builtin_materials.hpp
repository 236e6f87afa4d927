/// @file builtin_materials.hpp
/// The built-in hyperelastic materials, listed once: the registry (material_model.cpp) and the CUDA
/// element kernels (solvers/cuda) both take them from here, in this order. Mass-spring
/// networks (mass_spring.hpp) are a model of their own, CPU only.
#pragma once

#include <tuple>

#include "softgrad/materials/corotated.hpp"
#include "softgrad/materials/fixed_corotated.hpp"
#include "softgrad/materials/linear_elastic.hpp"
#include "softgrad/materials/mooney_rivlin.hpp"
#include "softgrad/materials/neo_hookean.hpp"
#include "softgrad/materials/stable_neo_hookean.hpp"
#include "softgrad/materials/stvk.hpp"

namespace softgrad {

using BuiltinHyperelasticMaterials =
    std::tuple<LinearElastic, CorotatedLinear, StVenantKirchhoff, NeoHookean, StableNeoHookean,
               MooneyRivlin, FixedCorotated>;

}  // namespace softgrad
