/// @file robot_problem_reader.hpp
/// Internal: a robot's control problem, rigid bodies with motors driven by the scene's
/// "controller", "task", "train" and "compare" keys.
#pragma once

#include <memory>

#include "object_reader.hpp"
#include "softgrad/model.hpp"
#include "softgrad/scene.hpp"

namespace softgrad::detail {

/// True for a robot's control problem: rigid bodies with a controller, task, train or compare.
bool is_robot_problem(const ObjectReader& top);

/// Reads a robot's controller (driving its motors), task, train and compare settings into
/// scene.locomotion. Needs the finished model (its joints, motors and bodies).
void read_robot_problem(const ObjectReader& top, Scene& scene, const std::shared_ptr<Model>& model);

}  // namespace softgrad::detail
