// CMA-ES: convergence on the sphere, Rosenbrock and ill-conditioned ellipsoids (full and
// separable covariance), reproducibility, failed evaluations and input validation.
#include <doctest/doctest.h>

#include <Eigen/QR>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "softgrad/cmaes.hpp"
#include "softgrad/errors.hpp"

namespace softgrad::test {
namespace {

using Loss = std::function<double(const Eigen::VectorXd&)>;
using Covariance = CmaEsOptions::Covariance;

struct Run {
  long long evaluations = 0;
  int generations = 0;
  double best_loss = 0;
  Eigen::VectorXd mean;
  Eigen::VectorXd covariance_diagonal;
};

/// Ask and tell until the best loss is below target or max_evaluations are spent.
Run minimise(const Loss& f, const Eigen::VectorXd& x0, CmaEsOptions options, double target,
             long long max_evaluations) {
  CmaEs es(x0, options);
  std::vector<double> losses(es.population());
  while (es.best_loss() >= target && es.evaluations() < max_evaluations) {
    const std::vector<Eigen::VectorXd>& xs = es.ask();
    for (int k = 0; k < es.population(); ++k) losses[k] = f(xs[k]);
    es.tell(losses);
  }
  return {es.evaluations(), es.generation(), es.best_loss(), es.mean(), es.covariance_diagonal()};
}

double sphere(const Eigen::VectorXd& x) { return x.squaredNorm(); }

double rosenbrock(const Eigen::VectorXd& x) {
  double f = 0;
  for (Eigen::Index i = 0; i + 1 < x.size(); ++i)
    f += 100.0 * std::pow(x[i + 1] - x[i] * x[i], 2) + std::pow(1.0 - x[i], 2);
  return f;
}

/// sum_i condition^(i / (n - 1)) x_i^2: axis scales from 1 to sqrt(condition).
Loss ellipsoid(int n, double condition) {
  Eigen::VectorXd scale(n);
  for (int i = 0; i < n; ++i) scale[i] = std::pow(condition, i / (n - 1.0));
  return [scale](const Eigen::VectorXd& x) { return scale.dot(x.cwiseAbs2()); };
}

/// A fixed rotation of R^n (QR of a matrix of mt19937_64 bits mapped to [-1, 1)).
Eigen::MatrixXd fixed_rotation(int n) {
  std::mt19937_64 bits(7);
  Eigen::MatrixXd a(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) a(i, j) = static_cast<double>(bits() >> 11) * 0x1.0p-52 - 1.0;
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(a);
  return qr.householderQ();
}

}  // namespace

TEST_CASE("optim/cmaes: default strategy parameters follow the tutorial") {
  CmaEs es(Eigen::VectorXd::Ones(10));
  CHECK(es.dimension() == 10);
  CHECK(es.population() == 10);  // 4 + floor(3 ln 10) = 4 + 6
  CHECK(es.parents() == 5);
  CHECK(es.sigma() == 0.3);
  CHECK(es.covariance() == Covariance::Full);
  CHECK(CmaEs(Eigen::VectorXd::Ones(101)).covariance() == Covariance::Diagonal);
  CHECK(CmaEs(Eigen::VectorXd::Ones(1000)).population() == 24);  // 4 + floor(20.7)
  // ask() repeats its candidates until tell().
  const std::vector<Eigen::VectorXd> first = es.ask();
  CHECK(es.ask()[3] == first[3]);
  CHECK(es.generation() == 0);
  es.tell(std::vector<double>(10, 1.0));
  CHECK(es.generation() == 1);
  CHECK(es.evaluations() == 10);
  CHECK(es.ask()[3] != first[3]);
}

TEST_CASE("optim/cmaes: the sphere in 10-D falls below 1e-10 and the mean reaches 0") {
  // Measured: 158 generations (1580 evaluations) with seed 1, 145-179 over seeds 1-20; the
  // bound is about 2x.
  CmaEs es(Eigen::VectorXd::Ones(10), {.sigma = 0.3, .seed = 1});
  std::vector<double> losses(es.population());
  while (es.best_loss() >= 1e-10 && es.generation() < 400) {
    const auto& xs = es.ask();
    for (int k = 0; k < es.population(); ++k) losses[k] = sphere(xs[k]);
    es.tell(losses);
  }
  MESSAGE("sphere 10-D: ", es.generation(), " generations, ", es.evaluations(), " evaluations");
  CHECK(es.best_loss() < 1e-10);
  CHECK(es.generation() <= 350);
  CHECK(es.mean().cwiseAbs().maxCoeff() < 1e-5);
  CHECK(sphere(es.best()) == es.best_loss());
}

TEST_CASE("optim/cmaes: Rosenbrock in 4-D converges to (1, 1, 1, 1)") {
  const Run run = minimise(rosenbrock, Eigen::VectorXd::Zero(4),
                           {.sigma = 0.5, .seed = 3, .covariance = Covariance::Full}, 1e-8, 20000);
  MESSAGE("Rosenbrock 4-D: ", run.evaluations, " evaluations");
  // Measured: 1728 evaluations with seed 3, 1152-1728 over seeds 1-20 (all of them reach the
  // global minimum, not the local one near (-1, 1, 1, 1)); the bound is about 2x.
  CHECK(run.best_loss < 1e-8);
  CHECK(run.evaluations <= 3500);
  CHECK((run.mean - Eigen::VectorXd::Ones(4)).cwiseAbs().maxCoeff() < 1e-3);
}

TEST_CASE("optim/cmaes: the full covariance learns an ill-conditioned, rotated ellipsoid") {
  const int n = 10;
  const Loss axis_parallel = ellipsoid(n, 1e6);
  const Eigen::MatrixXd R = fixed_rotation(n);
  const Loss rotated = [&](const Eigen::VectorXd& x) { return axis_parallel(R * x); };
  const Eigen::VectorXd x0 = Eigen::VectorXd::Ones(n);
  const CmaEsOptions full{.sigma = 0.5, .seed = 5, .covariance = Covariance::Full};

  // Full CMA-ES on the axis-parallel ellipsoid: C's diagonal learns the 1e6 spread of scales.
  const Run parallel = minimise(axis_parallel, x0, full, 1e-10, 100000);
  CHECK(parallel.best_loss < 1e-10);
  CHECK(parallel.covariance_diagonal[0] / parallel.covariance_diagonal[n - 1] > 1e5);
  // Rotation invariance: the rotated ellipsoid costs about the same.
  const Run full_run = minimise(rotated, x0, full, 1e-10, 100000);
  MESSAGE("ellipsoid 10-D, condition 1e6: full ", parallel.evaluations, " (axis-parallel), ",
          full_run.evaluations, " (rotated) evaluations");
  // Measured: 5930 evaluations; 5710-6460 over seeds 1-20 on the axis-parallel one.
  CHECK(full_run.best_loss < 1e-10);
  CHECK(full_run.evaluations <= 12000);
  CHECK(full_run.evaluations < 1.5 * parallel.evaluations);
  CHECK(parallel.evaluations < 1.5 * full_run.evaluations);

  // A diagonal covariance cannot align with the rotated axes: with 3x the evaluations it is
  // still far from the target.
  CmaEsOptions diagonal = full;
  diagonal.covariance = Covariance::Diagonal;
  const Run diagonal_run = minimise(rotated, x0, diagonal, 1e-10, 3 * full_run.evaluations);
  MESSAGE("rotated ellipsoid, diagonal covariance: best loss ", diagonal_run.best_loss, " after ",
          diagonal_run.evaluations, " evaluations");
  CHECK(diagonal_run.best_loss > 1e-6);
}

TEST_CASE("optim/cmaes: sep-CMA-ES converges on a 200-D separable ellipsoid") {
  const int n = 200;
  // Auto picks the diagonal covariance above n = 100.
  const Run run = minimise(ellipsoid(n, 1e6), Eigen::VectorXd::Ones(n), {.sigma = 0.5, .seed = 11},
                           1e-6, 300000);
  MESSAGE("sep-CMA-ES, 200-D ellipsoid, condition 1e6: ", run.evaluations, " evaluations");
  // Measured: 61978 evaluations with seed 11, 57589-61598 over seeds 1-3; the bound is 2x.
  CHECK(run.best_loss < 1e-6);
  CHECK(run.evaluations <= 120000);
  // The diagonal learnt the axis scales: variances fall with the curvature (1e6 ideally).
  CHECK(run.covariance_diagonal[0] / run.covariance_diagonal[n - 1] > 1e4);
}

TEST_CASE("optim/cmaes: the same seed repeats the run bit for bit, another seed does not") {
  const auto trajectory = [](std::uint64_t seed, Covariance covariance) {
    CmaEs es(Eigen::VectorXd::Constant(6, 0.5), {.seed = seed, .covariance = covariance});
    std::vector<Eigen::VectorXd> path;
    std::vector<double> losses(es.population());
    for (int g = 0; g < 30; ++g) {
      const auto& xs = es.ask();
      path.insert(path.end(), xs.begin(), xs.end());
      for (int k = 0; k < es.population(); ++k) losses[k] = rosenbrock(xs[k]);
      es.tell(losses);
      path.push_back(es.mean());
      path.push_back(Eigen::VectorXd::Constant(1, es.sigma()));
    }
    return path;
  };
  for (Covariance covariance : {Covariance::Full, Covariance::Diagonal}) {
    const std::vector<Eigen::VectorXd> a = trajectory(42, covariance),
                                       b = trajectory(42, covariance);
    REQUIRE(a.size() == b.size());
    bool identical = true;
    for (std::size_t i = 0; i < a.size(); ++i)
      identical = identical && (a[i].array() == b[i].array()).all();
    CHECK(identical);
    const std::vector<Eigen::VectorXd> c = trajectory(43, covariance);
    CHECK((c[0].array() != a[0].array()).all());
    CHECK(c.back()[0] != a.back()[0]);
  }
}

TEST_CASE("optim/cmaes: non-finite losses rank last and the run still converges") {
  // A sphere around c = (-0.8, 0.5, 0.5, 0.5, 0.5) next to a failure region: +inf for
  // x_0 < -1 and NaN for x_1 > 2 (e.g. simulations that blow up).
  Eigen::VectorXd c = Eigen::VectorXd::Constant(5, 0.5);
  c[0] = -0.8;
  int failures = 0;
  const Loss f = [&](const Eigen::VectorXd& x) {
    if (x[0] < -1.0 || x[1] > 2.0) {
      ++failures;
      return x[0] < -1.0 ? std::numeric_limits<double>::infinity()
                         : std::numeric_limits<double>::quiet_NaN();
    }
    return (x - c).squaredNorm();
  };
  const Run run = minimise(f, Eigen::VectorXd::Zero(5), {.sigma = 1.0, .seed = 2}, 1e-10, 20000);
  MESSAGE("failure region: ", failures, " non-finite losses in ", run.evaluations, " evaluations");
  CHECK(failures > 10);
  CHECK(run.best_loss < 1e-10);
  CHECK((run.mean - c).cwiseAbs().maxCoeff() < 1e-4);

  // A generation where every loss fails leaves the state finite.
  CmaEs es(Eigen::VectorXd::Zero(3));
  es.ask();
  es.tell(std::vector<double>(es.population(), std::numeric_limits<double>::quiet_NaN()));
  CHECK(es.mean().allFinite());
  CHECK(std::isfinite(es.sigma()));
  CHECK(es.best_loss() == std::numeric_limits<double>::infinity());
  CHECK(es.best() == Eigen::VectorXd::Zero(3));
}

TEST_CASE("optim/cmaes: a loss without a minimum keeps sigma, C and the mean finite") {
  // f = x_0 + x_1: sigma grows e-fold per generation until its cap, C stretches along the
  // gradient until its condition cap; nothing overflows.
  for (Covariance covariance : {Covariance::Full, Covariance::Diagonal}) {
    CmaEs es(Eigen::VectorXd::Zero(3), {.covariance = covariance});
    std::vector<double> losses(es.population());
    for (int g = 0; g < 1500; ++g) {
      const auto& xs = es.ask();
      for (int k = 0; k < es.population(); ++k) losses[k] = xs[k][0] + xs[k][1];
      es.tell(losses);
    }
    const Eigen::VectorXd c = es.covariance_diagonal();
    CHECK(es.mean().allFinite());
    CHECK(es.mean()[0] < -1e100);
    CHECK(std::isfinite(es.sigma()));
    CHECK(es.sigma() * std::sqrt(c.maxCoeff()) <= 1.01e150);
    CHECK(c.maxCoeff() / c.minCoeff() <= 1.01e14);
    CHECK(std::isfinite(es.best_loss()));
  }
}

TEST_CASE("optim/cmaes: invalid options and a wrong number of losses throw InputError") {
  const Eigen::VectorXd x0 = Eigen::VectorXd::Zero(3);
  CHECK_THROWS_WITH_AS(CmaEs{Eigen::VectorXd()}, doctest::Contains("initial mean is empty"),
                       InputError);
  Eigen::VectorXd bad = x0;
  bad[1] = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH_AS(CmaEs{bad}, doctest::Contains("non-finite entry at index 1"), InputError);
  CHECK_THROWS_WITH_AS(CmaEs(x0, {.sigma = 0.0}),
                       doctest::Contains("sigma must be positive and finite (got 0)"), InputError);
  CHECK_THROWS_WITH_AS(CmaEs(x0, {.sigma = -1.0}), doctest::Contains("(got -1)"), InputError);
  CHECK_THROWS_WITH_AS(CmaEs(x0, {.sigma = std::numeric_limits<double>::infinity()}),
                       doctest::Contains("sigma must be positive and finite"), InputError);
  CHECK_THROWS_WITH_AS(CmaEs(x0, {.sigma = std::numeric_limits<double>::quiet_NaN()}),
                       doctest::Contains("sigma must be positive and finite"), InputError);
  CHECK_THROWS_WITH_AS(CmaEs(x0, {.population = 1}),
                       doctest::Contains("population (lambda) must be >= 2"), InputError);
  CHECK_THROWS_WITH_AS(CmaEs(x0, {.population = -4}), doctest::Contains("(got -4)"), InputError);
  CHECK_NOTHROW(CmaEs(x0, {.population = 2}));

  CmaEs es(x0, {.population = 6});
  CHECK_THROWS_WITH_AS(es.tell(std::vector<double>(6, 1.0)), doctest::Contains("call ask()"),
                       InputError);
  es.ask();
  CHECK_THROWS_WITH_AS(es.tell(std::vector<double>(5, 1.0)), doctest::Contains("expected 6 losses"),
                       InputError);
  CHECK_THROWS_WITH_AS(es.tell(std::vector<double>(7, 1.0)), doctest::Contains("got 7"),
                       InputError);
  // The failed tells changed nothing: the candidates can still be told.
  CHECK(es.generation() == 0);
  CHECK_NOTHROW(es.tell(std::vector<double>(6, 1.0)));
}

}  // namespace softgrad::test
