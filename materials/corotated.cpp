// Instantiates the CorotatedLinear model's element kernels in this translation unit only.
#include "softgrad/materials/corotated.hpp"

#include "builtin.hpp"
#include "softgrad/hyperelastic_model.hpp"

namespace softgrad {

template <>
std::shared_ptr<const MaterialModel> make_model<CorotatedLinear>() {
  return std::make_shared<const HyperelasticModel<CorotatedLinear>>();
}

}  // namespace softgrad
