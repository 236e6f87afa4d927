// newton_step_cost: what a backward-Euler step costs against one Newton iteration's worth of
// work, the cost a step would have if Newton needed nothing but its first direction.
//
// For each step of a scene's rollout, in one process and interleaved step by step:
//  - the step: Simulator::step, as `softgrad run` takes it;
//  - the reference at the same start: the gradient and the exact Hessian assembled at the
//    step's initial guess (the inertial prediction), the linear solver's factorization of it
//    (CHOLMOD: numeric factorization; pcg: the preconditioner) and one solve of H dx = -g from
//    zero to the solver's own tolerance.
// The ratio is the steps' total time over the references' total time. The peer benchmark
// (benchmarks/peers/run_peer_benchmark.py) runs it on its beam, one thread.
//
//   newton_step_cost SCENE.json [--solver cholmod|pcg|amg] [--steps N] [--threads 1]
//                    [--out FILE.json]
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "command_line.hpp"
#include "softgrad/scene.hpp"
#include "softgrad/simulator.hpp"
#include "softgrad/solvers/linear_solver.hpp"
#include "src/integrator/incremental_potential.hpp"

namespace softgrad::bench {
namespace {

struct Options {
  std::string scene;
  std::string solver;  // empty: the scene's
  int steps = 0;       // 0: the scene's
  int threads = 1;
  std::string out;  // empty: standard output
};

/// @throws std::invalid_argument for an unknown option or a bad value.
Options parse_options(int argc, char** argv) {
  Options o;
  for (Arguments args(argc, argv); args.next();) {
    const std::string& a = args.option();
    if (a == "--solver") {
      o.solver = args.value();
    } else if (a == "--steps") {
      o.steps = args.integer();
    } else if (a == "--threads") {
      o.threads = args.integer();
    } else if (a == "--out") {
      o.out = args.value();
    } else if (!a.empty() && a[0] != '-' && o.scene.empty()) {
      o.scene = a;
    } else {
      throw std::invalid_argument("unknown option '" + a + "'");
    }
  }
  if (o.scene.empty()) throw std::invalid_argument("no scene file given");
  if (o.steps < 0 || o.threads < 1) throw std::invalid_argument("--steps >= 0, --threads >= 1");
  return o;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// One exact-Hessian Newton iteration's work at the start of the step from `s` (see the file
/// comment), timed by phase; the solver's report in `report`.
struct Reference {
  double gradient = 0.0, hessian = 0.0, factorize = 0.0, solve = 0.0;
  double total() const { return gradient + hessian + factorize + solve; }
};

class ReferenceIteration {
 public:
  ReferenceIteration(const Model& model, const SimulationOptions& options,
                     const TermParameters& parameters)
      : model_(model),
        options_(options),
        parameters_(parameters),
        phi_(model),
        solver_(make_linear_solver(options.linear)) {
    solver_->analyze(phi_.matrix());  // once, as the Simulator does
  }

  Reference run(const State& s, LinearSolveReport& report) {
    const double dt = options_.dt;
    const StepContext ctx{dt, s.t + dt, &s.x, &s.v, s.step, &s.adaptive};
    xhat_ = s.x + dt * s.v;
    phi_.begin(ctx, parameters_);
    x_ = xhat_;
    model_.apply_kinematics(ctx.t, x_);
    Reference r;
    auto t0 = std::chrono::steady_clock::now();
    phi_.value_and_gradient(x_, g_);
    r.gradient = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    phi_.hessian(x_, false);
    r.hessian = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    report = solver_->factorize(phi_.matrix());
    r.factorize = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    if (report.ok()) {
      rhs_ = -g_;
      dx_.setZero(x_.size());
      report = solver_->solve(rhs_, dx_);
    }
    r.solve = seconds_since(t0);
    return r;
  }

 private:
  const Model& model_;
  const SimulationOptions& options_;
  const TermParameters& parameters_;
  IncrementalPotential phi_;
  std::unique_ptr<LinearSolver> solver_;
  Eigen::VectorXd xhat_, x_, g_, rhs_, dx_;
};

nlohmann::json run(const Options& o) {
  omp_set_num_threads(o.threads);
  const Scene scene = load_scene(o.scene);
  SimulationOptions options = scene.options;
  if (!o.solver.empty()) options.linear.kind = o.solver;
  if (options.linear.kind == "matfree" || options.linear.kind == "cuda")
    throw std::invalid_argument("--solver: an assembled backend (cholmod, pcg, amg)");
  Simulator sim(scene.model, options);
  const Rollout rollout = scene.rollout(sim);
  const int steps = o.steps > 0 ? o.steps : rollout.steps;
  const TermParameters& parameters =
      rollout.parameters.empty() ? sim.default_parameters() : rollout.parameters;
  ReferenceIteration reference(*scene.model, options, parameters);

  State s = rollout.initial;
  s.step = 0;
  Reference sum;
  double forward = 0.0;
  long newton = 0, linear = 0, factorizations = 0, reference_linear = 0;
  int reference_failures = 0;
  for (int k = 0; k < steps; ++k) {
    LinearSolveReport lr;
    const Reference r = reference.run(s, lr);
    sum.gradient += r.gradient;
    sum.hessian += r.hessian;
    sum.factorize += r.factorize;
    sum.solve += r.solve;
    reference_linear += lr.iterations;
    if (!lr.ok()) ++reference_failures;
    const auto t0 = std::chrono::steady_clock::now();
    const NewtonReport nr = sim.step(s, parameters);
    forward += seconds_since(t0);
    if (!nr.converged())
      throw std::runtime_error("step " + std::to_string(k) + ": Newton failed: " + nr.message);
    newton += nr.iterations;
    linear += nr.linear_iterations;
    factorizations += nr.factorizations;
  }
  const double n = steps;
  nlohmann::json j;
  j["benchmark"] = "newton_step_cost";
  j["scene"] = o.scene;
  j["solver"] = options.linear.kind;
  j["preconditioner"] = options.linear.preconditioner;
  j["threads"] = o.threads;
  j["steps"] = steps;
  j["forward_s_per_step"] = forward / n;
  j["newton_per_step"] = newton / n;
  j["linear_iterations_per_step"] = linear / n;
  j["factorizations_per_step"] = factorizations / n;
  j["reference_s_per_step"] = sum.total() / n;
  j["reference_split_s_per_step"] = {{"gradient", sum.gradient / n},
                                     {"hessian", sum.hessian / n},
                                     {"factorize", sum.factorize / n},
                                     {"solve", sum.solve / n}};
  j["reference_linear_iterations_per_step"] = reference_linear / n;
  j["reference_solves_failed"] = reference_failures;
  j["ratio"] = forward / sum.total();
  return j;
}

}  // namespace
}  // namespace softgrad::bench

int main(int argc, char** argv) {
  try {
    const auto o = softgrad::bench::parse_options(argc, argv);
    const nlohmann::json j = softgrad::bench::run(o);
    if (o.out.empty()) {
      std::cout << j.dump(2) << "\n";
    } else {
      std::ofstream(o.out) << j.dump(2) << "\n";
      std::printf("%s: %s %.4g s/step forward, %.4g s/step one iteration: %.2fx\n", o.out.c_str(),
                  j["solver"].get<std::string>().c_str(), j["forward_s_per_step"].get<double>(),
                  j["reference_s_per_step"].get<double>(), j["ratio"].get<double>());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "newton_step_cost: %s\n", e.what());
    return 1;
  }
}
