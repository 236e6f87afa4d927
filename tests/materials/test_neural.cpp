// The neural material's guarantees (softgrad/materials/neural.hpp) at random weights, not only
// at the registered start: the rest state and stiffness, frame-indifference, its derivatives in
// F and in every parameter against central differences, its files and the load-time check.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "softgrad/errors.hpp"
#include "softgrad/materials/neural.hpp"
#include "support/finite_difference.hpp"
#include "support/material_conformance.hpp"
#include "support/single_element.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

const std::vector<int> kHidden = {6, 5};

/// youngs, poisson, a random split and random raw weights in [lo, hi].
std::vector<double> random_params(const MaterialModel& m, double youngs, double poisson,
                                  double lo = -2.0, double hi = 1.0) {
  std::vector<double> p(m.n_params());
  p[0] = youngs;
  p[1] = poisson;
  p[2] = uniform(-1.0, 1.0);
  for (size_t j = 3; j < p.size(); ++j) p[j] = uniform(lo, hi);
  return p;
}

/// A material whose stiffening is strong within the stretches of the scenes (weights up to e).
std::shared_ptr<const MaterialModel> model() { return make_neural_material(kHidden); }

std::string temp_file(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("softgrad_test_" + name)).string();
}

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("neural: zero energy and stress at rest, and the rest stiffness of youngs and poisson") {
  const auto m = model();
  for (int d : {2, 3})
    for (int trial = 0; trial < 5; ++trial) {
      const double E = std::pow(10.0, uniform(3.0, 7.0)), nu = uniform(0.0, 0.48);
      const auto p = random_params(*m, E, nu);
      const Eigen::VectorXd I = flat(Eigen::MatrixXd::Identity(d, d));
      CHECK(std::abs(psi(*m, d, I, p)) <= 1e-10 * E);
      CHECK(stress(*m, d, I, p).norm() <= 1e-10 * E);
      // dP/dF at rest is the isotropic elasticity tensor lambda d_ij d_kl + mu (d_ik d_jl +
      // d_il d_jk) (plane strain in 2D), whatever the weights.
      const double mu = lame_mu(E, nu), lambda = lame_lambda(E, nu);
      const RowMajor A = stress_differential(*m, d, I, p);
      RowMajor C = RowMajor::Zero(d * d, d * d);
      for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j)
          for (int k = 0; k < d; ++k)
            for (int l = 0; l < d; ++l)
              C(i * d + j, k * d + l) =
                  lambda * (i == j) * (k == l) + mu * ((i == k) * (j == l) + (i == l) * (j == k));
      CHECK((A - C).cwiseAbs().maxCoeff() <= 1e-10 * C.cwiseAbs().maxCoeff());
    }
}

TEST_CASE("neural: frame-indifferent and isotropic to 1e-12") {
  const auto m = model();
  for (int d : {2, 3})
    for (int trial = 0; trial < 20; ++trial) {
      const auto p = random_params(*m, 1e5, 0.4);
      const Eigen::MatrixXd F = random_deformation(d, 0.6, 1.7) * random_rotation(d);
      const double value = psi(*m, d, flat(F), p);
      CHECK(value > 0.0);
      const Eigen::MatrixXd Q = random_rotation(d), R = random_rotation(d);
      CHECK(std::abs(psi(*m, d, flat(Q * F), p) - value) <= 1e-12 * value);
      CHECK(std::abs(psi(*m, d, flat(F * R), p) - value) <= 1e-12 * value);
    }
}

