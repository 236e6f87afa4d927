// System identification of Young's modulus and damping on a pushed-and-released cantilever:
// softgrad's Levenberg-Marquardt with forward-sensitivity Jacobians against Ceres' own
// Levenberg-Marquardt with central numeric differences of the same residuals. Prints a table
// and writes JSON (simulations, wall time, estimates).
//
//   sysid_cantilever [--out FILE.json]
#include <ceres/ceres.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "command_line.hpp"
#include "machine_info.hpp"
#include "softgrad/mesh_generators.hpp"
#include "softgrad/openmp_waiting.hpp"
#include "softgrad/sysid.hpp"

namespace {

using namespace softgrad;
using Clock = std::chrono::steady_clock;

/// A 3D cantilever (0.3 x 0.05 x 0.05 m, 6 x 2 x 2 cells) clamped at x = 0, pushed down at its
/// tip for 0.1 s and released; markers at the tip and the middle.
struct Problem {
  std::shared_ptr<Model> model;
  std::unique_ptr<Simulator> sim;
  Rollout rollout;
  MarkerSet markers;
};

Problem cantilever(double youngs, double alpha, int steps) {
  Problem p;
  p.model = std::make_shared<Model>();
  Model& m = *p.model;
  const auto mat = find_material("neo_hookean");
  add_body(m, "beam",
           box_tet_mesh(6, 2, 2, Eigen::Vector3d(0.3, 0.05, 0.05), Eigen::Vector3d::Zero()), mat,
           params_from_youngs_poisson(*mat, youngs, 0.3), 1000.0);
  add_elastic_terms(m);
  KinematicGroup clamp;
  clamp.name = "clamp";
  std::vector<int> tip_dofs;
  for (int v = 0; v < m.n_verts; ++v) {
    if (m.X[3 * v] < 1e-9) clamp.verts.push_back(v);
    if (m.X[3 * v] > 0.3 - 1e-9) tip_dofs.push_back(3 * v + 1);
  }
  m.kinematic.push_back(clamp);
  add_damping(m, alpha, 0.0);
  const int push = 10;
  add_step_forces(m, "push", tip_dofs, push,
                  std::vector<double>(push * tip_dofs.size(), -1.0 / tip_dofs.size()));
  SimulationOptions opt;
  opt.dt = 0.01;
  p.sim = std::make_unique<Simulator>(p.model, opt);
  p.rollout = rest_rollout(*p.sim, steps);
  p.markers = MarkerSet(m, {{"tip", Eigen::Vector3d(0.3, 0.025, 0.025)},
                            {"middle", Eigen::Vector3d(0.15, 0.025, 0.025)}});
  return p;
}

Recording record(Problem& p) {
  const Trajectory traj = simulate(*p.sim, p.rollout);
  Recording rec;
  for (int n = 0; n <= p.rollout.steps; n += 2) {
    rec.times.push_back(n * p.sim->options().dt);
    for (int k = 0; k < p.markers.size(); ++k)
      rec.observations.push_back(
          {static_cast<int>(rec.times.size()) - 1, k, p.markers.position(k, traj.state(n).x)});
  }
  return rec;
}

/// Residuals of log-parameters (E, alpha) by simulation, for numeric differentiation. Like
/// softgrad's solver, it remembers the last point, so that Ceres' revisits (its final
/// evaluation) cost no simulation: only distinct simulations count on either side.
struct Residuals {
  Problem* p;
  const Recording* rec;
  const ParameterSet* params;
  int* simulations;
  mutable Eigen::Vector2d last_phi = Eigen::Vector2d::Constant(NAN);
  mutable Eigen::VectorXd last_r;
  bool operator()(double const* const* phi, double* r) const {
    const Eigen::Vector2d at(phi[0][0], phi[0][1]);
    if (at == last_phi) {
      Eigen::Map<Eigen::VectorXd>(r, last_r.size()) = last_r;
      return true;
    }
    try {
      params->set(*p->sim, p->rollout, Eigen::Vector2d(std::exp(at[0]), std::exp(at[1])));
      ++*simulations;
      last_r = marker_residuals(*p->sim, p->rollout, p->markers, *rec, *params, nullptr);
      last_phi = at;
      Eigen::Map<Eigen::VectorXd>(r, last_r.size()) = last_r;
      return true;
    } catch (const std::exception&) {
      return false;
    }
  }
};

struct NumericRun {
  int simulations = 0;
  double seconds = 0.0;
  int iterations = 0;
  Eigen::Vector2d estimate;
};

/// Ceres' Levenberg-Marquardt with numeric differences (central or forward) of the residuals.
template <ceres::NumericDiffMethodType kMethod>
NumericRun numeric_fit(const Recording& rec, const Eigen::Vector2d& guess, int steps,
                       const SysIdOptions& so) {
  Problem b = cantilever(guess[0], guess[1], steps);
  const ParameterSet params(*b.sim, b.rollout, so.parameters);
  NumericRun run;
  double phi[2] = {std::log(guess[0]), std::log(guess[1])};
  auto* cost = new ceres::DynamicNumericDiffCostFunction<Residuals, kMethod>(
      new Residuals{&b, &rec, &params, &run.simulations, Eigen::Vector2d::Constant(NAN), {}});
  cost->AddParameterBlock(2);
  cost->SetNumResiduals(static_cast<int>(rec.observations.size()) * 3);
  ceres::Problem problem;
  problem.AddResidualBlock(cost, nullptr, phi);
  ceres::Solver::Options opt;
  opt.trust_region_strategy_type = ceres::LEVENBERG_MARQUARDT;
  opt.linear_solver_type = ceres::DENSE_QR;
  opt.max_num_iterations = so.max_iterations;
  opt.function_tolerance = so.function_tolerance;
  opt.gradient_tolerance = so.gradient_tolerance;
  opt.parameter_tolerance = so.parameter_tolerance;
  opt.logging_type = ceres::SILENT;
  ceres::Solver::Summary summary;
  const auto t1 = Clock::now();
  ceres::Solve(opt, &problem, &summary);
  run.seconds = std::chrono::duration<double>(Clock::now() - t1).count();
  run.iterations = static_cast<int>(summary.iterations.size()) - 1;
  run.estimate = Eigen::Vector2d(std::exp(phi[0]), std::exp(phi[1]));
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  softgrad::restart_with_bounded_openmp_waiting(argv);
  std::string out = "benchmarks/results/sysid_cantilever.json";
  if (!softgrad::bench::parse_command_line(
          argc, argv, "sysid_cantilever", "usage: sysid_cantilever [--out FILE.json]",
          {{"--out", [&](softgrad::bench::Arguments& a) { out = a.value(); }}}))
    return 1;
  const int steps = 60;
  Problem truth = cantilever(5e4, 0.5, steps);
  const Recording rec = record(truth);
  const Eigen::Vector2d guess(8e4, 0.2);

  // softgrad: analytic Jacobians from forward sensitivities.
  Problem a = cantilever(guess[0], guess[1], steps);
  SysIdOptions so;
  so.parameters = {"youngs", "damping.alpha"};
  const auto t0 = Clock::now();
  const SysIdReport r = identify(*a.sim, a.rollout, a.markers, rec, so);
  const double t_analytic = std::chrono::duration<double>(Clock::now() - t0).count();

  // Ceres with numeric differences on the same residuals and log-parameters: central (the
  // accurate choice, 2 simulations per parameter per Jacobian) and forward (1 per parameter).
  const NumericRun central = numeric_fit<ceres::CENTRAL>(rec, guess, steps, so);
  const NumericRun forward = numeric_fit<ceres::FORWARD>(rec, guess, steps, so);
  const int simulations = central.simulations;
  const double t_numeric = central.seconds;
  const Eigen::Vector2d numeric = central.estimate;

  const auto rel = [](double v, double t) { return std::abs(v - t) / t; };
  std::cout << std::setprecision(4)
            << "identify E and damping (truth 5e4 Pa, 0.5 1/s; start 8e4, 0.2), " << steps
            << " steps, " << rec.observations.size() << " marker observations\n"
            << "method                       simulations  wall [s]  rel. err E  rel. err alpha\n"
            << "softgrad (sensitivities)     " << std::setw(11) << r.simulations << "  "
            << std::setw(8) << t_analytic << "  " << std::setw(10) << rel(r.estimate[0], 5e4)
            << "  " << rel(r.estimate[1], 0.5) << "\n"
            << "Ceres numeric (central)      " << std::setw(11) << simulations << "  "
            << std::setw(8) << t_numeric << "  " << std::setw(10) << rel(numeric[0], 5e4) << "  "
            << rel(numeric[1], 0.5) << "\n"
            << "Ceres numeric (forward)      " << std::setw(11) << forward.simulations << "  "
            << std::setw(8) << forward.seconds << "  " << std::setw(10)
            << rel(forward.estimate[0], 5e4) << "  " << rel(forward.estimate[1], 0.5) << "\n"
            << "ratio of simulations: " << double(simulations) / r.simulations
            << " (of softgrad's, " << r.sensitivity_simulations << " carried sensitivities)\n";
  nlohmann::json j;
  j["benchmark"] = "sysid_cantilever";
  j["steps"] = steps;
  j["observations"] = rec.observations.size();
  j["softgrad"] = {
      {"simulations", r.simulations}, {"sensitivity_simulations", r.sensitivity_simulations},
      {"seconds", t_analytic},        {"iterations", r.iterations},
      {"youngs", r.estimate[0]},      {"alpha", r.estimate[1]}};
  const auto numeric_json = [](const NumericRun& n) {
    return nlohmann::json{{"simulations", n.simulations},
                          {"seconds", n.seconds},
                          {"iterations", n.iterations},
                          {"youngs", n.estimate[0]},
                          {"alpha", n.estimate[1]}};
  };
  j["ceres_numeric_central"] = numeric_json(central);
  j["ceres_numeric_forward"] = numeric_json(forward);
  j["simulation_ratio"] = double(simulations) / r.simulations;
  j["simulation_ratio_forward"] = double(forward.simulations) / r.simulations;
  j["wall_time_ratio"] = t_numeric / t_analytic;
  j["machine"] = softgrad::bench::machine_info<nlohmann::json>();
  std::ofstream(out) << j.dump(2) << "\n";
  std::cout << "wrote " << out << "\n";
}
