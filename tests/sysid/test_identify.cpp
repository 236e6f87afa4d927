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
  // The simulated markers at the start and at the estimate give the reported rms errors.
  REQUIRE(r.initial_fit.size() == rec.observations.size());
  double sq_before = 0.0, sq_after = 0.0;
  for (size_t i = 0; i < rec.observations.size(); ++i) {
    sq_before += (r.initial_fit[i] - rec.observations[i].position).squaredNorm();
    sq_after += (r.fitted[i] - rec.observations[i].position).squaredNorm();
  }
  const double n = static_cast<double>(rec.observations.size());
  CHECK(std::sqrt(sq_before / n) == doctest::Approx(r.rms_before).epsilon(1e-12));
  CHECK(std::sqrt(sq_after / n) == doctest::Approx(r.rms_after).epsilon(1e-9));
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

namespace {

// E and damping fitted from 8e4 and 0.2 to the truth's (5e4, 0.5) markers with Gaussian noise
// of deviation `sigma` [m] (seeded).
SysIdReport fit_noisy(double sigma, unsigned seed) {
  SysIdProblem truth = pushed_cantilever(5e4, 0.5);
  Recording rec = record(truth, 0.01);
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, sigma);
  for (auto& o : rec.observations)
    for (int k = 0; k < o.position.size(); ++k) o.position[k] += noise(rng);
  SysIdProblem p = pushed_cantilever(8e4, 0.2);
  SysIdOptions opt;
  opt.parameters = {"youngs", "damping.alpha"};
  return identify(*p.sim, p.rollout, p.markers, rec, opt);
}

}  // namespace

TEST_CASE("sysid: noisy markers give estimates within their reported uncertainty") {
  const SysIdReport r = fit_noisy(2e-4, 7);  // 0.2 mm on ~1 cm motions
  MESSAGE("noisy: E " << r.estimate[0] << " +- " << r.stddev[0] << ", alpha " << r.estimate[1]
                      << " +- " << r.stddev[1] << ", rms " << r.rms_after);
  CHECK(r.rms_after == doctest::Approx(2e-4 * std::sqrt(2.0)).epsilon(0.3));
  for (int i = 0; i < 2; ++i) {
    const double truth_value = i == 0 ? 5e4 : 0.5;
    CHECK(r.stddev[i] > 0.0);
    CHECK(std::abs(r.estimate[i] - truth_value) < std::max(3 * r.stddev[i], 0.05 * truth_value));
  }
}

TEST_CASE("sysid: the covariance matches the deviations and a well-posed fit draws no warning") {
  const SysIdReport r = fit_noisy(2e-5, 3);  // (at 2e-4 the damping is barely seen)
  REQUIRE(r.covariance.rows() == 2);
  CHECK(r.covariance(0, 1) == doctest::Approx(r.covariance(1, 0)));
  for (int i = 0; i < 2; ++i) CHECK(std::sqrt(r.covariance(i, i)) == doctest::Approx(r.stddev[i]));
  CHECK(std::abs(r.covariance(0, 1)) <= r.stddev[0] * r.stddev[1]);  // |correlation| <= 1
  CHECK(r.condition_number >= 1.0);
  CHECK(r.condition_number < 1e8);
  CHECK(identifiability_warnings(r).empty());
}

