// Contact and friction against known answers: force balance at rest, no penetration with the
// barrier, Coulomb's sliding distance, and sticking below the friction angle.
#include <doctest/doctest.h>

#include "contact/contact_scenes.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/trajectory.hpp"
#include "support/term_evaluation.hpp"

namespace softgrad::test {
namespace {

double lowest(const Model& m, const Eigen::VectorXd& x, const Obstacle& o) {
  double d = 1e300;
  for (int v = 0; v < m.n_verts; ++v) d = std::min(d, o.distance(x.data() + 2 * v, 2));
  return d;
}

/// Mass-weighted mean x velocity.
double mean_vx(const Model& m, const Eigen::VectorXd& v) {
  double p = 0.0, mass = 0.0;
  for (int i = 0; i < m.n_verts; ++i) {
    p += m.mass[2 * i] * v[2 * i];
    mass += m.mass[2 * i];
  }
  return p / mass;
}

}  // namespace

TEST_CASE("contact: at rest on the ground the contact forces carry the weight") {
  for (const std::string model : {"penalty", "barrier"}) {
    INFO(model);
    auto m = block_on_ground(model, 0.0, model == "barrier" ? 5e-4 : 0.0);
    add_damping(*m, 20.0, 0.0);  // the free block has no static equilibrium: let it settle
    Simulator sim(m, contact_options(0.01));
    State s = sim.rest_state();
    for (int n = 0; n < 200; ++n) REQUIRE(sim.step(s).converged());
    CHECK(s.v.lpNorm<Eigen::Infinity>() < 1e-3);
    // The contact term's gradient is minus the contact force: it balances gravity.
    Eigen::VectorXd g = Eigen::VectorXd::Zero(m->n_dofs());
    const EnergyTerm& contact = *m->terms[m->find_term("contact")];
    TermEvaluation at_rest(contact, s.x);
    contact.value_and_gradient(at_rest.data(), s.x, g);
    double fy = 0.0, fx = 0.0;
    for (int v = 0; v < m->n_verts; ++v) {
      fx -= g[2 * v];
      fy -= g[2 * v + 1];
    }
    const double weight = 9.81 * total_mass(*m);
    CHECK(fy == doctest::Approx(weight).epsilon(1e-3));
    CHECK(std::abs(fx) < 1e-6 * weight);
    if (model == "barrier") CHECK(lowest(*m, s.x, *ground()) > 0.0);
  }
}

TEST_CASE("contact: the barrier never lets a dropped block penetrate") {
  auto m = block_on_ground("barrier", 0.0, 0.05, 0.0, 1e3);
  Simulator sim(m, contact_options(0.01));
  State s = sim.rest_state();
  double closest = 1e300;
  for (int n = 0; n < 60; ++n) {  // falls 5 cm in ~0.1 s, then rests on the barrier
    REQUIRE(sim.step(s).converged());
    closest = std::min(closest, lowest(*m, s.x, *ground()));
  }
  MESSAGE("closest approach " << closest << " m");
  CHECK(closest > 0.0);
  CHECK(closest < 1e-3);  // it did reach the activation zone
}

TEST_CASE("contact: a sliding block stops after v0^2 / (2 mu g)") {
  for (const std::string model : {"penalty", "barrier"}) {
    INFO(model);
    const double mu = 0.4, v0 = 0.5, g = 9.81;
    auto m = block_on_ground(model, mu, model == "barrier" ? 5e-4 : 0.0);
    Simulator sim(m, contact_options(0.002));
    State s = sim.rest_state();
    // Settle onto the ground first, then push.
    for (int n = 0; n < 100; ++n) REQUIRE(sim.step(s).converged());
    const double x_start = centroid(*m, s.x)[0];
    for (int v = 0; v < m->n_verts; ++v) s.v[2 * v] = v0;
    const double t_stop = v0 / (mu * g);
    const int steps = static_cast<int>(1.5 * t_stop / 0.002);
    // Once stopped, the block rocks on friction's smoothed stick spring (the eps_v scale):
    // average the velocity over the last 50 steps.
    double late_vx = 0.0;
    for (int n = 0; n < steps + 50; ++n) {
      REQUIRE(sim.step(s).converged());
      if (n >= steps) late_vx += mean_vx(*m, s.v) / 50;
    }
    const double distance = centroid(*m, s.x)[0] - x_start;
    const double expected = v0 * v0 / (2 * mu * g);
    MESSAGE(model << ": slid " << distance << " m, Coulomb " << expected << " m; mean velocity "
                  << late_vx << " m/s at the end");
    CHECK(distance == doctest::Approx(expected).epsilon(0.03));
    CHECK(std::abs(late_vx) < 1e-3);
  }
}

TEST_CASE("contact: on an incline a block sticks below the friction angle and slides above") {
  const double mu = 0.5;
  for (double angle : {0.3, 0.6}) {  // tan 0.3 = 0.31 < mu < tan 0.6 = 0.68
    INFO("incline " << angle);
    auto m = block_on_ground("penalty", mu, 0.0, angle);
    Simulator sim(m, contact_options(0.005));
    State s = sim.rest_state();
    const double T = 0.5;
    for (int n = 0; n < static_cast<int>(T / 0.005); ++n) REQUIRE(sim.step(s).converged());
    // Speed along the slope (downhill is -x in the ground's frame).
    const Eigen::Vector2d down(-std::cos(angle), -std::sin(angle));
    double speed = 0.0, mass = 0.0;
    for (int v = 0; v < m->n_verts; ++v) {
      speed += m->mass[2 * v] * down.dot(s.v.segment(2 * v, 2));
      mass += m->mass[2 * v];
    }
    speed /= mass;
    const double a = 9.81 * (std::sin(angle) - mu * std::cos(angle));
    MESSAGE("downhill speed " << speed << " m/s; Coulomb " << std::max(a, 0.0) * T << " m/s");
    if (a < 0) {
      CHECK(std::abs(speed) < 2e-3);  // sticking, up to the eps_v creep
    } else {
      CHECK(speed == doctest::Approx(a * T).epsilon(0.05));
    }
  }
}

TEST_CASE("contact: friction sends a Newton step to its vertex's 1D minimiser") {
  // ContactTerm::correct_direction in 2D: a contact vertex's tangential step becomes the exact
  // minimiser of its friction plus its other forces linearised, with the stiffness k that
  // Newton's step implies (g_x = -(k + friction curvature) dx). Checked through the term's own
  // gradient: at the corrected point the friction force balances the linearised other forces.
  auto m = block_on_ground("penalty", 0.5, 5e-5);
  const double dt = 0.01, eps = 1e-3 * dt;  // friction_velocity * dt
  const Eigen::VectorXd x_prev = m->X;
  const EnergyTerm& term = *m->terms[m->find_term("contact")];
  const auto* contact = dynamic_cast<const DirectionCorrection*>(&term);
  REQUIRE(contact != nullptr);
  TermEvaluation step(term, x_prev, dt);
  std::vector<int> bottom, top;
  for (int v = 0; v < m->n_verts; ++v) (m->X[2 * v + 1] < 1e-4 ? bottom : top).push_back(v);
  REQUIRE(!bottom.empty());
  REQUIRE(!top.empty());
  const int foot = bottom[0], free = top[0];
  // The friction force (x part of the contact gradient) at the foot with slip w.
  const auto friction = [&](const Eigen::VectorXd& x, double w) {
    Eigen::VectorXd y = x, g = Eigen::VectorXd::Zero(m->n_dofs());
    y[2 * foot] = x_prev[2 * foot] + w;
    term.value_and_gradient(step.data(), y, g);
    return g[2 * foot];
  };
  const double F = friction(x_prev, 5.0 * eps);  // the sliding friction force
  REQUIRE(F > 0.0);
  struct Case {
    const char* what;
    double slip, push, kappa;  // slip u in eps; other forces r = -push F, stiffness kappa F / eps
    double lowest, highest;    // where the corrected slip must land, in eps
  };
  const Case cases[] = {
      // Sliding at 3 eps; the sliding friction's zero curvature sends Newton to -3 eps, across
      // the band; the other forces cannot overcome friction (push 0.88): the foot sticks.
      {"slip reversal", 3.0, 0.88, 0.02, -1.0, 1.0},
      // Sticking at 0.2 eps and pushed just past friction (1.05): the band's large curvature
      // stops Newton at 0.63 eps, short of the knee; the minimiser slides, at 2.7 eps.
      {"sticking to sliding", 0.2, 1.05, 0.02, 1.0, 1e9},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    Eigen::VectorXd x = x_prev;
    x[2 * foot] += c.slip * eps;
    const double u = c.slip * eps, k = c.kappa * F / eps, r = -c.push * F;
    const double phi = friction(x, u);
    const double curvature =
        (friction(x, u + 1e-4 * eps) - friction(x, u - 1e-4 * eps)) / (2e-4 * eps);
    // The potential's gradient at the foot, and Newton's step for it.
    Eigen::VectorXd g = Eigen::VectorXd::Zero(m->n_dofs());
    g[2 * foot] = r + phi;
    Eigen::VectorXd dx = Eigen::VectorXd::Zero(m->n_dofs());
    dx.segment<2>(2 * foot) << -g[2 * foot] / (k + curvature), 1e-6;
    dx.segment<2>(2 * free) << -6.0 * eps, 3e-6;
    MESSAGE(std::string(c.what) << ": Newton's slip " << (u + dx[2 * foot]) / eps << " eps");
    Eigen::VectorXd corrected = dx;
    REQUIRE(contact->correct_direction(step.data(), x, g, corrected));
    const double w = u + corrected[2 * foot];
    MESSAGE(std::string(c.what) << ": corrected slip " << w / eps << " eps");
    CHECK(w >= c.lowest * eps);
    CHECK(w <= c.highest * eps);
    // Stationary: the linearised other forces balance the friction at w.
    CHECK(std::abs(r + k * (w - u) + friction(x, w)) <= 1e-9 * F);
    CHECK(corrected[2 * foot + 1] == dx[2 * foot + 1]);  // the normal part is kept
    corrected[2 * foot] = dx[2 * foot];
    CHECK(corrected == dx);  // nothing else changed
  }
  // Near a solution the change is of second order: inside the band a step of 1e-4 eps
  // changes by less than 1e-3 of itself; sliding on, not at all.
  for (const double slip : {0.5, 3.0}) {
    INFO("slip " << slip << " eps");
    Eigen::VectorXd x = x_prev;
    x[2 * foot] += slip * eps;
    const double u = slip * eps, du = 1e-4 * eps;
    const double curvature =
        (friction(x, u + 1e-6 * eps) - friction(x, u - 1e-6 * eps)) / (2e-6 * eps);
    Eigen::VectorXd g = Eigen::VectorXd::Zero(m->n_dofs()), dx = g;
    g[2 * foot] = -(0.02 * F / eps + curvature) * du;
    dx[2 * foot] = du;
    contact->correct_direction(step.data(), x, g, dx);
    if (slip < 1.0) {
      CHECK(std::abs(dx[2 * foot] - du) <= 1e-3 * du);
      CHECK(std::abs(dx[2 * foot] - du) > 0.0);  // corrected, slightly
    } else {
      CHECK(dx[2 * foot] == doctest::Approx(du).epsilon(1e-9));
    }
  }
}

TEST_CASE("contact: bad options and penetrating starts are refused") {
  auto m = rectangle_model("neo_hookean", 1e5, 0.3, 1000.0, {2, 1}, {0.1, 0.05});
  ContactOptions opt;
  opt.obstacles = {ground()};
  CHECK_THROWS_WITH_AS(add_contact(*m, opt), doctest::Contains("not outside obstacle 'ground'"),
                       InputError);
  opt.model = ContactModel::Penalty;
  opt.friction = -1.0;
  CHECK_THROWS_AS(add_contact(*m, opt), InputError);
  opt.friction = 0.3;
  opt.obstacles.clear();
  CHECK_THROWS_WITH_AS(add_contact(*m, opt), doctest::Contains("obstacle"), InputError);
}

}  // namespace softgrad::test
