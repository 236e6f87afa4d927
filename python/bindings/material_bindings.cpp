// A body's material from Python: its parameters (Scene.material), its stress at given
// deformation gradients (Scene.material_stress: stress-stretch curves of a fitted material),
// and a neural material's file (Scene.write_material).
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "handles.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/materials/neural.hpp"

namespace softgrad::python {
namespace {

const Body& find_body(const PyScene& s, const std::string& name) {
  std::string names;
  for (const Body& b : s.model().bodies) {
    if (b.name == name) return b;
    names += (names.empty() ? "'" : ", '") + b.name + "'";
  }
  throw InputError("the scene has no body '" + name +
                   "'; its bodies: " + (names.empty() ? "none" : names));
}

/// The material parameters to use: `params` (checked against the model), or the body's own
/// (those of its first element).
std::vector<double> material_params(const Body& b, const py::object& params,
                                    const std::string& what) {
  const int m = b.material->n_params();
  std::vector<double> p;
  if (params.is_none()) {
    p.assign(b.params.begin(), b.params.begin() + m);
  } else {
    const Eigen::VectorXd v =
        to_vector(params, m, what + ": params", "(" + std::to_string(m) + ",)");
    p.assign(v.data(), v.data() + m);
  }
  validate_params(*b.material, p, what + ": body '" + b.name + "'");
  return p;
}

}  // namespace

void bind_material(py::module_& m) {
  declared_class<PyScene, SceneRef>(m, "Scene")
      .def(
          "material",
          [](const PyScene& s, const std::string& body) {
            const Body& b = find_body(s, body);
            py::list keys;
            for (const ParamInfo& p : b.material->params()) keys.append(p.key);
            py::list groups;
            for (const auto& g : b.material->param_blocks())
              groups.append(py::make_tuple(g.name, g.first, g.count));
            const int n = b.material->n_params();
            py::dict out(py::arg("model") = b.material->name(), py::arg("keys") = keys,
                         py::arg("groups") = groups,
                         py::arg("values") =
                             to_array(Eigen::Map<const Eigen::VectorXd>(b.params.data(), n), {n}));
            if (is_neural_material(*b.material)) out["hidden"] = neural_hidden_layers(*b.material);
            return out;
          },
          py::arg("body"),
          "The material of `body`: its model, parameter keys, groups (name, first, count: the "
          "groups of 'elastic:BODY.GROUP') and the values of its first element; a neural "
          "material also gives its hidden layer widths.")
      .def(
          "material_stress",
          [](const PyScene& s, const std::string& body, const py::object& F,
             const py::object& params) {
            const Body& b = find_body(s, body);
            if (!b.material->has_density())
              throw InputError("material_stress: material '" + b.material->name() + "' of body '" +
                               body + "' has no strain-energy density");
            const std::vector<double> p = material_params(b, params, "material_stress");
            const int d = s.dim();
            const py::array a = py::array::ensure(F);
            if (!a || a.ndim() < 2 || a.shape(a.ndim() - 1) != d || a.shape(a.ndim() - 2) != d)
              throw InputError("material_stress: F must have shape (" + std::to_string(d) + ", " +
                               std::to_string(d) + ") or (n, " + std::to_string(d) + ", " +
                               std::to_string(d) + ") in this " + std::to_string(d) + "D scene");
            const Eigen::Index count = a.size() / (d * d);
            const Eigen::VectorXd f =
                to_vector(F, count * d * d, "material_stress: F", "(n, d, d)");
            Eigen::VectorXd P(count * d * d);
            for (Eigen::Index k = 0; k < count; ++k)
              if (!b.material->stress(d, f.data() + k * d * d, p.data(), P.data() + k * d * d))
                throw InputError("material_stress: F[" + std::to_string(k) +
                                 "] is inverted (det F <= 0), where material '" +
                                 b.material->name() + "' is undefined");
            std::vector<py::ssize_t> shape(a.shape(), a.shape() + a.ndim());
            return to_array(P, shape);
          },
          py::arg("body"), py::arg("F"), py::arg("params") = py::none(),
          "The first Piola-Kirchhoff stress [Pa] of `body`'s material at deformation gradients F "
          "(d, d) or (n, d, d), with its own parameters or `params` (all of the model's, in "
          "Scene.material's order); the same shape as F.")
      .def(
          "write_material",
          [](const PyScene& s, const std::string& body, const std::string& file,
             const py::object& params) {
            const Body& b = find_body(s, body);
            const std::vector<double> p = material_params(b, params, "write_material");
            check_neural_material(*b.material, p, "write_material: body '" + b.name + "'");
            write_neural_material(file, *b.material, p);
          },
          py::arg("body"), py::arg("file"), py::arg("params") = py::none(),
          "Writes `body`'s neural material, with its own parameters or `params`, to `file` "
          "(JSON): a scene's material then names it as {\"model\": \"neural\", \"network\": "
          "file}. Refused for another model and for parameters check_neural_material refuses.");
}

}  // namespace softgrad::python
