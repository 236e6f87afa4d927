// gpu_newton: per-step forward (Newton) and backward (adjoint) time of the cantilever, CPU
// against GPU, at about 10k, 100k and 1M tetrahedra; writes JSON.
//
// What runs where (so the numbers are read correctly):
//  - "cpu": kind "pcg" (Jacobi CG, OpenMP) for every Newton and adjoint linear solve.
//  - "gpu": kind "cuda" (Jacobi CG with cuSPARSE/cuBLAS on the device); energies, gradients and
//    Hessians are still evaluated and assembled on the CPU and the values uploaded per solve.
//  - "gpu_resident": DeviceElasticNewton, forward only: state, element kernels (energy, gradient,
//    projected Hessian into CSR values), Jacobi-PCG and line search all on the device.
//  - "components": one Newton iteration's pieces at the final state, CPU against the device
//    element kernels (gradient; PSD-projected Hessian written into the CSR values on the device)
//    and the Jacobi-PCG solve of the same matrix with b and x resident on each side.
// Both backends use the same tolerances; the JSON records their agreement.
//
// Usage: gpu_newton [--sizes 10k,100k,1M] [--steps 3,2,1] [--out FILE]
// Without a CUDA device it prints "gpu_newton: skipped: no CUDA device (...)" and exits 77.
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cantilever_beam.hpp"
#include "command_line.hpp"
#include "softgrad/adjoint.hpp"
#include "softgrad/detail/assembly.hpp"
#include "softgrad/openmp_waiting.hpp"
#include "solvers/cpu/pcg_solver.hpp"
#include "solvers/cuda/elastic_body.hpp"
#include "solvers/cuda/elastic_newton.hpp"
#include "solvers/cuda/pcg_solver.hpp"

