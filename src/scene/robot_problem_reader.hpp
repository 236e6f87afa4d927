/// @file robot_problem_reader.hpp
/// Internal: a robot's control problem, rigid bodies with motors driven by the scene's
/// "controller", "task", "train" and "compare" keys.
#pragma once

#include <memory>

#include "object_reader.hpp"
#include "softgrad/locomotion.hpp"
#include "softgrad/model.hpp"
#include "softgrad/scene.hpp"

namespace softgrad::detail {

/// True for a robot's control problem: rigid bodies with a controller, task, train or compare.
bool is_robot_problem(const ObjectReader& top);

/// A robot's controller (driving its motors), task, train and compare settings, its creature a
/// draft for finish_control_problem (locomotion_reader). Needs the model with every term (its
/// joints, motors and bodies).
std::shared_ptr<Locomotion> read_robot_problem(const ObjectReader& top, const Scene& scene,
                                               const Model& model);

}  // namespace softgrad::detail