TEST_CASE("sysid: a fit the data cannot determine says so") {
  // Two frames of the tip early in the push (0.02 s): four residuals for E and damping; the
  // estimates' deviations dwarf them (the fit still "converges").
  SysIdProblem truth = pushed_cantilever(5e4, 0.5);
  Recording rec = record(truth, 0.01);
  Recording few;
  few.times = {rec.times[1], rec.times[2]};
  for (const auto& o : rec.observations)
    if ((o.frame == 1 || o.frame == 2) && o.marker == 0)  // the tip
      few.observations.push_back({o.frame - 1, o.marker, o.position});
  REQUIRE(few.observations.size() == 2);
  SysIdProblem p = pushed_cantilever(8e4, 0.2);
  SysIdOptions opt;
  opt.parameters = {"youngs", "damping.alpha"};
  const SysIdReport r = identify(*p.sim, p.rollout, p.markers, few, opt);
  const std::vector<std::string> warnings = identifiability_warnings(r);
  MESSAGE("2 observations: E " << r.estimate[0] << " +- " << r.stddev[0] << ", alpha "
                               << r.estimate[1] << " +- " << r.stddev[1] << ", condition "
                               << r.condition_number);
  REQUIRE_FALSE(warnings.empty());
  bool named = false;
  for (const std::string& w : warnings)
    named = named || w.find("not identifiable") != std::string::npos ||
            w.find("nearly singular") != std::string::npos;
  CHECK(named);
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

/// Experiment 1 of the tests with two: the pushed cantilever thrown upwards, by an initial
/// velocity growing along it, and recorded for a shorter time.
SysIdProblem swung_cantilever(double youngs, double alpha) {
  SysIdProblem p = pushed_cantilever(youngs, alpha, 30);
  const Model& m = *p.model;
  for (int v = 0; v < m.n_verts; ++v) p.rollout.initial.v[2 * v + 1] = 2.0 * m.X[2 * v];  // [m/s]
  for (int v : vertices_at(m, 0, 0.0)) p.rollout.initial.v[2 * v + 1] = 0.0;
  return p;
}

std::vector<SysIdExperiment> experiments(SysIdProblem& a, const Recording& ra, SysIdProblem& b,
                                         const Recording& rb) {
  return {{a.model, a.sim->options(), a.rollout, a.markers, ra},
          {b.model, b.sim->options(), b.rollout, b.markers, rb}};
}

TEST_CASE("sysid: two experiments fit their shared parameters together, alike on 1 and 2 threads") {
  SysIdProblem pushed = pushed_cantilever(5e4, 0.5), swung = swung_cantilever(5e4, 0.5);
  const Recording rec_pushed = record(pushed, 0.015), rec_swung = record(swung, 0.02);
  SysIdOptions opt;
  opt.parameters = {"youngs", "damping.alpha"};
  std::vector<SysIdReport> reports;
  for (int threads : {1, 2}) {
    SysIdProblem a = pushed_cantilever(8e4, 0.2), b = swung_cantilever(8e4, 0.2);
    std::vector<SysIdExperiment> both = experiments(a, rec_pushed, b, rec_swung);
    opt.threads = threads;
    reports.push_back(identify(both, opt));
    // Every experiment's rollout holds the estimate.
    for (SysIdExperiment& e : both) {
      Simulator sim(e.model, e.options);
      CHECK(ParameterSet(sim, e.rollout, opt.parameters).get(sim, e.rollout) ==
            reports.back().estimate);
    }
  }
  const SysIdReport& r = reports[0];
  MESSAGE("two experiments: E " << r.estimate[0] << " alpha " << r.estimate[1] << " in "
                                << r.iterations << " iterations; rms " << r.rms_before << " -> "
                                << r.rms_after << " m");
  CHECK(r.estimate[0] == doctest::Approx(5e4).epsilon(1e-4));
  CHECK(r.estimate[1] == doctest::Approx(0.5).epsilon(1e-4));
  REQUIRE(r.experiments.size() == 2);
  CHECK(r.experiments[0].observations == static_cast<int>(rec_pushed.observations.size()));
  CHECK(r.experiments[1].observations == static_cast<int>(rec_swung.observations.size()));
  CHECK(r.residuals == r.experiments[0].residuals + r.experiments[1].residuals);
  CHECK(r.fitted.size() == rec_pushed.observations.size() + rec_swung.observations.size());
  CHECK(r.cost_before ==
        doctest::Approx(r.experiments[0].cost_before + r.experiments[1].cost_before));
  for (const SysIdExperimentFit& e : r.experiments) CHECK(e.rms_after < 1e-3 * e.rms_before);
  // Bit for bit the same on two threads.
  CHECK(reports[1].estimate == r.estimate);
  CHECK(reports[1].cost_after == r.cost_after);
  CHECK(reports[1].stddev == r.stddev);
  CHECK(reports[1].iterations == r.iterations);
}

TEST_CASE("sysid: one experiment in a list is the single-recording fit, bit for bit") {
  SysIdProblem truth = pushed_cantilever(5e4, 0.5);
  const Recording rec = record(truth, 0.015);
  SysIdOptions opt;
  opt.parameters = {"youngs", "damping.alpha"};
  SysIdProblem p = pushed_cantilever(8e4, 0.2), q = pushed_cantilever(8e4, 0.2);
  const SysIdReport single = identify(*p.sim, p.rollout, p.markers, rec, opt);
  std::vector<SysIdExperiment> one{{q.model, q.sim->options(), q.rollout, q.markers, rec}};
  const SysIdReport listed = identify(one, opt);
  CHECK(listed.estimate == single.estimate);
  CHECK(listed.cost_after == single.cost_after);
  CHECK(listed.stddev == single.stddev);
  CHECK(listed.iterations == single.iterations);
  REQUIRE(listed.experiments.size() == 1);
  CHECK(listed.experiments[0].cost_after == single.cost_after);
}

TEST_CASE("sysid: a second experiment narrows the estimate's uncertainty") {
  SysIdProblem pushed = pushed_cantilever(5e4, 0.5), swung = swung_cantilever(5e4, 0.5);
  Recording rec_pushed = record(pushed, 0.01), rec_swung = record(swung, 0.01);
  std::mt19937 rng(11);
  std::normal_distribution<double> noise(0.0, 2e-4);
  for (Recording* rec : {&rec_pushed, &rec_swung})
    for (auto& o : rec->observations)
      for (int k = 0; k < o.position.size(); ++k) o.position[k] += noise(rng);
  SysIdOptions opt;
  opt.parameters = {"youngs", "damping.alpha"};
  SysIdProblem p = pushed_cantilever(8e4, 0.2);
  const SysIdReport one = identify(*p.sim, p.rollout, p.markers, rec_pushed, opt);
  SysIdProblem a = pushed_cantilever(8e4, 0.2), b = swung_cantilever(8e4, 0.2);
  std::vector<SysIdExperiment> both = experiments(a, rec_pushed, b, rec_swung);
  const SysIdReport two = identify(both, opt);
  MESSAGE("E +- " << one.stddev[0] << " (one experiment), +- " << two.stddev[0]
                  << " (two); alpha +- " << one.stddev[1] << ", +- " << two.stddev[1]);
  for (int i = 0; i < 2; ++i) {
    const double truth_value = i == 0 ? 5e4 : 0.5;
    CHECK(two.stddev[i] < one.stddev[i]);
    CHECK(std::abs(two.estimate[i] - truth_value) < 3 * two.stddev[i]);
  }
}

TEST_CASE("sysid: experiments whose parameters differ are refused, naming the experiment") {
  SysIdProblem truth = pushed_cantilever(5e4, 0.5);
  const Recording rec = record(truth, 0.015);
  SysIdProblem a = pushed_cantilever(8e4, 0.2), b = pushed_cantilever(8e4, 0.2, 40, {4, 2});
  std::vector<SysIdExperiment> both = experiments(a, rec, b, rec);
  SysIdOptions opt;
  opt.parameters = {"youngs[]"};  // one per element: 24 and 16 values
  CHECK_THROWS_WITH_AS(identify(both, opt),
                       doctest::Contains("experiment 1 has 16 parameter values, experiment 0 24"),
                       InputError);
  opt.parameters = {"youngs", "no_such_parameter"};
  CHECK_THROWS_WITH_AS(identify(both, opt), doctest::Contains("sysid: experiment 0: "), InputError);
  std::vector<SysIdExperiment> none;
  opt.parameters = {"youngs"};
  CHECK_THROWS_WITH_AS(identify(none, opt), doctest::Contains("no experiments"), InputError);
}

}  // namespace softgrad::test
