// softgrad.Scene: loading, parameters by name, rollouts, single steps, and gradients by the
// adjoint (gradient) or forward sensitivities (tangent), marker residuals for sysid.
#include <pybind11/stl.h>

#include <chrono>
#include <cmath>
#include <memory>

#include "arrays.hpp"
#include "bindings.hpp"
#include "handles.hpp"
#include "softgrad/adjoint.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/locomotion.hpp"
#include "softgrad/loss.hpp"
#include "softgrad/parameters.hpp"
#include "softgrad/recording.hpp"
#include "softgrad/scene.hpp"
#include "softgrad/sysid.hpp"
#include "softgrad/trajectory.hpp"

namespace softgrad::python {
namespace {

ScenePlugins scene_plugins(bool allow) {
  return allow ? ScenePlugins::Load : ScenePlugins::MustBeLoaded;
}

SceneRef make_scene(Scene scene) {
  // Ctrl-C stops a step of this scene within a Newton iteration (CtrlC, ctrl_c.cpp).
  scene.options.newton.interrupt = interrupt_flag();
  auto p = std::make_shared<PyScene>();
  p->scene = std::make_shared<const Scene>(std::move(scene));
  p->sim = std::make_shared<Simulator>(p->scene->model, p->scene->options);
  return p;
}

/// Reports steps done to what `progress` is: None, a function of (done, total), or a tqdm bar
/// (anything with update() and total: its total is set if unset, then update(1) per step).
class Progress {
 public:
  Progress(const py::object& progress, int total) : progress_(progress), total_(total) {
    if (progress_.is_none()) return;
    bar_ = py::hasattr(progress_, "update") && py::hasattr(progress_, "total");
    if (!bar_ && !PyCallable_Check(progress_.ptr()))
      throw InputError("progress must be None, a function of (done, total) or a tqdm bar, not " +
                       std::string(py::str(py::type::of(progress_).attr("__name__"))));
    if (bar_ && progress_.attr("total").is_none()) progress_.attr("total") = total_;
  }
  /// One more step done; a Python error raised by the callback propagates.
  void step() {
    ++done_;
    if (progress_.is_none()) return;
    if (bar_) {
      progress_.attr("update")(1);
    } else {
      progress_(done_, total_);
    }
  }

