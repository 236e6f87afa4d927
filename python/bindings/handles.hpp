/// @file handles.hpp
/// The C++ objects behind softgrad's Python classes, shared by the binding files.
#pragma once

#include <memory>

#include "softgrad/scene.hpp"
#include "softgrad/simulator.hpp"
#include "softgrad/trajectory.hpp"

namespace softgrad::python {

/// A loaded scene and the simulator its rollouts share as a workspace (a Simulator holds no
/// rollout's data: interleaved rollouts and runs of one scene may share it).
struct PyScene {
  std::shared_ptr<const Scene> scene;
  std::shared_ptr<Simulator> sim;
  const Model& model() const { return *scene->model; }
  int n() const { return model().n_verts; }
  int dim() const { return model().dim; }
};
using SceneRef = std::shared_ptr<PyScene>;

struct PyRollout {
  SceneRef owner;
  Rollout rollout;
};

struct PyTrajectory {
  SceneRef owner;
  std::shared_ptr<const Trajectory> trajectory;
};

struct PyRun {
  SceneRef owner;
  std::shared_ptr<RolloutRun> run;
};

}  // namespace softgrad::python
