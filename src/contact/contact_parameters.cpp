#include "contact_parameters.hpp"

#include <cmath>

#include "softgrad/errors.hpp"

namespace softgrad::detail {

std::vector<ParameterGroup> contact_parameter_groups() {
  return {{"stiffness", "N/m", 0, 1, ParameterGroup::Layout::Scalar, 0.0, 1e300},
          {"friction", "1", 1, 1, ParameterGroup::Layout::Scalar, 0.0, 1e300}};
}

void validate_contact_parameters(const double* p, const std::string& who) {
  if (!(p[0] > 0.0) || !std::isfinite(p[0]))
    throw InputError(who + " stiffness must be positive and finite, got " + std::to_string(p[0]));
  if (!(p[1] >= 0.0) || !std::isfinite(p[1]))
    throw InputError(who + " friction coefficient must be finite and >= 0, got " +
                     std::to_string(p[1]));
}

void scatter_contact_products(int n_stencils, const double* P, double* bar) {
  for (int s = 0; s < n_stencils; ++s) {
    bar[0] += P[2 * s];
    bar[1] += P[2 * s + 1];
  }
}

void gather_contact_directions(int n_stencils, const double* direction, double* dP) {
  for (int s = 0; s < n_stencils; ++s) {
    dP[2 * s] = direction[0];
    dP[2 * s + 1] = direction[1];
  }
}

}  // namespace softgrad::detail
