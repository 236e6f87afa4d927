/// @file spin_velocity.hpp
/// A rigid body's axis velocities from its angular velocity, a_i' = omega x a_i (i = 1..3), and
/// the derivatives the adjoint and the forward sensitivities take of that map: the one place it
/// is written. set_rigid_velocity (a scene's launch) and ParameterSet's angular-velocity blocks
/// write it; gradient() pulls back through it; simulate_with_sensitivities pushes forward.
#pragma once

#include <Eigen/Core>

#include "softgrad/rigid_body.hpp"

namespace softgrad {

/// v[a_i] = omega x a_i(x) for the body's three axes.
void write_spin_velocity(const RigidBody& body, const Eigen::Vector3d& omega,
                         const Eigen::VectorXd& x, Eigen::VectorXd& v);

/// dL/domega from vbar = dL/dv through the map: sum_i a_i(x) x vbar[a_i] (d(omega x a)/domega =
/// -[a]x, whose transpose is [a]x).
Eigen::Vector3d spin_velocity_pull_back(const RigidBody& body, const Eigen::VectorXd& x,
                                        const Eigen::VectorXd& vbar);

/// The map moves with the positions: xbar[offset + a_i] += [omega]x^T vbar[a_i] =
/// vbar[a_i] x omega.
void spin_velocity_pull_back_positions(const RigidBody& body, const Eigen::Vector3d& omega,
                                       const Eigen::VectorXd& vbar, int offset,
                                       Eigen::VectorXd& xbar);

/// The velocity direction of an angular-velocity direction domega: dv[a_i] = domega x a_i(x),
/// written into column `col` of W.
void spin_velocity_push_forward(const RigidBody& body, const Eigen::Vector3d& domega,
                                const Eigen::VectorXd& x, Eigen::MatrixXd& W, int col);

/// The velocity directions of the positions: dv[a_i]/dx[a_i]_k = omega x e_k, added to
/// W(a_i, offset + a_i + k).
void spin_velocity_push_forward_positions(const RigidBody& body, const Eigen::Vector3d& omega,
                                          int offset, Eigen::MatrixXd& W);

}  // namespace softgrad