TEST_CASE("neural: stress and dP/dF match central differences at random weights") {
  const auto m = model();
  for (int d : {2, 3})
    for (int trial = 0; trial < 5; ++trial) {
      INFO(d << "D, trial " << trial);
      const auto p = random_params(*m, 1e5, 0.3);
      const Eigen::VectorXd F = flat(random_rotation(d) * random_deformation(d, 0.6, 1.8));
      const Eigen::VectorXd P = stress(*m, d, F, p);
      const Eigen::VectorXd fd_P =
          fd_gradient([&](const Eigen::VectorXd& G) { return psi(*m, d, G, p); }, F);
      CHECK(close(P, fd_P, 1e-6, 1e-9 * p[0]));
      const RowMajor A = stress_differential(*m, d, F, p);
      const Eigen::MatrixXd fd_A =
          fd_jacobian([&](const Eigen::VectorXd& G) { return stress(*m, d, G, p); }, F);
      CHECK(close(A.reshaped(), fd_A.reshaped(), 1e-6, 1e-9 * p[0]));
    }
}

TEST_CASE("neural: parameter gradient, mixed products and JVP match central differences") {
  const auto m = model();
  for (int d : {2, 3}) {
    INFO(d << "D");
    SingleElement el(d, random_params(*m, 1e5, 0.3));
    const Eigen::VectorXd x = el.deformed(random_rotation(d) * random_deformation(d, 0.6, 1.8));
    const int M = m->n_params(), N = (d + 1) * d;
    const auto energy = [&](const Eigen::VectorXd& p) {
      SingleElement e = el;
      e.params.assign(p.data(), p.data() + M);
      return m->energy(e.batch(), x.data());
    };
    const auto gradient = [&](const Eigen::VectorXd& p) {
      SingleElement e = el;
      e.params.assign(p.data(), p.data() + M);
      Eigen::VectorXd g(N);
      double E = 0.0;
      REQUIRE(m->gradient(e.batch(), x.data(), &E, g.data()).ok());
      return g;
    };
    const Eigen::Map<const Eigen::VectorXd> p0(el.params.data(), M);
    const Eigen::VectorXd lambda = random_matrix(N, 1);
    Eigen::VectorXd dE_dp(M), mixed(M), jvp(N);
    REQUIRE(
        m->parameter_derivatives(el.batch(), x.data(), lambda.data(), dE_dp.data(), mixed.data())
            .ok());
    // Steps relative to each parameter (1e5 Pa for youngs, ~1 for the weights).
    CHECK(close(dE_dp, fd_gradient(energy, p0), 1e-6, 1e-12 * p0[0]));
    CHECK(close(mixed,
                fd_gradient([&](const Eigen::VectorXd& p) { return lambda.dot(gradient(p)); }, p0),
                1e-6, 1e-12 * p0[0]));
    CHECK(dE_dp.tail(M - 3).cwiseAbs().maxCoeff() > 0.0);
    const Eigen::VectorXd dp = random_matrix(M, 1).cwiseProduct(p0.cwiseAbs().cwiseMax(1.0));
    REQUIRE(m->parameter_jvp(el.batch(), x.data(), dp.data(), jvp.data()).ok());
    const double h = 1e-6;
    const Eigen::VectorXd fd = (gradient(p0 + h * dp) - gradient(p0 - h * dp)) / (2 * h);
    CHECK(close(jvp, fd, 1e-6, 1e-12 * p0[0]));
  }
}

TEST_CASE("neural: energy is convex along every checked loading, at random weights") {
  const auto m = model();
  for (int trial = 0; trial < 10; ++trial) {
    const auto p = random_params(*m, 1e5, 0.45, -3.0, 1.0);
    CHECK_NOTHROW(check_neural_material(*m, p, "random weights"));
  }
}

TEST_CASE("neural: a file round-trips every parameter bit for bit") {
  const auto m = model();
  const auto p = random_params(*m, 3e5, 0.42);
  const std::string file = temp_file("neural_roundtrip.json");
  write_neural_material(file, *m, p);
  const auto read = read_neural_material(file);
  CHECK(neural_hidden_layers(*read) == kHidden);
  std::vector<double> defaults;
  for (const ParamInfo& info : read->params()) defaults.push_back(info.default_value);
  CHECK(defaults == p);
  const Eigen::VectorXd F = flat(random_deformation(3, 0.7, 1.4));
  CHECK(psi(*read, 3, F, defaults) == psi(*m, 3, F, p));
  std::filesystem::remove(file);
}

