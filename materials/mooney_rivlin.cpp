// Instantiates the MooneyRivlin model's element kernels in this translation unit only.
#include "softgrad/materials/mooney_rivlin.hpp"

#include "builtin.hpp"
#include "softgrad/hyperelastic_model.hpp"

namespace softgrad {

template <>
std::shared_ptr<const MaterialModel> make_model<MooneyRivlin>() {
  return std::make_shared<const HyperelasticModel<MooneyRivlin>>();
}

}  // namespace softgrad
