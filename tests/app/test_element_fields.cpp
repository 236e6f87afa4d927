#include <doctest/doctest.h>

#include <Eigen/Geometry>
#include <cmath>

#include "app_test_support.hpp"
#include "io/element_fields.hpp"

using softgrad::element_fields;
using namespace softgrad;
using namespace softgrad::test;

namespace {

// x = F X + c for every vertex.
Eigen::VectorXd deformed(const Model& model, const Eigen::Matrix3d& F) {
  Eigen::VectorXd x = model.X;
  for (int i = 0; i < model.n_verts; ++i)
    x.segment<3>(3 * i) = F * model.X.segment<3>(3 * i) + Eigen::Vector3d(0.1, -0.2, 0.3);
  return x;
}

}  // namespace

TEST_CASE("app/element_fields: J, energy density and Cauchy stress of a uniaxial StVK stretch") {
  // F = diag(a, 1, 1): E11 = (a^2 - 1)/2, S = 2 mu E + lambda tr(E) I, sigma = F S F^T / J.
  const double E = 2e5, nu = 0.3, a = 1.25;
  const auto model = box_model("stvk", E, nu, 1000.0, {2, 1, 1}, {2, 1, 1});
  const double mu = E / (2 * (1 + nu)), lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
  const double E11 = 0.5 * (a * a - 1);
  const double sigma11 = a * a * (2 * mu + lambda) * E11 / a, sigma22 = lambda * E11 / a;
  const double psi = mu * E11 * E11 + 0.5 * lambda * E11 * E11;

  const auto fields = element_fields(
      *model, deformed(*model, Eigen::Vector3d(a, 1, 1).asDiagonal().toDenseMatrix()),
      model->default_parameters());
  REQUIRE(fields.size() == 3);
  CHECK(fields[0].name == "J");
  CHECK(fields[1].name == "strain_energy_density");
  CHECK(fields[2].name == "cauchy_stress");
  const int n = 12;  // 2 x 1 x 1 cells, 6 tets each
  REQUIRE(fields[2].values.size() == 9 * n);
  for (int e = 0; e < n; ++e) {
    CHECK(fields[0].values[e] == doctest::Approx(a).epsilon(1e-12));
    CHECK(fields[1].values[e] == doctest::Approx(psi).epsilon(1e-10));
    const double* s = fields[2].values.data() + 9 * e;
    CHECK(s[0] == doctest::Approx(sigma11).epsilon(1e-10));
    CHECK(s[4] == doctest::Approx(sigma22).epsilon(1e-10));
    CHECK(s[8] == doctest::Approx(sigma22).epsilon(1e-10));
    for (const int off : {1, 2, 3, 5, 6, 7}) CHECK(std::abs(s[off]) < 1e-9 * sigma11);
  }

  // The rollout's parameters, not the model's: twice the modulus, twice the stress.
  TermParameters doubled = model->default_parameters();
  const int k = model->find_term("elastic:box");
  doubled[k].head(n) *= 2.0;  // group-major: the first n entries are the elements' moduli
  const auto stiffer = element_fields(
      *model, deformed(*model, Eigen::Vector3d(a, 1, 1).asDiagonal().toDenseMatrix()), doubled);
  CHECK(stiffer[2].values[0] == doctest::Approx(2 * sigma11).epsilon(1e-10));
}

TEST_CASE("app/element_fields: a rigid rotation has J = 1 and no stress (neo-Hookean)") {
  const auto model = box_model("neo_hookean", 1e5, 0.3, 1000.0, {1, 1, 1}, {1, 1, 1});
  const Eigen::Matrix3d R = Eigen::AngleAxisd(0.8, Eigen::Vector3d(1, 2, 3).normalized()).matrix();
  const auto fields = element_fields(*model, deformed(*model, R), model->default_parameters());
  REQUIRE(fields.size() == 3);
  CHECK(fields[0].values.minCoeff() == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(fields[0].values.maxCoeff() == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(fields[1].values.cwiseAbs().maxCoeff() < 1e-9);
  CHECK(fields[2].values.cwiseAbs().maxCoeff() < 1e-6);  // Pa, against E = 1e5 Pa
}
