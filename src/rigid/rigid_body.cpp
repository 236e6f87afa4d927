// Rigid bodies in the Model: four vertices each (p, a1, a2, a3), their masses from the shape.
#include "softgrad/rigid_body.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <Eigen/LU>
#include <Eigen/SVD>
#include <cmath>
#include <memory>
#include <sstream>

#include "../energies/inertia_term.hpp"
#include "rigidity_term.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/model.hpp"
#include "spin_velocity.hpp"

namespace softgrad {
namespace {

bool is_rotation(const Eigen::Matrix3d& R) {
  return R.allFinite() && (R.transpose() * R - Eigen::Matrix3d::Identity()).norm() < 1e-6 &&
         R.determinant() > 0.0;
}

// The principal axes of a second moment S (columns, a right-handed frame) and S along them.
void principal_axes(const Eigen::Matrix3d& S, Eigen::Matrix3d& axes, Eigen::Vector3d& moments) {
  // A diagonal S (boxes, spheres, capsules, cylinders) keeps the shape's own axes.
  if ((S - Eigen::Matrix3d(S.diagonal().asDiagonal())).norm() <= 1e-14 * S.norm()) {
    axes.setIdentity();
    moments = S.diagonal();
    return;
  }
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(S);
  axes = eig.eigenvectors();
  if (axes.determinant() < 0.0) axes.col(2) *= -1.0;
  moments = eig.eigenvalues();
}

}  // namespace

Eigen::Vector3d RigidBody::position(const Eigen::VectorXd& x) const { return x.segment<3>(dof(0)); }

Eigen::Matrix3d RigidBody::matrix(const Eigen::VectorXd& x) const {
  Eigen::Matrix3d A;
  for (int j = 0; j < 3; ++j) A.col(j) = x.segment<3>(dof(3 + 3 * j));
  return A;
}

Eigen::Vector3d RigidBody::point(const Eigen::VectorXd& x, const Eigen::Vector3d& X) const {
  return position(x) + matrix(x) * X;
}

Eigen::Vector3d RigidBody::body_point(const Eigen::VectorXd& x,
                                      const Eigen::Vector3d& world) const {
  return matrix(x).lu().solve(world - position(x));
}

Eigen::Vector3d RigidBody::direction(const Eigen::VectorXd& x, const Eigen::Vector3d& n) const {
  return matrix(x) * n;
}

Eigen::Vector3d RigidBody::angular_velocity(const Eigen::VectorXd& x,
                                            const Eigen::VectorXd& v) const {
  const Eigen::Matrix3d W = matrix(v) * matrix(x).transpose();
  return 0.5 * Eigen::Vector3d(W(2, 1) - W(1, 2), W(0, 2) - W(2, 0), W(1, 0) - W(0, 1));
}

RigidBodyPose rigid_body_pose(const RigidBody& b, const Eigen::VectorXd& x,
                              const Eigen::VectorXd& v) {
  RigidBodyPose pose;
  pose.position = b.position(x);
  pose.velocity = b.position(v);
  pose.angular_velocity = b.angular_velocity(x, v);
  const Eigen::JacobiSVD<Eigen::Matrix3d> svd(b.matrix(x),
                                              Eigen::ComputeFullU | Eigen::ComputeFullV);
  Eigen::Matrix3d U = svd.matrixU();
  if ((U * svd.matrixV().transpose()).determinant() < 0) U.col(2) *= -1;
  pose.rotation = U * svd.matrixV().transpose() * b.shape_axes.transpose();
  Eigen::Quaterniond q(pose.rotation);
  q.normalize();
  if (q.w() < 0) q.coeffs() *= -1;
  pose.quaternion = Eigen::Vector4d(q.w(), q.x(), q.y(), q.z());
  return pose;
}

void set_rigid_velocity(const Model& model, int b, const Eigen::Vector3d& velocity,
                        const Eigen::Vector3d& angular_velocity, const Eigen::VectorXd& x,
                        Eigen::VectorXd& v) {
  const RigidBody& body = model.rigid_bodies.at(b);
  v.segment<3>(body.dof(0)) = velocity;
  write_spin_velocity(body, angular_velocity, x, v);
}

int find_rigid_body(const Model& model, const std::string& name) {
  for (size_t b = 0; b < model.rigid_bodies.size(); ++b)
    if (model.rigid_bodies[b].name == name) return static_cast<int>(b);
  return -1;
}

namespace {

// The spec's checks that need no mass properties (add_rigid_body's @throws).
void check_spec(const Model& model, const RigidBodySpec& spec, const std::string& where) {
  if (model.dim != 3 && !(model.bodies.empty() && model.n_verts == 0))
    throw InputError(where + ": rigid bodies need a 3D model");
  if (model.terms.size() > (inertia_term(model) ? 1u : 0u))
    throw InputError(where + ": add rigid bodies before the model's energy terms");
  if (find_rigid_body(model, spec.name) >= 0)
    throw InputError(where + ": another rigid body has this name");
  if (!is_rotation(spec.rotation))
    throw InputError(where + ": the rotation is not a rotation matrix (orthonormal, det +1)");
  if (!spec.position.allFinite()) throw InputError(where + ": the position is not finite");
  if (!(spec.rigidity > 0.0) || !std::isfinite(spec.rigidity))
    throw InputError(where + ": rigidity must be positive and finite");
}

}  // namespace

int add_rigid_body(Model& model, RigidBodySpec spec) {
  const std::string where = "rigid body '" + spec.name + "'";
  check_spec(model, spec, where);
  if (!spec.shape) throw InputError(where + ": no shape");
  MassProperties props;
  try {
    props = spec.shape->mass_properties(spec.density);
  } catch (const InputError& e) {
    throw InputError(where + ": " + e.what());
  }
  model.dim = 3;

  RigidBody body;
  body.name = std::move(spec.name);
  body.shape = std::move(spec.shape);
  body.density = spec.density;
  body.mass = props.mass;
  body.volume = props.volume;
  body.shape_center = props.center;
  principal_axes(props.second_moment, body.shape_axes, body.second_moments);
  body.rigidity = spec.rigidity;
  body.kinematic = spec.motion.has_value();
  body.collides = spec.collides;
  body.node = model.n_verts;

  // Drawing surface and contact spheres in the body frame.
  const Eigen::Matrix3d to_body = body.shape_axes.transpose();
  std::vector<Eigen::Vector3d> centers;
  try {
    body.shape->surface_mesh(spec.surface_resolution, body.surface, body.triangles);
    body.shape->contact_spheres(centers, body.contact_radii);
  } catch (const InputError& e) {
    throw InputError(where + ": " + e.what());
  }
  for (int v = 0; v < body.surface.rows(); ++v)
    body.surface.row(v) =
        (to_body * (body.surface.row(v).transpose() - body.shape_center)).transpose();
  for (const Eigen::Vector3d& c : centers)
    body.contact_centers.push_back(to_body * (c - body.shape_center));

  // Rest dofs: the centre of mass and the body axes in the world; masses m and S_i.
  const Eigen::Vector3d p = spec.position + spec.rotation * body.shape_center;
  const Eigen::Matrix3d A = spec.rotation * body.shape_axes;
  const int first = model.n_verts * 3;
  model.X.conservativeResize(first + 12);
  model.mass.conservativeResize(first + 12);
  model.X.segment<3>(first) = p;
  model.mass.segment<3>(first).setConstant(body.mass);
  for (int j = 0; j < 3; ++j) {
    model.X.segment<3>(first + 3 + 3 * j) = A.col(j);
    model.mass.segment<3>(first + 3 + 3 * j).setConstant(body.second_moments[j]);
  }
  model.n_verts += 4;

  if (spec.motion) {
    KinematicGroup group = *spec.motion;
    group.name = body.name;
    group.verts = {body.node, body.node + 1, body.node + 2, body.node + 3};
    group.affine = true;
    group.axes = {true, true, true};
    model.kinematic.push_back(std::move(group));
  }
  model.rigid_bodies.push_back(std::move(body));
  ensure_inertia_term(model);
  return static_cast<int>(model.rigid_bodies.size()) - 1;
}

void add_rigidity_term(Model& model) {
  std::vector<int> bodies;
  for (size_t b = 0; b < model.rigid_bodies.size(); ++b)
    if (!model.rigid_bodies[b].kinematic) bodies.push_back(static_cast<int>(b));
  if (!bodies.empty()) model.terms.push_back(std::make_unique<RigidityTerm>(model, bodies));
}

}  // namespace softgrad
