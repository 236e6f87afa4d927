/// @file locomotion_reader.hpp
/// Internal: the locomotion keys of a scene ("creature", "controller", "task", "train",
/// "compare"), validated against their schema sections.
#pragma once

#include <memory>

#include "object_reader.hpp"
#include "softgrad/locomotion.hpp"
#include "softgrad/model.hpp"
#include "softgrad/scene.hpp"

namespace softgrad::detail {

/// The dimension of the scene's creature; a "dim" that disagrees is an error at /dim.
/// @pre top.has("creature").
int creature_dim(const ObjectReader& top);

/// Builds the creature (its model, with gravity, ground contact and muscles) into the empty
/// `builder`; returns the controller, task, train and compare settings with the creature as a
/// draft, for finish_control_problem. Needs scene.steps and scene.options.dt.
/// "bodies", "gravity" and "forces" are errors beside a creature.
/// Without a "creature", any of the other locomotion keys is an error.
std::shared_ptr<Locomotion> read_creature(const ObjectReader& top, const Scene& scene,
                                          ModelBuilder& builder);

/// Completes a creature's or robot's control problem `loc` once scene.model is final: its
/// creature's model is scene.model, its controller is built once, so that its sizes and bounds
/// are checked (an error at /controller), and it becomes scene.locomotion.
void finish_control_problem(const ObjectReader& top, Scene& scene, std::shared_ptr<Locomotion> loc);

/// Rejects controller, task, train or compare in a scene without a creature (or robot).
void reject_locomotion_keys(const ObjectReader& top);
/// The steps a control problem's controls are stored for: the scene's, or a longer training
/// episode's.
int control_steps(const ObjectReader& top, int scene_steps);
/// Reads /controller into loc.controller (its keys checked by type).
void read_controller(const ObjectReader& top, const Scene& scene, Locomotion& loc);

/// Reads /train and /compare into loc.train and loc.compare.
void read_training(const ObjectReader& top, const Scene& scene, Locomotion& loc);

}  // namespace softgrad::detail
