#include "scene_tables.hpp"

#include <algorithm>
#include <sstream>

#include "../io/number_table.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/material.hpp"

namespace softgrad::detail {

namespace {

std::string shape_text(const NumberTable& t) {
  std::ostringstream os;
  for (std::size_t k = 0; k < t.shape.size(); ++k) os << (k ? " x " : "") << t.shape[k];
  return os.str();
}

/// The file `j` names (relative to the scene's folder), read whole.
NumberTable read_scene_numbers(const Source& src, const Json& j, const std::string& pointer,
                               const std::string& what, std::filesystem::path& file) {
  if (!j.is_string() || j.get<std::string>().empty())
    fail_at(src, pointer,
            "expected a file name (.npy, or text such as .csv), got " + describe_json(j));
  file = j.get<std::string>();
  if (file.is_relative()) file = src.dir / file;
  try {
    return read_number_table(file, what);
  } catch (const InputError& e) {
    fail_at(src, pointer, e.what());
  }
}

}  // namespace

std::vector<double> read_scene_table(const Source& src, const Json& j, const std::string& pointer,
                                     std::size_t count, const std::string& what) {
  std::filesystem::path file;
  NumberTable t = read_scene_numbers(src, j, pointer, what, file);
  if (t.values.size() != count)
    fail_at(src, pointer,
            file.string() + ": " + what + ": expected " + std::to_string(count) +
                " values, the file holds " + std::to_string(t.values.size()) + " (" +
                shape_text(t) + ")");
  return std::move(t.values);
}

void read_vertex_masses(const ObjectReader& body, Model& model) {
  Body& b = model.bodies.back();
  b.mass_from_density = false;
  const int n = b.mesh.n_verts(), d = model.dim;
  const std::vector<double> masses =
      read_scene_table(body.source(), body.at("vertex_masses"), body.path("vertex_masses"),
                       static_cast<std::size_t>(n), "vertex masses [kg], one per vertex");
  for (int v = 0; v < n; ++v) {
    if (!(masses[v] > 0.0))
      body.fail("vertex_masses", "vertex " + std::to_string(v) + "'s mass " +
                                     std::to_string(masses[v]) + " kg is not positive");
    for (int i = 0; i < d; ++i) model.mass[(b.vertex_offset + v) * d + i] = masses[v];
  }
}

void read_material_fields(const Source& src, const Json& material, const std::string& pointer,
                          Model& model) {
  Body& b = model.bodies.back();
  const MaterialModel& m = *b.material;
  const auto table = m.params();
  const std::size_t P = table.size(), n = b.volume.size();
  const std::string at = child_pointer(pointer, "fields");
  const Json& fields = material["fields"];
  if (!fields.is_object() || fields.empty())
    fail_at(src, at,
            "expected an object of files, e.g. {\"youngs\": \"youngs.npy\"}, got " +
                describe_json(fields));
  const auto native = [&](const std::string& key) {
    return std::find_if(table.begin(), table.end(),
                        [&](const ParamInfo& p) { return key == p.key; }) -
           table.begin();
  };
  std::vector<std::vector<double>> native_values(P);
  std::vector<double> youngs, poisson;
  // As the scalar keys: either the model's own keys or youngs and poisson, not both.
  bool native_keys = false, mapped_keys = false;
  for (const auto& [key, value] : material.items()) {
    if (static_cast<std::size_t>(native(key)) < P) native_keys = true;
    if ((key == "youngs" || key == "poisson") && static_cast<std::size_t>(native(key)) >= P)
      mapped_keys = true;
  }
  std::vector<double> probe(P);
  const bool mappable = m.youngs_poisson_parameters(kYoungsParam.default_value,
                                                    kPoissonParam.default_value, probe.data());
  for (const auto& [key, file] : fields.items()) {
    const std::string where = child_pointer(at, key);
    const auto k = static_cast<std::size_t>(native(key));
    std::vector<double>* target = nullptr;
    if (k < P) {
      target = &native_values[k];
      native_keys = true;
    } else if (mappable && (key == "youngs" || key == "poisson")) {
      target = key == "youngs" ? &youngs : &poisson;
      mapped_keys = true;
    } else {
      std::string keys;
      for (const ParamInfo& p : table) keys += (keys.empty() ? "" : ", ") + std::string(p.key);
      fail_at(src, where,
              "'" + key + "' is not a numeric key of material '" + m.name() + "' (" + keys +
                  (mappable ? "; or youngs and poisson, mapped to them)" : ")"));
    }
    if (native_keys && mapped_keys)
      fail_at(src, where,
              "give either youngs and poisson or the parameters of '" + m.name() +
                  "', as values or fields, not both");
    *target = read_scene_table(src, file, where, n, key + ", one value per element");
  }
  const bool mapped = !youngs.empty() || !poisson.empty();
  const double youngs0 = material.value("youngs", kYoungsParam.default_value);
  const double poisson0 = material.value("poisson", kPoissonParam.default_value);
  for (std::size_t e = 0; e < n; ++e) {
    const std::string element = src.name + ": " + at + ": element " + std::to_string(e);
    double* p = b.params.data() + e * P;
    if (mapped) {
      const double y = youngs.empty() ? youngs0 : youngs[e];
      const double nu = poisson.empty() ? poisson0 : poisson[e];
      if (!(y > 0.0) || !(nu > -1.0 && nu < 0.5)) {
        std::ostringstream os;
        os << element << ": youngs " << y << " Pa and poisson " << nu
           << " are outside youngs > 0, -1 < poisson < 0.5";
        throw InputError(os.str());
      }
      const std::vector<double> q = params_from_youngs_poisson(m, y, nu);
      std::copy(q.begin(), q.end(), p);
    }
    for (std::size_t k = 0; k < P; ++k)
      if (!native_values[k].empty()) p[k] = native_values[k][e];
    validate_params(m, std::span<const double>(p, P), element);
  }
}

std::vector<double> step_force_values(const ObjectReader& force, int n_steps, std::size_t dofs,
                                      const Eigen::VectorXd& per_vertex) {
  std::vector<double> values;
  if (!force.has("file")) {
    values.reserve(static_cast<std::size_t>(n_steps) * dofs);
    for (std::size_t k = 0; k < static_cast<std::size_t>(n_steps) * dofs; ++k)
      values.push_back(per_vertex[static_cast<Eigen::Index>(k % per_vertex.size())]);
    return values;
  }
  if (force.has("force")) force.fail("file", "give 'force' or 'file', not both");
  const std::string what = "forces [N], steps x vertices x dim";
  std::filesystem::path file;
  NumberTable t =
      read_scene_numbers(force.source(), force.at("file"), force.path("file"), what, file);
  const std::size_t all = static_cast<std::size_t>(n_steps) * dofs;
  if (t.values.size() == all) return std::move(t.values);
  if (t.values.size() != dofs)
    force.fail("file", file.string() + ": " + what + ": expected " + std::to_string(all) +
                           " values (" + std::to_string(n_steps) + " steps x " +
                           std::to_string(dofs) + " dofs of the region) or one step's " +
                           std::to_string(dofs) + ", the file holds " +
                           std::to_string(t.values.size()) + " (" + shape_text(t) + ")");
  values.reserve(all);
  for (int n = 0; n < n_steps; ++n) values.insert(values.end(), t.values.begin(), t.values.end());
  return values;
}

}  // namespace softgrad::detail
