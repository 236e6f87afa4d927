// Contact between meshes: the soft ball dropped on the soft block at two resolutions (s per
// step, Newton iterations, contact pairs, and the cost of one broad phase and of one CCD sweep
// per call), and a gradient through an impact (the thrown beam's initial velocity -> where the
// struck beam is) against central differences, and the ball dropped on a barrier too weak for
// it (0.1 N/m) with and without adaptive stiffness (the gap it rests at). One thread; timings are
// the fastest of
// --repeats runs.
//
//   mesh_contact [--repeats 3] [--out benchmarks/results/mesh_contact.json]
#include <omp.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "command_line.hpp"
#include "contact/mesh_contact_term.hpp"
#include "machine_info.hpp"
#include "softgrad/adjoint.hpp"
#include "softgrad/openmp_waiting.hpp"
#include "softgrad/scene.hpp"

namespace {

using namespace softgrad;
using json = nlohmann::ordered_json;

const char* const kUsage =
    "usage: mesh_contact [--repeats 3] [--out benchmarks/results/mesh_contact.json]";
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string scene_text(const std::string& name) {
  std::ifstream in(std::filesystem::path(SOFTGRAD_SOURCE_DIR) / "scenes" / (name + ".json"));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void replace(std::string& text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("scene text without " + from);
  text.replace(at, from.size(), to);
}

const MeshContactTerm<3>& contact_term(const Model& m) {
  return dynamic_cast<const MeshContactTerm<3>&>(*m.terms[m.find_term("mesh_contact")]);
}

/// The ball on the block with `refine` times the scene's cells per axis.
json ball_on_block(int refine, int repeats) {
  std::string text = scene_text("ball_on_block");
  const int b = 4 * refine;
  replace(text, "\"resolution\": [4, 2, 4]",
          "\"resolution\": [" + std::to_string(b) + ", " + std::to_string(2 * refine) + ", " +
              std::to_string(b) + "]");
  replace(text, "\"resolution\": [4, 4, 4]",
          "\"resolution\": [" + std::to_string(b) + ", " + std::to_string(b) + ", " +
              std::to_string(b) + "]");
  const Scene scene = parse_scene(text, "ball_on_block.json");
  Simulator sim(scene.model, scene.options);
  const Rollout r = scene.rollout(sim);
  double forward = 1e300;
  Trajectory t = simulate(sim, r);
  for (int k = 0; k < repeats; ++k) {
    const auto t0 = Clock::now();
    t = simulate(sim, r);
    forward = std::min(forward, seconds_since(t0));
  }
  double newton = 0.0;
  for (const NewtonReport& n : t.reports()) newton += n.iterations;
  // One broad phase (and the narrow phase: the pairs within dhat) at each state, one swept
  // broad phase and CCD over each step: what every Newton iteration pays at least once.
  const Model& m = *scene.model;
  const auto& term = contact_term(m);
  auto data = term.make_data();
  const Eigen::VectorXd p = term.default_parameters();
  data->parameters = p.data();
  // Each pass visits the states in turn (a new x each call: nothing cached), with the buffers
  // a rollout keeps; the fastest pass counts.
  double broad = 1e300, ccd = 1e300, pairs = 0.0, most = 0.0;
  for (int k = 0; k < repeats; ++k) {
    double total = 0.0;
    for (int n = 0; n < t.steps(); ++n) {
      const auto t0 = Clock::now();
      const size_t count = term.pairs(*data, t.state(n + 1).x).size();
      total += seconds_since(t0);
      if (k == 0) pairs += static_cast<double>(count);
      most = std::max(most, static_cast<double>(count));
    }
    broad = std::min(broad, total);
    total = 0.0;
    for (int n = 0; n < t.steps(); ++n) {
      const Eigen::VectorXd& x = t.state(n).x;
      const Eigen::VectorXd dx = t.state(n + 1).x - x;
      const auto t0 = Clock::now();
      const double toi = term.max_step(*data, x, dx);
      total += seconds_since(t0);
      if (!(toi > 0.0)) throw std::runtime_error("a trajectory step is not collision-free");
    }
    ccd = std::min(ccd, total);
  }
  const int steps = t.steps();
  const CollisionSurface& s = term.surface();
  json j{{"refine", refine},
         {"n_verts", m.n_verts},
         {"n_elems", m.bodies[0].n_elems() + m.bodies[1].n_elems()},
         {"surface_faces", s.faces.size()},
         {"surface_edges", s.edges.size()},
         {"steps", steps},
         {"forward_s_per_step", forward / steps},
         {"newton_iterations_per_step", newton / steps},
         {"contact_pairs_mean", pairs / steps},
         {"contact_pairs_max", most},
         {"broad_phase_ms_per_call", 1e3 * broad / steps},
         {"ccd_ms_per_call", 1e3 * ccd / steps}};
  std::cout << "ball_on_block x" << refine << ": " << m.n_verts << " vertices, "
            << j["forward_s_per_step"].get<double>() * 1e3 << " ms/step, "
            << j["newton_iterations_per_step"].get<double>() << " Newton/step, "
            << j["contact_pairs_mean"].get<double>() << " pairs, broad phase "
            << j["broad_phase_ms_per_call"].get<double>() << " ms, CCD "
            << j["ccd_ms_per_call"].get<double>() << " ms per call\n";
  return j;
}

/// d(loss)/d(initial velocity) along a direction, through the beams' impact, against central
/// differences.
json impact_gradient() {
  std::string text = scene_text("colliding_beams");
  replace(text, "\"between_bodies\": true",
          "\"between_bodies\": true, \"friction\": 0.4, \"friction_velocity\": 0.05");
  const Scene scene = parse_scene(text, "colliding_beams.json");
  SimulationOptions options = scene.options;
  options.newton.tolerance = 1e-12;
  Simulator sim(scene.model, options);
  Rollout r = scene.rollout(sim);
  r.steps = 24;  // through the impact and the parting
  const Model& m = *scene.model;
  std::vector<int> right;
  for (int v = m.bodies[1].vertex_offset; v < m.n_verts; ++v) right.push_back(v);
  CenterOfMassTarget target;
  target.position = Eigen::Vector3d(0.2, 0.01, 0.0);
  target.velocity = Eigen::Vector3d(1.5, 0.1, 0.0);
  const CenterOfMassLoss loss(m, right, {target});
  const ParameterSet params(sim, r, {"v0"});
  auto t0 = Clock::now();
  const Trajectory t = simulate(sim, r);
  const double forward = seconds_since(t0);
  t0 = Clock::now();
  const GradientResult g = gradient(sim, t, loss, params);
  const double backward = seconds_since(t0);
  Eigen::VectorXd d = Eigen::VectorXd::Zero(params.size());
  for (int v = 0; v < m.bodies[0].mesh.n_verts(); ++v) d[3 * v] = 1.0;  // the throw's speed
  const Eigen::VectorXd theta = params.get(sim, r);
  const auto loss_at = [&](const Eigen::VectorXd& th) {
    Rollout rr = r;
    params.set(sim, rr, th);
    return evaluate_loss(sim, simulate(sim, rr), loss);
  };
  const double h = 1e-4;
  const double fd = (loss_at(theta + h * d) - loss_at(theta - h * d)) / (2 * h);
  const double adjoint = g.gradient.dot(d);
  json j{{"scene", "colliding_beams"},
         {"steps", t.steps()},
         {"parameter", "the thrown beam's initial speed"},
         {"adjoint", adjoint},
         {"central_difference", fd},
         {"relative_error", std::abs(adjoint - fd) / std::abs(fd)},
         {"forward_s", forward},
         {"backward_s", backward}};
  std::cout << "impact gradient: adjoint " << adjoint << ", central difference " << fd << "\n";
  return j;
}

/// The ball dropped on a 0.1 N/m barrier and damped to rest (3 s), with the stiffness fixed
/// and adapted: the closest gap at rest, the stiffness factor, s/step and Newton iterations.
json weak_barrier() {
  json j = json::array();
  for (const bool adaptive : {false, true}) {
    std::string text = scene_text("ball_on_block");
    replace(text, "\"duration\": 1.0", "\"duration\": 3.0");
    replace(text, "\"alpha\": 2.0", "\"alpha\": 20.0");
    replace(text, "\"stiffness\": 1e4",
            std::string("\"stiffness\": 0.1, \"adaptive_stiffness\": ") +
                (adaptive ? "true" : "false"));
    const Scene scene = parse_scene(text, "ball_on_block.json");
    Simulator sim(scene.model, scene.options);
    const auto t0 = Clock::now();
    const Trajectory t = simulate(sim, scene.rollout(sim));
    const double forward = seconds_since(t0);
    if (!t.converged()) throw std::runtime_error("the weak-barrier ball did not converge");
    const auto& term = contact_term(*scene.model);
    auto data = term.make_data();
    double gap = 1e-3;
    for (const auto& p : term.pairs(*data, t.final_state().x)) gap = std::min(gap, p.distance);
    double newton = 0.0;
    for (const NewtonReport& n : t.reports()) newton += n.iterations;
    const double scale = adaptive ? t.final_state().adaptive[0] : 1.0;
    j.push_back({{"adaptive", adaptive},
                 {"stiffness", 0.1},
                 {"final_scale", scale},
                 {"gap_at_rest_m", gap},
                 {"steps", t.steps()},
                 {"forward_s_per_step", forward / t.steps()},
                 {"newton_iterations_per_step", newton / t.steps()}});
    std::cout << "weak barrier, " << (adaptive ? "adaptive" : "fixed") << ": gap " << gap
              << " m, stiffness x" << scale << ", " << newton / t.steps() << " Newton/step\n";
  }
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  softgrad::restart_with_bounded_openmp_waiting(argv);
  using softgrad::bench::Arguments;
  int repeats = 3;
  std::string out = "benchmarks/results/mesh_contact.json";
  if (!softgrad::bench::parse_command_line(
          argc, argv, "mesh_contact", kUsage,
          {{"--repeats", [&](Arguments& a) { repeats = a.integer(); }},
           {"--out", [&](Arguments& a) { out = a.value(); }}},
          [&] {
            if (repeats < 1) throw std::invalid_argument("--repeats must be >= 1");
          }))
    return 1;
  omp_set_num_threads(1);
  json result{
      {"threads", 1},
      {"machine", softgrad::bench::machine_info<json>()},
      {"ball_on_block", json::array({ball_on_block(1, repeats), ball_on_block(2, repeats)})},
      {"impact_gradient", impact_gradient()},
      {"weak_barrier", weak_barrier()}};
  std::ofstream(out) << result.dump(2) << "\n";
  std::cout << "wrote " << out << "\n";
  return 0;
}
