// Instantiates the StableNeoHookean model's element kernels in this translation unit only.
#include "softgrad/materials/stable_neo_hookean.hpp"

#include "builtin.hpp"
#include "softgrad/hyperelastic_model.hpp"

namespace softgrad {

template <>
std::shared_ptr<const MaterialModel> make_model<StableNeoHookean>() {
  return std::make_shared<const HyperelasticModel<StableNeoHookean>>();
}

}  // namespace softgrad
