/// @file rigid_models.hpp
/// Small rigid-body models and the quantities their tests check (momenta, orthogonality).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <memory>
#include <string>

#include "softgrad/model.hpp"
#include "softgrad/simulator.hpp"

namespace softgrad::test {

/// Standard gravity [m/s^2], as the rigid tests' analytic answers use it.
inline constexpr double kG = 9.81;

/// A box of full edge lengths `size` [m] at the origin.
inline RigidBodySpec box_spec(std::string name, const Eigen::Vector3d& size, double density) {
  RigidBodySpec spec;
  spec.name = std::move(name);
  spec.shape = std::make_shared<Box>("", Eigen::Vector3d::Zero(), 0.5 * size);
  spec.density = density;
  return spec;
}

/// A sphere of radius r [m] centred at `center`.
inline RigidBodySpec sphere_spec(std::string name, double r, double density,
                                 const Eigen::Vector3d& center) {
  RigidBodySpec spec;
  spec.name = std::move(name);
  spec.shape = std::make_shared<Sphere>("", Eigen::Vector3d::Zero(), r);
  spec.density = density;
  spec.position = center;
  return spec;
}

/// A model of one rigid body with its orthogonality energy (and gravity -9.81 along y).
inline std::shared_ptr<Model> single_body_model(RigidBodySpec spec, bool gravity) {
  auto model = std::make_shared<Model>();
  add_rigid_body(*model, std::move(spec));
  add_rigidity_term(*model);
  if (gravity) add_gravity(*model, Eigen::Vector3d(0.0, -9.81, 0.0));
  return model;
}

/// Tight Newton, CHOLMOD.
inline SimulationOptions rigid_options(double dt) {
  SimulationOptions o;
  o.dt = dt;
  o.newton.tolerance = 1e-10;
  return o;
}

/// |A^T A - I|_F of body b.
inline double orthogonality_error(const Model& model, int b, const Eigen::VectorXd& x) {
  const Eigen::Matrix3d A = model.rigid_bodies[b].matrix(x);
  return (A.transpose() * A - Eigen::Matrix3d::Identity()).norm();
}

/// m p'.
inline Eigen::Vector3d linear_momentum(const Model& model, int b, const Eigen::VectorXd& v) {
  const RigidBody& body = model.rigid_bodies[b];
  return body.mass * v.segment<3>(body.dof(0));
}

/// The affine body's angular momentum about the origin: m p x p' + sum_i S_i a_i x a_i'
/// (I omega + m p x p' for a rigid motion).
inline Eigen::Vector3d angular_momentum(const Model& model, int b, const Eigen::VectorXd& x,
                                        const Eigen::VectorXd& v) {
  const RigidBody& body = model.rigid_bodies[b];
  Eigen::Vector3d L =
      body.mass *
      Eigen::Vector3d(x.segment<3>(body.dof(0))).cross(Eigen::Vector3d(v.segment<3>(body.dof(0))));
  for (int j = 0; j < 3; ++j) {
    const Eigen::Vector3d a = x.segment<3>(body.dof(3 + 3 * j));
    const Eigen::Vector3d da = v.segment<3>(body.dof(3 + 3 * j));
    L += body.second_moments[j] * a.cross(da);
  }
  return L;
}

}  // namespace softgrad::test

namespace softgrad::test {

/// A hinge (change `type` for the others) from `parent` (-1: the world) to `child` at `anchor`
/// about `axis`, with the default stiffnesses for steps of 1 ms.
inline JointSpec hinge_spec(std::string name, int parent, int child, const Eigen::Vector3d& anchor,
                            const Eigen::Vector3d& axis, const Model& model) {
  JointSpec spec;
  spec.name = std::move(name);
  spec.parent = parent;
  spec.child = child;
  spec.anchor = anchor;
  spec.axis = axis;
  return with_default_stiffness(model, spec, 1e-3);
}

/// Adds the rigid bodies' and joints' terms (and gravity -9.81 along y).
inline void finish_rigid_model(Model& model, bool gravity) {
  add_rigidity_term(model);
  add_joint_term(model);
  if (gravity) add_gravity(model, Eigen::Vector3d(0.0, -9.81, 0.0));
}

}  // namespace softgrad::test
