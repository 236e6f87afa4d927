// Scene.simulate_batch and Scene.gradient_batch: many rollouts of one scene side by side on the
// scene's RolloutBatch (one workspace per thread), the results equal to one-by-one calls bit for
// bit. softgrad.torch runs its batched layers on them.
#include <pybind11/stl.h>

#include <cmath>

#include "arrays.hpp"
#include "bindings.hpp"
#include "handles.hpp"
#include "softgrad/errors.hpp"

namespace softgrad::python {
namespace {

/// The scene's batch runner on `threads` threads (0: one per hardware thread), made again only
/// when the number changes. The caller holds s.batch_mutex.
RolloutBatch& batch_runner(PyScene& s, int threads) {
  if (threads < 0) throw InputError("threads must be >= 0 (0: one per hardware thread)");
  const int wanted = threads > 0 ? threads : TaskPool(0, false).workers();
  if (!s.batch || s.batch->threads() != wanted)
    s.batch = std::make_shared<RolloutBatch>(s.scene->model, s.scene->options, wanted);
  return *s.batch;
}

std::vector<PyTrajectory> simulate_batch(const SceneRef& s, const std::vector<PyRollout>& rollouts,
                                         int threads) {
  std::vector<Rollout> runs;
  runs.reserve(rollouts.size());
  for (size_t k = 0; k < rollouts.size(); ++k) {
    try {
      runs.push_back(own_rollout(s, rollouts[k]));
    } catch (const InputError& e) {
      throw InputError("rollout " + std::to_string(k) + ": " + e.what());
    }
  }
  const CtrlC ctrl_c;  // Ctrl-C stops every rollout's step under way
  std::vector<Trajectory> done = ctrl_c.call([&] {
    // One rollout runs as simulate() does, on the scene's simulator with the GIL held and
    // OpenMP's threads: a batch of one is never slower than a call.
    if (runs.size() == 1) return std::vector<Trajectory>{softgrad::simulate(*s->sim, runs[0])};
    py::gil_scoped_release free;
    const std::lock_guard<std::mutex> lock(s->batch_mutex);
    return batch_runner(*s, threads).simulate(runs);
  });
  std::vector<PyTrajectory> out;
  out.reserve(done.size());
  for (Trajectory& t : done) out.push_back({s, std::make_shared<const Trajectory>(std::move(t))});
  return out;
}

py::list gradient_batch(const SceneRef& s, const std::vector<PyTrajectory>& trajectories,
                        const std::vector<std::string>& params, const py::list& losses,
                        bool with_report, int threads) {
  const size_t n = trajectories.size();
  if (losses.size() != n && losses.size() != 0)
    throw InputError("gradient_batch: " + std::to_string(n) + " trajectories need " +
                     std::to_string(n) + " losses (or none: the scene's), got " +
                     std::to_string(losses.size()));
  // Losses and parameter sets are resolved here, with the GIL (a loss may be a Python function).
  std::vector<std::shared_ptr<const Loss>> loss_of(n);
  std::vector<double> values(n, NAN);
  std::vector<ParameterSet> sets;
  sets.reserve(n);
  for (size_t k = 0; k < n; ++k) {
    const PyTrajectory& t = trajectories[k];
    try {
      if (t.owner != s)
        throw InputError("this trajectory was simulated by another Scene ('" +
                         t.owner->scene->name + "'), not by this one ('" + s->scene->name + "')");
      loss_of[k] = resolve_loss(t, losses.empty() ? py::none() : py::object(losses[k]), &values[k]);
      sets.push_back(parameter_set(*s, t.trajectory->rollout(), params));
    } catch (const InputError& e) {
      throw InputError("gradient_batch: rollout " + std::to_string(k) + ": " + e.what());
    }
  }
  std::vector<const Trajectory*> traj(n);
  std::vector<const Loss*> loss(n);
  std::vector<const ParameterSet*> set(n);
  for (size_t k = 0; k < n; ++k) {
    traj[k] = trajectories[k].trajectory.get();
    loss[k] = loss_of[k].get();
    set[k] = &sets[k];
  }
  const CtrlC ctrl_c;
  AdjointOptions options;
  options.stop = [&ctrl_c] { return ctrl_c.raised(); };
  const std::vector<GradientResult> results = ctrl_c.call([&] {
    if (n == 1)  // as gradient() does it (see simulate_batch)
      return std::vector<GradientResult>{
          softgrad::gradient(*s->sim, *traj[0], *loss[0], *set[0], options)};
    py::gil_scoped_release free;
    const std::lock_guard<std::mutex> lock(s->batch_mutex);
    return batch_runner(*s, threads).gradient(traj, loss, set, options);
  });
  py::list out;
  for (size_t k = 0; k < n; ++k) {
    const GradientResult& r = results[k];
    warn_if_untrustworthy(r.report);
    py::array_t<double> g = to_array(r.gradient, {static_cast<py::ssize_t>(r.gradient.size())});
    const double v = std::isnan(values[k]) ? r.loss : values[k];
    out.append(with_report ? py::make_tuple(v, g, report_dict(r.report)) : py::make_tuple(v, g));
  }
  return out;
}

}  // namespace

void bind_batch(py::module_& m) {
  declared_class<PyScene, SceneRef>(m, "Scene")
      .def("simulate_batch", &simulate_batch, py::arg("rollouts"), py::arg("threads") = 0,
           "The trajectories of many rollouts of this scene, run side by side on `threads` "
           "threads (0: one per hardware thread), each rollout's element loops on one thread. "
           "They equal simulate() called on each, bit for bit (a batch of one runs as simulate() "
           "does). Raises the lowest-numbered "
           "failing rollout's error, its message starting 'rollout <k>: '.")
      .def("gradient_batch", &gradient_batch, py::arg("trajectories"), py::arg("params"),
           py::arg("losses") = py::list(), py::arg("report") = false, py::arg("threads") = 0,
           "gradient() of each trajectory, the adjoints run side by side: a list of (loss "
           "value, dL/dtheta) (with report=True also the adjoint's report). `losses` gives each "
           "trajectory its loss as gradient()'s `loss` does (empty: the scene's loss for all). "
           "Each result equals gradient() called on its own, bit for bit.");
}

}  // namespace softgrad::python
