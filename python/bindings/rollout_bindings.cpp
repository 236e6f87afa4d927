// softgrad.Rollout, Trajectory and Run: a rollout's data (initial state, steps, parameters by
// name, controller), finished trajectories as NumPy arrays, and rollouts taken step by step.
#include <pybind11/stl.h>

#include <cmath>

#include "arrays.hpp"
#include "bindings.hpp"
#include "handles.hpp"
#include "softgrad/errors.hpp"

namespace softgrad::python {

std::string shape_text(const PyScene& s) {
  return "(" + std::to_string(s.n()) + ", " + std::to_string(s.dim()) + ")";
}

/// The states of a trajectory, (T + 1, n, dim), positions or velocities.
py::array_t<double> state_array(const PyTrajectory& t, bool velocities) {
  const Trajectory& traj = *t.trajectory;
  const int T = static_cast<int>(traj.reports().size()), n = t.owner->n(), d = t.owner->dim();
  py::array_t<double> out(
      {static_cast<py::ssize_t>(T + 1), static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(d)});
  double* dst = out.mutable_data();
  for (int k = 0; k <= T; ++k) {
    const State& s = k == T ? traj.final_state() : traj.state(k);
    const Eigen::VectorXd& v = velocities ? s.v : s.x;
    std::copy(v.data(), v.data() + v.size(), dst + static_cast<size_t>(k) * n * d);
  }
  return out;
}

py::dict report_dict(const NewtonReport& r) {
  py::dict d;
  d["converged"] = r.converged();
  d["iterations"] = r.iterations;
  d["linear_iterations"] = r.linear_iterations;
  d["factorizations"] = r.factorizations;
  d["direct_fallbacks"] = r.direct_fallbacks;
  d["energy"] = r.energy;
  d["step_norm"] = r.step_norm;
  d["residual"] = r.gradient_norm;
  d["message"] = r.message;
  return d;
}

ParameterSet parameter_set(const PyScene& s, const Rollout& r,
                           const std::vector<std::string>& names) {
  return ParameterSet(*s.sim, r, names);
}

void bind_rollout(py::module_& m) {
  declared_class<PyRollout>(m, "Rollout")
      .def_property(
          "steps", [](const PyRollout& r) { return r.rollout.steps; },
          [](PyRollout& r, int steps) {
            if (steps < 1) throw InputError("rollout: steps must be >= 1");
            r.rollout.steps = steps;
          },
          "The number of steps (>= 1).")
      .def_property(
          "x0",
          [](const PyRollout& r) {
            return to_array(r.rollout.initial.x, {r.owner->n(), r.owner->dim()});
          },
          [](PyRollout& r, const py::object& x) {
            r.rollout.initial.x =
                to_vector(x, r.owner->model().n_dofs(), "x0", shape_text(*r.owner));
          },
          "Initial positions (n_vertices, dim).")
      .def_property(
          "v0",
          [](const PyRollout& r) {
            return to_array(r.rollout.initial.v, {r.owner->n(), r.owner->dim()});
          },
          [](PyRollout& r, const py::object& v) {
            r.rollout.initial.v =
                to_vector(v, r.owner->model().n_dofs(), "v0", shape_text(*r.owner));
          },
          "Initial velocities (n_vertices, dim).")
      .def(
          "get",
          [](const PyRollout& r, const std::string& name) {
            const ParameterSet ps = parameter_set(*r.owner, r.rollout, {name});
            const Eigen::VectorXd v = ps.get(*r.owner->sim, r.rollout);
            return to_array(v, {static_cast<py::ssize_t>(v.size())});
          },
          py::arg("name"), "A parameter's values (flat).")
      .def(
          "set",
          [](PyRollout& r, const std::string& name, const py::object& value) {
            const ParameterSet ps = parameter_set(*r.owner, r.rollout, {name});
            const Eigen::VectorXd v = to_vector(value, ps.size(), name, "");
            ps.set(*r.owner->sim, r.rollout, v);
          },
          py::arg("name"), py::arg("value"),
          "Sets a parameter: a scalar fills every value, an array gives them all.")
      .def_property(
          "t0", [](const PyRollout& r) { return r.rollout.initial.t; },
          [](PyRollout& r, double t) {
            if (!std::isfinite(t)) throw InputError("t0: the start time must be finite");
            r.rollout.initial.t = t;
          },
          "The start time [s] (scripted motions and loads follow it).")
      .def_property_readonly(
          "has_controller", [](const PyRollout& r) { return bool(r.rollout.controller); },
          "Whether a controller sets a term's values each step (clear_controller drops it).")
      .def(
          "clear_controller",
          [](PyRollout& r) {
            r.rollout.controller.reset();
            r.rollout.controlled_term.clear();
          },
          "Drops the controller: its term's per-step values (e.g. muscles.activation) are then "
          "parameters like any other.")
      .def(
          "copy", [](const PyRollout& r) { return PyRollout(r); },
          "An independent copy (changing it leaves this one as it is).");

  declared_class<PyTrajectory>(m, "Trajectory")
      .def_property_readonly(
          "positions", [](const PyTrajectory& t) { return state_array(t, false); },
          "(steps + 1, n_vertices, dim), a copy.")
      .def_property_readonly(
          "velocities", [](const PyTrajectory& t) { return state_array(t, true); },
          "(steps + 1, n_vertices, dim), a copy.")
      .def_property_readonly(
          "steps", [](const PyTrajectory& t) { return t.trajectory->steps(); },
          "The number of steps taken.")
      .def_property_readonly(
          "converged", [](const PyTrajectory& t) { return t.trajectory->converged(); },
          "Whether every step's Newton solve converged.")
      .def_property_readonly(
          "newton",
          [](const PyTrajectory& t) {
            py::list out;
            for (const NewtonReport& r : t.trajectory->reports()) out.append(report_dict(r));
            return out;
          },
          "Each step's Newton report (a dict: converged, iterations, linear_iterations, "
          "factorizations, energy, step_norm, residual, message).");

  declared_class<PyRun>(m, "Run")
      .def(
          "step", [](PyRun& r) { return report_dict(r.run->step()); },
          "Takes the next step; returns its Newton report. Raises ConvergenceError on failure.")
      .def_property_readonly(
          "done", [](const PyRun& r) { return r.run->done(); }, "Whether every step is taken.")
      .def_property_readonly(
          "t", [](const PyRun& r) { return r.run->state().t; }, "The current time [s].")
      .def_property_readonly(
          "x",
          [](const PyRun& r) {
            return to_array(r.run->state().x, {r.owner->n(), r.owner->dim()});
          },
          "Current positions (n_vertices, dim), a copy.")
      .def_property_readonly(
          "v",
          [](const PyRun& r) {
            return to_array(r.run->state().v, {r.owner->n(), r.owner->dim()});
          },
          "Current velocities (n_vertices, dim), a copy.")
      .def(
          "trajectory",
          [](PyRun& r) {
            if (!r.run->done())
              throw InputError("run: the trajectory is there once every step is taken");
            // Taken from the run once (a second take would find it moved out), then shared.
            if (!r.taken) r.taken = std::make_shared<const Trajectory>(std::move(*r.run).take());
            return PyTrajectory{r.owner, r.taken};
          },
          "The finished trajectory (once done; the same one on every call).");
}

}  // namespace softgrad::python
