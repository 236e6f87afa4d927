#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cmath>

#include "softgrad/detail/ad/derivatives.hpp"
#include "softgrad/detail/ad/singular_values.hpp"
#include "support/finite_difference.hpp"

namespace ad = softgrad::ad;
using softgrad::test::close;
using softgrad::test::fd_gradient;

namespace {

// A nonlinear test energy touching every operation the tape supports.
constexpr auto kEnergy = [](const auto* x, const auto* p) {
  using std::cos;
  using std::exp;
  using std::log;
  using std::pow;
  using std::sin;
  using std::sqrt;
  using std::atan2;
  auto s = p[0] * log(1.0 + x[0] * x[0]) + x[1] * x[2] * exp(p[1] * x[0]);
  s = s + sqrt(x[2] * x[2] + 1.0) + sin(x[0]) * x[1] / (x[2] + 3.0) - cos(x[1] * p[1]);
  s = s + pow(x[1] * x[1] + 0.5, 1.5) / (2.0 - x[3] * p[0]) + 2.0 / (x[3] + 4.0);
  s -= x[3] * x[0];
  s = s + atan2(x[1] * p[1], x[0] - 2.0 * x[3]);
  return s;
};
constexpr int kN = 4;
constexpr int kM = 2;

const Eigen::Vector4d kX(0.3, -0.7, 1.1, 0.4);
const Eigen::Vector2d kP(1.3, 0.6);

double energy(const Eigen::VectorXd& x, const Eigen::VectorXd& p) {
  return ad::value<kN, kM>(kEnergy, x.data(), p.data());
}

Eigen::VectorXd ad_gradient(const Eigen::VectorXd& x) {
  Eigen::VectorXd g(kN);
  double e = 0;
  REQUIRE(ad::gradient<kN, kM>(kEnergy, x.data(), kP.data(), e, g.data()));
  return g;
}

}  // namespace

TEST_CASE("ad/derivatives: gradient matches central differences") {
  const Eigen::VectorXd x = kX;
  Eigen::VectorXd g(kN);
  double e = 0;
  REQUIRE(ad::gradient<kN, kM>(kEnergy, x.data(), kP.data(), e, g.data()));
  CHECK(e == doctest::Approx(energy(x, kP)).epsilon(1e-15));
  const Eigen::VectorXd fd =
      fd_gradient([&](const Eigen::VectorXd& y) { return energy(y, kP); }, x);
  CHECK(g.norm() > 0.1);
  CHECK(close(g, fd, 1e-8));
}

TEST_CASE("ad/derivatives: Hessian matches differences of the gradient and is symmetric") {
  const Eigen::VectorXd x = kX;
  Eigen::Matrix<double, kN, kN, Eigen::RowMajor> H;
  Eigen::VectorXd g(kN);
  double e = 0;
  REQUIRE(ad::hessian<kN, kM>(kEnergy, x.data(), kP.data(), e, g.data(), H.data()));
  CHECK(close(g, ad_gradient(x), 1e-14));
  const Eigen::MatrixXd fd = softgrad::test::fd_jacobian(ad_gradient, x);
  CHECK(close(H.reshaped(), fd.reshaped(), 1e-7));
  CHECK((H - H.transpose()).norm() == 0.0);
}

