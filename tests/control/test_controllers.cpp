// Controllers and the MLP: reverse-mode products against differences, and gradients of a loss
// with respect to controller parameters through the simulator (policy -> activations ->
// adjoint -> state -> policy).
#include <doctest/doctest.h>

#include "softgrad/adjoint.hpp"
#include "softgrad/controller.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/muscles.hpp"
#include "support/finite_difference.hpp"
#include "support/random.hpp"
#include "support/tiny_models.hpp"

namespace softgrad::test {
namespace {

/// A clamped 2D beam with four edge muscles (bottom and top, two halves), 20 steps.
struct Arm {
  std::shared_ptr<Model> model;
  std::unique_ptr<Simulator> sim;
  Rollout rollout;
  std::vector<int> tip;
};

Arm muscle_arm(int steps = 20) {
  Arm a;
  a.model = rectangle_model("neo_hookean", 2e4, 0.3, 1000.0, {4, 2}, {0.4, 0.1});
  Model& m = *a.model;
  fix_vertices(m, vertices_at(m, 0, 0.0));
  const auto at = [&](double x, double y) {
    for (int v = 0; v < m.n_verts; ++v)
      if (std::abs(m.X[2 * v] - x) < 1e-9 && std::abs(m.X[2 * v + 1] - y) < 1e-9) return v;
    return -1;
  };
  add_muscle_edges(m, "muscles",
                   {{at(0.0, 0.0), at(0.2, 0.0), 0},
                    {at(0.2, 0.0), at(0.4, 0.0), 1},
                    {at(0.0, 0.1), at(0.2, 0.1), 2},
                    {at(0.2, 0.1), at(0.4, 0.1), 3}},
                   2e3, 4, steps);
  SimulationOptions opt;
  opt.dt = 0.01;
  opt.newton.tolerance = 1e-12;
  a.sim = std::make_unique<Simulator>(a.model, opt);
  a.rollout = rest_rollout(*a.sim, steps);
  a.rollout.controlled_term = "muscles";
  a.tip = vertices_at(m, 0, 0.4);
  return a;
}

/// Checks Controller::backprop against central differences of act() in psi, x, v and u_prev.
void check_backprop(const Controller& c, int n, const State& s, const Eigen::VectorXd& u_prev) {
  const int m = c.n_outputs();
  const Eigen::VectorXd ubar = random_matrix(m, 1);
  Eigen::VectorXd psi_bar = Eigen::VectorXd::Zero(c.n_parameters());
  Eigen::VectorXd xbar = Eigen::VectorXd::Zero(s.x.size()), vbar = xbar;
  Eigen::VectorXd ubar_prev = Eigen::VectorXd::Zero(m);
  c.backprop(n, s, u_prev, ubar, psi_bar, xbar, vbar, ubar_prev);
  const auto via_psi = [&](const Eigen::VectorXd& psi) {
    auto d = c.clone();
    d->set_parameters(psi);
    return ubar.dot(d->act(n, s, u_prev));
  };
  CHECK(close(psi_bar, fd_gradient(via_psi, c.parameters()), 1e-6, 1e-10));
  const auto via_x = [&](const Eigen::VectorXd& x) {
    State t = s;
    t.x = x;
    return ubar.dot(c.act(n, t, u_prev));
  };
  CHECK(close(xbar, fd_gradient(via_x, s.x), 1e-6, 1e-10));
  const auto via_v = [&](const Eigen::VectorXd& v) {
    State t = s;
    t.v = v;
    return ubar.dot(c.act(n, t, u_prev));
  };
  CHECK(close(vbar, fd_gradient(via_v, s.v), 1e-6, 1e-10));
  const auto via_u = [&](const Eigen::VectorXd& u) { return ubar.dot(c.act(n, s, u)); };
  CHECK(close(ubar_prev, fd_gradient(via_u, u_prev), 1e-6, 1e-10));
}

}  // namespace

TEST_CASE("control: MLP reverse mode matches differences in inputs and weights") {
  const Mlp net({5, 7, 6, 3}, 42, 1.0);
  const Eigen::VectorXd x = random_matrix(5, 1), ybar = random_matrix(3, 1);
  Eigen::VectorXd pbar;
  const Eigen::VectorXd xbar = net.backward(x, ybar, pbar);
  const auto in_x = [&](const Eigen::VectorXd& z) { return ybar.dot(net.forward(z)); };
  CHECK(close(xbar, fd_gradient(in_x, x), 1e-7));
  const auto in_p = [&](const Eigen::VectorXd& p) {
    Mlp other = net;
    other.set_parameters(p);
    return ybar.dot(other.forward(x));
  };
  CHECK(close(pbar, fd_gradient(in_p, net.parameters()), 1e-7));
  CHECK_THROWS_AS(net.forward(Eigen::VectorXd::Zero(4)), InputError);
}

TEST_CASE("control: every controller's backprop matches differences of act") {
  Arm a = muscle_arm();
  State s = a.rollout.initial;
  s.x += 0.01 * random_matrix(s.x.size(), 1);
  s.v = random_matrix(s.v.size(), 1);
  const Eigen::VectorXd u_prev = 0.1 * random_matrix(4, 1);
  OpenLoopController open(4, 20, 0.3);
  open.set_parameters(random_matrix(80, 1));
  SineController sine(4, 0.01, 0.3, 2.0);
  sine.set_parameters(random_matrix(13, 1) + Eigen::VectorXd::Constant(13, 1.0));
  KeyframeController keys(4, 5, 0.13, 0.01, 0.3);
  keys.set_parameters(random_matrix(20, 1));
  MlpController::Options mo;
  mo.hidden = {8};
  mo.length_scale = 0.1;
  MlpController mlp(*a.model, 4, 0.01, mo);
  mlp.set_parameters(random_matrix(mlp.n_parameters(), 1));
  for (const Controller* c : std::initializer_list<const Controller*>{&open, &sine, &keys, &mlp}) {
    INFO(c->name());
    check_backprop(*c, 7, s, u_prev);
  }
}

TEST_CASE("control: controller gradients through the simulator match central differences") {
  for (const std::string kind : {"open_loop", "sine", "keyframes", "mlp"}) {
    INFO(kind);
    Arm a = muscle_arm();
    std::shared_ptr<Controller> c;
    if (kind == "open_loop") c = std::make_shared<OpenLoopController>(4, 20, 0.3);
    if (kind == "sine") c = std::make_shared<SineController>(4, 0.01, 0.3, 3.0);
    if (kind == "keyframes") c = std::make_shared<KeyframeController>(4, 4, 0.1, 0.01, 0.3);
    if (kind == "mlp") {
      MlpController::Options mo;
      mo.hidden = {8};
      mo.length_scale = 0.1;
      mo.velocity_scale = 0.1;
      c = std::make_shared<MlpController>(*a.model, 4, 0.01, mo);
    }
    Eigen::VectorXd psi = c->parameters();
    for (int i = 0; i < psi.size(); ++i) psi[i] += 0.5 * std::sin(1.1 * i + 0.3);
    c->set_parameters(psi);
    a.rollout.controller = c;
    CenterOfMassTarget target;
    target.position = Eigen::Vector2d(0.5, 0.1);
    const CenterOfMassLoss loss(*a.model, a.tip, {target});
    const ParameterSet params(*a.sim, a.rollout, {"controller", "v0"});
    const GradientResult g = gradient(*a.sim, simulate(*a.sim, a.rollout), loss, params);
    const Eigen::VectorXd theta = params.get(*a.sim, a.rollout);
    Eigen::VectorXd d(theta.size());
    for (int i = 0; i < d.size(); ++i) d[i] = std::cos(0.7 * i);
    const auto loss_at = [&](const Eigen::VectorXd& th) {
      Rollout r = a.rollout;
      params.set(*a.sim, r, th);
      return evaluate_loss(*a.sim, simulate(*a.sim, r), loss);
    };
    const double h = 1e-5;
    const double fd = (loss_at(theta + h * d) - loss_at(theta - h * d)) / (2 * h);
    MESSAGE(kind << ": adjoint " << g.gradient.dot(d) << ", central difference " << fd);
    CHECK(std::abs(fd) > 1e-9);
    CHECK(g.gradient.dot(d) == doctest::Approx(fd).epsilon(1e-5));
    // The rollout's own controller was not changed by the perturbed copies.
    CHECK(a.rollout.controller->parameters() == psi);
  }
}

TEST_CASE("control: a controller's term is checked, and its activations are not free too") {
  Arm a = muscle_arm();
  a.rollout.controller = std::make_shared<OpenLoopController>(4, 20, 0.3);
  CHECK_THROWS_WITH_AS(ParameterSet(*a.sim, a.rollout, {"muscles.activation"}),
                       doctest::Contains("select 'controller'"), InputError);
  a.rollout.controlled_term = "legs";
  CHECK_THROWS_WITH_AS(simulate(*a.sim, a.rollout), doctest::Contains("no term named 'legs'"),
                       InputError);
  a.rollout.controlled_term = "muscles";
  a.rollout.controller = std::make_shared<OpenLoopController>(5, 20, 0.3);
  CHECK_THROWS_WITH_AS(simulate(*a.sim, a.rollout), doctest::Contains("per-step group"),
                       InputError);
}

}  // namespace softgrad::test