namespace softgrad::bench {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Cells of about 10k, 100k and 1M tetrahedra (6 per cell) for the 1 x 0.1 x 0.1 m beam.
Cells cells_of(const std::string& size) {
  if (size == "10k") return {46, 6, 6};      // 9,936 tets
  if (size == "100k") return {100, 13, 13};  // 101,400 tets
  if (size == "1M") return {215, 28, 28};    // 1,011,360 tets
  if (auto c = parse_cells(size)) return *c;
  throw std::invalid_argument("unknown size '" + size + "' (10k, 100k, 1M or NXxNYxNZ)");
}

SimulationOptions options_for(const std::string& kind) {
  SimulationOptions o;
  o.dt = 0.01;
  o.newton.tolerance = 1e-6;
  o.linear.kind = kind;
  o.linear.rel_tol = 1e-6;  // inexact Newton: the same for both backends
  o.linear.max_iterations = 2000;
  return o;
}

/// Forward and backward pass of `steps` steps with linear solver `kind`.
json run_backend(const Cantilever& c, const std::string& kind, int steps, Eigen::VectorXd& x_final,
                 Eigen::VectorXd& grad) {
  Simulator sim(c.model, options_for(kind));
  const Rollout r = rest_rollout(sim, steps);
  auto t0 = Clock::now();
  const Trajectory traj = simulate(sim, r, TrajectoryOptions{1});
  const double forward = seconds_since(t0);
  long newton = 0, cg = 0;
  for (const NewtonReport& n : traj.reports()) {
    newton += n.iterations;
    cg += n.linear_iterations;
  }
  std::vector<PositionTarget> targets;
  for (int v : c.tip) {
    Eigen::VectorXd target = c.model->X.segment(3 * v, 3);
    target[1] -= 0.01;
    targets.push_back({kFinalStep, v, target, 1.0});
  }
  const PositionLoss loss(*c.model, targets);
  const ParameterSet params(sim, r, {"youngs"});
  AdjointOptions aopt;
  aopt.linear.rel_tol = 1e-8;
  aopt.linear.max_iterations = 2000;
  t0 = Clock::now();
  const GradientResult g = gradient(sim, traj, loss, params, aopt);
  const double backward = seconds_since(t0);
  x_final = traj.final_state().x;
  grad = g.gradient;
  return {
      {"linear_solver", kind},
      {"forward_seconds_per_step", forward / steps},
      {"backward_seconds_per_step", backward / steps},
      {"newton_iterations_per_step", static_cast<double>(newton) / steps},
      {"cg_iterations_per_step", static_cast<double>(cg) / steps},
      {"adjoint_cg_iterations_per_step", static_cast<double>(g.report.linear_iterations) / steps},
      {"converged", traj.converged()},
      {"adjoint_trustworthy", g.report.trustworthy()}};
}

/// Forward steps with everything on the device (DeviceElasticNewton).
json run_resident(const Cantilever& c, int steps, Eigen::VectorXd& x_final) {
  const Model& model = *c.model;
  const cuda::Context context;
  const Body& body = model.bodies.front();
  cuda::DeviceElasticBody device(context, *body.material, body.batch());
  SparsityBuilder builder(model.n_verts, 3);
  const auto elastic = model.terms[1]->make_data();
  model.terms[1]->declare_sparsity(builder, *elastic);
  const HessianAssembler H(builder);
  Eigen::VectorXd force = Eigen::VectorXd::Zero(model.n_dofs());
  for (int v = 0; v < model.n_verts; ++v) force[3 * v + 1] = -9.81 * model.mass[3 * v + 1];
  const SimulationOptions o = options_for("cuda");
  cuda::DeviceNewtonOptions dopt;
  dopt.dt = o.dt;
  dopt.tolerance = o.newton.tolerance;
  dopt.length_scale = model.length_scale();
  dopt.cg.rel_tol = o.linear.rel_tol;
  dopt.cg.max_iterations = o.linear.max_iterations;
  cuda::DeviceElasticNewton newton(context, {&device}, H.matrix(), model.mass, force,
                                   model.kinematic_dofs(), dopt);
  cuda::DeviceVector x(context, model.n_dofs()), v(context, model.n_dofs());
  x.upload(model.X);
  long iterations = 0, cg = 0;
  bool converged = true;
  const auto t0 = Clock::now();
  for (int k = 0; k < steps; ++k) {
    const cuda::DeviceNewtonReport r = newton.step(x, v);
    iterations += r.iterations;
    cg += r.cg_iterations;
    converged = converged && r.converged;
  }
  context.synchronize();
  const double forward = seconds_since(t0);
  x.download(x_final);
  return {{"forward_seconds_per_step", forward / steps},
          {"newton_iterations_per_step", static_cast<double>(iterations) / steps},
          {"cg_iterations_per_step", static_cast<double>(cg) / steps},
          {"converged", converged}};
}

/// Mean of `repeat` timings of f (seconds), after one warm-up call.
template <class F>
double timed(int repeat, F&& f) {
  f();
  const auto t0 = Clock::now();
  for (int k = 0; k < repeat; ++k) f();
  return seconds_since(t0) / repeat;
}

/// One Newton iteration's pieces at x: CPU element kernels and PCG against the device ones.
json components(const Cantilever& c, const Eigen::VectorXd& x) {
  const Model& model = *c.model;
  const Body& body = model.bodies.front();
  const EnergyTerm& term = *model.terms[1];
  // The elastic term's data for a static evaluation with the model's parameters.
  const Eigen::VectorXd parameters = term.default_parameters();
  const auto data = term.make_data();
  data->step.x_prev = &x;
  data->parameters = parameters.data();
  term.begin_step(*data);
  SparsityBuilder builder(model.n_verts, 3);
  term.declare_sparsity(builder, *data);
  HessianAssembler H(builder);
  Eigen::VectorXd g(x.size());
  const double cpu_gradient = timed(3, [&] {
    g.setZero();
    term.value_and_gradient(*data, x, g);
  });
  const double cpu_hessian = timed(3, [&] {
    H.set_zero();
    term.add_hessian(*data, x, true, H);
  });
  H.add_diagonal(model.mass / (0.01 * 0.01));
  CgOptions cg;
  cg.rel_tol = 1e-8;
  cg.max_iterations = 2000;
  PcgSolver cpu_pcg(PcgPreconditioner::Jacobi, cg);
  cpu_pcg.factorize(H.matrix());
  Eigen::VectorXd x_cpu;
  int cpu_iterations = 0;
  const double cpu_solve = timed(1, [&] {
    x_cpu.setZero(g.size());
    cpu_iterations = cpu_pcg.solve(g, x_cpu).iterations;
  });
  // The device: the same element kernels from the same templates, and the same solve.
  cuda::CudaPcgSolver gpu_pcg(cuda::CudaPreconditioner::Jacobi, cg);
  gpu_pcg.analyze(H.matrix());
  const cuda::Context context;
  cuda::DeviceElasticBody device(context, *body.material, body.batch());
  device.bind_pattern(H.matrix());
  cuda::DeviceVector dx(context, x.size()), dg(context, x.size()), db(context, x.size()),
      dsol(context, x.size());
  dx.upload(x);
  const double gpu_gradient = timed(3, [&] {
    set_zero(dg);
    device.add_gradient(dx, dg);
    context.synchronize();
  });
  cuda::DeviceCsrMatrix& A = gpu_pcg.device_matrix();
  const double gpu_hessian = timed(3, [&] {
    A.set_values_zero();
    device.add_hessian(dx, true, A);
    context.synchronize();
  });
  A.set_values(H.matrix());  // the CPU matrix including the mass term, for the same solve
  gpu_pcg.factorize_device();
  db.upload(g);
  int gpu_iterations = 0;
  const double gpu_solve = timed(1, [&] {
    set_zero(dsol);
    gpu_iterations = gpu_pcg.solve(db, dsol).iterations;
  });
  return {{"cpu_gradient_seconds", cpu_gradient},
          {"gpu_gradient_seconds", gpu_gradient},
          {"cpu_projected_hessian_seconds", cpu_hessian},
          {"gpu_projected_hessian_seconds", gpu_hessian},
          {"cpu_pcg_solve_seconds", cpu_solve},
          {"gpu_pcg_solve_seconds", gpu_solve},
          {"cpu_pcg_iterations", cpu_iterations},
          {"gpu_pcg_iterations", gpu_iterations}};
}

double relative_difference(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  const double scale = std::max(a.norm(), b.norm());
  return scale > 0 ? (a - b).norm() / scale : 0.0;
}

}  // namespace
}  // namespace softgrad::bench

