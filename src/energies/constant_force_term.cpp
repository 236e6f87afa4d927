// Gravity and constant external forces as ConstantForceTerms.
#include "constant_force_term.hpp"

#include "softgrad/errors.hpp"
#include "softgrad/model.hpp"

namespace softgrad {

void add_gravity(Model& model, const Eigen::VectorXd& g) {
  if (g.size() != model.dim) throw InputError("gravity needs one component per dimension");
  const Eigen::VectorXd m = model.translational_mass();
  Eigen::VectorXd f(model.n_dofs());
  for (int v = 0; v < model.n_verts; ++v)
    for (int i = 0; i < model.dim; ++i) f[v * model.dim + i] = m[v * model.dim + i] * g[i];
  model.terms.push_back(std::make_unique<ConstantForceTerm>("gravity", std::move(f)));
}

void add_external_forces(Model& model, const Eigen::VectorXd& forces) {
  if (forces.size() != model.n_dofs()) throw InputError("external forces need n_dofs entries");
  model.terms.push_back(std::make_unique<ConstantForceTerm>("external", forces));
}

}  // namespace softgrad
