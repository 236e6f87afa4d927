#include "spin_velocity.hpp"

#include <Eigen/Geometry>

namespace softgrad {

void write_spin_velocity(const RigidBody& body, const Eigen::Vector3d& omega,
                         const Eigen::VectorXd& x, Eigen::VectorXd& v) {
  for (int j = 0; j < 3; ++j)
    v.segment<3>(body.dof(3 + 3 * j)) = omega.cross(x.segment<3>(body.dof(3 + 3 * j)));
}

Eigen::Vector3d spin_velocity_pull_back(const RigidBody& body, const Eigen::VectorXd& x,
                                        const Eigen::VectorXd& vbar) {
  Eigen::Vector3d g = Eigen::Vector3d::Zero();
  for (int j = 0; j < 3; ++j) {
    const int a = body.dof(3 + 3 * j);
    g += Eigen::Vector3d(x.segment<3>(a)).cross(Eigen::Vector3d(vbar.segment<3>(a)));
  }
  return g;
}

void spin_velocity_pull_back_positions(const RigidBody& body, const Eigen::Vector3d& omega,
                                       const Eigen::VectorXd& vbar, int offset,
                                       Eigen::VectorXd& xbar) {
  for (int j = 0; j < 3; ++j) {
    const int a = body.dof(3 + 3 * j);
    xbar.segment<3>(offset + a) += Eigen::Vector3d(vbar.segment<3>(a)).cross(omega);
  }
}

void spin_velocity_push_forward(const RigidBody& body, const Eigen::Vector3d& domega,
                                const Eigen::VectorXd& x, Eigen::MatrixXd& W, int col) {
  for (int i = 0; i < 3; ++i)
    W.block<3, 1>(body.dof(3 + 3 * i), col) = domega.cross(x.segment<3>(body.dof(3 + 3 * i)));
}

void spin_velocity_push_forward_positions(const RigidBody& body, const Eigen::Vector3d& omega,
                                          int offset, Eigen::MatrixXd& W) {
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) {
      const int a = body.dof(3 + 3 * i);
      W.block<3, 1>(a, offset + a + k) += omega.cross(Eigen::Vector3d::Unit(k));
    }
}

}  // namespace softgrad
