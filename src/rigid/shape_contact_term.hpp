/// @file shape_contact_term.hpp
/// Contact and lagged friction between deformable-body vertices and rigid bodies' shapes, one
/// stencil per (vertex, body) pair over y = (x_v, p, a1, a2, a3) (15 dofs), with the pair's
/// local inputs q = (y at the start of the step, k, mu). The vertex's body-frame point is
///     Y = A^T (x_v - p)        (A^T = A^-1 for the rigid A that the orthogonality energy keeps;
///                               A^T is polynomial, so the AD sees a few products),
/// and the pair's energy is the contact vertex energy of softgrad/contact.hpp (detail::
/// sphere_energy) with the body's shape, in the body frame, as the one obstacle: the barrier or
/// penalty of d(Y), and lagged friction mu lambda f0(|u_t|) on the slip
///     u = (x_v - x_v^n) - ((p + A X_n) - (p_n + A_n X_n)),   X_n = A_n^T (x_v^n - p_n),
/// of the vertex against the body's material point X_n that coincided with it at the start of
/// the step, written in the body frame (A_n^T u) so that its tangential part is taken against
/// the shape's normal n(X_n) there (the world normal A_n n), with the normal force lambda from
/// d(X_n). Every term of the energy depends on x_v - p and A only: the forces on the vertex and
/// on p cancel, and the pair conserves linear momentum.
#pragma once

#include <memory>
#include <vector>

#include "../contact/contact_energy.hpp"
#include "softgrad/ad_stencil_term.hpp"
#include "softgrad/model.hpp"
#include "softgrad/rigid_coupling.hpp"

namespace softgrad {

class ShapeContactTerm final : public AdStencilTerm<ShapeContactTerm, 15, 17, 1024>,
                               public StepLimit {
  using Base = AdStencilTerm<ShapeContactTerm, 15, 17, 1024>;
  friend Base;

 public:
  /// The pairs of options.vertices and options.bodies, body-major (pair s: vertex
  /// s % n_vertices, body s / n_vertices). @pre the options are validated, with both lists
  /// given, non-empty (add_shape_contact fills them in), and the bodies' shapes are boxes,
  /// spheres or capsules.
  ShapeContactTerm(const Model& model, ShapeContactOptions options);

  std::string name() const override { return "shape_contact"; }
  bool depends_on_previous_state(const TermData& data) const override;
  void begin_step(TermData& data) const override;
  /// Conservative advancement along the exact path of Y in the body frame (a quadratic in the
  /// step fraction t: A and x_v - p move linearly) against the 1-Lipschitz signed distance.
  double max_step(const TermData& data, const Eigen::VectorXd& x,
                  const Eigen::VectorXd& dx) const override;
  /// "stiffness" [N/m] and "friction" [1], one value each.
  std::vector<ParameterGroup> parameter_groups() const override;
  Eigen::VectorXd default_parameters() const override;
  void validate_parameters(const double* p) const override;

  /// The signed distance of pair s at positions x (flat, model numbering) [m].
  double pair_distance(const double* x, int s) const;

 private:
  /// One pair's energy, generic in the AD scalars.
  struct PairEnergy {
    const ContactOptions* o;  ///< the body's shape (body frame) as the one obstacle
    double eps;               ///< friction smoothing eps_v dt; 0: no friction
    bool is_barrier;

    template <class T, class P>
    T operator()(const T* y, const P* q) const {
      T Y[3];
      P Yn[3];
      body_frame(y, Y);
      body_frame(q, Yn);
      // The slip against the material point X_n = Yn, then A_n^T of it (the body frame).
      const auto slip = [&](const P*, T* u) {
        T w[3];
        for (int i = 0; i < 3; ++i) {
          w[i] = (y[i] - q[i]) - (y[3 + i] - q[3 + i]);
          for (int j = 0; j < 3; ++j) w[i] = w[i] - (y[6 + 3 * j + i] - q[6 + 3 * j + i]) * Yn[j];
        }
        for (int k = 0; k < 3; ++k)
          u[k] = q[6 + 3 * k] * w[0] + q[7 + 3 * k] * w[1] + q[8 + 3 * k] * w[2];
      };
      return detail::sphere_energy(*o, 3, eps, is_barrier, q[15], q[16], Y, Yn, 0.0, slip);
    }
  };
  struct PairData : Data {
    double eps = 0.0;
    std::vector<char> near_at_start;  ///< per pair: within dhat of the shape at x^n
  };
  std::unique_ptr<Data> new_data() const override { return std::make_unique<PairData>(); }
  bool friction_active(const TermData& data) const;
  /// Y = A^T (x_v - p) of a pair's 15 values (x_v, p, a1, a2, a3).
  template <class T>
  static void body_frame(const T* y, T* Y) {
    for (int j = 0; j < 3; ++j) {
      const T* a = y + 6 + 3 * j;
      Y[j] = a[0] * (y[0] - y[3]) + a[1] * (y[1] - y[4]) + a[2] * (y[2] - y[5]);
    }
  }
  /// Which of shapes_ pair s meets.
  int shape_of(int s) const { return s / n_pair_vertices_; }
  /// d(Y) if the pair's body-frame point may be within `reach` of the shape, else +infinity
  /// (the bounding-sphere test spares the distance).
  double near_distance(const double* y, int s, double reach) const;

  // AdStencilTerm's hooks.
  PairEnergy stencil_energy(const Data& data, int s) const;
  void local_inputs(const Data& data, int s, double* q) const;
  bool active(const Data& data, int s, const double* y) const;
  bool feasible(const Data& data, int s, const double* y) const;
  void scatter_parameter_products(const Data& data, const double* P,
                                  double* parameters_bar) const override;
  void gather_parameter_directions(const Data& data, const double* direction,
                                   double* dP) const override;
  /// The largest safe fraction of the step dy for pair s (conservative advancement).
  double pair_step(int s, const double* y, const double* dy, double t_max) const;

  ShapeContactOptions options_;
  bool is_barrier_;
  int n_pair_vertices_;
  std::vector<ContactOptions> shapes_;  ///< per body: its shape as the one obstacle
  std::vector<double> bounding_radii_;  ///< per body: the shape's bounding radius [m]
};

}  // namespace softgrad
