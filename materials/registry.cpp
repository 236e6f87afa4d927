// The material registry: scene names -> models. Adding a built-in material is one line in
// builtin_models() (plus its #include).
#include <algorithm>
#include <mutex>
#include <sstream>

#include "softgrad/errors.hpp"
#include "softgrad/material_model.hpp"
#include "softgrad/materials/builtin.hpp"
#include "softgrad/materials/corotated.hpp"
#include "softgrad/materials/fixed_corotated.hpp"
#include "softgrad/materials/linear_elastic.hpp"
#include "softgrad/materials/mass_spring.hpp"
#include "softgrad/materials/mooney_rivlin.hpp"
#include "softgrad/materials/neo_hookean.hpp"
#include "softgrad/materials/stable_neo_hookean.hpp"
#include "softgrad/materials/stvk.hpp"

namespace softgrad {
namespace {

using ModelList = std::vector<std::shared_ptr<const MaterialModel>>;

ModelList builtin_models() {
  return {
      make_model<LinearElastic>(),  make_model<CorotatedLinear>(),  make_model<StVenantKirchhoff>(),
      make_model<NeoHookean>(),     make_model<StableNeoHookean>(), make_model<MooneyRivlin>(),
      make_model<FixedCorotated>(), make_model<MassSpring>(),
  };
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
  const auto table = model.params();
  const auto key = [&](size_t k) { return std::string(table[k].key); };
  if (table.size() == 2 && key(0) == "youngs" && key(1) == "poisson") return {youngs, poisson};
  if (table.size() == 1 && key(0) == "youngs") return {youngs};
  if (model.name() == MooneyRivlin::kName) {
    std::vector<double> p(3);
    MooneyRivlin::from_youngs_poisson(youngs, poisson, p.data());
    return p;
  }
  throw InputError("material '" + model.name() +
                   "' cannot be given by youngs/poisson; give its own parameters");
}

}  // namespace softgrad
