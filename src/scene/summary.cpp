#include "summary.hpp"

#include <algorithm>
#include <system_error>

#include "../io/text_output.hpp"
#include "softgrad/config.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {
namespace {

using json = nlohmann::ordered_json;

int total_elems(const Model& model) {
  int n = 0;
  for (const Body& b : model.bodies) n += b.n_elems();
  return n;
}

// The fields both summaries share: what was solved, how big it is, with which solver.
json scene_fields(const Scene& scene, const char* command, int threads) {
  const Model& model = *scene.model;
  return {{"command", command},
          {"softgrad_version", SOFTGRAD_VERSION},
          {"scene", scene.name},
          {"scene_file", scene.file.string()},
          {"solver", scene.options.linear.kind},
          {"dim", model.dim},
          {"n_verts", model.n_verts},
          {"n_elems", total_elems(model)},
          {"n_dofs", model.n_dofs()},
          {"threads", threads}};
}

json path_or_null(const std::filesystem::path& p) { return p.empty() ? json() : json(p.string()); }

json energy_triple(double kinetic, double potential) {
  return {{"kinetic", kinetic}, {"potential", potential}, {"total", kinetic + potential}};
}

// The per-step arrays of a run.
void add_step_arrays(const RunResult& r, json& j) {
  json time = json::array(), newton = json::array(), linear = json::array(),
       factorizations = json::array(), wall = json::array(), kinetic = json::array(),
       potential = json::array(), total = json::array(), unconverged = json::array(),
       inverted = json::array(), fallbacks = json::array();
  int max_inverted = 0;
  for (const StepRecord& s : r.steps) {
    time.push_back(s.time);
    newton.push_back(s.newton_iterations);
    linear.push_back(s.linear_iterations);
    factorizations.push_back(s.factorizations);
    fallbacks.push_back(s.direct_fallbacks);
    wall.push_back(s.wall_time_s);
    kinetic.push_back(s.kinetic_energy);
    potential.push_back(s.potential_energy);
    total.push_back(s.kinetic_energy + s.potential_energy);
    if (!s.converged) unconverged.push_back(s.step);
    inverted.push_back(s.inverted_elements);
    max_inverted = std::max(max_inverted, s.inverted_elements);
  }
  j["time"] = std::move(time);
  j["newton_iterations"] = std::move(newton);
  j["linear_iterations"] = std::move(linear);
  j["factorizations"] = std::move(factorizations);
  j["direct_fallbacks"] = std::move(fallbacks);  // CG gave up, CHOLMOD solved
  j["wall_time_s"] = std::move(wall);
  j["unconverged_steps"] = std::move(unconverged);
  j["inverted_elements"] = std::move(inverted);  // det F <= 0 after each step
  j["max_inverted_elements"] = max_inverted;
  j["energy"] = {{"kinetic", std::move(kinetic)},
                 {"potential", std::move(potential)},
                 {"total", std::move(total)}};
}

}  // namespace

json run_summary(const Scene& scene, const RunResult& r) {
  json j = scene_fields(scene, "run", r.threads);
  j["mode"] = scene.static_solve ? "static" : "dynamic";
  j["dt"] = scene.options.dt;
  j["steps_requested"] = r.steps_requested;
  j["steps_completed"] = r.steps_completed();
  j["status"] = to_string(r.status);
  const bool failed = r.status == RunStatus::NewtonFailed;
  j["failed_step"] = failed ? json(r.failed_step) : json();
  j["newton_status"] = failed ? json(softgrad::to_string(r.failure.status)) : json();
  j["message"] = r.message;
  add_step_arrays(r, j);
  j["initial_energy"] = energy_triple(r.initial_kinetic_energy, r.initial_potential_energy);
  j["mean_newton_iterations"] = r.mean_newton_iterations();
  j["total_wall_time_s"] = r.wall_time_s;
  j["setup_time_s"] = r.setup_time_s;
  j["steps_per_second"] = r.steps_per_second();
  j["output"] = {{"directory", r.output_directory.string()},
                 {"pvd", path_or_null(r.pvd_path)},
                 {"frames", r.frames_written},
                 {"every", scene.output.every}};
  if (!r.final_rigid_bodies.empty()) {
    // The last completed state of each rigid body (rigid_body_pose), in the model's order.
    json bodies = json::array();
    const auto list = [](const auto& v) {
      return std::vector<double>(v.data(), v.data() + v.size());
    };
    for (size_t k = 0; k < r.final_rigid_bodies.size(); ++k) {
      const RigidBodyPose& p = r.final_rigid_bodies[k];
      bodies.push_back({{"name", scene.model->rigid_bodies[k].name},
                        {"position", list(p.position)},
                        {"quaternion", list(p.quaternion)},
                        {"velocity", list(p.velocity)},
                        {"angular_velocity", list(p.angular_velocity)}});
    }
    j["rigid_bodies"] = bodies;
  }
  return j;
}

json static_summary(const Scene& scene, const StaticResult& r) {
  json j = scene_fields(scene, "static", r.threads);
  j["time"] = r.time;
  j["status"] = r.converged() ? "converged" : "newton_failed";
  j["newton_status"] = softgrad::to_string(r.report.status);
  j["message"] = r.report.message;
  j["iterations"] = r.report.iterations;
  j["linear_iterations"] = r.report.linear_iterations;
  j["step_norm"] = r.report.step_norm;
  j["gradient_norm"] = r.report.gradient_norm;
  j["energy"] = r.potential_energy;
  json reactions = json::array();
  for (const auto& [name, force] : r.reactions)
    reactions.push_back(
        {{"name", name},
         {"force", std::vector<double>(force.data(), force.data() + scene.model->dim)}});
  j["reactions"] = reactions;
  j["max_displacement"] = r.max_displacement;
  j["wall_time_s"] = r.wall_time_s;
  j["setup_time_s"] = r.setup_time_s;
  j["output"] = {{"directory", r.output_directory.string()},
                 {"pvd", path_or_null(r.pvd_path)},
                 {"frames", r.frames_written}};
  return j;
}

void write_json_file(const std::filesystem::path& path, const json& j) {
  // Invalid UTF-8 (say in a path) is replaced rather than thrown on.
  detail::write_file_atomically(path.string(),
                                j.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
}

}  // namespace softgrad
