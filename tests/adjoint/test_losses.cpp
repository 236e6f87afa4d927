// Each built-in loss: its value at a known state, and its derivatives against central
// differences in x and v.
#include <doctest/doctest.h>

#include "softgrad/errors.hpp"
#include "softgrad/loss.hpp"
#include "support/finite_difference.hpp"
#include "support/random.hpp"
#include "support/tiny_models.hpp"

namespace softgrad::test {
namespace {

std::shared_ptr<Model> small_model() {
  return rectangle_model("neo_hookean", 1e4, 0.3, 1000.0, {3, 2}, {0.3, 0.2});
}

State random_state(const Model& m) {
  State s;
  s.x = m.X + 0.01 * random_matrix(m.n_dofs(), 1);
  s.v = random_matrix(m.n_dofs(), 1);
  s.t = 0.3;
  s.step = 3;
  return s;
}

/// Derivatives of loss.evaluate(n, T, .) in x and v against central differences.
void check_derivatives(const Loss& loss, const State& s, int n, int T) {
  Eigen::VectorXd xbar = Eigen::VectorXd::Zero(s.x.size()), vbar = xbar;
  loss.evaluate(n, T, s, &xbar, &vbar);
  const auto in_x = [&](const Eigen::VectorXd& x) {
    State t = s;
    t.x = x;
    return loss.evaluate(n, T, t, nullptr, nullptr);
  };
  const auto in_v = [&](const Eigen::VectorXd& v) {
    State t = s;
    t.v = v;
    return loss.evaluate(n, T, t, nullptr, nullptr);
  };
  CHECK(xbar.norm() + vbar.norm() > 0.0);
  CHECK(close(xbar, fd_gradient(in_x, s.x), 1e-7, 1e-10));
  CHECK(close(vbar, fd_gradient(in_v, s.v), 1e-7, 1e-10));
}

}  // namespace

TEST_CASE("losses: position loss value and derivatives, it acts only at its step") {
  const auto m = small_model();
  const State s = random_state(*m);
  const Eigen::Vector2d target(0.5, -0.1);
  const PositionLoss loss(*m, {{3, 4, target, 2.0}, {kFinalStep, 1, target, 1.0}});
  const Eigen::VectorXd r = s.x.segment(8, 2) - target;
  CHECK(loss.evaluate(3, 10, s, nullptr, nullptr) == doctest::Approx(r.squaredNorm()));
  CHECK(loss.evaluate(2, 10, s, nullptr, nullptr) == 0.0);
  check_derivatives(loss, s, 3, 10);
  check_derivatives(loss, s, 10, 10);
}

TEST_CASE("losses: centre of mass is mass-weighted, in position and velocity") {
  const auto m = small_model();
  State s = random_state(*m);
  CenterOfMassTarget t;
  t.step = kFinalStep;
  t.position = Eigen::Vector2d(0.1, 0.2);
  t.velocity = Eigen::Vector2d(1.0, 0.0);
  const CenterOfMassLoss loss(*m, {}, {t});
  // A uniform translation moves the centre by the same amount.
  const Eigen::VectorXd c0 = loss.center(s.x);
  Eigen::VectorXd shifted = s.x;
  for (int v = 0; v < m->n_verts; ++v) shifted.segment(2 * v, 2) += Eigen::Vector2d(0.3, -0.7);
  CHECK(close(loss.center(shifted) - c0, Eigen::Vector2d(0.3, -0.7), 1e-14));
  check_derivatives(loss, s, 5, 5);
}

TEST_CASE("losses: trajectory loss sums weighted squared distances per state") {
  const auto m = small_model();
  const State s = random_state(*m);
  std::vector<Eigen::VectorXd> ref(4);
  ref[2] = m->X.segment(0, 4);  // vertices 0 and 1
  const TrajectoryLoss loss(*m, {0, 1}, ref, {1.0, 1.0, 3.0, 1.0});
  CHECK(loss.evaluate(1, 3, s, nullptr, nullptr) == 0.0);  // an empty reference entry
  const double expected = 1.5 * (s.x.segment(0, 4) - m->X.segment(0, 4)).squaredNorm();
  CHECK(loss.evaluate(2, 3, s, nullptr, nullptr) == doctest::Approx(expected));
  check_derivatives(loss, s, 2, 3);
  CHECK_THROWS_AS(TrajectoryLoss(*m, {0, 1}, ref, {1.0}), InputError);
  CHECK_THROWS_AS(TrajectoryLoss(*m, {0, 99}, ref), InputError);
}

TEST_CASE("losses: a user loss is differentiated by AD") {
  const auto m = small_model();
  const State s = random_state(*m);
  // Kinetic-energy-like and distance terms on two vertices, nonlinear in both x and v.
  const StateLoss loss(*m, {2, 5}, [](int n, int T, double t, const auto* x, const auto* v) {
    const auto dx = x[0] - x[2];
    const auto dy = x[1] - x[3];
    const auto len = sqrt(dx * dx + dy * dy);
    return (n == T ? 1.0 : 0.25) * (len * len * len + t * v[0] * v[1] + exp(v[3]));
  });
  check_derivatives(loss, s, 7, 7);
  check_derivatives(loss, s, 2, 7);
}

TEST_CASE("losses: a linear loss is its cotangents' dot product, state by state") {
  const auto m = small_model();
  const State s = random_state(*m);
  const Eigen::VectorXd a = random_matrix(m->n_dofs(), 1), b = random_matrix(m->n_dofs(), 1);
  // State 0: positions only; state 1: both; state 2: nothing (empty entries).
  const LinearLoss loss(*m, {a, a, {}}, {{}, b, {}});
  CHECK(loss.evaluate(0, 2, s, nullptr, nullptr) == doctest::Approx(a.dot(s.x)));
  CHECK(loss.evaluate(1, 2, s, nullptr, nullptr) == doctest::Approx(a.dot(s.x) + b.dot(s.v)));
  CHECK(loss.evaluate(2, 2, s, nullptr, nullptr) == 0.0);
  check_derivatives(loss, s, 1, 2);
  CHECK_THROWS_WITH_AS(LinearLoss(*m, {Eigen::VectorXd::Zero(3)}, {}),
                       doctest::Contains("position cotangent of state 0 has 3 values"), InputError);
}

TEST_CASE("losses: bad targets are rejected with the reason") {
  const auto m = small_model();
  CHECK_THROWS_WITH_AS(PositionLoss(*m, {{0, 1000, Eigen::Vector2d::Zero(), 1.0}}),
                       doctest::Contains("vertex 1000"), InputError);
  CHECK_THROWS_WITH_AS(PositionLoss(*m, {{0, 1, Eigen::Vector3d::Zero(), 1.0}}),
                       doctest::Contains("expected 2"), InputError);
  CHECK_THROWS_WITH_AS(PositionLoss(*m, {{0, 1, Eigen::Vector2d(std::nan(""), 0.0), 1.0}}),
                       doctest::Contains("not finite"), InputError);
}

}  // namespace softgrad::test