TEST_CASE("neural: bad files and unstable weights are refused with the reason") {
  const auto m = model();
  const std::string file = temp_file("neural_bad.json");
  const auto write = [&](const std::string& text) { std::ofstream(file) << text; };
  const auto read = [&] { return refusal([&] { read_neural_material(file); }); };
  write(
      "{\"format\": \"softgrad neural material\", \"version\": 1, \"hidden\": [2], "
      "\"youngs\": 1e5, \"poisson\": 0.3, \"split\": 0, \"weights\": [1, 2]}");
  CHECK(read().find("has 13 parameters") != std::string::npos);
  write(
      "{\"format\": \"softgrad neural material\", \"version\": 1, \"hidden\": [2], "
      "\"youngs\": 1e5, \"poisson\": 0.3, \"split\": 0, \"weights\": [], \"bias\": 1}");
  CHECK(read().find("unknown key 'bias'") != std::string::npos);
  write(
      "{\"format\": \"softgrad neural material\", \"version\": 1, \"hidden\": [100], "
      "\"youngs\": 1e5, \"poisson\": 0.3, \"split\": 0, \"weights\": []}");
  CHECK(read().find("1 to 64 are allowed") != std::string::npos);
  write(
      "{\"format\": \"softgrad neural material\", \"version\": 1, \"hidden\": [], "
      "\"youngs\": 1e5, \"poisson\": 0.7, \"split\": 0, \"weights\": []}");
  CHECK(read().find("'poisson'") != std::string::npos);
  write(
      "{\"format\": \"softgrad neural material\", \"version\": 1, \"hidden\": [4294967304], "
      "\"youngs\": 1e5, \"poisson\": 0.3, \"split\": 0, \"weights\": []}");
  CHECK(read().find("/hidden: expected layer widths") != std::string::npos);
  write(
      "{\"format\": \"softgrad neural material\", \"version\": 1, \"hidden\": [1, 1, 1, 1, 1], "
      "\"youngs\": 1e5, \"poisson\": 0.3, \"split\": 0, \"weights\": []}");
  CHECK(read().find("/hidden: a neural material has at most 4 hidden layers") != std::string::npos);
  write(
      "{\"format\": \"softgrad neural material\", \"version\": 1, \"hidden\": [], "
      "\"youngs\": 1e400, \"poisson\": 0.3, \"split\": 0, \"weights\": []}");
  CHECK(read().find("not valid JSON") != std::string::npos);
  write("[1, 2]");
  CHECK(read().find("expected a JSON object") != std::string::npos);
  write("{\"format\": \"something else\"}");
  CHECK(read().find("/format") != std::string::npos);
  std::filesystem::remove(file);
  CHECK(read().find("cannot open") != std::string::npos);

  // One unit whose output weight is 1e9: a stiffening far beyond what any step could follow.
  const auto stiff = make_neural_material({1});
  const std::vector<double> q = {1e5, 0.3, 0.0, 1.0, 1.0, 1.0, -2.0, 1e9};
  const std::string why = refusal([&] { check_neural_material(*stiff, q, "here"); });
  CHECK(why.find("here: the neural material stiffens") != std::string::npos);
  CHECK(why.find("under uniaxial strain at stretch") != std::string::npos);
  auto p = random_params(*m, 1e5, 0.3);
  p[5] = std::nan("");
  CHECK(refusal([&] { check_neural_material(*m, p, "here"); }).find("weights[2]") !=
        std::string::npos);
  // Another model is not a neural material.
  CHECK(refusal([&] {
          neural_hidden_layers(*find_material("neo_hookean"));
        }).find("not a neural material") != std::string::npos);
}
