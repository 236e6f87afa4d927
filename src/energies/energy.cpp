// EnergyTerm's non-virtual helpers and defaults.
#include "softgrad/energy.hpp"

namespace softgrad {

int EnergyTerm::n_parameters() const {
  int n = 0;
  for (const ParameterGroup& g : parameter_groups())
    n = g.offset + g.size > n ? g.offset + g.size : n;
  return n;
}

void EnergyTerm::validate_parameter_range(int offset, const double* values, int count) const {
  Eigen::VectorXd p = default_parameters();
  for (int i = 0; i < count; ++i) p[offset + i] = values[i];
  validate_parameters(p.data());
}

}  // namespace softgrad
