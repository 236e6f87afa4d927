#include <doctest/doctest.h>

#include <cmath>

#include "softgrad/ad/dual.hpp"

using softgrad::ad::Dual;

TEST_CASE("ad/dual: elementary functions carry exact first derivatives") {
  Dual<2> x(0.7);
  x.d[1] = 1.0;  // d/dx
  x.d[2] = 2.0;  // twice that
  const auto check = [](const Dual<2>& y, double value, double derivative) {
    CHECK(y.d[0] == doctest::Approx(value).epsilon(1e-15));
    CHECK(y.d[1] == doctest::Approx(derivative).epsilon(1e-14));
    CHECK(y.d[2] == doctest::Approx(2 * derivative).epsilon(1e-14));
  };
  check(log(x), std::log(0.7), 1 / 0.7);
  check(exp(x), std::exp(0.7), std::exp(0.7));
  check(sqrt(x), std::sqrt(0.7), 0.5 / std::sqrt(0.7));
  check(sin(x), std::sin(0.7), std::cos(0.7));
  check(cos(x), std::cos(0.7), -std::sin(0.7));
  check(pow(x, 2.5), std::pow(0.7, 2.5), 2.5 * std::pow(0.7, 1.5));
  check(x * x, 0.49, 1.4);
  check(Dual<2>(1.0) / x, 1 / 0.7, -1 / 0.49);
  // atan2(y, x) in both arguments and in every quadrant: d/dx atan2(c, x) = -c / (x^2 + c^2),
  // d/dy atan2(y, c) = c / (y^2 + c^2).
  for (const double c : {0.4, -0.4}) {
    check(atan2(Dual<2>(c), x), std::atan2(c, 0.7), -c / (0.49 + c * c));
    check(atan2(Dual<2>(c), -x), std::atan2(c, -0.7), c / (0.49 + c * c));
    check(atan2(x, Dual<2>(c)), std::atan2(0.7, c), c / (0.49 + c * c));
    check(atan2(-x, Dual<2>(c)), std::atan2(-0.7, c), -c / (0.49 + c * c));
  }
}
