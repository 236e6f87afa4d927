// The _softgrad extension module: softgrad's C++ objects for Python (the package `softgrad`
// re-exports them). Errors: InputError -> ValueError, ConvergenceError ->
// softgrad.ConvergenceError (a RuntimeError with .step and .residual).
#include <omp.h>
#include <pybind11/stl.h>

#include <Eigen/Core>
#include <string>

#include "bindings.hpp"
#include "handles.hpp"
#include "softgrad/config.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/material_model.hpp"
#include "softgrad/plugin.hpp"
#include "softgrad/scene.hpp"

namespace py = pybind11;

namespace {
#ifdef NDEBUG
constexpr bool kOptimised = true;
#else
constexpr bool kOptimised = false;
#endif
}  // namespace

PYBIND11_MODULE(_softgrad, m) {
  using namespace softgrad;
  m.doc() = "softgrad: a differentiable implicit soft-body simulator (C++ core)";
  m.attr("__version__") = SOFTGRAD_VERSION;

  static py::handle convergence_error =
      py::exception<ConvergenceError>(m, "ConvergenceError", PyExc_RuntimeError).release();
  m.attr("ConvergenceError").attr("__doc__") =
      "A Newton step that did not converge (a RuntimeError): .step is the step's index, "
      ".residual the last gradient norm.";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const ConvergenceError& e) {
      py::object error = py::reinterpret_borrow<py::object>(convergence_error)(e.what());
      error.attr("step") = e.step;
      error.attr("residual") = e.residual;
      PyErr_SetObject(convergence_error.ptr(), error.ptr());
    }
  });

  // Every class first, then the functions: a signature names the Python types it takes and
  // returns only when they are registered before it.
  py::class_<python::PyScene, python::SceneRef>(
      m, "Scene", "A scene loaded from a file, a dict or JSON text: its model is fixed.");
  py::class_<python::PyRollout>(
      m, "Rollout", "A rollout's data: initial state, steps, parameter values, controller.");
  py::class_<python::PyTrajectory>(m, "Trajectory", "A finished rollout: its states and inputs.");
  py::class_<python::PyRun>(m, "Run", "A rollout taken step by step.");
  py::class_<python::PyRigidBody>(
      m, "RigidBody",
      "A rigid body of a scene. It is an affine body: its centre of mass p and the columns a1, "
      "a2, a3 of a matrix A (kept a rotation by a stiff energy) are four vertices of the scene, "
      "after every mesh vertex (`vertices`; their 'masses' are m, S1, S2, S3), and a body point "
      "X is at p + A X. X is in the body frame: the principal axes of inertia about the centre "
      "of mass. A point of the shape as the scene gives it is X = principal_axes^T (X_shape - "
      "center_of_mass), so the shape's rotation in the world is A principal_axes^T (softgrad's "
      "Trajectory.rigid_body gives it, with the velocities).");
  python::bind_log(m);
  python::init_ctrl_c();
  python::bind_scene(m);
  python::bind_rollout(m);
  python::bind_batch(m);
  python::bind_rigid(m);
  python::bind_material(m);
  python::bind_env(m);
  python::bind_commands(m);

  m.def(
      "materials",
      [] {
        py::list out;
        for (const auto& model : all_materials()) {
          py::list params;
          for (const ParamInfo& p : model->params())
            params.append(py::dict(py::arg("key") = p.key, py::arg("unit") = p.unit,
                                   py::arg("min") = p.min, py::arg("max") = p.max,
                                   py::arg("default") = p.default_value,
                                   py::arg("description") = p.description));
          out.append(py::dict(py::arg("name") = model->name(), py::arg("params") = params));
        }
        return out;
      },
      "The material models with their parameters (what `softgrad materials` prints).");
  m.def(
      "load_plugin",
      [](const std::string& path) {
        py::gil_scoped_release unlocked;  // its constructors and registration may take time
        return load_plugin(path);
      },
      py::arg("path"),
      "Loads a material plugin (a shared library built with softgrad_add_plugin, see "
      "examples/plugin) and returns the names of the materials it registered; a second call "
      "with the same file does nothing. Refused, before any of its code runs, when the file is "
      "writable by other users or another user's, or is not a softgrad plugin.");
  m.def(
      "build_info",
      [] {
#if defined(__clang__)
        const std::string compiler = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
        const std::string compiler = std::string("gcc ") + __VERSION__;
#else
        const std::string compiler = "unknown";
#endif
        return py::dict(py::arg("version") = SOFTGRAD_VERSION, py::arg("compiler") = compiler,
                        py::arg("eigen") = std::to_string(EIGEN_WORLD_VERSION) + "." +
                                           std::to_string(EIGEN_MAJOR_VERSION) + "." +
                                           std::to_string(EIGEN_MINOR_VERSION),
                        py::arg("openmp") = _OPENMP, py::arg("optimised") = kOptimised);
      },
      "How this softgrad was built: version, compiler, Eigen, OpenMP (its date) and whether "
      "assertions are compiled out (optimised). Benchmarks record it with the CPU and the BLAS.");
  m.def("scene_reference", &scene_reference,
        "Every scene key with its type, unit, range, default and meaning (`softgrad scene-help`).");
}
