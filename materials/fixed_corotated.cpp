// Instantiates the FixedCorotated model's element kernels in this translation unit only.
#include "softgrad/materials/fixed_corotated.hpp"

#include "builtin.hpp"
#include "softgrad/hyperelastic_model.hpp"

namespace softgrad {

template <>
std::shared_ptr<const MaterialModel> make_model<FixedCorotated>() {
  return std::make_shared<const HyperelasticModel<FixedCorotated>>();
}

}  // namespace softgrad
