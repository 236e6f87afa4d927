/// @file contact_parameters.hpp
/// Internal: what every contact term (vertices against obstacles, rigid bodies' spheres, soft
/// vertices against rigid shapes) shares: two scalar parameters, "stiffness" [N/m] (p[0]) and
/// "friction" [1] (p[1]), which every stencil reads as its local inputs (k, mu).
#pragma once

#include <string>
#include <vector>

#include "softgrad/energy.hpp"

namespace softgrad::detail {

/// The groups "stiffness" and "friction", one value each.
std::vector<ParameterGroup> contact_parameter_groups();
/// @throws InputError "<who> stiffness must be positive and finite, got ..." or "<who>
/// friction coefficient must be finite and >= 0, got ...".
void validate_contact_parameters(const double* p, const std::string& who);
/// Lagged friction acts in dynamics when mu > 0.
inline bool contact_friction_active(const TermData& data) {
  return data.step.dt > 0.0 && data.parameters[1] > 0.0;
}
/// bar += the stencils' local (k, mu) products P (2 per stencil), summed.
void scatter_contact_products(int n_stencils, const double* P, double* bar);
/// dP = the direction of (k, mu), for every stencil.
void gather_contact_directions(int n_stencils, const double* direction, double* dP);

}  // namespace softgrad::detail
