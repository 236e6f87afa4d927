// The scene sections of system identification and contact: /contact, /markers,
// /initial/bend and /sysid.
#include "scene_sysid.hpp"

#include <algorithm>
#include <cmath>

#include "regions.hpp"
#include "softgrad/contact.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/markers.hpp"
#include "softgrad/parameters.hpp"

namespace softgrad::detail {

namespace {

Eigen::Vector3d to_3d(const Eigen::VectorXd& v, double pad = 0.0) {
  Eigen::Vector3d out = Eigen::Vector3d::Constant(pad);
  out.head(v.size()) = v;
  return out;
}

// Each key of `keys` must be present exactly when the obstacle's type uses it.
void check_obstacle_keys(const ObjectReader& r, const std::string& type,
                         std::initializer_list<const char*> required,
                         std::initializer_list<const char*> optional) {
  for (const char* key : required)
    if (!r.has(key))
      r.fail(key, "missing key '" + std::string(key) + "', required for type '" + type + "'");
  static const char* const kShapeKeys[] = {"height",  "point",        "normal", "center",
                                           "radius",  "half_extents", "x0",     "z0",
                                           "spacing", "nx",           "heights"};
  for (const char* key : kShapeKeys) {
    const auto named = [&](const char* k) { return std::string(k) == key; };
    if (r.has(key) && std::none_of(required.begin(), required.end(), named) &&
        std::none_of(optional.begin(), optional.end(), named))
      r.fail(key, "'" + std::string(key) + "' does not apply to type '" + type + "'");
  }
}

// A height field: heights row-major, nx per row.
void read_height_field(const ObjectReader& r, int dim, Obstacle& o) {
  check_obstacle_keys(r, "height_field", {"spacing", "heights"}, {"x0", "z0", "nx"});
  if (dim == 2 && r.has("z0")) r.fail("z0", "'z0' applies to 3D height fields only");
  o.shape = Obstacle::Shape::HeightField;
  o.x0 = r.number("x0");
  o.z0 = r.number("z0");
  o.spacing = r.number("spacing");
  if (!r.at("heights").is_array())
    r.fail("heights", "expected a list of numbers, got " + describe_json(r.at("heights")));
  const Eigen::VectorXd h = r.vector("heights", static_cast<int>(r.at("heights").size()), {});
  o.heights.assign(h.data(), h.data() + h.size());
  if (dim == 3 && !r.has("nx")) r.fail("nx", "missing key 'nx', required for 3D height fields");
  o.nx = r.has("nx") ? r.integer("nx") : static_cast<int>(h.size());
  o.nz = dim == 3 ? static_cast<int>(h.size()) / o.nx : 1;
  const bool whole = static_cast<int>(h.size()) == o.nx * o.nz;
  if (o.nx < 2 || !whole || (dim == 3 && o.nz < 2)) {
    r.fail("heights", std::to_string(h.size()) + " heights do not make a grid of nx = " +
                          std::to_string(o.nx) + " columns" +
                          (dim == 3 ? " and at least 2 rows" : " (at least 2 heights)"));
  }
}

Obstacle read_obstacle(const ObjectReader& r, int index, int dim) {
  Obstacle o;
  o.name = r.has("name") ? r.string("name") : "obstacle" + std::to_string(index);
  const std::string type = r.string("type");
  if (type == "ground") {
    check_obstacle_keys(r, type, {}, {"height"});
    o.shape = Obstacle::Shape::HalfSpace;
    o.point = Eigen::Vector3d(0.0, r.number("height"), 0.0);
    o.normal = Eigen::Vector3d::UnitY();
  } else if (type == "half_space") {
    check_obstacle_keys(r, type, {"point", "normal"}, {});
    o.shape = Obstacle::Shape::HalfSpace;
    o.point = to_3d(r.vector("point", dim, {}));
    const Eigen::Vector3d n = to_3d(r.vector("normal", dim, {}));
    if (!(n.norm() > 0.0)) r.fail("normal", "the normal must be non-zero");
    o.normal = n.normalized();
  } else if (type == "sphere") {
    check_obstacle_keys(r, type, {"center", "radius"}, {});
    o.shape = Obstacle::Shape::Sphere;
    o.center = to_3d(r.vector("center", dim, {}));
    o.radius = r.number("radius");
  } else if (type == "box") {
    check_obstacle_keys(r, type, {"center", "half_extents"}, {});
    o.shape = Obstacle::Shape::Box;
    o.center = to_3d(r.vector("center", dim, {}));
    o.half_extents = to_3d(r.vector("half_extents", dim, {}), 1.0);
  } else {
    read_height_field(r, dim, o);
  }
  return o;
}

}  // namespace

void read_contact(const ObjectReader& top, Model& model) {
  if (!top.has("contact")) return;
  const ObjectReader c = top.object("contact", schema::contact);
  ContactOptions options;
  options.model = c.string("model");
  options.stiffness = c.number("stiffness");
  options.activation_distance = c.number("activation_distance");
  options.friction = c.number("friction");
  options.friction_velocity = c.number("friction_velocity");
  const std::vector<const Json*> entries = c.list("obstacles");
  if (entries.empty()) c.fail("obstacles", "contact needs at least one obstacle");
  for (size_t i = 0; i < entries.size(); ++i) {
    const ObjectReader r(top.source(), *entries[i],
                         child_pointer(c.path("obstacles"), std::to_string(i)), schema::obstacle);
    options.obstacles.push_back(read_obstacle(r, static_cast<int>(i), model.dim));
  }
  if (c.has("region")) options.vertices = select_region(c, "region", model);
  try {
    add_contact(model, std::move(options));
  } catch (const InputError& e) {
    c.fail_here(e.what());
  }
}

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
  for (int v = 0; v < model.n_verts; ++v) {
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

void read_sysid(const ObjectReader& top, Scene& scene) {
  if (!top.has("sysid")) return;
  const ObjectReader s = top.object("sysid", schema::sysid);
  SceneSysId& out = scene.sysid;
  out.method = s.string("method");
  out.log = s.boolean("log");
  out.robust = s.string("robust");
  out.robust_scale = s.number("robust_scale");
  out.max_iterations = s.integer("max_iterations");
  out.smoothness = s.number("smoothness");
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
}

}  // namespace softgrad::detail