TEST_CASE("ad/derivatives: Hessian of a polynomial equals its closed form") {
  // E = x0^2 x1 + 3 x1 x2^2 + p0 x0 x2
  const auto f = [](const auto* x, const auto* p) {
    return x[0] * x[0] * x[1] + 3.0 * x[1] * x[2] * x[2] + p[0] * x[0] * x[2];
  };
  const double x[3] = {1.5, -2.0, 0.5};
  const double p[1] = {0.7};
  double e = 0, g[3], H[9];
  REQUIRE(ad::hessian<3, 1>(f, x, p, e, g, H));
  CHECK(e == doctest::Approx(1.5 * 1.5 * -2.0 + 3 * -2.0 * 0.25 + 0.7 * 1.5 * 0.5));
  const double g_exact[3] = {2 * x[0] * x[1] + p[0] * x[2], x[0] * x[0] + 3 * x[2] * x[2],
                             6 * x[1] * x[2] + p[0] * x[0]};
  const double H_exact[9] = {2 * x[1], 2 * x[0], p[0],     2 * x[0], 0,
                             6 * x[2], p[0],     6 * x[2], 6 * x[1]};
  for (int i = 0; i < 3; ++i) CHECK(g[i] == doctest::Approx(g_exact[i]).epsilon(1e-15));
  for (int i = 0; i < 9; ++i) CHECK(H[i] == doctest::Approx(H_exact[i]).epsilon(1e-15));
}

TEST_CASE("ad/derivatives: Hessian-vector product equals H u, and returns the gradient") {
  const Eigen::VectorXd x = kX;
  const Eigen::Vector4d u(0.2, -1.0, 0.5, 2.0);
  Eigen::Matrix<double, kN, kN, Eigen::RowMajor> H;
  Eigen::VectorXd g(kN), g2(kN), Hu(kN);
  double e = 0;
  REQUIRE(ad::hessian<kN, kM>(kEnergy, x.data(), kP.data(), e, g.data(), H.data()));
  REQUIRE(ad::hessian_vector_product<kN, kM>(kEnergy, x.data(), kP.data(), u.data(), Hu.data(),
                                             g2.data()));
  const Eigen::VectorXd expected = H * u;
  CHECK(expected.norm() > 0.1);
  CHECK(close(Hu, expected, 1e-13));
  CHECK(close(g2, g, 1e-14));
}

TEST_CASE("ad/derivatives: parameter gradient and mixed product match central differences") {
  const Eigen::VectorXd x = kX;
  const Eigen::Vector4d lambda(0.5, 1.0, -0.3, 0.8);
  Eigen::VectorXd dE_dp(kM), mixed(kM);
  REQUIRE(ad::parameter_derivatives<kN, kM>(kEnergy, x.data(), kP.data(), lambda.data(),
                                            dE_dp.data(), mixed.data()));
  const Eigen::VectorXd fd_dp =
      fd_gradient([&](const Eigen::VectorXd& p) { return energy(x, p); }, kP);
  CHECK(close(dE_dp, fd_dp, 1e-8));
  // mixed = d/dp (lambda . dE/dx)
  const auto lambda_dot_grad = [&](const Eigen::VectorXd& p) {
    Eigen::VectorXd g(kN);
    double e = 0;
    ad::gradient<kN, kM>(kEnergy, x.data(), p.data(), e, g.data());
    return lambda.dot(g);
  };
  const Eigen::VectorXd fd_mixed = fd_gradient(lambda_dot_grad, kP);
  CHECK(mixed.norm() > 0.1);
  CHECK(close(mixed, fd_mixed, 1e-8));
}

TEST_CASE("ad/derivatives: forward-mode parameter derivatives equal the tape's") {
  // parameter_derivatives_forward (nested duals, no tape) against the reverse sweep, which the
  // test above checks against central differences; kEnergy touches every operation.
  const Eigen::VectorXd x = kX;
  const Eigen::Vector4d lambda(0.5, 1.0, -0.3, 0.8);
  Eigen::VectorXd dE_dp(kM), mixed(kM), dE_dp_fwd(kM), mixed_fwd(kM);
  REQUIRE(ad::parameter_derivatives<kN, kM>(kEnergy, x.data(), kP.data(), lambda.data(),
                                            dE_dp.data(), mixed.data()));
  ad::parameter_derivatives_forward<kN, kM>(kEnergy, x.data(), kP.data(), lambda.data(),
                                            dE_dp_fwd.data(), mixed_fwd.data());
  CHECK(mixed.norm() > 0.1);
  CHECK(close(dE_dp_fwd, dE_dp, 1e-14));
  CHECK(close(mixed_fwd, mixed, 1e-14));
  // Without lambda the mixed product vanishes.
  ad::parameter_derivatives_forward<kN, kM>(kEnergy, x.data(), kP.data(), nullptr, dE_dp_fwd.data(),
                                            mixed_fwd.data());
  CHECK(close(dE_dp_fwd, dE_dp, 1e-14));
  CHECK(mixed_fwd.norm() == 0.0);
}

