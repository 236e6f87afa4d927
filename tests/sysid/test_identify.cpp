// System identification: Jacobians against differences, and recovery of known parameters.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "support/finite_difference.hpp"
#include "sysid/sysid_problem.hpp"

namespace softgrad::test {

TEST_CASE("sysid: residual Jacobians from forward sensitivities match central differences") {
  SysIdProblem truth = pushed_cantilever(5e4, 0.5);
  const Recording rec = record(truth, 0.015);
  SysIdProblem p = pushed_cantilever(4e4, 0.8);
  const ParameterSet params(*p.sim, p.rollout, {"youngs", "poisson", "damping.alpha"});
  Eigen::MatrixXd J;
  const Eigen::VectorXd r0 = marker_residuals(*p.sim, p.rollout, p.markers, rec, params, &J);
  const Eigen::VectorXd theta = params.get(*p.sim, p.rollout);
  for (int j = 0; j < params.size(); ++j) {
    INFO(params.label(j));
    const double h = 1e-5 * std::abs(theta[j]);
    Eigen::VectorXd tp = theta, tm = theta;
    tp[j] += h;
    tm[j] -= h;
    params.set(*p.sim, p.rollout, tp);
    const Eigen::VectorXd rp = marker_residuals(*p.sim, p.rollout, p.markers, rec, params, nullptr);
    params.set(*p.sim, p.rollout, tm);
    const Eigen::VectorXd rm = marker_residuals(*p.sim, p.rollout, p.markers, rec, params, nullptr);
    params.set(*p.sim, p.rollout, theta);
    const Eigen::VectorXd fd = (rp - rm) / (2 * h);
    CHECK(fd.norm() > 0.0);
    CHECK(close(Eigen::VectorXd(J.col(j)), fd, 1e-6));
  }
  CHECK(r0.size() == static_cast<int>(rec.observations.size()) * 2);
}

TEST_CASE("sysid: Levenberg-Marquardt recovers E and damping from a noiseless recording") {
  SysIdProblem truth = pushed_cantilever(5e4, 0.5);
  const Recording rec = record(truth, 0.015);  // frames between the steps
  SysIdProblem p = pushed_cantilever(8e4, 0.2);
  SysIdOptions opt;
  opt.parameters = {"youngs", "damping.alpha"};
  const SysIdReport r = identify(*p.sim, p.rollout, p.markers, rec, opt);
  MESSAGE("E " << r.estimate[0] << " alpha " << r.estimate[1] << " in " << r.iterations
               << " iterations, " << r.simulations << " simulations; rms " << r.rms_before << " -> "
               << r.rms_after << " m; " << r.termination);
  CHECK(r.estimate[0] == doctest::Approx(5e4).epsilon(1e-4));
  CHECK(r.estimate[1] == doctest::Approx(0.5).epsilon(1e-4));
  CHECK(r.rms_after < 1e-3 * r.rms_before);
  CHECK(r.stddev.size() == 2);
  CHECK(r.fitted.size() == rec.observations.size());
  // The model now holds the estimate.
  CHECK(ParameterSet(*p.sim, p.rollout, {"youngs"}).get(*p.sim, p.rollout)[0] == r.estimate[0]);
}

TEST_CASE("sysid: L-BFGS on the adjoint gradient recovers a tied modulus") {
  SysIdProblem truth = pushed_cantilever(5e4, 0.5);
  const Recording rec = record(truth, 0.02);
  SysIdProblem p = pushed_cantilever(3e4, 0.5);
  SysIdOptions opt;
  opt.method = SysIdMethod::Lbfgs;
  opt.parameters = {"youngs"};
  opt.max_iterations = 100;
  const SysIdReport r = identify(*p.sim, p.rollout, p.markers, rec, opt);
  MESSAGE("L-BFGS: E " << r.estimate[0] << " in " << r.iterations << " iterations, "
                       << r.gradient_simulations << " adjoint gradients; " << r.termination);
  CHECK(r.estimate[0] == doctest::Approx(5e4).epsilon(1e-4));
  CHECK(r.gradient_simulations > 0);
}

TEST_CASE("sysid: noisy markers give estimates within their reported uncertainty") {
  SysIdProblem truth = pushed_cantilever(5e4, 0.5);
  Recording rec = record(truth, 0.01);
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0.0, 2e-4);  // 0.2 mm on ~1 cm motions
  for (auto& o : rec.observations)
    for (int k = 0; k < o.position.size(); ++k) o.position[k] += noise(rng);
  SysIdProblem p = pushed_cantilever(8e4, 0.2);
  SysIdOptions opt;
  opt.parameters = {"youngs", "damping.alpha"};
  const SysIdReport r = identify(*p.sim, p.rollout, p.markers, rec, opt);
  MESSAGE("noisy: E " << r.estimate[0] << " +- " << r.stddev[0] << ", alpha " << r.estimate[1]
                      << " +- " << r.stddev[1] << ", rms " << r.rms_after);
  CHECK(r.rms_after == doctest::Approx(2e-4 * std::sqrt(2.0)).epsilon(0.3));
  for (int i = 0; i < 2; ++i) {
    const double truth_value = i == 0 ? 5e4 : 0.5;
    CHECK(r.stddev[i] > 0.0);
    CHECK(std::abs(r.estimate[i] - truth_value) < std::max(3 * r.stddev[i], 0.05 * truth_value));
  }
}

TEST_CASE("sysid: several starts side by side keep the best fit, the same on 1 and 2 threads") {
  SysIdProblem truth = pushed_cantilever(5e4, 0.5);
  const Recording rec = record(truth, 0.015);
  SysIdOptions opt;
  opt.parameters = {"youngs", "damping.alpha"};
  opt.max_iterations = 3;  // short fits: where they end depends on where they start
  SysIdProblem single_problem = pushed_cantilever(4e5, 0.05);
  const SysIdReport single =
      identify(*single_problem.sim, single_problem.rollout, single_problem.markers, rec, opt);
  opt.starts = 4;
  opt.start_spread = 1.0;
  std::vector<SysIdReport> reports;
  for (int threads : {1, 2}) {
    SysIdProblem p = pushed_cantilever(4e5, 0.05);
    opt.threads = threads;
    reports.push_back(identify(*p.sim, p.rollout, p.markers, rec, opt));
    // The rollout holds the best start's estimate.
    CHECK(ParameterSet(*p.sim, p.rollout, opt.parameters).get(*p.sim, p.rollout) ==
          reports.back().estimate);
  }
  const SysIdReport& r = reports[0];
  REQUIRE(r.start_costs.size() == 4);
  CHECK(r.start_costs[0] == single.cost_after);  // start 0 is the single fit
  CHECK(r.cost_after == *std::min_element(r.start_costs.begin(), r.start_costs.end()));
  CHECK(r.cost_after == r.start_costs[r.best_start]);
  CHECK(r.labels == single.labels);
  // Bit for bit the same on two threads.
  CHECK(reports[1].start_costs == r.start_costs);
  CHECK(reports[1].estimate == r.estimate);
  CHECK(reports[1].best_start == r.best_start);
  CHECK_THROWS_AS(([&] {
                    SysIdOptions bad = opt;
                    bad.starts = 0;
                    SysIdProblem p = pushed_cantilever(4e5, 0.05);
                    identify(*p.sim, p.rollout, p.markers, rec, bad);
                  }()),
                  InputError);
}

}  // namespace softgrad::test
