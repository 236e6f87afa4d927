/// @file rigid_contact_term.hpp
/// Contact and lagged friction of rigid bodies against the scene's obstacles: every contact
/// sphere of a body (Shape::contact_spheres: a sphere's centre, a capsule's two end spheres, a
/// box's corners, a cylinder's axis spheres and rim points, a mesh's vertices) is a stencil over
/// the body's four vertices, with the energy of a contact vertex (softgrad/contact.hpp) at distance
/// d - r. Friction acts on the material point that touches the obstacle, so a ball rolls without
/// slipping where friction holds it.
#pragma once

#include <vector>

#include "../contact/contact_energy.hpp"
#include "affine.hpp"
#include "softgrad/ad_stencil_term.hpp"
#include "softgrad/model.hpp"

namespace softgrad {

class RigidContactTerm final : public AdStencilTerm<RigidContactTerm, 12, 14, 1024>,
                               public StepLimit {
  using Base = AdStencilTerm<RigidContactTerm, 12, 14, 1024>;
  friend Base;

 public:
  /// Every contact sphere of the model's rigid bodies that collide and are not kinematic.
  RigidContactTerm(const Model& model, ContactOptions options);

  std::string name() const override { return "rigid_contact"; }
  bool depends_on_previous_state(const TermData& data) const override;
  void begin_step(TermData& data) const override;
  double max_step(const TermData& data, const Eigen::VectorXd& x,
                  const Eigen::VectorXd& dx) const override;
  /// "stiffness" [N/m] and "friction" [1], one value each.
  std::vector<ParameterGroup> parameter_groups() const override;
  Eigen::VectorXd default_parameters() const override;
  void validate_parameters(const double* p) const override;

 private:
  /// One sphere's energy: q = (the body's dofs at the start of the step, k, mu).
  struct SphereEnergy {
    const ContactOptions* o;
    double eps;  ///< friction smoothing eps_v dt; 0: no friction
    bool is_barrier;
    const double* X;  ///< centre, body frame
    double r;

    template <class T, class P>
    T operator()(const T* b, const P* q) const {
      T y[3];
      P yn[3];
      detail::body_point(b, X, y);
      detail::body_point(q, X, yn);
      // The touching material point X_f = X - r A_n^T n (A_n^T = A_n^-1 for a rigid A_n) moves
      // by u = (p - p_n) + (A - A_n) X_f over the step.
      const auto slip = [&](const P* n, T* u) {
        P Xf[3];
        for (int j = 0; j < 3; ++j)
          Xf[j] = X[j] - r * (q[3 + 3 * j] * n[0] + q[4 + 3 * j] * n[1] + q[5 + 3 * j] * n[2]);
        for (int i = 0; i < 3; ++i) {
          u[i] = b[i] - q[i];
          for (int j = 0; j < 3; ++j) u[i] = u[i] + (b[3 + 3 * j + i] - q[3 + 3 * j + i]) * Xf[j];
        }
      };
      return detail::sphere_energy(*o, 3, eps, is_barrier, q[12], q[13], y, yn, r, slip);
    }
  };
  struct SphereData : Data {
    double eps = 0.0;
    std::vector<char> near_at_start;  ///< per stencil: within reach of an obstacle at x^n
  };
  std::unique_ptr<Data> new_data() const override { return std::make_unique<SphereData>(); }
  bool friction_active(const TermData& data) const;
  /// Sphere s's centre at positions x.
  Eigen::Vector3d center(const double* x, int s) const;

  // AdStencilTerm's hooks.
  SphereEnergy stencil_energy(const Data& data, int s) const;
  void local_inputs(const Data& data, int s, double* q) const;
  bool active(const Data& data, int s, const double* xs) const;
  bool feasible(const Data& data, int s, const double* xs) const;
  void scatter_parameter_products(const Data& data, const double* P,
                                  double* parameters_bar) const override;
  void gather_parameter_directions(const Data& data, const double* direction,
                                   double* dP) const override;

  ContactOptions options_;
  bool is_barrier_;
  std::vector<double> centers_;  ///< per stencil: X (3 values), body frame
  std::vector<double> radii_;    ///< per stencil
};

/// The rigid bodies' contact spheres of a model, as RigidContactTerm takes them (vertices: four
/// per stencil).
void rigid_contact_spheres(const Model& model, std::vector<int>& verts,
                           std::vector<double>& centers, std::vector<double>& radii);

}  // namespace softgrad
