/// @file rigid_reader.hpp
/// Internal: a scene's rigid bodies, joints and motors (/rigid_bodies, /joints, /motors).
#pragma once

#include <vector>

#include "object_reader.hpp"
#include "softgrad/model.hpp"

namespace softgrad::detail {

/// Reads /rigid_bodies and appends them to the model (after its deformable bodies).
/// @throws InputError naming the pointer of the offending key.
void read_rigid_bodies(const ObjectReader& top, Model& model);

/// Reads /joints (their default stiffnesses for steps of dt) into the model and adds the
/// rigidity and joint terms; then /motors, their targets held for `motor_steps` steps.
void add_rigid_terms(const ObjectReader& top, double dt, int motor_steps, Model& model);

/// The rigid bodies' initial velocities (/rigid_bodies/*/velocity, angular_velocity) written
/// into `v` (n_dofs; zero-sized: filled with zeros first if any body moves).
void read_rigid_velocities(const ObjectReader& top, const Model& model, Eigen::VectorXd& v);

}  // namespace softgrad::detail
