// Muscles: activations shorten edges and fibres to their target lengths (known answers), and
// their per-step gradients match central differences.
#include <doctest/doctest.h>

#include "softgrad/adjoint.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/muscles.hpp"
#include "support/finite_difference.hpp"
#include "support/term_derivatives.hpp"
#include "support/tiny_models.hpp"

namespace softgrad::test {
namespace {

/// A very soft strip [0, 1] x [0, 0.1] clamped at x = 0: the muscles dominate.
std::shared_ptr<Model> soft_strip(int nx, double youngs = 10.0) {
  auto m = rectangle_model("neo_hookean", youngs, 0.3, 100.0, {nx, 1}, {1.0, 0.1});
  fix_vertices(*m, vertices_at(*m, 0, 0.0));
  return m;
}

double mean_x(const Model& m, const Eigen::VectorXd& x, const std::vector<int>& verts) {
  double s = 0.0;
  for (int v : verts) s += x[2 * v];
  return s / verts.size();
}

/// Static equilibrium with the activations of step 0 set to `a` for every muscle.
State activated_equilibrium(std::shared_ptr<Model> m, const std::string& term, double a) {
  Simulator sim(m, SimulationOptions{});
  Rollout r = rest_rollout(sim, 0);
  r.static_solve = true;
  const ParameterSet p(sim, r, {term + ".activation"});
  p.set(sim, r, Eigen::VectorXd::Constant(p.size(), a));
  return simulate(sim, r).final_state();
}

}  // namespace

TEST_CASE("muscles: an activated edge pulls to (1 - a) of its rest length") {
  auto m = soft_strip(1);
  const std::vector<int> left = vertices_at(*m, 0, 0.0), right = vertices_at(*m, 0, 1.0);
  std::vector<MuscleEdge> edges;
  for (size_t i = 0; i < left.size(); ++i) edges.push_back({left[i], right[i], 0});
  add_muscle_edges(*m, "edges", edges, 1e5, 1, 1);
  for (double a : {0.3, -0.2}) {
    const State s = activated_equilibrium(m, "edges", a);
    CHECK(mean_x(*m, s.x, right) == doctest::Approx(1.0 - a).epsilon(1e-4));
  }
}

TEST_CASE("muscles: activated fibres contract the strip to a stretch of 1 - a") {
  auto m = soft_strip(8);
  std::vector<int> all(m->bodies[0].n_elems());
  for (int e = 0; e < static_cast<int>(all.size()); ++e) all[e] = e;
  add_fibre_muscles(*m, "fibres", {{0, all, Eigen::Vector3d::UnitX()}}, 1e5, 1);
  const State s = activated_equilibrium(m, "fibres", 0.2);
  CHECK(mean_x(*m, s.x, vertices_at(*m, 0, 1.0)) == doctest::Approx(0.8).epsilon(1e-3));
}

TEST_CASE("muscles: per-step activation gradients match central differences") {
  for (int dim : {2, 3}) {
    INFO(dim << "D");
    std::shared_ptr<Model> m =
        dim == 2 ? rectangle_model("neo_hookean", 2e4, 0.3, 1000.0, {4, 2}, {0.4, 0.1})
                 : box_model("neo_hookean", 2e4, 0.3, 1000.0, {4, 1, 1}, {0.4, 0.1, 0.1});
    fix_vertices(*m, vertices_at(*m, 0, 0.0));
    const int steps = 20;
    // Two fibre muscles (top and bottom halves along the beam) and two edge muscles.
    std::vector<int> top, bottom;
    const Body& b = m->bodies[0];
    for (int e = 0; e < b.n_elems(); ++e) {
      double cy = 0.0;
      for (int v = 0; v <= dim; ++v) cy += m->X[b.elems[e * (dim + 1) + v] * dim + 1];
      (cy / (dim + 1) > 0.05 ? top : bottom).push_back(e);
    }
    add_fibre_muscles(*m, "fibres",
                      {{0, top, Eigen::Vector3d::UnitX()}, {0, bottom, Eigen::Vector3d::UnitX()}},
                      5e4, steps);
    const std::vector<int> tip = vertices_at(*m, 0, 0.4);
    add_muscle_edges(*m, "edges", {{0, tip[0], 0}, {1, tip.back(), 1}}, 1e3, 2, steps);
    SimulationOptions opt;
    opt.dt = 0.01;
    opt.newton.tolerance = 1e-12;
    Simulator sim(m, opt);
    Rollout r = rest_rollout(sim, steps);
    const ParameterSet params(sim, r, {"fibres.activation", "edges.activation"});
    Eigen::VectorXd theta(params.size());
    for (int i = 0; i < theta.size(); ++i) theta[i] = 0.2 * std::sin(0.37 * i);
    params.set(sim, r, theta);
    CenterOfMassTarget target;
    target.position = Eigen::VectorXd::Constant(dim, 0.1);
    const CenterOfMassLoss loss(*m, tip, {target});
    const GradientResult g = gradient(sim, simulate(sim, r), loss, params);
    const GradientResult t = tangent_gradient(sim, r, loss, params);
    CHECK(close(t.gradient, g.gradient, 1e-9));
    Eigen::VectorXd d(params.size());
    for (int i = 0; i < d.size(); ++i) d[i] = 0.1 * std::cos(1.3 * i);
    const auto loss_at = [&](const Eigen::VectorXd& th) {
      Rollout rr = r;
      params.set(sim, rr, th);
      const double l = evaluate_loss(sim, simulate(sim, rr), loss);
      params.set(sim, rr, theta);
      return l;
    };
    const double h = 1e-4;
    const double fd = (loss_at(theta + h * d) - loss_at(theta - h * d)) / (2 * h);
    MESSAGE("activations: adjoint " << g.gradient.dot(d) << ", central difference " << fd);
    CHECK(std::abs(fd) > 1e-8);
    CHECK(g.gradient.dot(d) == doctest::Approx(fd).epsilon(1e-6));
  }
}

TEST_CASE("muscles: closed-form edge Hessians and gradients equal AD and central differences") {
  for (int dim : {2, 3}) {
    INFO(dim << "D");
    std::shared_ptr<Model> m =
        dim == 2 ? rectangle_model("neo_hookean", 1e3, 0.3, 100.0, {2, 1}, {0.2, 0.1})
                 : box_model("neo_hookean", 1e3, 0.3, 100.0, {2, 1, 1}, {0.2, 0.1, 0.1});
    const int n = m->n_verts;
    // Edges from vertex 0 and a chain: stretched and compressed at the perturbed positions.
    std::vector<MuscleEdge> edges;
    for (int v = 1; v < n; ++v) edges.push_back({v - 1, v, v % 2});
    add_muscle_edges(*m, "edges", edges, 2e3, 2, 1);
    const EnergyTerm& term = *m->terms.back();
    TermEvaluation step(term, m->X, 0.01, Eigen::Vector2d(0.3, -0.2));
    Eigen::VectorXd x = m->X;
    for (int i = 0; i < x.size(); ++i) x[i] += 0.02 * std::sin(1.7 * i + 0.3);
    check_term_derivatives(term, step.data(), x, n, dim, 1e-12, 1e-6, 1e-6);
  }
}

TEST_CASE("muscles: bad muscles and activations are named") {
  auto m = soft_strip(2);
  CHECK_THROWS_WITH_AS(add_muscle_edges(*m, "e", {{0, 0, 0}}, 1e3, 1, 1),
                       doctest::Contains("two distinct vertices"), InputError);
  CHECK_THROWS_WITH_AS(add_muscle_edges(*m, "e", {{0, 1, 3}}, 1e3, 1, 1),
                       doctest::Contains("muscle 3"), InputError);
  CHECK_THROWS_WITH_AS(add_fibre_muscles(*m, "f", {{0, {99}, Eigen::Vector3d::UnitX()}}, 1e3, 1),
                       doctest::Contains("element 99"), InputError);
  add_muscle_edges(*m, "e", {{0, 1, 0}}, 1e3, 1, 2);
  Simulator sim(m, SimulationOptions{});
  Rollout r = rest_rollout(sim, 2);
  const ParameterSet p(sim, r, {"e.activation"});
  CHECK_THROWS_WITH_AS(p.set(sim, r, Eigen::Vector2d(0.1, 1.5)),
                       doctest::Contains("muscle 0 in step 1 is 1.5"), InputError);
}

}  // namespace softgrad::test
