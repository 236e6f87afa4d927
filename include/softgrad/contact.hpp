/// @file contact.hpp
/// Contact and friction against analytic obstacles (shapes.hpp), as one energy term
/// differentiated like every other (value, gradient, Hessian, parameter and previous-state
/// products all come from the element AD applied to a per-vertex energy):
///
///   penalty (the seed's model):  W = k/2 sum_i max(0, -d_i)^2           (penetration allowed),
///                                smoothed to C2 over |d| < dhat so that Newton converges
///                                quadratically through contact changes (the force below -dhat
///                                is exactly -k d)
///   barrier (IPC):               W = kappa sum_i b(d_i),  b(d) = -(d - dhat)^2 log(d / dhat)
///                                for 0 < d < dhat; +infinity for d <= 0 (never penetrates: the
///                                line search is cut at the first time of impact and rejects
///                                any state with d <= 0)
///   lagged friction:             D = mu sum_i lambda_i f0(|u_i|),  u_i = P_i (x_i - x_i^n)
///       with the normal force lambda_i, the tangent projector P_i = I - n n^T from the state at
///       the start of the step (x^n), and Coulomb's |u| smoothed below eps_v dt (IPC's f0).
///       Friction acts in dynamics only; its dependence on x^n is part of the adjoint.
///
/// d_i is vertex i's signed distance to an obstacle. Parameters: "stiffness" (k or kappa) and
/// "friction" (mu).
#pragma once

#include <memory>
#include <vector>

#include "softgrad/model.hpp"
#include "softgrad/shapes.hpp"

namespace softgrad {

enum class ContactModel { Barrier, Penalty };

struct ContactOptions {
  ContactModel model = ContactModel::Barrier;
  /// Penalty k or barrier kappa [N/m].
  double stiffness = 1e4;
  double activation_distance = 1e-3;  ///< dhat [m]: barrier range, penalty smoothing band
  double friction = 0.0;              ///< Coulomb coefficient mu
  double friction_velocity = 1e-3;    ///< eps_v [m/s]: below it friction is smoothed (sticking)
  std::vector<std::shared_ptr<const Obstacle>> obstacles;
  std::vector<int> vertices;  ///< vertices that collide (empty: all)
};

/// Adds a contact term named "contact". @throws InputError for invalid options, or (barrier) a
/// rest state in which a vertex is not strictly outside an obstacle.
/// Rigid bodies (rigid_body.hpp) meet the obstacles through their contact spheres, in a second
/// term "rigid_contact" with the same options (its own "stiffness" and "friction").
void add_contact(Model& model, ContactOptions options);

/// The term "rigid_contact" alone (add_contact adds it): nothing when no rigid body collides.
/// @throws InputError (barrier) if a contact sphere is not strictly outside an obstacle at rest.
void add_rigid_contact(Model& model, ContactOptions options);

}  // namespace softgrad
