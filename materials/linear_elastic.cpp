// Instantiates the LinearElastic model's element kernels in this translation unit only.
#include "softgrad/materials/linear_elastic.hpp"

#include "builtin.hpp"
#include "softgrad/hyperelastic_model.hpp"

namespace softgrad {

template <>
std::shared_ptr<const MaterialModel> make_model<LinearElastic>() {
  return std::make_shared<const HyperelasticModel<LinearElastic>>();
}

}  // namespace softgrad
