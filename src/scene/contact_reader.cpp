// The scene's /contact section: the contact model and coefficients, and the obstacles, one
// reader per obstacle type (the table below is the factory).
#include "contact_reader.hpp"

#include <algorithm>

#include "regions.hpp"
#include "softgrad/contact.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/mesh_contact.hpp"
#include "softgrad/rigid_coupling.hpp"

namespace softgrad::detail {

namespace {

using enum KeyType;

// The schema of /contact and its obstacles, beside their reader.
constexpr KeySpec kContactKeys[] = {
    {"model",
     Choice,
     "",
     {},
     "penalty|barrier",
     "barrier",
     "penalty: k/2 max(0, -d)^2 (C2-smoothed over dhat); barrier: IPC log barrier, never "
     "penetrates"},
    {"stiffness", Number, "N/m", kPositive, "", "1e4",
     "penalty k or barrier kappa (parameter contact.stiffness)"},
    {"activation_distance", Number, "m", kPositive, "", "1e-3",
     "dhat: the barrier's range, the penalty's smoothing band"},
    {"friction", Number, "", kNonNegative, "", "0",
     "Coulomb coefficient mu of lagged friction (parameter contact.friction)"},
    {"friction_velocity", Number, "m/s", kPositive, "", "1e-3",
     "eps_v: below it friction is smoothed (sticking)"},
    {"obstacles",
     List,
     "",
     {},
     "",
     "[]",
     "the obstacles (at least one unless between_bodies, self_contact or rigid_surfaces), see "
     "/contact/obstacles/*"},
    {"region", Object, "", {}, "", "", "the vertices that collide; default all"},
    {"rigid_shapes",
     Boolean,
     "",
     {},
     "",
     "true",
     "the deformable bodies' vertices (those of region) also meet the rigid bodies' box, "
     "sphere, capsule and cylinder shapes (those that collide), with the same model and "
     "coefficients "
     "(term shape_contact)"},
    {"between_bodies",
     Boolean,
     "",
     {},
     "",
     "false",
     "the deformable bodies' surfaces meet one another, never crossing (IPC barrier between "
     "point-triangle and edge-edge pairs, CCD-filtered steps; barrier model only) with the same "
     "coefficients (term mesh_contact)"},
    {"self_contact",
     Boolean,
     "",
     {},
     "",
     "false",
     "a deformable body's surface also meets itself, and the bodies one another (term "
     "mesh_contact)"},
    {"rigid_surfaces",
     Boolean,
     "",
     {},
     "",
     "false",
     "the colliding rigid bodies' surfaces join contact between bodies (term mesh_contact): "
     "they meet one another (unless joined by a joint) and the deformable bodies' surfaces, "
     "instead of rigid_shapes' vertex contact"},
    {"adaptive_stiffness",
     Boolean,
     "",
     {},
     "",
     "true",
     "between bodies and self-contact: while the closest gap is below min_gap and closing, the "
     "barrier's stiffness doubles after each step (IPC), up to max_stiffness_scale times "
     "stiffness"},
    {"min_gap", Number, "m", kNonNegative, "", "0",
     "the gap adaptive stiffness keeps open; 0: activation_distance / 1000"},
    {"max_stiffness_scale", Number, "", kAtLeastOne, "", "1024",
     "the most adaptive stiffness multiplies stiffness by (>= 1)"},
};

constexpr KeySpec kObstacleKeys[] = {
    {"type",
     Choice,
     "",
     {},
     "ground|half_space|sphere|box|height_field|capsule|cylinder",
     nullptr,
     "ground: y >= height; half_space: (x - point) . normal >= 0; sphere, box, capsule and "
     "cylinder (along y): solid; "
     "height_field: y >= h(x(, z)), bilinear"},
    {"name", String, "", {}, "", "", "name in messages; default obstacle<index>"},
    {"height", Number, "m", kAnyNumber, "", "0", "y of the ground plane (ground)"},
    {"point", Vector, "m", kAnyNumber, "", "", "a point on the plane (half_space, required)"},
    {"normal", Vector, "", kAnyNumber, "", "",
     "non-zero, into the free space (half_space, required)"},
    {"center", Vector, "m", kAnyNumber, "", "",
     "centre (sphere, box, capsule, cylinder; required)"},
    {"radius", Number, "m", kPositive, "", "", "radius (sphere, capsule, cylinder; required)"},
    {"length", Number, "m", kPositive, "", "",
     "capsule: between its end-sphere centres; cylinder: between its faces (required)"},
    {"half_extents", Vector, "m", kPositive, "", "", "half sizes per axis (box, required)"},
    {"x0", Number, "m", kAnyNumber, "", "0", "x of the first height sample (height_field)"},
    {"z0", Number, "m", kAnyNumber, "", "0", "z of the first height sample (height_field, 3D)"},
    {"spacing", Number, "m", kPositive, "", "", "grid spacing (height_field, required)"},
    {"nx", Integer, "", kAtLeastTwo, "", "",
     "samples along x (height_field: required in 3D; 2D: all heights)"},
    {"heights", Numbers, "m", kAnyNumber, "", "",
     "heights, row-major [iz * nx + ix] (height_field, required; at least 2 per axis)"},
};

constexpr Variant kObstacleVariants[] = {{"ground", "", "height"},
                                         {"half_space", "point|normal", ""},
                                         {"sphere", "center|radius", ""},
                                         {"box", "center|half_extents", ""},
                                         {"height_field", "spacing|heights", "x0|z0|nx"},
                                         {"capsule", "center|radius|length", ""},
                                         {"cylinder", "center|radius|length", ""}};

}  // namespace

namespace schema {
const Section contact{"/contact", "contact and lagged friction against analytic obstacles",
                      kContactKeys};
const Section obstacle{"/contact/obstacles/*", "one obstacle (keys by type)", kObstacleKeys,
                       kObstacleVariants};
}  // namespace schema

namespace {

Eigen::Vector3d to_3d(const Eigen::VectorXd& v, double pad = 0.0) {
  Eigen::Vector3d out = Eigen::Vector3d::Constant(pad);
  out.head(v.size()) = v;
  return out;
}

using ObstaclePtr = std::shared_ptr<const Obstacle>;

ObstaclePtr read_ground(const ObjectReader& r, std::string name, int) {
  return std::make_shared<HalfSpace>(std::move(name), Eigen::Vector3d(0.0, r.number("height"), 0.0),
                                     Eigen::Vector3d::UnitY());
}

ObstaclePtr read_half_space(const ObjectReader& r, std::string name, int dim) {
  const Eigen::Vector3d n = to_3d(r.vector("normal", dim, {}));
  if (!(n.norm() > 0.0)) r.fail("normal", "the normal must be non-zero");
  return std::make_shared<HalfSpace>(std::move(name), to_3d(r.vector("point", dim, {})),
                                     n.normalized());
}

ObstaclePtr read_sphere(const ObjectReader& r, std::string name, int dim) {
  return std::make_shared<Sphere>(std::move(name), to_3d(r.vector("center", dim, {})),
                                  r.number("radius"));
}

ObstaclePtr read_box(const ObjectReader& r, std::string name, int dim) {
  return std::make_shared<Box>(std::move(name), to_3d(r.vector("center", dim, {})),
                               to_3d(r.vector("half_extents", dim, {}), 1.0));
}

// A capsule or cylinder along the y axis.
template <class Solid>
ObstaclePtr read_solid_of_revolution(const ObjectReader& r, std::string name, int dim) {
  return std::make_shared<Solid>(std::move(name), to_3d(r.vector("center", dim, {})),
                                 r.number("length"), r.number("radius"));
}

ObstaclePtr read_capsule(const ObjectReader& r, std::string name, int dim) {
  return read_solid_of_revolution<Capsule>(r, std::move(name), dim);
}

ObstaclePtr read_cylinder(const ObjectReader& r, std::string name, int dim) {
  return read_solid_of_revolution<Cylinder>(r, std::move(name), dim);
}

// A height field: heights row-major, nx per row.
ObstaclePtr read_height_field(const ObjectReader& r, std::string name, int dim) {
  if (dim == 2 && r.has("z0")) r.fail("z0", "'z0' applies to 3D height fields only");
  HeightField::Grid g;
  g.x0 = r.number("x0");
  g.z0 = r.number("z0");
  g.spacing = r.number("spacing");
  if (!r.at("heights").is_array())
    r.fail("heights", "expected a list of numbers, got " + describe_json(r.at("heights")));
  const Eigen::VectorXd h = r.vector("heights", static_cast<int>(r.at("heights").size()), {});
  g.heights.assign(h.data(), h.data() + h.size());
  if (dim == 3 && !r.has("nx")) r.fail("nx", "missing key 'nx', required for 3D height fields");
  g.nx = r.has("nx") ? r.integer("nx") : static_cast<int>(h.size());
  g.nz = dim == 3 ? static_cast<int>(h.size()) / g.nx : 1;
  const bool whole = static_cast<int>(h.size()) == g.nx * g.nz;
  if (g.nx < 2 || !whole || (dim == 3 && g.nz < 2)) {
    r.fail("heights", std::to_string(h.size()) + " heights do not make a grid of nx = " +
                          std::to_string(g.nx) + " columns" +
                          (dim == 3 ? " and at least 2 rows" : " (at least 2 heights)"));
  }
  return std::make_shared<HeightField>(std::move(name), std::move(g));
}

/// The obstacle types a scene can name (the schema's choices for "type").
struct ObstacleReader {
  const char* type;
  ObstaclePtr (*read)(const ObjectReader& r, std::string name, int dim);
};
constexpr ObstacleReader kObstacleReaders[] = {
    {"ground", read_ground},    {"half_space", read_half_space},     {"sphere", read_sphere},
    {"box", read_box},          {"height_field", read_height_field}, {"capsule", read_capsule},
    {"cylinder", read_cylinder}};

ObstaclePtr read_obstacle(const ObjectReader& r, int index, int dim) {
  std::string name = r.has("name") ? r.string("name") : "obstacle" + std::to_string(index);
  const std::string type = r.string("type");
  for (const ObstacleReader& reader : kObstacleReaders)
    if (type == reader.type) return reader.read(r, std::move(name), dim);
  std::string known;
  for (const ObstacleReader& reader : kObstacleReaders)
    known += (known.empty() ? "" : ", ") + std::string(reader.type);
  r.fail("type", "unknown obstacle type '" + type + "' (known: " + known + ")");
}

}  // namespace

void read_contact(const ObjectReader& top, Model& model) {
  if (!top.has("contact")) return;
  const ObjectReader c = top.object("contact", schema::contact);
  ContactOptions options;
  options.model = c.string("model") == "penalty" ? ContactModel::Penalty : ContactModel::Barrier;
  options.stiffness = c.number("stiffness");
  options.activation_distance = c.number("activation_distance");
  options.friction = c.number("friction");
  options.friction_velocity = c.number("friction_velocity");
  const std::vector<const Json*> entries = c.list("obstacles");
  const bool rigid_surfaces = c.boolean("rigid_surfaces");
  const bool meshes = c.boolean("between_bodies") || c.boolean("self_contact") || rigid_surfaces;
  if (entries.empty() && !meshes)
    c.fail("obstacles",
           "contact needs at least one obstacle, or between_bodies, self_contact or "
           "rigid_surfaces true");
  for (size_t i = 0; i < entries.size(); ++i) {
    const ObjectReader r(top.source(), *entries[i],
                         child_pointer(c.path("obstacles"), std::to_string(i)), schema::obstacle);
    options.obstacles.push_back(read_obstacle(r, static_cast<int>(i), model.dim));
  }
  if (c.has("region")) options.vertices = select_region(c, "region", model);
  // Soft vertices against rigid shapes: the bodies that collide and have one.
  ShapeContactOptions shapes;
  shapes.model = options.model;
  shapes.stiffness = options.stiffness;
  shapes.activation_distance = options.activation_distance;
  shapes.friction = options.friction;
  shapes.friction_velocity = options.friction_velocity;
  shapes.vertices = options.vertices;
  MeshContactOptions mesh;
  for (size_t b = 0; b < model.rigid_bodies.size(); ++b) {
    const RigidBody& body = model.rigid_bodies[b];
    if (!body.collides) continue;
    if (rigid_surfaces)
      mesh.rigid_bodies.push_back(static_cast<int>(b));
    else if (body.shape->has_distance())
      shapes.bodies.push_back(static_cast<int>(b));
  }
  mesh.stiffness = options.stiffness;
  mesh.activation_distance = options.activation_distance;
  mesh.friction = options.friction;
  mesh.friction_velocity = options.friction_velocity;
  mesh.self_contact = c.boolean("self_contact");
  mesh.adaptive_stiffness = c.boolean("adaptive_stiffness");
  mesh.min_gap = c.number("min_gap");
  mesh.max_stiffness_scale = c.number("max_stiffness_scale");
  if (meshes && options.model != ContactModel::Barrier)
    c.fail("model",
           "contact between bodies, self-contact and rigid surfaces need the barrier model");
  try {
    if (!options.obstacles.empty()) add_contact(model, std::move(options));
    if (meshes) add_mesh_contact(model, std::move(mesh));
    if (c.boolean("rigid_shapes") && !shapes.bodies.empty() && model.n_mesh_verts() > 0)
      add_shape_contact(model, std::move(shapes));
  } catch (const InputError& e) {
    c.fail_here(e.what());
  }
}

}  // namespace softgrad::detail
