// Densities as parameters ("density:BODY", "density:BODY[]"): the inertia term's parameters set
// each rollout's masses, and their gradients take in every term that weighs with them
// (inertia, gravity, mass damping). Adjoint and tangent gradients against central differences
// for a deformable body and a rigid body, and against cases with known answers: free fall
// does not depend on density, a pushed rigid body's displacement is F t^2 / m, a hanging
// cantilever's sag grows in proportion to its density.
#include <doctest/doctest.h>

#include <cmath>

#include "adjoint/gradient_check.hpp"
#include "softgrad/adjoint.hpp"
#include "softgrad/contact.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/shapes.hpp"
#include "support/finite_difference.hpp"
#include "support/rigid_models.hpp"

namespace softgrad::test {
namespace {

double loss_at(Simulator& sim, const Rollout& rollout, const ParameterSet& params,
               const Eigen::VectorXd& theta, const Loss& loss) {
  Rollout r = rollout;
  params.set(sim, r, theta);
  return evaluate_loss(sim, simulate(sim, r), loss);
}

void check_against_differences(Simulator& sim, const Rollout& rollout, const ParameterSet& params,
                               const Loss& loss, double rtol) {
  const Eigen::VectorXd theta = params.get(sim, rollout);
  const Trajectory traj = simulate(sim, rollout);
  REQUIRE(traj.converged());
  const GradientResult adj = gradient(sim, traj, loss, params);
  const GradientResult tan = tangent_gradient(sim, rollout, loss, params);
  const Eigen::VectorXd fd = fd_gradient(
      [&](const Eigen::VectorXd& th) { return loss_at(sim, rollout, params, th, loss); }, theta);
  MESSAGE("adjoint " << adj.gradient.head(std::min<Eigen::Index>(4, fd.size())).transpose()
                     << "\nfd      " << fd.head(std::min<Eigen::Index>(4, fd.size())).transpose()
                     << "\n|adj - fd| / |fd| = " << (adj.gradient - fd).norm() / fd.norm());
  CHECK(fd.norm() > 0.0);
  CHECK(close(adj.gradient, fd, rtol));
  CHECK(close(tan.gradient, adj.gradient, 1e-9));
}

}  // namespace

TEST_CASE(
    "adjoint/density: a cantilever's density gradients equal differences, tied and per element") {
  for (const int dim : {2, 3}) {
    INFO("dim " << dim);
    Problem p = cantilever_problem(dim, 8);
    const auto loss = mixed_loss(p);
    const std::string body = dim == 2 ? "rectangle" : "box";
    // Tied: one density for the body, with the damping's alpha beside it.
    const ParameterSet tied(*p.sim, p.rollout, {"density:" + body, "damping.alpha"});
    CHECK(tied.get(*p.sim, p.rollout)[0] == 1000.0);
    check_against_differences(*p.sim, p.rollout, tied, *loss, 1e-6);
    // A field: one density per element.
    const ParameterSet field(*p.sim, p.rollout, {"density:" + body + "[]"});
    CHECK(field.size() == p.model->bodies[0].n_elems());
    check_against_differences(*p.sim, p.rollout, field, *loss, 1e-6);
  }
}

TEST_CASE(
    "adjoint/density: a pushed rigid ball's density gradient equals differences (contact, "
    "friction)") {
  auto model = std::make_shared<Model>();
  add_rigid_body(*model, sphere_spec("ball", 0.05, 800.0, {0.0, 0.07, 0.0}));
  add_rigidity_term(*model);
  add_gravity(*model, Eigen::Vector3d(0.0, -9.81, 0.0));
  add_damping(*model, 0.3, 0.0);
  // A push that does not scale with the mass, so that the density matters beyond the barrier.
  Eigen::VectorXd push = Eigen::VectorXd::Zero(model->n_dofs());
  push.segment<3>(model->rigid_bodies[0].dof(0)) = Eigen::Vector3d(0.5, 0.0, 0.2);
  add_external_forces(*model, push);
  ContactOptions o;
  o.model = ContactModel::Barrier;
  o.stiffness = 1e3;
  o.activation_distance = 1e-3;
  o.friction = 0.5;
  o.friction_velocity = 1e-2;
  o.obstacles = {
      std::make_shared<HalfSpace>("ground", Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitY())};
  add_contact(*model, o);
  Simulator sim(model, rigid_options(0.01));
  Rollout rollout = rest_rollout(sim, 25);
  set_rigid_velocity(*model, 0, {1.0, -0.5, 0.0}, {0.0, 0.0, -4.0}, rollout.initial.x,
                     rollout.initial.v);
  BodyPointTarget centre;
  centre.position = {0.3, 0.05, 0.0};
  centre.velocity = Eigen::Vector3d(1.0, 0.0, 0.0);
  const BodyPointLoss loss(*model, {centre});
  const ParameterSet params(sim, rollout, {"density:ball"});
  check_against_differences(sim, rollout, params, loss, 1e-6);
}

TEST_CASE("adjoint/density: free fall does not depend on density (gravity and inertia cancel)") {
  // A free body under gravity and mass damping falls the same at any density: dL/drho = 0.
  // Were gravity's force fixed, the fall would go as 1/rho and dL/drho be -2 L / rho for
  // L = 1/2 |fall|^2: the bound below is a billionth of that.
  auto model = box_model("neo_hookean", 5e4, 0.3, 1000.0, {2, 1, 1}, {0.2, 0.1, 0.1});
  add_gravity(*model, Eigen::Vector3d(0.0, -9.81, 0.0));
  add_damping(*model, 0.5, 0.0);
  SimulationOptions opt;
  opt.dt = 0.01;
  opt.newton.tolerance = 1e-12;
  Simulator sim(model, opt);
  Rollout rollout = rest_rollout(sim, 6);
  std::vector<PositionTarget> targets;
  for (int v = 0; v < model->n_verts; ++v)
    targets.push_back({kFinalStep, v, model->X.segment<3>(3 * v)});
  const PositionLoss loss(*model, targets);
  for (const char* name : {"density:box", "density:box[]"}) {
    INFO(std::string(name));
    const ParameterSet params(sim, rollout, {name});
    const GradientResult adj = gradient(sim, simulate(sim, rollout), loss, params);
    const GradientResult tan = tangent_gradient(sim, rollout, loss, params);
    const double scale = 2.0 * adj.loss / 1000.0;
    MESSAGE("|dL/drho| = " << adj.gradient.norm() << ", 2 L / rho = " << scale);
    CHECK(adj.loss > 0.0);
    CHECK(adj.gradient.norm() < 1e-9 * scale);
    CHECK(tan.gradient.norm() < 1e-9 * scale);
  }
}

TEST_CASE("adjoint/density: a rigid body pushed by a force moves F h^2 N (N + 1) / (2 m)") {
  // Backward Euler from rest under a constant force F on the centre of mass: v_n = n h F / m,
  // x_N = h^2 F / m * N (N + 1) / 2. With L = 1/2 w (x_N - target)^2 and m = rho V,
  // dL/drho = -w (x_N - target) x_N / rho.
  const double rho = 600.0, F = 2.0, h = 0.01, w = 3.0, target = 0.05;
  const int N = 20;
  auto model = std::make_shared<Model>();
  add_rigid_body(*model, box_spec("crate", {0.2, 0.1, 0.1}, rho));
  add_rigidity_term(*model);
  Eigen::VectorXd f = Eigen::VectorXd::Zero(model->n_dofs());
  f[model->rigid_bodies[0].dof(0)] = F;
  add_external_forces(*model, f);
  Simulator sim(model, rigid_options(h));
  const Rollout rollout = rest_rollout(sim, N);
  BodyPointTarget centre;
  centre.position = {target, 0.0, 0.0};
  centre.weight = w;
  const BodyPointLoss loss(*model, {centre});
  const ParameterSet params(sim, rollout, {"density:crate"});
  const GradientResult adj = gradient(sim, simulate(sim, rollout), loss, params);
  const double m = rho * 0.2 * 0.1 * 0.1;
  const double x_N = h * h * F / m * N * (N + 1) / 2.0;
  CHECK(model->rigid_bodies[0].mass == doctest::Approx(m).epsilon(1e-12));
  CHECK(adj.loss == doctest::Approx(0.5 * w * (x_N - target) * (x_N - target)).epsilon(1e-9));
  CHECK(adj.gradient[0] == doctest::Approx(-w * (x_N - target) * x_N / rho).epsilon(1e-8));
  // Doubling the density halves the displacement.
  Rollout heavy = rollout;
  params.set(sim, heavy, Eigen::VectorXd::Constant(1, 2.0 * rho));
  const Trajectory t2 = simulate(sim, heavy);
  CHECK(model->rigid_bodies[0].position(t2.final_state().x).x() ==
        doctest::Approx(x_N / 2.0).epsilon(1e-9));
}

TEST_CASE("adjoint/density: a hanging cantilever's static sag is proportional to its density") {
  // Linear in the load for a small sag: u(rho) = rho u(1), so dL/drho = 2 L / rho for
  // L = 1/2 |u_tip|^2 (a target at the rest position).
  auto model = box_model("neo_hookean", 1e8, 0.3, 1000.0, {4, 1, 1}, {0.3, 0.1, 0.1});
  fix_vertices(*model, vertices_at(*model, 0, 0.0), "clamp");
  add_gravity(*model, Eigen::Vector3d(0.0, -9.81, 0.0));
  SimulationOptions opt;
  opt.newton.tolerance = 1e-12;
  Simulator sim(model, opt);
  Rollout rollout = rest_rollout(sim, 1);
  rollout.static_solve = true;
  std::vector<PositionTarget> targets;
  for (int v : vertices_at(*model, 0, 0.3))
    targets.push_back({kFinalStep, v, model->X.segment<3>(3 * v)});
  const PositionLoss loss(*model, targets);
  const ParameterSet params(sim, rollout, {"density:box"});
  const GradientResult adj = gradient(sim, simulate(sim, rollout), loss, params);
  MESSAGE("L = " << adj.loss << ", dL/drho = " << adj.gradient[0]
                 << ", 2 L / rho = " << 2.0 * adj.loss / 1000.0);
  CHECK(adj.loss > 0.0);
  CHECK(adj.gradient[0] == doctest::Approx(2.0 * adj.loss / 1000.0).epsilon(1e-4));
}

TEST_CASE("adjoint/density: bad densities and bodies without one are refused by name") {
  Problem p = cantilever_problem(3, 2);
  const ParameterSet params(*p.sim, p.rollout, {"density:box[]"});
  Rollout r = p.rollout;
  Eigen::VectorXd theta = params.get(*p.sim, r);
  theta[3] = -1.0;
  CHECK_THROWS_WITH_AS(params.set(*p.sim, r, theta),
                       doctest::Contains("density:box[3] = -1.000000 kg/m^3: a density must be "
                                         "positive and finite"),
                       InputError);
  CHECK_THROWS_WITH_AS(ParameterSet(*p.sim, p.rollout, {"density:nobody"}),
                       doctest::Contains("density:nobody"), InputError);
}

}  // namespace softgrad::test
