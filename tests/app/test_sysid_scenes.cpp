// The shipped system-identification scenes fitted to their shipped recordings (scenes/data/),
// against the bars: noiseless recordings of the same model recover the truth to 1e-4
// relative; noisy and finer-model recordings within max(reported standard deviation, 5%).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "app/sysid_scene.hpp"
#include "softgrad/parameters.hpp"

using namespace softgrad;
using namespace softgrad::app;

namespace {

std::string scene_path(const std::string& name) {
  return std::string(SOFTGRAD_SOURCE_DIR) + "/scenes/" + name;
}

struct Fit {
  MarkerScene scene;
  SysIdReport report;
};

Fit fit(const std::string& scene, const std::string& data) {
  Fit f{load_marker_scene(scene_path(scene)), {}};
  const Recording rec = read_scene_recording(scene_path("data/" + data), f.scene);
  const SysIdOptions options = sysid_options(f.scene, {});
  f.report = identify(*f.scene.sim, f.scene.rollout, f.scene.markers, rec, options);
  return f;
}

void show(const std::string& what, const SysIdReport& r) {
  std::string text = what + ":";
  for (size_t i = 0; i < r.labels.size() && i < 4; ++i)
    text += " " + r.labels[i] + " " + std::to_string(r.estimate[static_cast<int>(i)]) +
            (r.stddev.size() > static_cast<int>(i)
                 ? " +- " + std::to_string(r.stddev[static_cast<int>(i)])
                 : "");
  MESSAGE(text << "; " << r.iterations << " iterations, " << r.simulations << " simulations, "
               << r.seconds << " s, rms " << r.rms_before << " -> " << r.rms_after << " m");
}

// |estimate - truth| <= max(stddev, 5% truth) for each parameter.
void check_within_uncertainty(const SysIdReport& r, const std::vector<double>& truth) {
  REQUIRE(r.stddev.size() == static_cast<int>(truth.size()));
  for (size_t i = 0; i < truth.size(); ++i) {
    const int k = static_cast<int>(i);
    INFO(r.labels[i] << " = " << r.estimate[k] << " +- " << r.stddev[k] << ", truth " << truth[i]);
    CHECK(r.stddev[k] > 0.0);
    CHECK(std::abs(r.estimate[k] - truth[i]) <= std::max(r.stddev[k], 0.05 * truth[i]));
  }
}

// The first `steps` steps of a scene and the frames of its recording within them.
Recording truncate(MarkerScene& p, const Recording& rec, int steps) {
  p.rollout.steps = steps;
  const double t_end = p.rollout.initial.t + steps * p.sim->options().dt + 1e-12;
  Recording out;
  for (const auto& o : rec.observations) {
    if (rec.times[o.frame] > t_end) break;
    if (out.times.empty() || out.times.back() != rec.times[o.frame])
      out.times.push_back(rec.times[o.frame]);
    out.observations.push_back({static_cast<int>(out.times.size()) - 1, o.marker, o.position});
  }
  return out;
}

// Residual Jacobian columns by forward sensitivities against central differences.
void check_jacobian(MarkerScene& p, const Recording& rec, const std::vector<std::string>& names) {
  const ParameterSet params(*p.sim, p.rollout, names);
  Eigen::MatrixXd J;
  marker_residuals(*p.sim, p.rollout, p.markers, rec, params, &J);
  const Eigen::VectorXd theta = params.get(*p.sim, p.rollout);
  for (int j = 0; j < params.size(); ++j) {
    const double h = 1e-6 * std::abs(theta[j]);
    Eigen::VectorXd tp = theta, tm = theta;
    tp[j] += h;
    tm[j] -= h;
    params.set(*p.sim, p.rollout, tp);
    const Eigen::VectorXd rp = marker_residuals(*p.sim, p.rollout, p.markers, rec, params, nullptr);
    params.set(*p.sim, p.rollout, tm);
    const Eigen::VectorXd rm = marker_residuals(*p.sim, p.rollout, p.markers, rec, params, nullptr);
    params.set(*p.sim, p.rollout, theta);
    const Eigen::VectorXd fd = (rp - rm) / (2 * h), col = J.col(j);
    INFO(params.label(j) << ": |J| " << col.norm() << ", |fd| " << fd.norm() << ", |J - fd| "
                         << (col - fd).norm());
    CHECK(fd.norm() > 0.0);
    CHECK(col.norm() > 0.0);
    CHECK((col - fd).norm() <= 1e-5 * std::max(col.norm(), fd.norm()));
  }
}

}  // namespace

