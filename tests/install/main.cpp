// Evaluates a registered material through the installed headers and library.
#include <cstdio>

#include "softgrad/material_model.hpp"

int main() {
  const auto model = softgrad::find_material("neo_hookean");
  const double F[9] = {1.1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double p[2] = {1e5, 0.3};
  double P[9];
  if (!model->stress(3, F, p, P)) return 1;
  std::printf("installed softgrad: %s P_11 = %.6g Pa\n", model->name().c_str(), P[0]);
  return P[0] > 0 ? 0 : 1;
}
