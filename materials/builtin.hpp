/// @file builtin.hpp
/// Factories of the built-in material models. Each materials/<name>.cpp instantiates
/// make_model<ItsMaterial>() (explicit instantiation keeps the AD templates in one translation
/// unit per material), and material_model.cpp lists them.
#pragma once

#include <memory>

#include "softgrad/material_model.hpp"

namespace softgrad {

template <class Material>
std::shared_ptr<const MaterialModel> make_model();

}  // namespace softgrad