TEST_CASE("ad/derivatives: forward-mode gradient equals the tape's") {
  const Eigen::VectorXd x = kX;
  Eigen::VectorXd g(kN), g_fwd(kN);
  double e = 0, e_fwd = 0;
  REQUIRE(ad::gradient<kN, kM>(kEnergy, x.data(), kP.data(), e, g.data()));
  ad::forward_gradient<kN, kM>(kEnergy, x.data(), kP.data(), e_fwd, g_fwd.data());
  CHECK(e_fwd == e);
  CHECK(g.norm() > 0.1);
  CHECK(close(g_fwd, g, 1e-14));
  // Branches look at values, as on the tape: each side of a kink gives its own derivative.
  const auto kink = [](const auto* y, const auto*) {
    using ad::value_of;
    auto a = y[0] * y[1];
    if (value_of(a) > 0.5 || a >= y[1] + 2.0) return a * a;
    if (a < 0.0 && a <= y[1]) return -a;
    return 3.0 - a;
  };
  for (const Eigen::Vector2d& y :
       {Eigen::Vector2d(1.0, 1.0), Eigen::Vector2d(-1.0, 0.5), Eigen::Vector2d(0.2, 0.5)}) {
    Eigen::Vector2d gk, gk_fwd;
    double ek = 0, ek_fwd = 0;
    REQUIRE(ad::gradient<2, 0>(kink, y.data(), nullptr, ek, gk.data()));
    ad::forward_gradient<2, 0>(kink, y.data(), static_cast<const double*>(nullptr), ek_fwd,
                               gk_fwd.data());
    CHECK(ek_fwd == ek);
    CHECK(gk_fwd == gk);
    CHECK(gk.norm() > 0.1);
  }
}

TEST_CASE("ad/derivatives: forward-mode Hessian equals the tape's and is symmetric") {
  const Eigen::VectorXd x = kX;
  Eigen::Matrix<double, kN, kN, Eigen::RowMajor> H, H_fwd;
  Eigen::VectorXd g(kN), g_fwd(kN);
  double e = 0, e_fwd = 0;
  REQUIRE(ad::hessian<kN, kM>(kEnergy, x.data(), kP.data(), e, g.data(), H.data()));
  ad::forward_hessian<kN, kM>(kEnergy, x.data(), kP.data(), e_fwd, g_fwd.data(), H_fwd.data());
  CHECK(e_fwd == e);
  CHECK(close(g_fwd, g, 1e-14));
  CHECK(close(H_fwd.reshaped(), H.reshaped(), 1e-13));
  CHECK((H_fwd - H_fwd.transpose()).norm() == 0.0);
}

