/// @file rigidity_term.hpp
/// The orthogonality energy of the rigid (affine) bodies, one stencil per body over its axis
/// vertices a1, a2, a3:
///     W_b = kappa_b V_b sum_ij (a_i . a_j - delta_ij)^2  =  kappa_b V_b |A^T A - I|_F^2,
/// zero exactly when A is orthogonal. Affine body dynamics (Lan et al. 2022) holds a body rigid
/// with it; a stiffness kappa far above the loads' stresses keeps |A^T A - I| near zero.
#pragma once

#include <vector>

#include "softgrad/ad_stencil_term.hpp"
#include "softgrad/model.hpp"

namespace softgrad {

class RigidityTerm final : public AdStencilTerm<RigidityTerm, 9, 1> {
  friend AdStencilTerm<RigidityTerm, 9, 1>;

 public:
  /// `bodies`: the indices of the model's rigid bodies it holds (kinematic ones need none).
  RigidityTerm(const Model& model, const std::vector<int>& bodies);
  std::string name() const override { return "rigidity"; }

 private:
  struct Energy {
    double weight;  ///< kappa V [J]
    template <class T, class P>
    T operator()(const T* a, const P*) const {
      T e = T(0.0);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          T r = a[3 * i] * a[3 * j] + a[3 * i + 1] * a[3 * j + 1] + a[3 * i + 2] * a[3 * j + 2];
          if (i == j) r = r - 1.0;
          e = e + r * r;
        }
      return weight * e;
    }
  };
  const Energy& stencil_energy(const Data&, int s) const { return energies_[s]; }
  void local_inputs(const Data&, int, double* q) const { q[0] = 0.0; }

  std::vector<Energy> energies_;
};

}  // namespace softgrad
