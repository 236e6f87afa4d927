// Rigid bodies, joints and sensors for Python: Scene.rigid_bodies (softgrad.RigidBody),
// Scene.joints, and the C++ sensors read on every state of a trajectory (Trajectory.sensor) or
// on a run's current state (Run.sensor). softgrad/rigid.py turns them into poses.
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "handles.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/sensors.hpp"

namespace softgrad::python {
namespace {

const char* const kSensorKinds[] = {"joint_position", "joint_velocity", "body_position",
                                    "body_velocity",  "body_axes",      "body_angular_velocity",
                                    "body_point"};

/// The rigid body or joint called `name` (or given by its index) for a sensor of `kind`.
Sensor make_sensor(const PyScene& s, const std::string& kind, const py::object& target,
                   const std::optional<std::vector<double>>& point) {
  int k = 0;
  while (k < 7 && kind != kSensorKinds[k]) ++k;
  if (k == 7) {
    std::string known;
    for (const char* name : kSensorKinds) known += std::string(known.empty() ? "" : ", ") + name;
    throw InputError("sensor: unknown kind '" + kind + "'; one of " + known);
  }
  const bool joint = k < 2;
  const Model& m = s.model();
  const int count =
      joint ? static_cast<int>(m.joints.size()) : static_cast<int>(m.rigid_bodies.size());
  const std::string what = joint ? "joint" : "rigid body";
  if (count == 0) throw InputError("sensor: the scene has no " + what + " ('" + kind + "')");
  int index = -1;
  if (py::isinstance<py::bool_>(target)) {
    throw InputError("sensor: a " + what + " is named by its name or index, not by a bool");
  } else if (py::hasattr(target, "__index__")) {  // int, numpy integers
    PyObject* number = PyNumber_Index(target.ptr());
    if (number == nullptr) throw py::error_already_set();
    const long long i = py::reinterpret_steal<py::object>(number).cast<long long>();
    if (i < 0 || i >= count)
      throw InputError("sensor: " + what + " index " + std::to_string(i) + " is not in 0.." +
                       std::to_string(count - 1));
    index = static_cast<int>(i);
  } else {
    const std::string name = py::str(target);
    std::string names;
    for (int i = 0; i < count; ++i) {
      const std::string& n = joint ? m.joints[i].name : m.rigid_bodies[i].name;
      if (n == name) index = i;
      names += (names.empty() ? "'" : ", '") + n + "'";
    }
    if (index < 0)
      throw InputError("sensor: the scene has no " + what + " '" + name + "'; it has " + names);
  }
  Sensor sensor{static_cast<Sensor::Kind>(k), index};
  if ((sensor.kind == Sensor::Kind::BodyPoint) != point.has_value())
    throw InputError(
        "sensor: a body_point sensor takes point=[x, y, z] (a world point at "
        "rest), the other kinds none");
  if (point) {
    if (point->size() != 3) throw InputError("sensor: point takes 3 coordinates");
    sensor.point = Eigen::Vector3d(point->data());
  }
  return sensor;
}

py::array_t<double> read_states(const PyScene& s, const Sensor& sensor,
                                const std::vector<const State*>& states) {
  const SensorSet set(s.model(), {sensor});
  py::array_t<double> out(
      {static_cast<py::ssize_t>(states.size()), static_cast<py::ssize_t>(set.size())});
  for (size_t k = 0; k < states.size(); ++k)
    set.read(*states[k], out.mutable_data() + k * set.size());
  return out;
}

constexpr const char* kSensorDoc =
    "kind: joint_position (q: hinge angle [rad] or slider displacement [m]), joint_velocity "
    "(q'), body_position (the centre of mass p [m]), body_velocity (p' [m/s]), body_axes (the "
    "columns a1, a2, a3 of the affine matrix A, 9 values), body_angular_velocity (omega [rad/s], "
    "the skew part of A' A^T), body_point (p + A X of the body point at world point `point` at "
    "rest); `target`: the joint's or rigid body's name or index.";

const std::string& trajectory_sensor_doc() {
  static const std::string doc =
      std::string("A sensor's readings on every state: (steps + 1, values). ") + kSensorDoc;
  return doc;
}
const std::string& run_sensor_doc() {
  static const std::string doc =
      std::string("A sensor's reading at the current state (values). ") + kSensorDoc;
  return doc;
}

}  // namespace

void bind_rigid(py::module_& m) {
  declared_class<PyRigidBody>(m, "RigidBody")
      .def_property_readonly(
          "name", [](const PyRigidBody& b) { return b.body().name; }, "The body's name.")
      .def_property_readonly(
          "index", [](const PyRigidBody& b) { return b.index; },
          "Its index among the scene's rigid bodies.")
      .def_property_readonly(
          "vertices",
          [](const PyRigidBody& b) {
            const int n = b.body().node;
            return std::vector<int>{n, n + 1, n + 2, n + 3};
          },
          "The scene vertices of p, a1, a2, a3 (rows of positions and velocities).")
      .def_property_readonly(
          "mass", [](const PyRigidBody& b) { return b.body().mass; }, "Its mass [kg].")
      .def_property_readonly(
          "second_moments",
          [](const PyRigidBody& b) {
            const Eigen::Vector3d& S = b.body().second_moments;
            return std::vector<double>{S[0], S[1], S[2]};
          },
          "S_i = integral rho X_i^2 dV along the principal axes [kg m^2]; the principal moments "
          "of inertia are (S2 + S3, S1 + S3, S1 + S2).")
      .def_property_readonly(
          "center_of_mass",
          [](const PyRigidBody& b) {
            const Eigen::Vector3d& c = b.body().shape_center;
            return std::vector<double>{c[0], c[1], c[2]};
          },
          "The centre of mass in the shape's frame [m].")
      .def_property_readonly(
          "principal_axes",
          [](const PyRigidBody& b) {
            Eigen::VectorXd flat(9);
            for (int i = 0; i < 3; ++i)
              for (int j = 0; j < 3; ++j) flat[3 * i + j] = b.body().shape_axes(i, j);
            return to_array(flat, {3, 3});
          },
          "The principal axes in the shape's frame (3 x 3, a rotation; columns are the axes).")
      .def_property_readonly(
          "kinematic", [](const PyRigidBody& b) { return b.body().kinematic; },
          "Whether its motion is prescribed.")
      .def("__repr__", [](const PyRigidBody& b) {
        return "<softgrad.RigidBody '" + b.body().name + "', " + std::to_string(b.body().mass) +
               " kg>";
      });

  declared_class<PyScene, SceneRef>(m, "Scene")
      .def_property_readonly(
          "rigid_bodies",
          [](const SceneRef& s) {
            std::vector<PyRigidBody> out;
            for (int i = 0; i < static_cast<int>(s->model().rigid_bodies.size()); ++i)
              out.push_back({s, i});
            return out;
          },
          "The scene's rigid bodies (softgrad.RigidBody), in order.")
      .def_property_readonly(
          "joints",
          [](const PyScene& s) {
            py::list out;
            for (const Joint& j : s.model().joints)
              out.append(py::dict(py::arg("name") = j.name, py::arg("type") = to_string(j.type),
                                  py::arg("parent") = j.parent < 0
                                                          ? std::string("world")
                                                          : s.model().rigid_bodies[j.parent].name,
                                  py::arg("child") = s.model().rigid_bodies[j.child].name,
                                  py::arg("has_coordinate") = j.has_coordinate()));
            return out;
          },
          "The scene's joints, each a dict: name, type (hinge, ball, slider, fixed), parent "
          "('world' or a body's name), child, has_coordinate (hinge and slider).")
      .def_property_readonly(
          "n_mesh_vertices", [](const PyScene& s) { return s.model().n_mesh_verts(); },
          "Vertices of the meshes: the first rows of positions; the rigid bodies' four each "
          "follow them.");

  declared_class<PyTrajectory>(m, "Trajectory")
      .def_property_readonly(
          "scene", [](const PyTrajectory& t) { return t.owner; }, "The Scene it was run in.")
      .def(
          "sensor",
          [](const PyTrajectory& t, const std::string& kind, const py::object& target,
             const std::optional<std::vector<double>>& point) {
            const Sensor sensor = make_sensor(*t.owner, kind, target, point);
            std::vector<const State*> states;
            const int T = static_cast<int>(t.trajectory->reports().size());
            for (int k = 0; k <= T; ++k)
              states.push_back(k == T ? &t.trajectory->final_state() : &t.trajectory->state(k));
            return read_states(*t.owner, sensor, states);
          },
          py::arg("kind"), py::arg("target"), py::arg("point") = py::none(),
          trajectory_sensor_doc().c_str());
  declared_class<PyRun>(m, "Run").def(
      "sensor",
      [](const PyRun& r, const std::string& kind, const py::object& target,
         const std::optional<std::vector<double>>& point) {
        const Sensor sensor = make_sensor(*r.owner, kind, target, point);
        py::array_t<double> all = read_states(*r.owner, sensor, {&r.run->state()});
        return all.attr("reshape")(-1);
      },
      py::arg("kind"), py::arg("target"), py::arg("point") = py::none(), run_sensor_doc().c_str());
}

}  // namespace softgrad::python
