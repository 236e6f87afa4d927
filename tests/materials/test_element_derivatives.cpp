// Element-level derivatives of every registered model (including the spring network) against
// central finite differences, 2D and 3D, at well-shaped and strongly deformed states.
#include <doctest/doctest.h>

#include <Eigen/Eigenvalues>
#include <cmath>

#include "support/finite_difference.hpp"
#include "support/material_conformance.hpp"
#include "support/single_element.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

struct Case {
  std::shared_ptr<const MaterialModel> model;
  int d;
  SingleElement element;
  Eigen::VectorXd x;
  int n() const { return (d + 1) * d; }
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const auto& m : all_materials())
    for (int d : {2, 3})
      for (double spread : {0.1, 1.5}) {
        SingleElement el(d, sample_params(*m));
        const Eigen::MatrixXd F =
            random_rotation(d) * random_deformation(d, 1.0 / (1.0 + spread), 1.0 + spread);
        Eigen::VectorXd x = el.deformed(F);
        out.push_back(Case{m, d, std::move(el), std::move(x)});
      }
  return out;
}

double energy(const Case& c, const Eigen::VectorXd& x) {
  return c.model->energy(c.element.batch(), x.data());
}

Eigen::VectorXd gradient(const Case& c, const Eigen::VectorXd& x) {
  Eigen::VectorXd g(c.n());
  double E = 0;
  REQUIRE(c.model->gradient(c.element.batch(), x.data(), &E, g.data()).ok());
  return g;
}

RowMajor hessian(const Case& c, bool project) {
  RowMajor H(c.n(), c.n());
  Eigen::VectorXd g(c.n());
  double E = 0;
  REQUIRE(c.model->hessian(c.element.batch(), c.x.data(), project, &E, g.data(), H.data()).ok());
  CHECK(close(g, gradient(c, c.x), 1e-13));
  // Both paths agree to rounding of the energy's terms (corotated models cancel ||F||^2 - 2 tr S).
  CHECK(std::abs(E - energy(c, c.x)) <= 1e-13 * c.element.params[0] * c.element.volume[0]);
  return H;
}

}  // namespace

TEST_CASE("materials/element: gradient matches central differences") {
  for (const auto& c : cases()) {
    INFO(c.model->name() << " in " << c.d << "D");
    const Eigen::VectorXd g = gradient(c, c.x);
    const Eigen::VectorXd fd =
        fd_gradient([&](const Eigen::VectorXd& y) { return energy(c, y); }, c.x);
    CHECK(g.norm() > 0.0);
    CHECK(close(g, fd, 1e-6, 1e-10 * c.element.params[0]));
  }
}

TEST_CASE("materials/element: Hessian matches differences of the gradient") {
  for (const auto& c : cases()) {
    INFO(c.model->name() << " in " << c.d << "D");
    const RowMajor H = hessian(c, false);
    const Eigen::MatrixXd fd =
        fd_jacobian([&](const Eigen::VectorXd& y) { return gradient(c, y); }, c.x);
    CHECK(close(H.reshaped(), fd.reshaped(), 1e-6, 1e-10 * c.element.params[0]));
    CHECK((H - H.transpose()).norm() == 0.0);
  }
}

TEST_CASE("materials/element: projected Hessian is PSD and equal to H when H is PSD") {
  for (const auto& c : cases()) {
    INFO(c.model->name() << " in " << c.d << "D");
    const RowMajor H = hessian(c, false);
    const RowMajor Hp = hessian(c, true);
    const Eigen::VectorXd ev = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(H).eigenvalues();
    const Eigen::VectorXd evp = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(Hp).eigenvalues();
    CHECK(evp.minCoeff() >= -1e-12 * evp.cwiseAbs().maxCoeff());
    if (ev.minCoeff() >= 0.0) CHECK(close(Hp.reshaped(), H.reshaped(), 1e-14));
    // Clamping the element Hessian's spectrum keeps its non-negative part; isotropic models
    // clamp d2psi/dF2 instead (test_projection.cpp).
    if (!c.model->isotropic())
      CHECK(evp.maxCoeff() == doctest::Approx(ev.maxCoeff()).epsilon(1e-10));
  }
}

