// softgrad._EnvBatch: N LocomotionEnv episodes of one locomotion scene stepped together, on
// worker threads (one simulator per environment), for the Gymnasium-style classes of
// softgrad/gym.py. Each environment's episodes depend only on its own actions, so a batch
// gives the same results as stepping the environments one by one. A batch is used by one
// thread at a time: every method runs the C++ side without the GIL under the batch's mutex,
// so Python threads that share one environment take turns instead of racing in its state.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "handles.hpp"
#include "softgrad/detail/task_pool.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/locomotion.hpp"
#include "softgrad/rl/locomotion_env.hpp"

namespace softgrad::python {
namespace {

class EnvBatch {
 public:
  EnvBatch(const SceneRef& scene, int n, int episode_steps, int threads)
      : scene_(scene), pool_(threads, false) {
    const Scene& s = *scene->scene;
    if (!s.locomotion)
      throw InputError(s.name + ": not a locomotion scene (it has no \"creature\")");
    if (n < 1) throw InputError("environments: num_envs must be >= 1");
    Rollout episode = s.rollout(*scene->sim);
    episode.controller.reset();
    episode.controlled_term.clear();
    episode.steps = episode_steps > 0 ? episode_steps : s.locomotion->train.episode_steps;
    const rl::LocomotionOptions options = rl::locomotion_options(*s.locomotion);
    for (int i = 0; i < n; ++i)
      envs_.push_back(std::make_unique<rl::LocomotionEnv>(
          std::make_unique<Simulator>(s.model, s.options), episode, options));
  }

  int size() const { return static_cast<int>(envs_.size()); }
  int observation_size() const { return envs_.front()->observation_size(); }
  int action_size() const { return envs_.front()->action_size(); }
  int episode_steps() const { return envs_.front()->episode_length(); }

  py::array_t<double> reset(int i) {
    const Eigen::VectorXd o = exclusive([&] { return env(i).reset(); });
    return to_array(o, {static_cast<py::ssize_t>(o.size())});
  }

  /// actions (N, m) -> (observations (N, o), rewards (N), done (N), terminal (N)); the
  /// environments where `active` (N) is false are not stepped (their rows are zero).
  py::tuple step(const py::object& actions, const std::vector<bool>& active) {
    const int n = size(), m = action_size();
    const Eigen::VectorXd a = to_vector(actions, static_cast<Eigen::Index>(n) * m, "actions",
                                        "(" + std::to_string(n) + ", " + std::to_string(m) + ")");
    if (static_cast<int>(active.size()) != n)
      throw InputError("step: expected " + std::to_string(n) + " active flags");
    std::vector<rl::StepResult> results(n);
    for (rl::StepResult& r : results) r.observation.setZero(observation_size());
    exclusive([&] {
      pool_.run_local(n, [&](int, int i) {
        if (active[i]) results[i] = envs_[i]->step(a.segment(i * m, m));
      });
    });
    const int o = observation_size();
    py::array_t<double> obs({n, o}), rewards(n);
    py::array_t<bool> done(n), terminal(n);
    for (int i = 0; i < n; ++i) {
      std::copy(results[i].observation.data(), results[i].observation.data() + o,
                obs.mutable_data() + static_cast<size_t>(i) * o);
      rewards.mutable_data()[i] = results[i].reward;
      done.mutable_data()[i] = results[i].done;
      terminal.mutable_data()[i] = results[i].terminal;
    }
    return py::make_tuple(obs, rewards, done, terminal);
  }

  /// One environment's step: (observation, reward, done, terminal), no batch arrays.
  py::tuple step_one(int i, const py::object& action) {
    const Eigen::VectorXd a =
        to_vector(action, action_size(), "action", "(" + std::to_string(action_size()) + ",)");
    const rl::StepResult r = exclusive([&] { return env(i).step(a); });
    return py::make_tuple(to_array(r.observation, {static_cast<py::ssize_t>(r.observation.size())}),
                          r.reward, r.done, r.terminal);
  }

  /// Runs environment i's episode with the actions (T, m) from reset, in C++ (no Python
  /// between the steps): the rewards (the baseline of the Python-driven loop's overhead).
  py::array_t<double> run_actions(int i, const py::object& actions) {
    const int m = action_size(), T = episode_steps();
    const Eigen::VectorXd a = to_vector(actions, static_cast<Eigen::Index>(T) * m, "actions",
                                        "(" + std::to_string(T) + ", " + std::to_string(m) + ")");
    Eigen::VectorXd rewards(T);
    exclusive([&] {
      rl::LocomotionEnv& e = env(i);
      e.reset();
      for (int n = 0; n < T; ++n) rewards[n] = e.step(a.segment(n * m, m)).reward;
    });
    return to_array(rewards, {T});
  }

  py::array_t<double> positions(int i) {
    const Eigen::VectorXd x = exclusive([&] { return env(i).state().x; });
    return to_array(x, {scene_->n(), scene_->dim()});
  }
  double time(int i) {
    return exclusive([&] { return env(i).state().t; });
  }
  long simulated_steps() {
    return exclusive([&] {
      long total = 0;
      for (const auto& e : envs_) total += e->simulated_steps();
      return total;
    });
  }

 private:
  /// f() (which touches no Python object) without the GIL, under the batch's mutex. The GIL is
  /// released first: a thread that waited for the mutex holding it would stop every other
  /// Python thread, the one stepping included once it needs the GIL back.
  template <class F>
  auto exclusive(F&& f) -> std::invoke_result_t<F&> {
    py::gil_scoped_release free;
    std::lock_guard<std::mutex> lock(busy_);
    return f();
  }

  rl::LocomotionEnv& env(int i) {
    if (i < 0 || i >= size())
      throw InputError("environments: no environment " + std::to_string(i) + " of " +
                       std::to_string(size()));
    return *envs_[i];
  }

  SceneRef scene_;
  TaskPool pool_;
  std::mutex busy_;
  std::vector<std::unique_ptr<rl::LocomotionEnv>> envs_;
};

}  // namespace

void bind_env(py::module_& m) {
  py::class_<EnvBatch>(m, "_EnvBatch")
      .def(py::init<const SceneRef&, int, int, int>(), py::arg("scene"), py::arg("num_envs"),
           py::arg("episode_steps") = 0, py::arg("threads") = 0)
      .def_property_readonly("size", &EnvBatch::size)
      .def_property_readonly("observation_size", &EnvBatch::observation_size)
      .def_property_readonly("action_size", &EnvBatch::action_size)
      .def_property_readonly("episode_steps", &EnvBatch::episode_steps)
      .def_property_readonly("simulated_steps", &EnvBatch::simulated_steps)
      .def("reset", &EnvBatch::reset, py::arg("index"))
      .def("step", &EnvBatch::step, py::arg("actions"), py::arg("active"))
      .def("step_one", &EnvBatch::step_one, py::arg("index"), py::arg("action"))
      .def("run_actions", &EnvBatch::run_actions, py::arg("index"), py::arg("actions"))
      .def("positions", &EnvBatch::positions, py::arg("index"))
      .def("time", &EnvBatch::time, py::arg("index"));
}

}  // namespace softgrad::python
