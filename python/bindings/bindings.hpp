/// @file bindings.hpp
/// The parts of the _softgrad extension module, one function each.
#pragma once

#include <pybind11/pybind11.h>

namespace softgrad::python {

/// C++ log records to logging.getLogger("softgrad"), and _flush_log (log_bindings.cpp).
void bind_log(pybind11::module_& m);
/// Scene (scene_bindings.cpp).
void bind_scene(pybind11::module_& m);
/// Rollout, Trajectory and Run (rollout_bindings.cpp).
void bind_rollout(pybind11::module_& m);
/// Scene.simulate_batch and Scene.gradient_batch: rollouts side by side (batch_bindings.cpp).
void bind_batch(pybind11::module_& m);
/// RigidBody, Scene.rigid_bodies and joints, Trajectory.sensor, Run.sensor (rigid_bindings.cpp).
void bind_rigid(pybind11::module_& m);
/// Scene.material, material_stress and write_material (material_bindings.cpp).
void bind_material(pybind11::module_& m);
/// _EnvBatch: locomotion environments stepped together (env_bindings.cpp).
void bind_env(pybind11::module_& m);
/// _train, _compare and _sysid: the command line's subcommands (command_bindings.cpp).
void bind_commands(pybind11::module_& m);

}  // namespace softgrad::python
