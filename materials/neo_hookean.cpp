// Instantiates the NeoHookean model's element kernels in this translation unit only.
#include "softgrad/materials/neo_hookean.hpp"

#include "builtin.hpp"
#include "softgrad/hyperelastic_model.hpp"

namespace softgrad {

template <>
std::shared_ptr<const MaterialModel> make_model<NeoHookean>() {
  return std::make_shared<const HyperelasticModel<NeoHookean>>();
}

}  // namespace softgrad
