// Scenes: JSON text -> validated Scene (Model, simulation options, duration, outputs).
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include "../io/input_file.hpp"
#include "bodies.hpp"
#include "contact_reader.hpp"
#include "json_checks.hpp"
#include "locomotion_reader.hpp"
#include "motion_reader.hpp"
#include "object_reader.hpp"
#include "regions.hpp"
#include "rigid_reader.hpp"
#include "robot_problem_reader.hpp"
#include "rollout.hpp"
#include "scene_loss.hpp"
#include "scene_sysid.hpp"
#include "scene_tables.hpp"
#include "schema.hpp"
#include "softgrad/detail/memory_limit.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/log.hpp"
#include "softgrad/plugin.hpp"
#include "softgrad/scene.hpp"

namespace softgrad {

namespace {

using detail::fail_at;
using detail::Json;
using detail::ObjectReader;
using detail::Source;
namespace schema = detail::schema;

// "<name>:<line>:<column>" of the 0-based byte offset k.
std::string text_location(const Source& src, const std::string& text, size_t k) {
  size_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < k; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return src.name + ":" + std::to_string(line) + ":" + std::to_string(k - line_start + 1);
}

// nlohmann's parse error at its last read byte (1-based `byte`).
[[noreturn]] void fail_parse(const Source& src, const std::string& text,
                             const Json::parse_error& e) {
  const size_t k = std::min<size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
  // Keep nlohmann's explanation, without its own "[json.exception...] ... column N: " prefix.
  std::string what = e.what();
  const size_t column = what.find("column ");
  const size_t colon = column == std::string::npos ? column : what.find(": ", column);
  if (colon != std::string::npos) what = what.substr(colon + 2);
  throw InputError(text_location(src, text, k) + ": malformed JSON: " + what);
}

// A number literal too large for a double ("number overflow parsing '1e999'"), located by the
// first occurrence of its text.
[[noreturn]] void fail_overflow(const Source& src, const std::string& text,
                                const Json::out_of_range& e) {
  const std::string what = e.what();
  const size_t open = what.find('\'');
  const size_t close = open == std::string::npos ? open : what.find('\'', open + 1);
  if (close == std::string::npos) throw InputError(src.name + ": " + what);
  const std::string literal = what.substr(open + 1, close - open - 1);
  const size_t k = text.find(literal);
  throw InputError((k == std::string::npos ? src.name : text_location(src, text, k)) +
                   ": the number " + literal + " is not finite in double precision");
}

void read_time(const ObjectReader& top, Scene& scene) {
  const ObjectReader time = top.object("time", schema::time);
  scene.options.dt = time.number("dt");
  // Below this the inertia term M / dt^2 leaves double precision for any motion worth a step.
  if (!(scene.options.dt >= 1e-12)) {
    std::ostringstream os;
    os << "dt " << scene.options.dt << " s is below 1e-12 s, the smallest time step softgrad takes";
    time.fail("dt", os.str());
  }
  scene.duration = time.number("duration");
  const double steps = scene.duration / scene.options.dt;
  if (!(steps >= 0.5)) {
    std::ostringstream os;
    os << "duration " << scene.duration
       << " s is shorter than half a time step (dt = " << scene.options.dt
       << " s): no step would run";
    time.fail("duration", os.str());
  }
  if (!(steps < 1e9)) time.fail("duration", "duration / dt exceeds 1e9 steps; increase dt");
  scene.steps = static_cast<int>(std::llround(steps));
}

void read_solver(const ObjectReader& top, SimulationOptions& options) {
  const ObjectReader solver = top.object("solver", schema::solver);
  options.linear.kind = solver.string("linear");
  options.linear.preconditioner = solver.string("preconditioner");
  options.linear.rel_tol = solver.number("cg_tolerance");
  options.linear.max_iterations = solver.integer("cg_max_iterations");
  options.newton.tolerance = solver.number("newton_tolerance");
  options.newton.max_iterations = solver.integer("newton_max_iterations");
  options.newton.max_line_search = solver.integer("line_search_max_halvings");
  options.newton.project_hessian = solver.boolean("project_hessian");
  options.newton.exact_hessian_first = solver.boolean("exact_hessian_first");
  options.newton.chord_window = solver.number("chord_window");
  options.newton.chord_always_cost = solver.number("chord_always_cost");
  options.newton.chord_contraction = solver.number("chord_contraction");
  options.newton.chord_forcing = solver.number("chord_forcing");
  options.newton.accelerated_guess = solver.boolean("accelerated_guess");
  options.newton.correct_directions = solver.boolean("correct_directions");
  options.newton.max_forcing = solver.number("max_forcing");
  options.on_failure =
      solver.string("on_failure") == "continue" ? FailurePolicy::Continue : FailurePolicy::Stop;
  // The factory knows which combinations exist in this build.
  try {
    make_linear_solver(options.linear);
  } catch (const InputError& e) {
    const bool preconditioner =
        (options.linear.kind == "matfree" || options.linear.kind == "amg") &&
        options.linear.preconditioner != "jacobi";
    solver.fail(preconditioner ? "preconditioner" : "linear", e.what());
  }
}

void read_output(const ObjectReader& top, Scene& scene) {
  const ObjectReader output = top.object("output", schema::output);
  scene.output.directory =
      output.has("directory") ? output.string("directory") : "out/" + scene.name;
  if (scene.output.directory.empty()) output.fail("directory", "the directory must not be empty");
  scene.output.every = output.integer("every");
  scene.output.vtu = output.boolean("vtu");
  scene.output.vtu_encoding = parse_vtu_encoding(output.string("vtu_format"));
}

// The components a boundary entry holds: "axes" (names x, y, z), all by default.
std::array<bool, 3> read_axes(const ObjectReader& bc, int dim) {
  if (!bc.has("axes")) return {true, true, true};
  std::array<bool, 3> axes{false, false, false};
  const std::vector<std::string> names = bc.strings("axes");
  if (names.empty())
    bc.fail("axes", "give at least one axis (x, y" + std::string(dim == 3 ? ", z" : "") + ")");
  for (const std::string& a : names) {
    const int i = a == "x" ? 0 : a == "y" ? 1 : a == "z" ? 2 : -1;
    if (i < 0 || i >= dim)
      bc.fail("axes", "unknown axis '" + a + "'; the axes of a " + std::to_string(dim) +
                          "D scene are x, y" + (dim == 3 ? ", z" : ""));
    if (axes[i]) bc.fail("axes", "axis '" + a + "' is given twice");
    axes[i] = true;
  }
  return axes;
}

void read_boundary(const ObjectReader& top, Model& model) {
  const std::vector<const Json*> entries = top.list("boundary");
  std::vector<int> owner(model.n_dofs(), -1);  // the group holding each dof
  for (size_t i = 0; i < entries.size(); ++i) {
    const ObjectReader bc(top.source(), *entries[i], "/boundary/" + std::to_string(i),
                          schema::boundary);
    KinematicGroup group;
    group.name = bc.has("name") ? bc.string("name") : "boundary" + std::to_string(i);
    group.verts = detail::select_region(bc, "region", model);
    group.axes = read_axes(bc, model.dim);
    detail::read_motion(bc, model.dim, group);
    group.start = bc.number("start");
    group.stop = bc.number("stop");
    if (!(group.stop > group.start)) {
      std::ostringstream os;
      os << "stop = " << group.stop << " s must be after start = " << group.start << " s";
      bc.fail("stop", os.str());
    }
    // A component held by two groups follows the later one: one warning per earlier group
    // (two rollers on different axes share a corner without conflict).
    std::map<int, std::pair<int, int>> shared;  // earlier group -> (count, first vertex)
    for (const int v : group.verts) {
      bool counted = false;
      for (int k = 0; k < model.dim; ++k) {
        if (!group.axes[k]) continue;
        int& o = owner[v * model.dim + k];
        if (o >= 0 && !counted) {
          counted = true;
          if (shared[o].first++ == 0) shared[o].second = v;
        }
        o = static_cast<int>(i);
      }
    }
    for (const auto& [earlier, count_first] : shared) {
      const auto [count, first] = count_first;
      log(LogLevel::Warn, top.source().name + ": " + bc.path("region") + ": " +
                              std::to_string(count) + (count == 1 ? " vertex" : " vertices") +
                              " (first " + std::to_string(first) + ") also in /boundary/" +
                              std::to_string(earlier) + "; the later group wins");
    }
    model.kinematic.push_back(std::move(group));
  }
}

// Gravity plus the body accelerations of /forces as one gravity term, the point forces of
// /forces as one external-force term (if there are any), and each "steps" entry as a per-step
// force term "forces:<i>" (its parameter "forces:<i>.force", one value per step, vertex, axis).
void add_loads(const ObjectReader& top, Eigen::VectorXd g, int n_steps, Model& model) {
  Eigen::VectorXd f = Eigen::VectorXd::Zero(model.n_dofs());
  bool point_forces = false;
  const std::vector<const Json*> entries = top.list("forces");
  for (size_t i = 0; i < entries.size(); ++i) {
    const ObjectReader force(top.source(), *entries[i], "/forces/" + std::to_string(i),
                             schema::force);
    const std::string type = force.string("type");
    if (type == "body") {
      g += force.vector("acceleration", model.dim, {});
      continue;
    }
    const Eigen::VectorXd per_vertex =
        force.vector("force", model.dim, Eigen::VectorXd::Zero(model.dim));
    const std::vector<int> vertices = detail::select_region(force, "region", model);
    if (type == "steps") {
      std::vector<int> dofs;
      std::vector<double> values;
      for (const int v : vertices)
        for (int k = 0; k < model.dim; ++k) dofs.push_back(v * model.dim + k);
      try {  // before the table is filled
        require_table_memory(static_cast<double>(n_steps) * static_cast<double>(dofs.size()),
                             "a force for each of " + std::to_string(n_steps) + " steps on " +
                                 std::to_string(dofs.size()) +
                                 " dofs (steps: the scene's duration / dt, or "
                                 "train.episode_steps)");
      } catch (const InputError& e) {
        force.fail_here(e.what());
      }
      values = step_force_values(force, n_steps, dofs.size(), per_vertex);
      add_step_forces(model, "forces:" + std::to_string(i), std::move(dofs), n_steps,
                      std::move(values));
      continue;
    }
    point_forces = true;
    for (const int v : vertices)
      f.segment(static_cast<Eigen::Index>(v) * model.dim, model.dim) += per_vertex;
  }
  add_gravity(model, g);
  if (point_forces) add_external_forces(model, f);
}

/// The scene's plugins, loaded where the user allows it, else checked to be loaded already.
void scene_plugins(const ObjectReader& top, const Source& src, ScenePlugins policy) {
  for (const std::string& plugin : top.strings("plugins")) {
    const std::filesystem::path given(plugin);
    const std::filesystem::path file = given.is_absolute() ? given : src.dir / given;
    if (plugin_loaded(file)) continue;
    if (policy == ScenePlugins::MustBeLoaded)
      top.fail("plugins",
               "the scene names the plugin '" + file.string() +
                   "', a shared library (code), which is not loaded. A scene file runs no code "
                   "by itself: load the plugin with --plugin FILE (Python: "
                   "softgrad.load_plugin(FILE)), or let scenes load theirs with "
                   "--allow-scene-plugins (Python: softgrad.load(..., allow_plugins=True))");
    log(LogLevel::Warn, src.name + ": loading the plugin '" + file.string() +
                            "' that the scene names (scene plugins allowed)");
    try {
      load_plugin(file);
    } catch (const InputError& e) {
      top.fail("plugins", e.what());
    }
  }
}

Scene build_scene(const Json& j, const Source& src, const std::filesystem::path& origin,
                  ScenePlugins plugins) {
  const ObjectReader top(src, j, "", schema::top);
  // Plugins first: their materials are what the bodies may name.
  scene_plugins(top, src, plugins);
  Scene scene;
  scene.name = top.has("name") ? top.string("name") : origin.stem().string();
  if (scene.name.empty() && !top.has("name")) scene.name = "scene";
  const bool control = std::any_of(scene.name.begin(), scene.name.end(),
                                   [](unsigned char c) { return c < 0x20 || c == 0x7f; });
  if (scene.name.empty() || scene.name.find_first_of("/\\") != std::string::npos || control ||
      scene.name == "." || scene.name == "..")
    top.fail("name",
             "the name must be non-empty without '/', '\\' or control characters, and not '.' "
             "or '..' (it names the output folder and files)");
  const bool creature = top.has("creature");
  const int dim = creature ? detail::creature_dim(top) : top.integer("dim");
  scene.static_solve = top.string("mode") == "static";
  read_time(top, scene);
  read_solver(top, scene.options);
  read_output(top, scene);
  Eigen::VectorXd down = Eigen::VectorXd::Zero(dim);
  down[1] = -9.81;
  const Eigen::VectorXd gravity = top.vector("gravity", dim, down);
  const ObjectReader damping = top.object("damping", schema::damping);
  const double alpha = damping.number("alpha");
  const double beta = damping.number("beta");

  // Bodies, then the energy terms, then the kinematic groups on the rest positions.
  // A locomotion scene's creature brings its own body, gravity, ground contact and muscles.
  ModelBuilder builder(dim);
  Model& model = builder.model();
  std::shared_ptr<Locomotion> control_problem;  // a creature's or robot's, until the model is final
  if (creature) {
    control_problem = detail::read_creature(top, scene, builder);
  } else {
    if (!detail::is_robot_problem(top)) detail::reject_locomotion_keys(top);
    const std::vector<const Json*> bodies = top.list("bodies");
    if (bodies.empty() && top.list("rigid_bodies").empty())
      top.fail("bodies", "the scene needs at least one body, rigid body or a 'creature'");
    for (size_t i = 0; i < bodies.size(); ++i)
      detail::add_scene_body(src, *bodies[i], static_cast<int>(i), model, scene.warnings);
    detail::read_rigid_bodies(top, model);
    add_elastic_terms(model);
    detail::add_rigid_terms(top, scene.options.dt,
                            scene.static_solve ? 1 : detail::control_steps(top, scene.steps),
                            model);
    add_loads(top, gravity, scene.static_solve ? 1 : scene.steps, model);
  }
  if (alpha > 0 || beta > 0) add_damping(model, alpha, beta);
  read_boundary(top, model);
  detail::read_contact(top, model);
  if (!creature && detail::is_robot_problem(top))
    control_problem = detail::read_robot_problem(top, scene, model);
  scene.model = builder.finalize();
  if (control_problem) detail::finish_control_problem(top, scene, std::move(control_problem));

  // What softgrad grad needs: the initial state, the loss, the parameters.
  detail::read_initial(top, scene);
  detail::read_rigid_velocities(top, *scene.model, scene.initial_velocity);
  detail::read_markers(top, scene);
  const detail::StepGrid grid{scene.options.dt, scene.static_solve ? 1 : scene.steps,
                              scene.static_solve};
  scene.loss = detail::read_loss(top, *scene.model, grid, scene.loss_min_steps);
  detail::read_parameters(top, scene);
  detail::read_sysid(top, scene);
  return scene;
}

std::atomic<ScenePlugins>& scene_plugins_default() {
  static std::atomic<ScenePlugins> policy{ScenePlugins::MustBeLoaded};
  return policy;
}

}  // namespace

void set_default_scene_plugins(ScenePlugins plugins) { scene_plugins_default() = plugins; }

ScenePlugins default_scene_plugins() { return scene_plugins_default(); }

Scene parse_scene(const std::string& text, const std::filesystem::path& origin,
                  ScenePlugins plugins) {
  const Source src{origin.string(), origin.parent_path()};
  // A UTF-8 byte-order mark (some editors write one) is not part of the JSON.
  const std::string_view bom = "\xEF\xBB\xBF";
  const std::string json_text =
      text.compare(0, bom.size(), bom) == 0 ? text.substr(bom.size()) : text;
  if (const size_t nul = json_text.find('\0'); nul != std::string::npos)
    throw InputError(text_location(src, json_text, nul) +
                     ": a NUL byte: a scene is a text file (is this the right file?)");
  Json j;
  try {
    j = Json::parse(json_text);
  } catch (const Json::parse_error& e) {
    fail_parse(src, json_text, e);
  } catch (const Json::out_of_range& e) {
    fail_overflow(src, json_text, e);
  }
  detail::check_json_structure(src, json_text);
  return build_scene(j, src, origin, plugins);
}

Scene load_scene(const std::filesystem::path& file, ScenePlugins plugins) {
  detail::refuse_special_file(file, "scene file");
  std::error_code ec;
  if (!std::filesystem::exists(file, ec))
    throw InputError(file.string() + ": scene file not found");
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw InputError(file.string() + ": cannot read the scene file");
  Scene scene = parse_scene(text.str(), file, plugins);
  scene.file = file;
  return scene;
}

}  // namespace softgrad
