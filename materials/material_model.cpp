// The material registry: scene names -> models. Adding a built-in material is one entry in
// builtin_materials.hpp (plus its materials/<name>.cpp).
#include "softgrad/material_model.hpp"

#include <algorithm>
#include <mutex>
#include <sstream>

#include "builtin.hpp"
#include "builtin_materials.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/materials/mass_spring.hpp"
#include "softgrad/materials/neural.hpp"

namespace softgrad {
namespace {

using ModelList = std::vector<std::shared_ptr<const MaterialModel>>;

// The built-in hyperelastic list, then mass-spring networks and the neural material.
template <class... Material>
ModelList make_models(std::tuple<Material...>*) {
  return {make_model<Material>()..., make_model<MassSpring>(), make_neural_material({8, 8})};
}

ModelList builtin_models() {
  return make_models(static_cast<BuiltinHyperelasticMaterials*>(nullptr));
}

struct Registry {
  std::mutex mutex;
  ModelList models = builtin_models();
};

Registry& registry() {
  static Registry r;
  return r;
}

std::string range_text(const ParamInfo& info) {
  std::ostringstream os;
  os << (info.min_inclusive ? "[" : "(") << info.min << ", " << info.max
     << (info.max_inclusive ? "]" : ")");
  return os.str();
}

}  // namespace

std::vector<MaterialModel::ParamBlock> MaterialModel::param_blocks() const {
  std::vector<ParamBlock> blocks;
  const auto table = params();
  for (int j = 0; j < static_cast<int>(table.size()); ++j) blocks.push_back({table[j].key, j, 1});
  return blocks;
}

void register_material_model(std::shared_ptr<const MaterialModel> model) {
  SOFTGRAD_CHECK(model != nullptr, "register_material_model needs a model");
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const auto same = [&](const auto& m) { return m->name() == model->name(); };
  const auto it = std::find_if(r.models.begin(), r.models.end(), same);
  if (it != r.models.end()) {
    *it = std::move(model);
  } else {
    r.models.push_back(std::move(model));
  }
}

std::shared_ptr<const MaterialModel> find_material(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const auto& m : r.models)
    if (m->name() == name) return m;
  std::ostringstream os;
  os << "unknown material '" << name << "'; known materials:";
  for (const auto& m : r.models) os << " " << m->name();
  os << " (a plugin's material needs --plugin FILE or the scene's \"plugins\")";
  throw InputError(os.str());
}

std::vector<std::shared_ptr<const MaterialModel>> all_materials() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.models;
}

void validate_params(const MaterialModel& model, std::span<const double> p,
                     const std::string& where) {
  const auto table = model.params();
  if (p.size() != table.size()) {
    std::ostringstream os;
    os << where << ": material '" << model.name() << "' takes " << table.size()
       << " parameters, got " << p.size();
    throw InputError(os.str());
  }
  for (size_t k = 0; k < table.size(); ++k) {
    if (!table[k].in_range(p[k])) {
      std::ostringstream os;
      os << where << ": material '" << model.name() << "' parameter '" << table[k].key
         << "' = " << p[k] << " " << table[k].unit << " is outside its valid range "
         << range_text(table[k]);
      throw InputError(os.str());
    }
  }
}

std::vector<double> params_from_youngs_poisson(const MaterialModel& model, double youngs,
                                               double poisson) {
  std::vector<double> p(model.n_params());
  if (model.youngs_poisson_parameters(youngs, poisson, p.data())) return p;
  throw InputError("material '" + model.name() +
                   "' cannot be given by youngs/poisson; give its own parameters");
}

}  // namespace softgrad