TEST_CASE("ad/derivatives: the sum of singular values in forward mode equals the tape's") {
  // tr S(G(y)) with G nonlinear in y, so that both levels of the nested duals carry
  // second derivatives of F into the primitive; the tape's primitive is the reference.
  const auto f = [](const auto* y, const auto* p) {
    softgrad::Mat<std::remove_cvref_t<decltype(y[0])>, 3, 3> F;
    for (int k = 0; k < 9; ++k) F.a[k] = p[0] * y[k] + 0.1 * y[k] * y[k];
    return softgrad::sum_of_singular_values(F);
  };
  const double y[9] = {1.1, 0.2, -0.1, 0.3, 0.9, 0.25, -0.2, 0.1, 1.3};
  const double p[1] = {0.8};
  double e = 0, e_fwd = 0, g[9], g_fwd[9], H[81], H_fwd[81];
  REQUIRE(ad::hessian<9, 1>(f, y, p, e, g, H));
  ad::forward_hessian<9, 1>(f, y, p, e_fwd, g_fwd, H_fwd);
  const auto vec = [](const double* a, int n) { return Eigen::Map<const Eigen::VectorXd>(a, n); };
  CHECK(e_fwd == doctest::Approx(e).epsilon(1e-15));
  CHECK(close(vec(g_fwd, 9), vec(g, 9), 1e-14));
  CHECK(vec(H, 81).norm() > 0.1);
  CHECK(close(vec(H_fwd, 81), vec(H, 81), 1e-12));
  const double lambda[9] = {0.3, -0.5, 0.2, 0.1, 0.7, -0.4, 0.6, 0.05, -0.2};
  double dE_dp = 0, mixed = 0, dE_dp_fwd = 0, mixed_fwd = 0;
  REQUIRE(ad::parameter_derivatives<9, 1>(f, y, p, lambda, &dE_dp, &mixed));
  ad::parameter_derivatives_forward<9, 1>(f, y, p, lambda, &dE_dp_fwd, &mixed_fwd);
  CHECK(std::abs(mixed) > 0.01);
  CHECK(dE_dp_fwd == doctest::Approx(dE_dp).epsilon(1e-14));
  CHECK(mixed_fwd == doctest::Approx(mixed).epsilon(1e-13));
}

TEST_CASE("ad/derivatives: parameter JVP of the gradient matches central differences") {
  const Eigen::VectorXd x = kX;
  const Eigen::VectorXd dp = Eigen::VectorXd::LinSpaced(kM, 0.7, -0.4);
  Eigen::VectorXd g(kN), g_ref(kN), jvp(kN);
  double e = 0;
  REQUIRE(ad::gradient<kN, kM>(kEnergy, x.data(), kP.data(), e, g_ref.data()));
  REQUIRE(ad::gradient_parameter_jvp<kN, kM>(kEnergy, x.data(), kP.data(), dp.data(), g.data(),
                                             jvp.data()));
  CHECK(close(g, g_ref, 1e-14));
  // (d/dt) dE/dx (x; p + t dp) at t = 0, by central differences in t.
  const double h = 1e-6;
  Eigen::VectorXd gp(kN), gm(kN);
  const Eigen::VectorXd pp = kP + h * dp, pm = kP - h * dp;
  ad::gradient<kN, kM>(kEnergy, x.data(), pp.data(), e, gp.data());
  ad::gradient<kN, kM>(kEnergy, x.data(), pm.data(), e, gm.data());
  const Eigen::VectorXd fd = (gp - gm) / (2 * h);
  CHECK(jvp.norm() > 0.1);
  CHECK(close(jvp, fd, 1e-8));
}

TEST_CASE("ad/derivatives: an energy that outgrows the tape reports failure with NaN") {
  const Eigen::VectorXd x = kX;
  Eigen::VectorXd g(kN);
  double e = 0;
  CHECK_FALSE(ad::gradient<kN, kM, 8>(kEnergy, x.data(), kP.data(), e, g.data()));
  CHECK(std::isnan(g[0]));
  CHECK(e == doctest::Approx(energy(x, kP)));  // values stay right
  CHECK(ad::tape_size<kN, kM>(kEnergy, x.data(), kP.data()) > 8);
}

TEST_CASE("ad/derivatives: an energy independent of x has zero derivatives") {
  const auto f = [](const auto* x, const auto* p) {
    using T = std::remove_cvref_t<decltype(x[0])>;
    return T(2.0) * p[0];
  };
  const double x[2] = {1, 2}, p[1] = {3};
  double e = 0, g[2], H[4];
  REQUIRE(ad::hessian<2, 1>(f, x, p, e, g, H));
  CHECK(e == 6.0);
  CHECK(g[0] == 0.0);
  CHECK(H[3] == 0.0);
}
