// Gradients through contact and lagged friction against central differences: sliding and
// sticking, penalty and barrier, with respect to the friction coefficient, the contact
// stiffness and the initial velocity.
#include <doctest/doctest.h>

#include "contact/contact_scenes.hpp"
#include "softgrad/adjoint.hpp"
#include "support/finite_difference.hpp"

namespace softgrad::test {
namespace {

struct Case {
  std::string model;
  double angle;
  double v0;
  const char* what;
};

double loss_of(Simulator& sim, const Rollout& r, const Loss& loss) {
  return evaluate_loss(sim, simulate(sim, r), loss);
}

}  // namespace

TEST_CASE("contact: adjoint gradients match central differences while sliding and sticking") {
  const Case cases[] = {{"penalty", 0.0, 0.3, "penalty, sliding"},
                        {"barrier", 0.0, 0.3, "barrier, sliding"},
                        {"penalty", 0.2, 0.0, "penalty, sticking on an incline"},
                        {"barrier", 0.2, 0.0, "barrier, sticking on an incline"}};
  for (const Case& c : cases) {
    INFO(c.what);
    auto m = block_on_ground(c.model, 0.5, c.model == "barrier" ? 4e-4 : -2e-4, c.angle);
    Simulator sim(m, contact_options(0.005, 1e-12));
    Rollout r = rest_rollout(sim, 30);
    for (int v = 0; v < m->n_verts; ++v) r.initial.v[2 * v] = c.v0;
    CenterOfMassTarget target;
    target.position = Eigen::Vector2d(0.06, 0.02);
    target.velocity = Eigen::Vector2d(0.1, 0.0);
    const CenterOfMassLoss loss(*m, {}, {target});
    const ParameterSet params(sim, r, {"contact.friction", "contact.stiffness", "v0"});
    const GradientResult g = gradient(sim, simulate(sim, r), loss, params);
    CHECK(g.report.trustworthy());
    const GradientResult t = tangent_gradient(sim, r, loss, params);
    CHECK(close(t.gradient, g.gradient, 1e-8));
    // Central differences per scalar parameter, and along a velocity direction.
    const Eigen::VectorXd theta = params.get(sim, r);
    for (int i : {0, 1}) {
      INFO(params.label(i));
      const double h = 1e-5 * theta[i];
      Eigen::VectorXd tp = theta, tm = theta;
      tp[i] += h;
      tm[i] -= h;
      Rollout rp = r, rm = r;
      params.set(sim, rp, tp);
      const double lp = loss_of(sim, rp, loss);
      params.set(sim, rm, tm);
      const double lm = loss_of(sim, rm, loss);
      params.set(sim, r, theta);
      const double fd = (lp - lm) / (2 * h);
      MESSAGE(params.label(i) << ": adjoint " << g.gradient[i] << ", central difference " << fd);
      CHECK(std::abs(fd) > 1e-12);
      CHECK(g.gradient[i] == doctest::Approx(fd).epsilon(1e-4));
    }
    Eigen::VectorXd d = Eigen::VectorXd::Zero(params.size());
    for (int k = 2; k < params.size(); ++k) d[k] = 0.01 * std::sin(1.7 * k);
    Rollout rp = r, rm = r;
    params.set(sim, rp, theta + 1e-3 * d);
    params.set(sim, rm, theta - 1e-3 * d);
    const double fd = (loss_of(sim, rp, loss) - loss_of(sim, rm, loss)) / 2e-3;
    MESSAGE("v0 direction: adjoint " << g.gradient.dot(d) << ", central difference " << fd);
    CHECK(g.gradient.dot(d) == doctest::Approx(fd).epsilon(1e-4));
  }
}

}  // namespace softgrad::test
