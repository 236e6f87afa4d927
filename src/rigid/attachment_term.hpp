/// @file attachment_term.hpp
/// Deformable-body vertices bound to a rigid (affine) body, one stencil per vertex over the
/// vertex and the body's four vertices y = (x_v, p, a1, a2, a3):
///     E_s = k/2 |r|^2,   r = x_v - p - A X_v = sum_i c_i y_i,   c = (1, -1, -X_1, -X_2, -X_3),
/// with X_v the vertex's body-frame point at rest. The energy is quadratic, so
///     g_i = k c_i r,   H_ij = k c_i c_j I_3
/// in closed form (exact; the AD of the same functor gives the Hessian-vector products and the
/// stiffness product of the adjoint, and the tests compare the two).
#pragma once

#include <string>
#include <vector>

#include "softgrad/ad_stencil_term.hpp"
#include "softgrad/model.hpp"

namespace softgrad {

class AttachmentTerm final : public AdStencilTerm<AttachmentTerm, 15, 1> {
  friend AdStencilTerm<AttachmentTerm, 15, 1>;

 public:
  /// `vertices` (validated by add_attachment) bound to body `body` with stiffness k [N/m].
  AttachmentTerm(const Model& model, std::string name, int body, const std::vector<int>& vertices,
                 double k);

  std::string name() const override { return "attachment:" + name_; }
  /// "stiffness" [N/m], one value.
  std::vector<ParameterGroup> parameter_groups() const override;
  Eigen::VectorXd default_parameters() const override { return Eigen::VectorXd::Constant(1, k_); }
  void validate_parameters(const double* p) const override;

 private:
  /// E_s(y; k) = k/2 |x_v - p - A X|^2, generic in the AD scalars.
  struct Spring {
    const double* X;  ///< the vertex's body-frame point (3 values)
    template <class T, class P>
    T operator()(const T* y, const P* q) const {
      T e = T(0.0);
      for (int i = 0; i < 3; ++i) {
        const T r = y[i] - (y[3 + i] + y[6 + i] * X[0] + y[9 + i] * X[1] + y[12 + i] * X[2]);
        e = e + r * r;
      }
      return 0.5 * q[0] * e;
    }
  };

  // AdStencilTerm's hooks.
  Spring stencil_energy(const Data&, int s) const { return {&points_[3 * s]}; }
  void local_inputs(const Data& d, int, double* q) const { q[0] = d.parameters[0]; }
  bool closed_form(const Data& d, int s, const double* y, const double* q, double& e, double* g,
                   double* H) const;
  void scatter_parameter_products(const Data& d, const double* P,
                                  double* parameters_bar) const override;
  void gather_parameter_directions(const Data& d, const double* direction,
                                   double* dP) const override;

  std::string name_;
  double k_;
  std::vector<double> points_;  ///< per stencil: X_v, body frame
};

}  // namespace softgrad
