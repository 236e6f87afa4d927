#include <doctest/doctest.h>

#include "solvers/vector_ops.hpp"

namespace softgrad {
namespace {

TEST_CASE("solvers/vector_ops: Eigen overloads compute the BLAS-1 operations") {
  Eigen::VectorXd x(3);
  Eigen::VectorXd y(3);
  x << 1.0, 2.0, 2.0;
  y << 1.0, -1.0, 0.5;
  CHECK(vector_size(x) == 3);
  CHECK(dot(x, y) == doctest::Approx(0.0));
  CHECK(norm(x) == doctest::Approx(3.0));
  axpy(2.0, x, y);  // y = 2 x + y
  CHECK(y.isApprox(Eigen::Vector3d(3.0, 3.0, 4.5)));
  axpby(1.0, x, -1.0, y);  // y = x - y
  CHECK(y.isApprox(Eigen::Vector3d(-2.0, -1.0, -2.5)));
  copy(x, y);
  CHECK(y == x);
  set_zero(y);
  CHECK(y.isZero(0.0));
  CHECK(all_finite(y));
  y[1] = std::nan("");
  CHECK_FALSE(all_finite(y));
}

}  // namespace
}  // namespace softgrad
