// Adam: the bias-corrected first step and convergence on a quadratic.
#include <doctest/doctest.h>

#include "softgrad/adam.hpp"
#include "softgrad/errors.hpp"

namespace softgrad::test {

TEST_CASE("optim/adam: the first step moves each coordinate by the learning rate against g") {
  Adam adam(3, {.learning_rate = 0.01, .epsilon = 0.0});
  Eigen::VectorXd theta(3), g(3);
  theta << 1.0, -2.0, 0.5;
  g << 3.0, -1e-4, 20.0;
  const Eigen::VectorXd start = theta;
  adam.step(theta, g);
  // Bias correction makes m / sqrt(v) = g / |g| at the first step.
  CHECK((theta - start).isApprox(Eigen::Vector3d(-0.01, 0.01, -0.01), 1e-14));
  CHECK(adam.steps() == 1);
  CHECK_THROWS_AS(adam.step(theta, Eigen::VectorXd::Zero(2)), InputError);
  CHECK_THROWS_AS(Adam(3, {.learning_rate = 0.0}), InputError);
  CHECK_THROWS_AS(Adam(3, {.beta1 = 1.0}), InputError);
}

TEST_CASE("optim/adam: minimises an ill-conditioned quadratic") {
  // f = 1/2 sum_i c_i (theta_i - 1)^2 with c from 1e-2 to 1e2.
  Eigen::VectorXd c(4), theta = Eigen::VectorXd::Zero(4);
  c << 1e-2, 1.0, 10.0, 1e2;
  Adam adam(4, {.learning_rate = 0.05});
  for (int k = 0; k < 2000; ++k) adam.step(theta, c.cwiseProduct(theta - Eigen::VectorXd::Ones(4)));
  CHECK((theta - Eigen::VectorXd::Ones(4)).cwiseAbs().maxCoeff() < 1e-3);
}

}  // namespace softgrad::test
