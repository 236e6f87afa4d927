// The handles' shared helpers (handles.hpp): a rollout checked against its scene, the loss a
// gradient call names, the adjoint's report as a dict and its warnings as GradientWarnings.
#include "handles.hpp"

#include <cmath>
#include <memory>

#include "arrays.hpp"
#include "softgrad/adjoint.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/loss.hpp"
#include "softgrad/scene.hpp"
#include "softgrad/trajectory.hpp"

namespace softgrad::python {

std::shared_ptr<const Loss> scene_loss(const PyScene& s) {
  if (!s.scene->loss)
    throw InputError(
        "the scene declares no \"loss\": pass loss=(d/dpositions, d/dvelocities) "
        "or a function of (positions, velocities) returning (value, d/dpositions, "
        "d/dvelocities)");
  return s.scene->loss;
}

namespace {

/// The cotangents of a (dx, dv) pair or of what a Python loss returned, as a LinearLoss.
std::shared_ptr<const Loss> linear_loss(const PyScene& s, int states, const py::handle& dx,
                                        const py::handle& dv) {
  const std::string shape = "(" + std::to_string(states) + ", " + std::to_string(s.n()) + ", " +
                            std::to_string(s.dim()) + ")";
  const Eigen::Index size = static_cast<Eigen::Index>(states) * s.model().n_dofs();
  std::vector<Eigen::VectorXd> a, b;
  for (auto [value, list, what] :
       {std::tuple{dx, &a, "loss: d/dpositions"}, std::tuple{dv, &b, "loss: d/dvelocities"}}) {
    if (value.is_none()) continue;
    const Eigen::VectorXd flat = to_vector(value, size, what, shape);
    for (int k = 0; k < states; ++k)
      list->push_back(
          flat.segment(static_cast<Eigen::Index>(k) * s.model().n_dofs(), s.model().n_dofs()));
  }
  return std::make_shared<LinearLoss>(s.model(), std::move(a), std::move(b));
}

}  // namespace

/// `r`'s rollout once it is known to be one of scene `s`'s: a rollout carries its scene's sizes,
/// controls and parameters, and would run wrongly (or out of bounds) in another scene.
const Rollout& own_rollout(const SceneRef& s, const PyRollout& r) {
  if (r.owner != s)
    throw InputError("this rollout was made by another Scene ('" + r.owner->scene->name +
                     "'), not by this one ('" + s->scene->name +
                     "'): make it with this scene's rollout()");
  return r.rollout;
}

/// What `loss` says: None (the scene's loss), a pair (dx, dv) of cotangents, or a function of
/// (positions, velocities) returning (value, dx, dv). `value` receives a function's value.
std::shared_ptr<const Loss> resolve_loss(const PyTrajectory& t, const py::object& loss,
                                         double* value, int states) {
  const PyScene& s = *t.owner;
  if (states < 0) states = static_cast<int>(t.trajectory->reports().size()) + 1;
  if (loss.is_none()) return scene_loss(s);
  if (py::isinstance<py::tuple>(loss) || py::isinstance<py::list>(loss)) {
    const py::sequence pair = loss;
    if (pair.size() != 2)
      throw InputError("gradient: loss=(d/dpositions, d/dvelocities) takes two arrays (or None)");
    return linear_loss(s, states, pair[0], pair[1]);
  }
  if (!PyCallable_Check(loss.ptr()))
    throw InputError(
        "gradient: loss must be None, a pair (d/dpositions, d/dvelocities) or a "
        "function of (positions, velocities)");
  const py::object out = loss(state_array(t, false), state_array(t, true));
  if (!py::isinstance<py::tuple>(out) || py::len(out) != 3)
    throw InputError(
        "gradient: the loss function must return (value, d/dpositions, "
        "d/dvelocities)");
  const py::tuple triple = out;
  *value = py::cast<double>(triple[0]);
  if (!std::isfinite(*value))
    throw InputError("gradient: the loss function returned the value " +
                     std::string(py::str(triple[0])) + ", not a finite number");
  return linear_loss(s, states, triple[1], triple[2]);
}

py::handle& gradient_warning() {
  static py::handle warning;
  return warning;
}

/// The adjoint's report as a dict (what `softgrad grad` prints).
py::dict report_dict(const AdjointReport& r) {
  py::dict d;
  d["backend"] = r.backend;
  d["steps"] = r.steps;
  d["linear_iterations"] = r.linear_iterations;
  d["factorizations"] = r.factorizations;
  d["worst_relative_residual"] = r.worst_relative_residual;
  d["indefinite_steps"] = r.indefinite_steps;
  d["unconverged_steps"] = r.unconverged_steps;
  d["unsolved_steps"] = r.unsolved_steps;
  d["direct_fallback_steps"] = r.direct_fallback_steps;
  d["warnings"] = r.warnings;
  d["trustworthy"] = r.trustworthy();
  d["backward_seconds"] = r.backward_seconds;
  d["recompute_seconds"] = r.recompute_seconds;
  d["recomputed_steps"] = r.recomputed_steps;
  d["trajectory_bytes"] = r.trajectory_bytes;
  d["peak_rss_bytes"] = r.peak_rss_bytes;
  return d;
}

/// Each of the report's warnings as a softgrad.GradientWarning, so that a gradient that is not
/// exact (unconverged steps, unsolved adjoint solves, indefinite Hessians) never passes silently.
void warn_if_untrustworthy(const AdjointReport& r) {
  for (const std::string& w : r.warnings)
    if (PyErr_WarnEx(gradient_warning().ptr(), ("adjoint: " + w).c_str(), 1) != 0)
      throw py::error_already_set();  // the warnings filter turned it into an error
}

}  // namespace softgrad::python