 private:
  py::object progress_;
  int total_ = 0, done_ = 0;
  bool bar_ = false;
};

py::tuple gradient_of(const PyTrajectory& t, const std::vector<std::string>& params,
                      const py::object& loss, bool with_report, const py::object& progress) {
  double value = NAN;
  const std::shared_ptr<const Loss> l = resolve_loss(t, loss, &value);
  const ParameterSet ps = parameter_set(*t.owner, t.trajectory->rollout(), params);
  const CtrlC ctrl_c;  // Ctrl-C ends the sweep (or a recomputed step) and raises
  AdjointOptions options;
  Progress steps(progress, t.trajectory->steps());
  bool first = true;
  options.stop = [&] {  // called before each step of the backward sweep
    if (!first) steps.step();
    first = false;
    return ctrl_c.raised();
  };
  const GradientResult r = ctrl_c.call(
      [&] { return softgrad::gradient(*t.owner->sim, *t.trajectory, *l, ps, options); });
  if (!first) steps.step();  // the last step of the sweep
  warn_if_untrustworthy(r.report);
  py::array_t<double> g = to_array(r.gradient, {static_cast<py::ssize_t>(r.gradient.size())});
  const double v = std::isnan(value) ? r.loss : value;
  if (with_report) return py::make_tuple(v, g, report_dict(r.report));
  return py::make_tuple(v, g);
}

}  // namespace

void bind_scene(py::module_& m) {
  // A new reference kept for the module's lifetime.
  gradient_warning() = PyErr_NewExceptionWithDoc(
      "softgrad.GradientWarning",
      "A gradient that is not exact: forward steps that did not converge, adjoint linear solves "
      "short of their tolerance, or steps ending where the exact Hessian is indefinite.",
      PyExc_RuntimeWarning, nullptr);
  if (!gradient_warning()) throw py::error_already_set();
  m.attr("GradientWarning") = gradient_warning();
  declared_class<PyScene, SceneRef>(m, "Scene")
      .def(py::init([](const std::string& path, bool allow_plugins) {
             return make_scene(load_scene(path, scene_plugins(allow_plugins)));
           }),
           py::arg("path"), py::arg("allow_plugins") = false,
           "A scene from its file. Its \"plugins\" must be loaded already "
           "(softgrad.load_plugin) unless allow_plugins lets the scene load them (code: only "
           "for scenes you trust).")
      .def_static(
          "from_json",
          [](const std::string& text, const std::string& origin, bool allow_plugins) {
            return make_scene(parse_scene(text, origin, scene_plugins(allow_plugins)));
          },
          py::arg("text"), py::arg("origin") = "<json>", py::arg("allow_plugins") = false,
          "A scene from JSON text; relative mesh paths resolve against origin's folder. "
          "allow_plugins as for Scene(path).")
      .def_property_readonly(
          "name", [](const PyScene& s) { return s.scene->name; },
          "The scene's name (its file's stem, or the \"name\" key).")
      .def_property_readonly("dim", &PyScene::dim, "2 or 3: the space the scene lives in.")
      .def_property_readonly("n_vertices", &PyScene::n,
                             "Vertices of every body (a rigid body adds its four affine nodes).")
      .def_property_readonly(
          "n_elements",
          [](const PyScene& s) {
            size_t n = 0;
            for (const Body& b : s.model().bodies) n += b.elems.size() / (s.dim() + 1);
            return n;
          },
          "Elements (triangles in 2D, tetrahedra in 3D) of every soft body.")
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
      .def_property_readonly(
          "steps", [](const PyScene& s) { return s.scene->steps; },
          "The scene's number of steps (its rollouts' default).")
      .def_property_readonly(
          "dt", [](const PyScene& s) { return s.scene->options.dt; }, "The time step [s].")
      .def_property_readonly(
          "n_muscles",
          [](const PyScene& s) {
            return s.scene->locomotion ? s.scene->locomotion->creature.n_muscles : 0;
          },
          "Muscles of a locomotion scene's creature (0 for other scenes).")
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
      .def_property_readonly(
          "has_loss", [](const PyScene& s) { return bool(s.scene->loss); },
          "Whether the scene declares a \"loss\" (gradient() without loss= uses it).")
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
          [](const SceneRef& s, const PyRollout& r, const py::object& progress) {
            const CtrlC ctrl_c;  // Ctrl-C stops the step under way within a Newton iteration
            RolloutRun run(*s->sim, own_rollout(s, r));
            Progress steps(progress, r.rollout.static_solve ? 1 : r.rollout.steps);
            while (!run.done()) {
              ctrl_c.call([&] { return run.step(); });
              if (PyErr_CheckSignals() != 0) throw py::error_already_set();
              steps.step();
            }
            return PyTrajectory{s, std::make_shared<const Trajectory>(std::move(run).take())};
          },
          py::arg("rollout"), py::arg("progress") = py::none(),
          "Runs the rollout; raises ConvergenceError if a step fails, KeyboardInterrupt on "
          "Ctrl-C (within the step under way: a Newton iteration). `progress`: a function "
          "called with (steps done, steps) after each step, or a tqdm bar (update(1) per "
          "step).")
      .def(
          "start",
          [](const SceneRef& s, const PyRollout& r) {
            return PyRun{s, std::make_shared<RolloutRun>(*s->sim, own_rollout(s, r)), nullptr};
          },
          py::arg("rollout"), "The rollout taken step by step (Run.step()).")
      .def(
          "gradient",
          [](const SceneRef& s, const PyTrajectory& t, const std::vector<std::string>& params,
             const py::object& loss, bool report, const py::object& progress) {
            if (t.owner != s)
              throw InputError("gradient: this trajectory was simulated by another Scene ('" +
                               t.owner->scene->name + "'), not by this one ('" + s->scene->name +
                               "')");
            return gradient_of(t, params, loss, report, progress);
          },
          py::arg("trajectory"), py::arg("params"), py::arg("loss") = py::none(),
          py::arg("report") = false, py::arg("progress") = py::none(),
          "(loss value, dL/dtheta) by the adjoint, theta the named parameters in order; with "
          "report=True also the adjoint's report (a dict: linear_iterations, "
          "worst_relative_residual, unsolved_steps, trustworthy, ...). A gradient that is not "
          "exact (unconverged forward steps, adjoint solves short of their tolerance, "
          "indefinite Hessians) warns with softgrad.GradientWarning. `progress` as for "
          "simulate(), per step of the backward sweep.")
      .def(
          "marker_residuals",
          [](const SceneRef& s, const PyRollout& r, const std::string& recording,
             const std::vector<std::string>& params, bool jacobian) {
            own_rollout(s, r);  // refuses another scene's rollout
            // The scene's markers against a recording (CSV of time,marker,x,y(,z)): what
            // softgrad sysid fits, for other least-squares solvers.
            std::vector<std::pair<std::string, Eigen::VectorXd>> points;
            for (const SceneMarker& mk : s->scene->markers)
              points.emplace_back(mk.name, mk.position);
            if (points.empty())
              throw InputError(s->scene->name + ": the scene declares no \"markers\"");
            const MarkerSet markers(s->model(), points);
            const Recording rec = read_recording(recording, markers);
            const ParameterSet ps = parameter_set(*s, r.rollout, params);
            Eigen::MatrixXd J;
            const Eigen::VectorXd res =
                marker_residuals(*s->sim, r.rollout, markers, rec, ps, jacobian ? &J : nullptr);
            py::array_t<double> residuals = to_array(res, {static_cast<py::ssize_t>(res.size())});
            if (!jacobian) return py::make_tuple(residuals, py::none());
            py::array_t<double> Jout(
                {static_cast<py::ssize_t>(J.rows()), static_cast<py::ssize_t>(J.cols())});
            Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
                Jout.mutable_data(), J.rows(), J.cols()) = J;
            return py::make_tuple(residuals, Jout);
          },
          py::arg("rollout"), py::arg("recording"), py::arg("params"), py::arg("jacobian") = true,
          "(residuals, Jacobian): simulated minus recorded marker positions at the recording's "
          "times (observations x dim) and their derivatives in the named parameters by forward "
          "sensitivities (None with jacobian=False).")
      .def(
          "_time_simulate_and_gradient",
          [](const SceneRef& s, const PyRollout& r, const std::vector<std::string>& params,
             int repeats) {
            own_rollout(s, r);  // refuses another scene's rollout
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
            own_rollout(s, r);  // refuses another scene's rollout
            const ParameterSet ps = parameter_set(*s, r.rollout, params);
            double value = NAN;
            std::shared_ptr<const Loss> l;
            if (loss.is_none()) {
              l = scene_loss(*s);
            } else if (PyCallable_Check(loss.ptr())) {
              // A loss function is evaluated on the trajectory, for its value and cotangents.
              const PyTrajectory t{
                  s, std::make_shared<const Trajectory>(simulate(*s->sim, r.rollout))};
              l = resolve_loss(t, loss, &value);
            } else {
              // Given cotangents need only the number of states.
              const PyTrajectory none{s, nullptr};
              l = resolve_loss(none, loss, &value,
                               r.rollout.static_solve ? 2 : r.rollout.steps + 1);
            }
            const CtrlC ctrl_c;
            const GradientResult g =
                ctrl_c.call([&] { return tangent_gradient(*s->sim, r.rollout, *l, ps); });
            return py::make_tuple(
                std::isnan(value) ? g.loss : value,
                to_array(g.gradient, {static_cast<py::ssize_t>(g.gradient.size())}));
          },
          py::arg("rollout"), py::arg("params"), py::arg("loss") = py::none(),
          "(loss value, dL/dtheta) by forward sensitivities: gradient()'s number by the other "
          "route, for few parameters.");
}

}  // namespace softgrad::python
