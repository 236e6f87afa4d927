// The scene sections of system identification: /markers, /initial/bend and /sysid.
#include "scene_sysid.hpp"

#include <algorithm>
#include <cmath>

#include "regions.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/markers.hpp"
#include "softgrad/parameters.hpp"

namespace softgrad::detail {

void read_markers(const ObjectReader& top, Scene& scene) {
  const std::vector<const Json*> entries = top.list("markers");
  const Model& model = *scene.model;
  for (size_t i = 0; i < entries.size(); ++i) {
    const ObjectReader r(top.source(), *entries[i], "/markers/" + std::to_string(i),
                         schema::markers);
    SceneMarker m;
    m.name = r.string("name");
    if (m.name.empty() || m.name.find_first_of(", \t\"") != std::string::npos)
      r.fail("name", "a marker name must be non-empty without commas, blanks or quotes");
    for (const SceneMarker& other : scene.markers)
      if (other.name == m.name) r.fail("name", "a marker named '" + m.name + "' already exists");
    m.position = r.vector("position", model.dim, {});
    try {
      [[maybe_unused]] const MarkerSet check(model, {{m.name, m.position}});
    } catch (const InputError& e) {
      r.fail("position", e.what());
    }
    scene.markers.push_back(std::move(m));
  }
}

void read_bend(const ObjectReader& initial, Scene& scene) {
  if (!initial.has("bend")) return;
  const ObjectReader b = initial.object("bend", schema::bend);
  const Model& model = *scene.model;
  const int dim = model.dim;
  const double delta = b.number("deflection");
  const double L = b.number("length");
  const Eigen::VectorXd origin = b.vector("origin", dim, Eigen::VectorXd::Zero(dim));
  const Eigen::VectorXd axis = b.vector("axis", dim, Eigen::VectorXd::Unit(dim, 0));
  const Eigen::VectorXd dir = b.vector("direction", dim, Eigen::VectorXd::Unit(dim, 1));
  if (!(axis.norm() > 0.0)) b.fail("axis", "the axis must be non-zero");
  if (!(dir.norm() > 0.0)) b.fail("direction", "the direction must be non-zero");
  const Eigen::VectorXd a = axis.normalized(), d = dir.normalized();
  if (!(std::abs(a.dot(d)) < 1e-9))
    b.fail("direction", "the direction must be perpendicular to axis");
  // Euler-Bernoulli cantilever under a tip load: w(s) = delta s^2 (3L - s) / (2 L^3); plane
  // sections rotate by w'(s) about the neutral axis.
  Eigen::VectorXd x = model.X;
  for (int v = 0; v < model.n_mesh_verts(); ++v) {
    const Eigen::VectorXd r = model.X.segment(static_cast<Eigen::Index>(v) * dim, dim) - origin;
    const double s = std::clamp(r.dot(a), 0.0, L), h = r.dot(d);
    const double w = delta * s * s * (3.0 * L - s) / (2.0 * L * L * L);
    const double slope = 3.0 * delta * s * (2.0 * L - s) / (2.0 * L * L * L);
    x.segment(static_cast<Eigen::Index>(v) * dim, dim) += w * d - h * slope * a;
  }
  // Kinematic dofs follow their prescribed motion from the rest positions.
  for (const int dof : model.kinematic_dofs()) x[dof] = model.X[dof];
  scene.initial_position = std::move(x);
}

namespace {

/// /sysid/experiments or /sysid/validation (`key`): each the scene with its merge patch applied,
/// parsed as a scene of its own (named "<scene> (sysid experiment k)", or "validation k", in
/// messages; relative paths from the same folder).
void read_experiments(const ObjectReader& top, const ObjectReader& sysid, const char* key,
                      std::vector<SceneSysId::Experiment>& out) {
  const std::vector<const Json*> entries = sysid.list(key);
  for (size_t k = 0; k < entries.size(); ++k) {
    const ObjectReader r(top.source(), *entries[k],
                         child_pointer(sysid.path(key), std::to_string(k)),
                         schema::sysid_experiment);
    SceneSysId::Experiment e;
    const std::string data = r.string("data");
    if (data.empty()) r.fail("data", "give the recording's file");
    e.data = std::filesystem::path(data).is_absolute() ? std::filesystem::path(data)
                                                       : top.source().dir / data;
    Json patched = top.json();
    if (r.has("patch")) {
      if (!r.at("patch").is_object())
        r.fail("patch", "expected an object {...}, got " + describe_json(r.at("patch")));
      patched.merge_patch(r.at("patch"));
    }
    // The experiment's own sysid block lists no experiments (if the patch kept it at all).
    if (patched.contains("sysid") && patched["sysid"].is_object()) {
      patched["sysid"].erase("experiments");
      patched["sysid"].erase("validation");
      patched["sysid"].erase("patience");
    }
    const std::string origin = top.source().name + " (sysid " +
                               (std::string(key) == "experiments" ? "experiment " : "validation ") +
                               std::to_string(k) + ")";
    e.scene = std::make_shared<const Scene>(parse_scene(patched.dump(), origin));
    if (e.scene->static_solve)
      r.fail("patch", "an experiment must be a dynamic scene (\"mode\": \"dynamic\")");
    out.push_back(std::move(e));
  }
}

}  // namespace

void read_sysid(const ObjectReader& top, Scene& scene) {
  if (!top.has("sysid")) return;
  const ObjectReader s = top.object("sysid", schema::sysid);
  SceneSysId& out = scene.sysid;
  out.method = s.string("method") == "lbfgs" ? SysIdMethod::Lbfgs : SysIdMethod::LevenbergMarquardt;
  out.log = s.boolean("log");
  const std::string robust = s.string("robust");
  out.robust = robust == "huber"    ? RobustLoss::Huber
               : robust == "cauchy" ? RobustLoss::Cauchy
                                    : RobustLoss::None;
  out.robust_scale = s.number("robust_scale");
  out.max_iterations = s.integer("max_iterations");
  out.smoothness = s.number("smoothness");
  out.starts = s.integer("starts");
  out.start_spread = s.number("start_spread");
  const std::vector<const Json*> entries = s.list("parameters");
  if (entries.empty()) s.fail("parameters", "give at least one parameter to identify");
  // Names resolve as a ParameterSet would (a matrix-free simulator needs no factorisation).
  SimulationOptions options = scene.options;
  options.linear.kind = "matfree";
  options.linear.preconditioner = "jacobi";
  const Simulator sim(scene.model, options);
  const Rollout rollout = scene.rollout(sim);
  std::vector<std::string> names;
  for (size_t i = 0; i < entries.size(); ++i) {
    const ObjectReader r(top.source(), *entries[i],
                         child_pointer(s.path("parameters"), std::to_string(i)),
                         schema::sysid_parameter);
    SceneSysId::Parameter p;
    p.name = r.string("name");
    if (std::find(names.begin(), names.end(), p.name) != names.end())
      r.fail("name", "'" + p.name + "' is listed twice");
    names.push_back(p.name);
    try {
      [[maybe_unused]] const ParameterSet params(sim, rollout, names);
    } catch (const InputError& e) {
      r.fail("name", e.what());
    }
    if (r.has("initial")) p.initial = r.number("initial");
    if (r.has("lower")) p.lower = r.number("lower");
    if (r.has("upper")) p.upper = r.number("upper");
    if (!(p.lower < p.upper)) r.fail("upper", "upper must be greater than lower");
    if (r.has("initial") && !(p.initial >= p.lower && p.initial <= p.upper))
      r.fail("initial", "the initial value is outside [lower, upper]");
    out.parameters.push_back(std::move(p));
  }
  read_experiments(top, s, "experiments", scene.sysid.experiments);
  read_experiments(top, s, "validation", scene.sysid.validation);
  out.patience = s.integer("patience");
  if (out.patience > 0 && out.validation.empty())
    s.fail("patience", "patience goes with held-out recordings in /sysid/validation");
  if (!out.validation.empty() && out.starts > 1)
    s.fail("validation",
           "held-out recordings go with one start, not " + std::to_string(out.starts));
}

}  // namespace softgrad::detail