TEST_CASE("app/sysid scenes: contact Jacobians (friction, stiffness) match central differences") {
  MarkerScene sliding = load_marker_scene(scene_path("block_sliding_sysid.json"));
  const Recording slide =
      truncate(sliding, read_recording(scene_path("data/block_sliding.csv"), sliding.markers), 30);
  check_jacobian(sliding, slide, {"contact.friction"});
  // Into the first impact (at about 0.15 s) and out of it.
  MarkerScene bouncing = load_marker_scene(scene_path("block_bouncing_sysid.json"));
  const Recording bounce = truncate(
      bouncing, read_recording(scene_path("data/block_bouncing.csv"), bouncing.markers), 100);
  check_jacobian(bouncing, bounce, {"youngs", "contact.stiffness"});
  // The ball's first impact, with damping.
  MarkerScene ball = load_marker_scene(scene_path("ball_bouncing_sysid.json"));
  const Recording drop =
      truncate(ball, read_recording(scene_path("data/ball_bouncing.csv"), ball.markers), 70);
  check_jacobian(ball, drop, {"youngs", "contact.stiffness", "damping.alpha"});
}

TEST_CASE("app/sysid scenes: cantilever - noiseless same-model recording - E and damping to 1e-4" *
          doctest::test_suite("slow")) {
  const Fit f = fit("cantilever_sysid.json", "cantilever_clean.csv");
  show("clean", f.report);
  CHECK(f.report.converged);
  CHECK(f.report.estimate[0] == doctest::Approx(6e3).epsilon(1e-4));
  CHECK(f.report.estimate[1] == doctest::Approx(4.0).epsilon(1e-4));
}

TEST_CASE("app/sysid scenes: cantilever - noisy recording - within the uncertainty or 5%" *
          doctest::test_suite("slow")) {
  const Fit f = fit("cantilever_sysid.json", "cantilever_noisy.csv");
  show("noisy", f.report);
  check_within_uncertainty(f.report, {6e3, 4.0});
  // The residual is the noise (0.5 mm per coordinate).
  CHECK(f.report.rms_after == doctest::Approx(5e-4 * std::sqrt(2.0)).epsilon(0.2));
}

// "large": 42 s under the sanitizers; sysid's unit cases fit two experiments there.
TEST_CASE(
    "app/sysid scenes: cantilever - two noisy experiments - within the uncertainty, narrower" *
    doctest::test_suite("large")) {
  const MarkerScene base = load_marker_scene(scene_path("cantilever_sysid.json"));
  REQUIRE(base.scene.sysid.experiments.size() == 2);
  std::vector<MarkerScene> scenes;
  for (int k = 0; k < 2; ++k) scenes.push_back(experiment_scene(base, k));
  const SysIdOptions options = sysid_options(scenes.front(), {});  // the guess into experiment 0
  std::vector<SysIdExperiment> experiments;
  for (int k = 0; k < 2; ++k) {
    const MarkerScene& p = scenes[k];
    const Recording rec = read_scene_recording(base.scene.sysid.experiments[k].data.string(), p);
    experiments.push_back({p.scene.model, p.sim->options(), p.rollout, p.markers, rec});
  }
  CHECK(experiments[1].rollout.steps == 300);  // the patch's 0.6 s
  const SysIdReport two = identify(experiments, options);
  CHECK(two.initial[0] == 3e3);
  show("two experiments", two);
  check_within_uncertainty(two, {6e3, 4.0});
  const Fit one = fit("cantilever_sysid.json", "cantilever_noisy.csv");
  for (int i = 0; i < 2; ++i) CHECK(two.stddev[i] < one.report.stddev[i]);
  for (const SysIdExperimentFit& e : two.experiments)  // each residual is the noise
    CHECK(e.rms_after == doctest::Approx(5e-4 * std::sqrt(2.0)).epsilon(0.2));
}

