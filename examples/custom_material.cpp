// A material that is not in the library (a compressible Yeoh solid, plugin/yeoh.hpp), used
// without touching the library: registered, then evaluated and checked against differences.
// The same material reaches the command line as a plugin (plugin/yeoh_plugin.cpp).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "plugin/yeoh.hpp"

int main() {
  softgrad::register_material<Yeoh>();
  const auto model = softgrad::find_material("yeoh");
  const double p[4] = {1e5, 1e4, 1e3, 1e7};

  // Uniaxial stretch with the lateral contraction that keeps the volume: P_11 against stretch.
  std::printf("material '%s': uniaxial, volume-preserving stretch\n", model->name().c_str());
  std::printf("%10s %16s %16s %12s\n", "stretch", "psi [J/m^3]", "P_11 [Pa]", "FD error");
  for (double s = 0.8; s <= 1.61; s += 0.2) {
    const double c = 1.0 / std::sqrt(s);
    const double F[9] = {s, 0, 0, 0, c, 0, 0, 0, c};
    double psi = 0.0, P[9], Fp[9], Fm[9];
    model->density(3, F, p, psi);
    model->stress(3, F, p, P);
    // Check the AD stress against a central difference of psi along F_11 (relative to c1).
    const double h = 1e-6;
    std::copy(F, F + 9, Fp);
    std::copy(F, F + 9, Fm);
    Fp[0] += h;
    Fm[0] -= h;
    double psi_p = 0.0, psi_m = 0.0;
    model->density(3, Fp, p, psi_p);
    model->density(3, Fm, p, psi_m);
    const double fd = (psi_p - psi_m) / (2 * h);
    std::printf("%10.2f %16.6g %16.6g %12.2e\n", s, psi, P[0],
                std::abs(P[0] - fd) / std::max(std::abs(P[0]), p[0]));
  }
  return 0;
}
