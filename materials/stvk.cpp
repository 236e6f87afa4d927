// Instantiates the StVenantKirchhoff model's element kernels in this translation unit only.
#include "softgrad/materials/stvk.hpp"

#include "builtin.hpp"
#include "softgrad/hyperelastic_model.hpp"

namespace softgrad {

template <>
std::shared_ptr<const MaterialModel> make_model<StVenantKirchhoff>() {
  return std::make_shared<const HyperelasticModel<StVenantKirchhoff>>();
}

}  // namespace softgrad