TEST_CASE("materials/element: Hessian-vector product equals H u") {
  for (const auto& c : cases()) {
    INFO(c.model->name() << " in " << c.d << "D");
    const RowMajor H = hessian(c, false);
    const Eigen::VectorXd u = random_matrix(c.n(), 1);
    Eigen::VectorXd Hu(c.n());
    REQUIRE(
        c.model->hessian_vector_product(c.element.batch(), c.x.data(), u.data(), Hu.data()).ok());
    CHECK(close(Hu, H * u, 1e-12));
  }
}

TEST_CASE("materials/element: parameter gradient and mixed product match differences") {
  for (const auto& c : cases()) {
    INFO(c.model->name() << " in " << c.d << "D");
    const int M = c.model->n_params();
    const Eigen::VectorXd lambda = random_matrix(c.n(), 1);
    Eigen::VectorXd dE_dp(M), mixed(M);
    REQUIRE(c.model
                ->parameter_derivatives(c.element.batch(), c.x.data(), lambda.data(), dE_dp.data(),
                                        mixed.data())
                .ok());
    const Eigen::Map<const Eigen::VectorXd> p0(c.element.params.data(), M);
    const auto with_params = [&](const Eigen::VectorXd& p) {
      Case changed = c;
      changed.element.params.assign(p.data(), p.data() + M);
      return changed;
    };
    const Eigen::VectorXd fd_dp =
        fd_gradient([&](const Eigen::VectorXd& p) { return energy(with_params(p), c.x); }, p0);
    const Eigen::VectorXd fd_mixed = fd_gradient(
        [&](const Eigen::VectorXd& p) { return lambda.dot(gradient(with_params(p), c.x)); }, p0);
    CHECK(dE_dp.norm() > 0.0);
    CHECK(mixed.norm() > 0.0);
    CHECK(close(dE_dp, fd_dp, 1e-6));
    CHECK(close(mixed, fd_mixed, 1e-6));
  }
}

TEST_CASE("materials/element: parameter JVP of the gradient matches differences") {
  for (const auto& c : cases()) {
    INFO(c.model->name() << " in " << c.d << "D");
    const int M = c.model->n_params();
    const Eigen::Map<const Eigen::VectorXd> p0(c.element.params.data(), M);
    // Directions scaled to the parameters, which range from ~0.3 (Poisson) to ~1e5 Pa (moduli).
    const Eigen::VectorXd dp = random_matrix(M, 1).cwiseProduct(p0.cwiseAbs().cwiseMax(1.0));
    Eigen::VectorXd jvp(c.n()), jvp2(c.n());
    REQUIRE(c.model->parameter_jvp(c.element.batch(), c.x.data(), dp.data(), jvp.data()).ok());
    const double h = 1e-6;
    Case plus = c, minus = c;
    for (int j = 0; j < M; ++j) {
      plus.element.params[j] += h * dp[j];
      minus.element.params[j] -= h * dp[j];
    }
    const Eigen::VectorXd fd = (gradient(plus, c.x) - gradient(minus, c.x)) / (2 * h);
    CHECK(jvp.norm() > 0.0);
    CHECK(close(jvp, fd, 1e-6));
    const Eigen::VectorXd dp2 = 2.0 * dp;  // linear in dp
    REQUIRE(c.model->parameter_jvp(c.element.batch(), c.x.data(), dp2.data(), jvp2.data()).ok());
    CHECK(close(jvp2, 2.0 * jvp, 1e-12));
  }
}

TEST_CASE("materials/element: inverted elements are counted, not evaluated") {
  for (const auto& m : all_materials()) {
    if (m->allows_inversion()) continue;
    for (int d : {2, 3}) {
      INFO(m->name() << " in " << d << "D");
      SingleElement el(d, sample_params(*m));
      Eigen::MatrixXd F = Eigen::MatrixXd::Identity(d, d);
      F(d - 1, d - 1) = -1.0;  // mirror: every element inverts
      const Eigen::VectorXd x = el.deformed(F);
      BatchReport report;
      CHECK(m->energy(el.batch(), x.data(), nullptr, &report) == INFINITY);
      CHECK(report.n_inverted == 1);
      CHECK(report.first_inverted == 0);
      Eigen::VectorXd g((d + 1) * d);
      double E = 0;
      CHECK(m->gradient(el.batch(), x.data(), &E, g.data()).n_inverted == 1);
    }
  }
}
