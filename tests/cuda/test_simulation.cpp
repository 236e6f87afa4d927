// Whole simulations with the GPU linear solver (kind "cuda") against the CPU backends as the
// oracle: trajectories and adjoint gradients of the cantilever, a contact scene (a block
// sliding with friction on barrier contact) and a muscle scene (fibres contracting a strip).
// The energy terms are evaluated and assembled on the CPU; every Newton and adjoint linear
// solve runs on the device.
#include <doctest/doctest.h>

#include "adjoint/gradient_check.hpp"
#include "contact/contact_scenes.hpp"
#include "cuda/cuda_test.hpp"
#include "softgrad/detail/assembly.hpp"
#include "softgrad/muscles.hpp"
#include "solvers/cuda/elastic_newton.hpp"
#include "support/term_evaluation.hpp"

namespace softgrad::test {
namespace {

const std::vector<std::string> kMix = {"youngs", "poisson", "damping.alpha", "v0"};

/// ||a - b|| <= rtol max(||a||, ||b||) with both norms in the failure message.
bool agree(const Eigen::VectorXd& a, const Eigen::VectorXd& b, double rtol) {
  const double scale = std::max(a.norm(), b.norm());
  INFO("|a| = " << a.norm() << ", |b| = " << b.norm() << ", |a - b| = " << (a - b).norm());
  return scale > 0.0 && (a - b).norm() <= rtol * scale;
}

/// Final positions and velocities of a rollout, stacked.
Eigen::VectorXd final_xv(const Trajectory& traj) {
  const State& s = traj.final_state();
  Eigen::VectorXd xv(s.x.size() + s.v.size());
  xv << s.x, s.v;
  return xv;
}

}  // namespace

TEST_CASE("cuda/simulation: cantilever trajectory and gradient match the CPU backends") {
  SOFTGRAD_REQUIRE_CUDA_DEVICE();
  Problem cpu = cantilever_problem(3, 20, "cholmod");
  Problem gpu = cantilever_problem(3, 20, "cuda");
  const Trajectory t_cpu = simulate(*cpu.sim, cpu.rollout);
  const Trajectory t_gpu = simulate(*gpu.sim, gpu.rollout);
  CHECK(agree(final_xv(t_gpu), final_xv(t_cpu), 1e-7));
  const auto loss_cpu = mixed_loss(cpu);
  const auto loss_gpu = mixed_loss(gpu);
  const ParameterSet p_cpu(*cpu.sim, cpu.rollout, kMix);
  const ParameterSet p_gpu(*gpu.sim, gpu.rollout, kMix);
  const GradientResult g_cpu = gradient(*cpu.sim, t_cpu, *loss_cpu, p_cpu);
  const GradientResult g_gpu = gradient(*gpu.sim, t_gpu, *loss_gpu, p_gpu);
  CHECK(g_gpu.report.backend == "cuda_pcg(jacobi)");
  CHECK(g_gpu.report.trustworthy());
  CHECK(g_gpu.loss == doctest::Approx(g_cpu.loss).epsilon(1e-8));
  CHECK(agree(g_gpu.gradient, g_cpu.gradient, 1e-6));
}

TEST_CASE("cuda/simulation: a block sliding on barrier contact matches the CPU") {
  SOFTGRAD_REQUIRE_CUDA_DEVICE();
  auto run = [](const std::string& kind, Eigen::VectorXd& grad) {
    auto m = block_on_ground("barrier", 0.5, 4e-4);
    SimulationOptions o = contact_options(0.005, 1e-12);
    o.linear.kind = kind;
    o.linear.rel_tol = 1e-10;  // Jacobi-PCG stalls near 1e-12 (AdjointOptions)
    Simulator sim(m, o);
    Rollout r = rest_rollout(sim, 30);
    for (int v = 0; v < m->n_verts; ++v) r.initial.v[2 * v] = 0.3;
    CenterOfMassTarget target;
    target.position = Eigen::Vector2d(0.06, 0.02);
    target.velocity = Eigen::Vector2d(0.1, 0.0);
    const CenterOfMassLoss loss(*m, {}, {target});
    const ParameterSet params(sim, r, {"contact.friction", "contact.stiffness", "v0"});
    const Trajectory traj = simulate(sim, r);
    const GradientResult g = gradient(sim, traj, loss, params);
    CHECK(g.report.trustworthy());
    grad = g.gradient;
    return final_xv(traj);
  };
  Eigen::VectorXd g_cpu, g_gpu;
  const Eigen::VectorXd xv_cpu = run("cholmod", g_cpu);
  const Eigen::VectorXd xv_gpu = run("cuda", g_gpu);
  CHECK(agree(xv_gpu, xv_cpu, 1e-7));
  CHECK(agree(g_gpu, g_cpu, 1e-6));
}

TEST_CASE("cuda/simulation: fibre muscles contract a strip as on the CPU") {
  SOFTGRAD_REQUIRE_CUDA_DEVICE();
  auto run = [](const std::string& kind, Eigen::VectorXd& grad) {
    auto m = rectangle_model("neo_hookean", 1e3, 0.3, 100.0, {8, 1}, {1.0, 0.1});
    fix_vertices(*m, vertices_at(*m, 0, 0.0));
    std::vector<int> all(m->bodies[0].n_elems());
    for (int e = 0; e < static_cast<int>(all.size()); ++e) all[e] = e;
    add_fibre_muscles(*m, "fibres", {{0, all, Eigen::Vector3d::UnitX()}}, 1e4, 10);
    SimulationOptions o;
    o.dt = 0.01;
    o.newton.tolerance = 1e-12;
    o.linear.kind = kind;
    o.linear.rel_tol = 1e-10;  // Jacobi-PCG stalls near 1e-12 (AdjointOptions)
    Simulator sim(m, o);
    Rollout r = rest_rollout(sim, 10);
    const ParameterSet params(sim, r, {"fibres.activation"});
    params.set(sim, r, Eigen::VectorXd::Constant(params.size(), 0.2));
    std::vector<PositionTarget> targets;
    for (int v : vertices_at(*m, 0, 1.0))
      targets.push_back({kFinalStep, v, Eigen::Vector2d(0.9, 0.0), 1.0});
    const PositionLoss loss(*m, targets);
    const Trajectory traj = simulate(sim, r);
    grad = gradient(sim, traj, loss, params).gradient;
    return final_xv(traj);
  };
  Eigen::VectorXd g_cpu, g_gpu;
  const Eigen::VectorXd xv_cpu = run("cholmod", g_cpu);
  const Eigen::VectorXd xv_gpu = run("cuda", g_gpu);
  CHECK(agree(xv_gpu, xv_cpu, 1e-7));
  CHECK(agree(g_gpu, g_cpu, 1e-6));
}

TEST_CASE("cuda/elastic_newton: device-resident Newton steps match the CPU simulator") {
  SOFTGRAD_REQUIRE_CUDA_DEVICE();
  auto model = box_model("stable_neo_hookean", 5e4, 0.3, 1000.0, {6, 2, 2}, {0.3, 0.1, 0.1});
  fix_vertices(*model, vertices_at(*model, 0, 0.0), "clamp");
  add_gravity(*model, Eigen::Vector3d(0.0, -9.81, 0.0));
  SimulationOptions o;
  o.dt = 0.01;
  o.newton.tolerance = 1e-9;
  Simulator sim(model, o);
  State s = sim.rest_state();
  // The device: elastic body, gravity f = m g, the clamp's dofs fixed.
  cuda::Context context;
  const Body& body = model->bodies.front();
  cuda::DeviceElasticBody device(context, *body.material, body.batch());
  SparsityBuilder builder(model->n_verts, 3);
  TermEvaluation elastic(*model->terms[1], model->X);
  model->terms[1]->declare_sparsity(builder, elastic.data());
  const HessianAssembler H(builder);
  Eigen::VectorXd force = Eigen::VectorXd::Zero(model->n_dofs());
  for (int v = 0; v < model->n_verts; ++v) force[3 * v + 1] = -9.81 * model->mass[3 * v + 1];
  std::vector<int> fixed;
  for (int v : vertices_at(*model, 0, 0.0))
    for (int i = 0; i < 3; ++i) fixed.push_back(3 * v + i);
  cuda::DeviceNewtonOptions dopt;
  dopt.dt = o.dt;
  dopt.tolerance = o.newton.tolerance;
  dopt.length_scale = model->length_scale();
  dopt.cg.rel_tol = 1e-10;
  cuda::DeviceElasticNewton newton(context, {&device}, H.matrix(), model->mass, force, fixed, dopt);
  cuda::DeviceVector x(context, s.x.size()), v(context, s.x.size());
  x.upload(s.x);
  v.upload(s.v);
  for (int step = 0; step < 10; ++step) {
    CHECK(sim.step(s).status == NewtonReport::Status::Converged);
    CHECK(newton.step(x, v).converged);
  }
  Eigen::VectorXd x_gpu, v_gpu;
  x.download(x_gpu);
  v.download(v_gpu);
  CHECK(agree(x_gpu, s.x, 1e-8));
  CHECK(agree(v_gpu, s.v, 1e-5));
}

}  // namespace softgrad::test
