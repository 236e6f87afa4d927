// Fitting a material parameter by gradient descent through the simulation: a beam clamped at one
// end falls under gravity for 0.2 s; find the Young's modulus that puts its tip where a beam of
// 2 MPa would be, starting from 0.5 MPa. Each iteration simulates 20 implicit steps and gets
// dL/dE exactly by the adjoint method (one linear solve per step, backwards).
#include <cmath>
#include <cstdio>
#include <memory>

#include "softgrad/adjoint.hpp"
#include "softgrad/mesh_generators.hpp"

using namespace softgrad;

namespace {

// A 0.5 x 0.1 x 0.1 m stable Neo-Hookean beam of 8 x 1 x 1 cubes, clamped at x = 0.
std::shared_ptr<const Model> beam(double youngs) {
  ModelBuilder builder(3);
  Model& model = builder.model();
  const auto material = find_material("stable_neo_hookean");
  add_body(model, "beam", box_tet_mesh(8, 1, 1, Eigen::Vector3d(0.5, 0.1, 0.1)), material,
           params_from_youngs_poisson(*material, youngs, 0.3), 1000.0);
  add_elastic_terms(model);
  add_gravity(model, Eigen::Vector3d(0, -9.81, 0));
  KinematicGroup clamp;
  clamp.name = "clamp";
  for (int v = 0; v < model.n_verts; ++v)
    if (model.X[3 * v] == 0.0) clamp.verts.push_back(v);
  model.kinematic.push_back(clamp);
  return builder.finalize();  // fixed from here on: simulators share it as const
}

constexpr int kSteps = 20;
constexpr int kTip = 8;  // box vertex (8, 0, 0): the bottom corner at the free end

// The tip's position after kSteps steps.
Eigen::Vector3d final_tip(Simulator& sim) {
  const Trajectory traj = simulate(sim, rest_rollout(sim, kSteps));
  return traj.final_state().x.segment<3>(3 * kTip);
}

}  // namespace

int main() {
  SimulationOptions options;
  options.dt = 0.01;
  Simulator truth(beam(2e6), options);
  const Eigen::Vector3d target = final_tip(truth);
  std::printf("target: the tip of a 2 MPa beam after %d steps, y = %.6f m\n", kSteps, target.y());

  // L = 1/2 |x_tip(T) - target|^2, differentiated by Young's modulus (one value for the body).
  Simulator sim(beam(5e5), options);
  Rollout rollout = rest_rollout(sim, kSteps);
  const PositionLoss loss(sim.model(), {{kFinalStep, kTip, target, 1.0}});
  const ParameterSet params(sim, rollout, {"youngs"});

  // Gradient descent on s = log E with Barzilai-Borwein steps (the first one moves s by 0.5).
  std::printf("%4s %14s %14s %14s %14s\n", "iter", "E [Pa]", "loss [m^2]", "dL/dE", "tip y [m]");
  double s = std::log(params.get(sim, rollout)[0]);
  double s_prev = 0.0, g_prev = 0.0;
  for (int iter = 0; iter < 12; ++iter) {
    params.set(sim, rollout, Eigen::VectorXd::Constant(1, std::exp(s)));
    const Trajectory traj = simulate(sim, rollout);
    const GradientResult r = gradient(sim, traj, loss, params);
    const double dl_dtheta = r.gradient[0];
    const double g = std::exp(s) * dl_dtheta;  // dL/ds
    std::printf("%4d %14.6g %14.6e %14.6e %14.6f\n", iter, std::exp(s), r.loss, dl_dtheta,
                traj.final_state().x[3 * kTip + 1]);
    if (r.loss < 1e-14) break;
    const double step = iter == 0 ? 0.5 / std::abs(g) : (s - s_prev) / (g - g_prev);
    s_prev = s;
    g_prev = g;
    s -= step * g;
  }
  std::printf("fitted E = %.6g Pa (the target's: 2e+06 Pa)\n", std::exp(s));
  return std::abs(std::exp(s) / 2e6 - 1.0) < 1e-3 ? 0 : 1;
}
