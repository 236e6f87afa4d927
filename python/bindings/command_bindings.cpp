// train, compare and sysid for Python: the functions the command line's subcommands run
// (src/app/scene_commands.hpp), so Python gets the same files and the same summaries. Their
// report and progress go to Python's sys.stdout and sys.stderr.
#include <pybind11/iostream.h>
#include <pybind11/stl.h>

#include <atomic>
#include <functional>
#include <iostream>
#include <optional>
#include <thread>

#include "app/scene_commands.hpp"
#include "bindings.hpp"
#include "handles.hpp"
#include "softgrad/errors.hpp"

namespace py = pybind11;

namespace softgrad::python {
namespace {

app::Verbosity verbosity(bool quiet, bool verbose) {
  if (quiet && verbose) throw InputError("quiet and verbose exclude each other");
  return quiet ? app::Verbosity::Quiet : verbose ? app::Verbosity::Verbose : app::Verbosity::Normal;
}

app::SceneOverrides overrides(const std::optional<std::string>& out,
                              const std::optional<std::string>& solver, int threads, bool quiet,
                              bool verbose) {
  if (threads < 0) throw InputError("threads must be >= 0 (0: OpenMP's default)");
  app::SceneOverrides o;
  o.out = out.value_or("");
  o.solver = solver.value_or("");
  o.threads = threads;
  o.quiet = quiet;
  o.verbose = verbose;
  verbosity(quiet, verbose);
  return o;
}

/// Ctrl-C for a long command: function() is true once Python has a pending signal exception
/// (KeyboardInterrupt), which it takes so that the command can still write its files;
/// raise_if_stopped() raises it afterwards. Only the calling thread, which holds the GIL, asks
/// Python; the command's worker threads see the flag.
class KeyboardStop {
 public:
  std::function<bool()> function() {
    return [this] {
      if (stopped_) return true;
      if (std::this_thread::get_id() != owner_ || PyErr_CheckSignals() == 0) return false;
      error_.emplace();
      stopped_ = true;
      return true;
    };
  }
  void raise_if_stopped() {
    if (error_) throw *error_;
  }

 private:
  std::thread::id owner_ = std::this_thread::get_id();
  std::atomic<bool> stopped_{false};
  std::optional<py::error_already_set> error_;
};

/// Runs `command` with std::cout and std::cerr sent to Python's streams; its JSON as a dict.
template <class Command>
py::object run_command(Command command) {
  nlohmann::ordered_json result;
  {
    py::scoped_ostream_redirect out(std::cout, py::module_::import("sys").attr("stdout"));
    py::scoped_estream_redirect err(std::cerr, py::module_::import("sys").attr("stderr"));
    const app::Console console{std::cout, std::cerr, false};
    result = command(console);
  }
  return py::module_::import("json").attr("loads")(result.dump());
}

}  // namespace

void bind_commands(py::module_& m) {
  m.def(
      "_train",
      [](const PyScene& s, std::optional<std::string> out, std::optional<int> iterations,
         bool resume, std::optional<std::string> solver, int threads, bool quiet, bool verbose) {
        app::TrainSettings settings;
        settings.overrides = overrides(out, solver, threads, quiet, verbose);
        if (iterations && *iterations < 0) throw InputError("iterations must be >= 0");
        settings.iterations = iterations.value_or(-1);
        settings.resume = resume;
        // Ctrl-C (KeyboardInterrupt) stops after the current iteration; the files are written,
        // then the exception is raised.
        KeyboardStop stop;
        settings.stop = stop.function();
        py::object summary = run_command(
            [&](const app::Console& c) { return app::train_scene(*s.scene, settings, c); });
        stop.raise_if_stopped();
        return summary;
      },
      py::arg("scene"), py::arg("out") = py::none(), py::arg("iterations") = py::none(),
      py::arg("resume") = false, py::arg("solver") = py::none(), py::arg("threads") = 0,
      py::arg("quiet") = false, py::arg("verbose") = false);
  m.def(
      "_compare",
      [](const PyScene& s, std::optional<long> budget, std::optional<std::string> out,
         std::optional<std::string> solver, int threads, bool quiet, bool verbose) {
        app::CompareSettings settings;
        settings.overrides = overrides(out, solver, threads, quiet, verbose);
        if (budget && *budget <= 0) throw InputError("budget must be > 0 simulated steps");
        settings.budget = budget.value_or(0);
        KeyboardStop stop;  // as in train: the curves so far are written, then it is raised
        settings.stop = stop.function();
        py::object summary = run_command(
            [&](const app::Console& c) { return app::compare_scene(*s.scene, settings, c); });
        stop.raise_if_stopped();
        return summary;
      },
      py::arg("scene"), py::arg("budget") = py::none(), py::arg("out") = py::none(),
      py::arg("solver") = py::none(), py::arg("threads") = 0, py::arg("quiet") = false,
      py::arg("verbose") = false);
  m.def(
      "_sysid",
      [](const PyScene& s, std::vector<std::string> data, std::string out,
         std::vector<std::string> params, std::optional<std::string> method, int max_iterations,
         int starts, int threads, bool quiet, bool verbose) {
        if (max_iterations < 0 || starts < 0 || threads < 0)
          throw InputError("max_iterations, starts and threads must be >= 0 (0: the scene's)");
        app::SysIdSettings settings;
        settings.data = std::move(data);
        settings.out = std::move(out);
        settings.params = std::move(params);
        settings.method = method.value_or("");
        settings.max_iterations = max_iterations;
        settings.starts = starts;
        settings.threads = threads;
        settings.verbosity = verbosity(quiet, verbose);
        KeyboardStop stop;  // as in train: the estimate so far is reported, then it is raised
        settings.stop = stop.function();
        py::object report = run_command(
            [&](const app::Console& c) { return app::sysid_scene(*s.scene, settings, c); });
        stop.raise_if_stopped();
        return report;
      },
      py::arg("scene"), py::arg("data") = std::vector<std::string>{}, py::arg("out") = "out/sysid",
      py::arg("params") = std::vector<std::string>{}, py::arg("method") = py::none(),
      py::arg("max_iterations") = 0, py::arg("starts") = 0, py::arg("threads") = 0,
      py::arg("quiet") = false, py::arg("verbose") = false);
}

}  // namespace softgrad::python