int main(int argc, char** argv) {
  softgrad::restart_with_bounded_openmp_waiting(argv);
  using namespace softgrad;
  using namespace softgrad::bench;
  std::vector<std::string> names = {"10k", "100k", "1M"};
  std::vector<int> steps_list = {3, 2, 1};
  std::string out = "gpu_newton.json";
  if (!parse_command_line(
          argc, argv, "gpu_newton",
          "usage: gpu_newton [--sizes 10k,100k,1M] [--steps 3,2,1] [--out gpu_newton.json]",
          {{"--sizes",
            [&](Arguments& a) {
              names = a.list();
              for (const std::string& n : names) cells_of(n);
            }},
           {"--steps",
            [&](Arguments& a) {
              steps_list.clear();
              for (const std::string& n : a.list()) steps_list.push_back(parse_int("--steps", n));
              for (int n : steps_list)
                if (n < 1) throw std::invalid_argument("--steps must be >= 1");
            }},
           {"--out", [&](Arguments& a) { out = a.value(); }}}))
    return 1;
  std::string why;
  if (cuda::device_count(&why) == 0) {
    std::printf("gpu_newton: skipped: no CUDA device (%s)\n", why.c_str());
    return 77;
  }
  json result = {{"benchmark", "gpu_newton"},
                 {"device", cuda::device_description()},
                 {"cpu_threads", omp_get_max_threads()},
                 {"material", "stable_neo_hookean, E = 1e6 Pa, nu = 0.4, 1000 kg/m^3"},
                 {"note",
                  "gpu = CPU assembly + GPU Jacobi-PCG per solve; components = device "
                  "element kernels against the CPU ones at one Newton iterate"}};
  for (size_t k = 0; k < names.size(); ++k) {
    const Cells cells = cells_of(names[k]);
    const int steps = k < steps_list.size() ? steps_list[k] : 1;
    BeamMaterial material;
    material.youngs = 1e6;
    const Cantilever c = make_cantilever(cells, material);
    std::printf("%s: %d tets, %d dofs, %d steps\n", names[k].c_str(), cells.n_tets(),
                cells.n_dofs(), steps);
    std::fflush(stdout);
    Eigen::VectorXd x_gpu, g_gpu, x_cpu, g_cpu;
    json gpu = run_backend(c, "cuda", steps, x_gpu, g_gpu);
    json cpu = run_backend(c, "pcg", steps, x_cpu, g_cpu);
    Eigen::VectorXd x_resident;
    json resident = run_resident(c, steps, x_resident);
    resident["final_state_relative_difference"] = relative_difference(x_resident, x_cpu);
    json entry = {
        {"size", names[k]},
        {"n_tets", cells.n_tets()},
        {"n_dofs", cells.n_dofs()},
        {"steps", steps},
        {"cpu", cpu},
        {"gpu", gpu},
        {"gpu_resident", resident},
        {"resident_forward_speedup", cpu["forward_seconds_per_step"].get<double>() /
                                         resident["forward_seconds_per_step"].get<double>()},
        {"forward_speedup", cpu["forward_seconds_per_step"].get<double>() /
                                gpu["forward_seconds_per_step"].get<double>()},
        {"backward_speedup", cpu["backward_seconds_per_step"].get<double>() /
                                 gpu["backward_seconds_per_step"].get<double>()},
        {"final_state_relative_difference", relative_difference(x_gpu, x_cpu)},
        {"gradient_relative_difference", relative_difference(g_gpu, g_cpu)},
        {"components", components(c, x_cpu)}};
    std::cout << entry.dump(2) << std::endl;
    result["sizes"].push_back(entry);
    // Rewritten after every size, so that a run stopped by a time limit keeps what it measured.
    std::ofstream(out) << result.dump(2) << "\n";
    std::printf("wrote %s\n", out.c_str());
  }
  return 0;
}
