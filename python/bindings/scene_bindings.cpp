// softgrad.Scene, Rollout, Run and Trajectory: loading, parameters by name, rollouts, single
// steps, and gradients by the adjoint (gradient) or forward sensitivities (tangent).
#include <pybind11/stl.h>

#include <chrono>
#include <memory>

#include "arrays.hpp"
#include "bindings.hpp"
#include "handles.hpp"
#include "softgrad/adjoint.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/locomotion.hpp"
#include "softgrad/loss.hpp"
#include "softgrad/parameters.hpp"
#include "softgrad/scene.hpp"
#include "softgrad/trajectory.hpp"

namespace softgrad::python {
namespace {

SceneRef make_scene(Scene scene) {
  auto p = std::make_shared<PyScene>();
  p->scene = std::make_shared<const Scene>(std::move(scene));
  p->sim = std::make_shared<Simulator>(p->scene->model, p->scene->options);
  return p;
}

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

std::shared_ptr<const Loss> scene_loss(const PyScene& s) {
  if (!s.scene->loss)
    throw InputError(
        "the scene declares no \"loss\": pass loss=(d/dpositions, d/dvelocities) "
        "or a function of (positions, velocities) returning (value, d/dpositions, "
        "d/dvelocities)");
  return s.scene->loss;
}

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

/// What `loss` says: None (the scene's loss), a pair (dx, dv) of cotangents, or a function of
/// (positions, velocities) returning (value, dx, dv). `value` receives a function's value.
std::shared_ptr<const Loss> resolve_loss(const PyTrajectory& t, const py::object& loss,
                                         double* value) {
  const PyScene& s = *t.owner;
  const int states = static_cast<int>(t.trajectory->reports().size()) + 1;
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
  return linear_loss(s, states, triple[1], triple[2]);
}

py::tuple gradient_of(const PyTrajectory& t, const std::vector<std::string>& params,
                      const py::object& loss) {
  double value = NAN;
  const std::shared_ptr<const Loss> l = resolve_loss(t, loss, &value);
  const ParameterSet ps = parameter_set(*t.owner, t.trajectory->rollout(), params);
  const GradientResult r = softgrad::gradient(*t.owner->sim, *t.trajectory, *l, ps);
  return py::make_tuple(std::isnan(value) ? r.loss : value,
                        to_array(r.gradient, {static_cast<py::ssize_t>(r.gradient.size())}));
}

}  // namespace

void bind_scene(py::module_& m) {
  py::class_<PyScene, SceneRef>(m, "Scene", "A scene loaded from a file: its model is fixed.")
      .def(py::init([](const std::string& path) { return make_scene(load_scene(path)); }),
           py::arg("path"))
      .def_static(
          "from_json",
          [](const std::string& text, const std::string& origin) {
            return make_scene(parse_scene(text, origin));
          },
          py::arg("text"), py::arg("origin") = "<json>",
          "A scene from JSON text; relative mesh paths resolve against origin's folder.")
      .def_property_readonly("name", [](const PyScene& s) { return s.scene->name; })
      .def_property_readonly("dim", &PyScene::dim)
      .def_property_readonly("n_vertices", &PyScene::n)
      .def_property_readonly("n_elements",
                             [](const PyScene& s) {
                               size_t n = 0;
                               for (const Body& b : s.model().bodies)
                                 n += b.elems.size() / (s.dim() + 1);
                               return n;
                             })
      .def_property_readonly(
          "elements",
          [](const PyScene& s) {
            std::vector<int> all;
            for (const Body& b : s.model().bodies)
              all.insert(all.end(), b.elems.begin(), b.elems.end());
            const py::ssize_t k = s.dim() + 1;
            py::array_t<int> out({static_cast<py::ssize_t>(all.size()) / k, k});
            std::copy(all.begin(), all.end(), out.mutable_data());
            return out;
          },
          "Vertex indices of every element (n_elements, dim + 1): triangles or tetrahedra.")
      .def_property_readonly("steps", [](const PyScene& s) { return s.scene->steps; })
      .def_property_readonly("dt", [](const PyScene& s) { return s.scene->options.dt; })
      .def_property_readonly("n_muscles",
                             [](const PyScene& s) {
                               return s.scene->locomotion ? s.scene->locomotion->creature.n_muscles
                                                          : 0;
                             })
      .def_property_readonly(
          "masses",
          [](const PyScene& s) {
            Eigen::VectorXd mass(s.n());
            for (int v = 0; v < s.n(); ++v) mass[v] = s.model().mass[v * s.dim()];
            return to_array(mass, {s.n()});
          },
          "Lumped mass of each vertex [kg] (n_vertices), a copy.")
      .def(
          "policy_options",
          [](const PyScene& s) {
            if (!s.scene->locomotion)
              throw InputError(s.scene->name + ": not a locomotion scene (it has no \"creature\")");
            const MlpController::Options o = s.scene->locomotion->policy_options();
            py::dict d;
            d["hidden"] = o.hidden;
            d["a_max"] = o.a_max;
            d["delta"] = o.delta;
            d["period"] = o.period;
            d["length_scale"] = o.length_scale;
            d["velocity_scale"] = o.velocity_scale;
            d["direction"] = to_array(s.scene->locomotion->direction, {s.dim()});
            return d;
          },
          "The baselines' MLP policy of a locomotion scene (softgrad compare, softgrad.gym): "
          "hidden sizes, the action rule's a_max and delta, the clock period, the observation "
          "scales, the direction of travel.")
      .def_property_readonly("has_loss", [](const PyScene& s) { return bool(s.scene->loss); })
      .def_property_readonly(
          "rest_positions",
          [](const PyScene& s) {
            return to_array(s.model().X, {s.n(), s.dim()});
          },
          "Rest positions (n_vertices, dim), a copy.")
      .def(
          "parameters",
          [](const PyScene& s) {
            py::dict out;
            for (const auto& [name, what] :
                 ParameterSet::available(*s.sim, s.scene->rollout(*s.sim)))
              out[py::str(name)] = what;
            return out;
          },
          "Every parameter name a rollout offers, with a description.")
      .def(
          "rollout",
          [](const SceneRef& s, std::optional<int> steps) {
            PyRollout r{s, s->scene->rollout(*s->sim)};
            if (steps) {
              if (*steps < 1) throw InputError("rollout: steps must be >= 1");
              r.rollout.steps = *steps;
            }
            return r;
          },
          py::arg("steps") = py::none(),
          "The scene's rollout (its initial state, controller and parameters), optionally "
          "shortened or lengthened to `steps`.")
      .def(
          "simulate",
          [](const SceneRef& s, const PyRollout& r) {
            return PyTrajectory{s,
                                std::make_shared<const Trajectory>(simulate(*s->sim, r.rollout))};
          },
          py::arg("rollout"), "Runs the rollout; raises ConvergenceError if a step fails.")
      .def(
          "start",
          [](const SceneRef& s, const PyRollout& r) {
            return PyRun{s, std::make_shared<RolloutRun>(*s->sim, r.rollout)};
          },
          py::arg("rollout"), "The rollout taken step by step (Run.step()).")
      .def(
          "gradient",
          [](const SceneRef&, const PyTrajectory& t, const std::vector<std::string>& params,
             const py::object& loss) { return gradient_of(t, params, loss); },
          py::arg("trajectory"), py::arg("params"), py::arg("loss") = py::none(),
          "(loss value, dL/dtheta) by the adjoint, theta the named parameters in order.")
      .def(
          "_time_simulate_and_gradient",
          [](const SceneRef& s, const PyRollout& r, const std::vector<std::string>& params,
             int repeats) {
            // What softgrad.torch.simulate's forward and backward run, timed in C++ (the
            // benchmark's baseline): simulate, then the adjoint with all-ones cotangents.
            const ParameterSet ps = parameter_set(*s, r.rollout, params);
            std::vector<double> seconds;
            py::gil_scoped_release free;
            for (int k = 0; k < repeats; ++k) {
              const auto t0 = std::chrono::steady_clock::now();
              const Trajectory traj = simulate(*s->sim, r.rollout);
              const int states = static_cast<int>(traj.reports().size()) + 1;
              const Eigen::VectorXd ones = Eigen::VectorXd::Ones(s->model().n_dofs());
              const LinearLoss loss(s->model(), std::vector<Eigen::VectorXd>(states, ones),
                                    std::vector<Eigen::VectorXd>(states, ones));
              softgrad::gradient(*s->sim, traj, loss, ps);
              seconds.push_back(
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            }
            return seconds;
          },
          py::arg("rollout"), py::arg("params"), py::arg("repeats"))
      .def(
          "tangent",
          [](const SceneRef& s, const PyRollout& r, const std::vector<std::string>& params,
             const py::object& loss) {
            const ParameterSet ps = parameter_set(*s, r.rollout, params);
            double value = NAN;
            std::shared_ptr<const Loss> l;
            if (loss.is_none()) {
              l = scene_loss(*s);
            } else {
              // A loss given by its cotangents needs the trajectory they belong to.
              const PyTrajectory t{
                  s, std::make_shared<const Trajectory>(simulate(*s->sim, r.rollout))};
              l = resolve_loss(t, loss, &value);
            }
            const GradientResult g = tangent_gradient(*s->sim, r.rollout, *l, ps);
            return py::make_tuple(
                std::isnan(value) ? g.loss : value,
                to_array(g.gradient, {static_cast<py::ssize_t>(g.gradient.size())}));
          },
          py::arg("rollout"), py::arg("params"), py::arg("loss") = py::none(),
          "(loss value, dL/dtheta) by forward sensitivities: gradient()'s number by the other "
          "route, for few parameters.");

  py::class_<PyRollout>(m, "Rollout",
                        "A rollout's data: initial state, steps, parameter values, controller.")
      .def_property(
          "steps", [](const PyRollout& r) { return r.rollout.steps; },
          [](PyRollout& r, int steps) {
            if (steps < 1) throw InputError("rollout: steps must be >= 1");
            r.rollout.steps = steps;
          })
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
      .def_property_readonly("has_controller",
                             [](const PyRollout& r) { return bool(r.rollout.controller); })
      .def(
          "clear_controller",
          [](PyRollout& r) {
            r.rollout.controller.reset();
            r.rollout.controlled_term.clear();
          },
          "Drops the controller: its term's per-step values (e.g. muscles.activation) are then "
          "parameters like any other.")
      .def("copy", [](const PyRollout& r) { return PyRollout(r); });

  py::class_<PyTrajectory>(m, "Trajectory", "A finished rollout: its states and inputs.")
      .def_property_readonly(
          "positions", [](const PyTrajectory& t) { return state_array(t, false); },
          "(steps + 1, n_vertices, dim), a copy.")
      .def_property_readonly(
          "velocities", [](const PyTrajectory& t) { return state_array(t, true); },
          "(steps + 1, n_vertices, dim), a copy.")
      .def_property_readonly("steps", [](const PyTrajectory& t) { return t.trajectory->steps(); })
      .def_property_readonly("converged",
                             [](const PyTrajectory& t) { return t.trajectory->converged(); })
      .def_property_readonly("newton", [](const PyTrajectory& t) {
        py::list out;
        for (const NewtonReport& r : t.trajectory->reports()) out.append(report_dict(r));
        return out;
      });

  py::class_<PyRun>(m, "Run", "A rollout taken step by step.")
      .def(
          "step", [](PyRun& r) { return report_dict(r.run->step()); },
          "Takes the next step; returns its Newton report. Raises ConvergenceError on failure.")
      .def_property_readonly("done", [](const PyRun& r) { return r.run->done(); })
      .def_property_readonly("t", [](const PyRun& r) { return r.run->state().t; })
      .def_property_readonly("x",
                             [](const PyRun& r) {
                               return to_array(r.run->state().x, {r.owner->n(), r.owner->dim()});
                             })
      .def_property_readonly("v",
                             [](const PyRun& r) {
                               return to_array(r.run->state().v, {r.owner->n(), r.owner->dim()});
                             })
      .def(
          "trajectory",
          [](PyRun& r) {
            if (!r.run->done())
              throw InputError("run: the trajectory is there once every step is taken");
            return PyTrajectory{r.owner,
                                std::make_shared<const Trajectory>(std::move(*r.run).take())};
          },
          "The finished trajectory (once done).");
}

}  // namespace softgrad::python
