#include <doctest/doctest.h>

#include <cmath>

#include "softgrad/detail/ad/dual.hpp"
#include "softgrad/detail/ad/nested_dual.hpp"

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

TEST_CASE("ad/dual: nested duals carry exact second derivatives") {
  using softgrad::ad::NestedDual;
  // x seeded in both levels: lane 1's tangent is then f''(x), lane 0's tangent and lane 1's
  // value are f'(x). A second outer lane seeded with twice the direction checks linearity.
  NestedDual<2, 1> x(0.7);
  x.d[0].d[1] = 1.0;
  x.d[1].d[0] = 1.0;
  x.d[2].d[0] = 2.0;
  const auto check = [](const NestedDual<2, 1>& y, double f, double df, double d2f) {
    CHECK(y.d[0].d[0] == doctest::Approx(f).epsilon(1e-15));
    CHECK(y.d[0].d[1] == doctest::Approx(df).epsilon(1e-14));
    CHECK(y.d[1].d[0] == doctest::Approx(df).epsilon(1e-14));
    CHECK(y.d[1].d[1] == doctest::Approx(d2f).epsilon(1e-14));
    CHECK(y.d[2].d[1] == doctest::Approx(2 * d2f).epsilon(1e-14));
  };
  const double a = 0.7;
  check(log(x), std::log(a), 1 / a, -1 / (a * a));
  check(exp(x), std::exp(a), std::exp(a), std::exp(a));
  check(sqrt(x), std::sqrt(a), 0.5 / std::sqrt(a), -0.25 / (a * std::sqrt(a)));
  check(sin(x), std::sin(a), std::cos(a), -std::sin(a));
  check(cos(x), std::cos(a), -std::sin(a), -std::cos(a));
  check(pow(x, 2.5), std::pow(a, 2.5), 2.5 * std::pow(a, 1.5), 3.75 * std::pow(a, 0.5));
  check(x * x * x, a * a * a, 3 * a * a, 6 * a);
  check(1.0 / x, 1 / a, -1 / (a * a), 2 / (a * a * a));
  check((2.0 - x) / (x + 1.0), (2 - a) / (a + 1), -3 / ((a + 1) * (a + 1)),
        6 / ((a + 1) * (a + 1) * (a + 1)));
  // d/dx atan2(c, x) = -c / (x^2 + c^2), d^2/dx^2 = 2 c x / (x^2 + c^2)^2; and in y.
  for (const double c : {0.4, -0.4}) {
    const double r2 = a * a + c * c;
    check(atan2(NestedDual<2, 1>(c), x), std::atan2(c, a), -c / r2, 2 * c * a / (r2 * r2));
    check(atan2(x, NestedDual<2, 1>(c)), std::atan2(a, c), c / r2, -2 * c * a / (r2 * r2));
  }
  // Comparisons and value_of look at the value only.
  CHECK(x < 0.8);
  CHECK(x > NestedDual<2, 1>(0.6));
  CHECK(value_of(x) == 0.7);
}
