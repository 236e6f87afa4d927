/// @file handles.hpp
/// The C++ objects behind softgrad's Python classes, shared by the binding files.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <signal.h>

#include <csignal>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "softgrad/adjoint.hpp"
#include "softgrad/batch.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/loss.hpp"
#include "softgrad/parameters.hpp"
#include "softgrad/scene.hpp"
#include "softgrad/simulator.hpp"
#include "softgrad/trajectory.hpp"

namespace softgrad::python {

/// A loaded scene and the simulator its rollouts share as a workspace (a Simulator holds no
/// rollout's data: interleaved rollouts and runs of one scene may share it).
struct PyScene {
  std::shared_ptr<const Scene> scene;
  std::shared_ptr<Simulator> sim;
  /// The batch runner of simulate_batch and gradient_batch (made on first use, kept so that its
  /// workspaces analyse their patterns once), guarded: Python threads may share a scene.
  std::shared_ptr<RolloutBatch> batch;
  std::mutex batch_mutex;
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
  std::shared_ptr<const Trajectory> taken;  ///< the trajectory once taken from the run
};

/// One rigid body of a scene.
struct PyRigidBody {
  SceneRef owner;
  int index = 0;
  const RigidBody& body() const { return owner->model().rigid_bodies[index]; }
};

/// A class that module.cpp declared before any function is bound, so that every signature
/// names its arguments' and results' Python types (softgrad.Rollout, not the C++ name).
template <class... T>
pybind11::class_<T...> declared_class(pybind11::module_& m, const char* name) {
  return pybind11::reinterpret_borrow<pybind11::class_<T...>>(m.attr(name));
}

/// "(n, dim)" of a scene's per-vertex arrays.
std::string shape_text(const PyScene& s);
/// The states of a trajectory, (T + 1, n, dim), positions or velocities (a copy).
pybind11::array_t<double> state_array(const PyTrajectory& t, bool velocities);
/// A Newton report as a dict.
pybind11::dict report_dict(const NewtonReport& r);
/// The named parameters of a rollout of the scene.
ParameterSet parameter_set(const PyScene& s, const Rollout& r,
                           const std::vector<std::string>& names);

/// `r`'s rollout once it is known to be one of scene `s`'s. @throws InputError otherwise.
const Rollout& own_rollout(const SceneRef& s, const PyRollout& r);
/// The scene's own loss. @throws InputError if the scene declares none.
std::shared_ptr<const Loss> scene_loss(const PyScene& s);
/// The loss `loss` names for trajectory `t` (None: the scene's; a pair (d/dpositions,
/// d/dvelocities); a function of (positions, velocities) returning (value, dx, dv), its value
/// into *value). `states`: the number of states when `t` has no trajectory.
std::shared_ptr<const Loss> resolve_loss(const PyTrajectory& t, const pybind11::object& loss,
                                         double* value, int states = -1);
/// The adjoint's report as a dict.
pybind11::dict report_dict(const AdjointReport& r);
/// Finds what CtrlC needs of Python (the main thread, signal's handlers); at import.
void init_ctrl_c();
/// The flag every Newton solve of a Python scene polls (NewtonOptions::interrupt).
const volatile std::sig_atomic_t* interrupt_flag();

/// Ctrl-C within a step (ctrl_c.cpp): while it lives, on the main thread with Python's default
/// SIGINT handler, SIGINT raises interrupt_flag() (the step under way stops within a Newton
/// iteration) and Python's KeyboardInterrupt. Elsewhere it does nothing. Construct it with the
/// GIL, on the thread that waits for the work.
class CtrlC {
 public:
  CtrlC();
  ~CtrlC();
  CtrlC(const CtrlC&) = delete;
  CtrlC& operator=(const CtrlC&) = delete;
  bool raised() const;
  /// Throws Python's KeyboardInterrupt (error_already_set) when SIGINT came: the call's result
  /// is then partial, and never returned.
  void raise_if_raised() const;
  /// fn()'s result, or KeyboardInterrupt when SIGINT came during it (a step it interrupted ends
  /// in a ConvergenceError, which then gives way to the KeyboardInterrupt).
  template <class Fn>
  auto call(Fn&& fn) const {
    try {
      auto result = fn();
      raise_if_raised();
      return result;
    } catch (const ConvergenceError&) {
      raise_if_raised();
      throw;
    }
  }

 private:
  struct sigaction previous_ {};
  bool installed_ = false;
};

/// Hands the C++ log records queued so far to logging.getLogger("softgrad") (with the GIL).
void flush_log();
/// Each of the report's warnings as a softgrad.GradientWarning.
void warn_if_untrustworthy(const AdjointReport& r);
/// softgrad.GradientWarning (a RuntimeWarning), created by bind_scene.
pybind11::handle& gradient_warning();

}  // namespace softgrad::python
