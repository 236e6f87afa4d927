// Constant external forces as a ConstantForceTerm.
#include "constant_force_term.hpp"

#include "softgrad/errors.hpp"
#include "softgrad/model.hpp"

namespace softgrad {

void add_external_forces(Model& model, const Eigen::VectorXd& forces) {
  if (forces.size() != model.n_dofs()) throw InputError("external forces need n_dofs entries");
  model.terms.push_back(std::make_unique<ConstantForceTerm>("external", forces));
}

}  // namespace softgrad
