// Steps on two threads are one thread's, bit for bit: element loops, gradient scatters, the
// Hessian's chunks (made side by side, summed in order) and the CG solves (TeamCg: dot products
// summed in chunks, in order) do the same arithmetic in the same order whatever the team.
#include <doctest/doctest.h>
#include <omp.h>

#include <string>

#include "softgrad/detail/parallel.hpp"
#include "softgrad/simulator.hpp"
#include "softgrad/trajectory.hpp"
#include "solvers/cpu/team_cg.hpp"
#include "support/tiny_models.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

/// Final positions of `steps` steps of a clamped beam with enough tets for parallel loops and
/// several Hessian chunks and CG solves on a team, on `threads` OpenMP threads.
Eigen::VectorXd beam_on_threads(const char* solver, int threads, int steps) {
  auto model = box_model("stable_neo_hookean", 1e5, 0.3, 1000.0, {24, 6, 6}, {0.8, 0.2, 0.2});
  add_gravity(*model, Eigen::Vector3d(0.0, -9.81, 0.0));
  fix_vertices(*model, vertices_at(*model, 0, 0.0), "clamp");
  REQUIRE(model->bodies.front().n_elems() >= kParallelMinElements);
  const auto free_dofs = model->n_dofs() - static_cast<int>(model->kinematic_dofs().size());
  REQUIRE(free_dofs >= TeamCg::kMinTeamRows);
  SimulationOptions options;
  options.linear.kind = solver;
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  Simulator sim(model, options);
  RolloutRun run(sim, rest_rollout(sim, steps));
  while (!run.done()) {
    const NewtonReport& r = run.step();
    REQUIRE_MESSAGE(r.converged(), r.message);
  }
  MESSAGE(std::string(solver) << ", " << threads << " thread(s): loops ran on " << parallel_team());
  omp_set_num_threads(saved);
  return run.state().x;
}

}  // namespace

TEST_CASE("integrator/threads: two threads step the beam to one thread's positions, bit for bit") {
  for (const char* solver : {"cholmod", "pcg"}) {
    CAPTURE(solver);
    const Eigen::VectorXd one = beam_on_threads(solver, 1, 3);
    const Eigen::VectorXd two = beam_on_threads(solver, 2, 3);
    REQUIRE(one.size() == two.size());
    CHECK(one.allFinite());
    CHECK((one - beam_on_threads(solver, 1, 0)).norm() > 1e-4);  // it moved
    CHECK((one.array() == two.array()).all());
  }
}