TEST_CASE("app/sysid scenes: cantilever - finer mesh and time step - within the uncertainty or 5%" *
          doctest::test_suite("slow")) {
  const Fit f = fit("cantilever_sysid.json", "cantilever_fine.csv");
  show("fine", f.report);
  check_within_uncertainty(f.report, {6e3, 4.0});
}

TEST_CASE("app/sysid scenes: sliding block, friction coefficient to 1e-4") {
  const Fit f = fit("block_sliding_sysid.json", "block_sliding.csv");
  show("sliding", f.report);
  CHECK(f.report.estimate[0] == doctest::Approx(0.4).epsilon(1e-4));
}

TEST_CASE("app/sysid scenes: bouncing ball - E with contact stiffness and damping to 1e-4" *
          doctest::test_suite("slow")) {
  const Fit f = fit("ball_bouncing_sysid.json", "ball_bouncing.csv");
  show("ball", f.report);
  CHECK(f.report.converged);
  CHECK(f.report.estimate[0] == doctest::Approx(1e5).epsilon(1e-4));
  CHECK(f.report.estimate[1] == doctest::Approx(3e4).epsilon(1e-4));
  CHECK(f.report.estimate[2] == doctest::Approx(2.0).epsilon(1e-4));
}

TEST_CASE("app/sysid scenes: bouncing block - E and contact stiffness to 1e-4" *
          doctest::test_suite("slow")) {
  const Fit f = fit("block_bouncing_sysid.json", "block_bouncing.csv");
  show("bouncing", f.report);
  CHECK(f.report.estimate[0] == doctest::Approx(2e5).epsilon(1e-4));
  CHECK(f.report.estimate[1] == doctest::Approx(2e4).epsilon(1e-4));
}

TEST_CASE("app/sysid scenes: two-material beam - the stiffness field by L-BFGS with smoothness" *
          doctest::test_suite("slow")) {
  const Fit f = fit("beam_two_material_sysid.json", "beam_two_material.csv");
  show("two materials", f.report);
  CHECK(f.report.rms_after < 1e-2 * f.report.rms_before);
  // Geometric means of the field near the clamp, x < 0.1 m (truth 4 MPa), and over the part of
  // the soft half that bends enough to be observed, 0.15 < x < 0.25 m (truth 1 MPa). Smoothness
  // smears the step at x = 0.15 m, and the free end carries almost no bending moment, so its
  // stiffness is barely identifiable.
  const MarkerScene& p = f.scene;
  const Body& body = p.scene.model->bodies.front();
  double log_left = 0.0, log_right = 0.0;
  int n_left = 0, n_right = 0;
  for (int e = 0; e < body.n_elems(); ++e) {
    double x = 0.0;
    for (int a = 0; a < 3; ++a) x += p.scene.model->X[body.elems[3 * e + a] * 2] / 3.0;
    const double phi = std::log(f.report.estimate[e]);
    if (x < 0.1) {
      log_left += phi;
      ++n_left;
    } else if (x > 0.15 && x < 0.25) {
      log_right += phi;
      ++n_right;
    }
  }
  const double left = std::exp(log_left / n_left), right = std::exp(log_right / n_right);
  MESSAGE("geometric means: " << left << " Pa (x < 0.1), " << right << " Pa (0.15 < x < 0.25)");
  CHECK(left == doctest::Approx(4e6).epsilon(0.1));
  CHECK(right == doctest::Approx(1e6).epsilon(0.35));
}
