// The rigid keys of a scene: schema tables and the readers of /rigid_bodies, /joints, /motors.
#include "rigid_reader.hpp"

#include <Eigen/Geometry>
#include <cmath>
#include <string>

#include "motion_reader.hpp"
#include "regions.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/io.hpp"
#include "softgrad/rigid_coupling.hpp"

namespace softgrad::detail {
namespace {

using enum KeyType;

constexpr KeySpec kRigidBodyKeys[] = {
    {"name", String, "", {}, "", "", "unique rigid body name; default rigid<index>"},
    {"shape", Object, "", {}, "", nullptr, "the body's shape, see /rigid_bodies/*/shape"},
    {"density", Number, "kg/m^3", kPositive, "", "1000", "mass density (uniform)"},
    {"position", Vector, "m", kAnyNumber, "", "[0, 0, 0]",
     "where the shape's origin is at rest (its centre for box, sphere, capsule, cylinder)"},
    {"rotation", Object, "", {}, "", "", "the shape's orientation at rest, see rotation"},
    {"velocity", Vector, "m/s", kAnyNumber, "", "[0, 0, 0]", "initial centre-of-mass velocity"},
    {"angular_velocity", Vector, "rad/s", kAnyNumber, "", "[0, 0, 0]", "initial angular velocity"},
    {"motion",
     Motion,
     "",
     {},
     "",
     "",
     "makes the body kinematic: \"fixed\", or an object (translate or rotate, see "
     "/boundary/*/motion; rotate turns the body about the axis); absent: a dynamic body"},
    {"start", Number, "s", kNonNegative, "", "0",
     "a kinematic body's motion starts (before: at rest), as /boundary/*/start"},
    {"stop", Number, "s", kPositive, "", "inf",
     "a kinematic body's motion stops (after: held); > start"},
    {"collides", Boolean, "", {}, "", "true", "the body meets the scene's contact obstacles"},
    {"rigidity", Number, "Pa", kPositive, "", "1e8",
     "stiffness kappa of the orthogonality energy kappa V |A^T A - I|^2 (affine body dynamics)"},
};

constexpr KeySpec kShapeKeys[] = {
    {"type",
     Choice,
     "",
     {},
     "box|sphere|capsule|cylinder|mesh",
     nullptr,
     "box (size), sphere (radius), capsule or cylinder (radius, length; along the local y axis) "
     "or mesh (a closed surface file)"},
    {"size", Vector, "m", kPositive, "", "", "box: edge lengths along x, y, z"},
    {"radius", Number, "m", kPositive, "", "", "sphere, capsule, cylinder: radius"},
    {"length", Number, "m", kPositive, "", "",
     "capsule: distance between the centres of its end spheres; cylinder: between its faces"},
    {"file",
     String,
     "",
     {},
     "",
     "",
     "mesh: a closed surface (.obj, .off, .stl), relative to the scene file"},
    {"scale", Number, "", kPositive, "", "1", "mesh: multiplies the file's coordinates"},
};

constexpr Variant kShapeVariants[] = {{"box", "size", ""},
                                      {"sphere", "radius", ""},
                                      {"capsule", "radius|length", ""},
                                      {"cylinder", "radius|length", ""},
                                      {"mesh", "file", "scale"}};

constexpr KeySpec kRotationKeys[] = {
    {"axis", Vector, "", kAnyNumber, "", "[0, 0, 1]", "rotation axis, non-zero"},
    {"angle", Number, "rad", kAnyNumber, "", "0", "counter-clockwise about the axis"},
};

constexpr KeySpec kJointKeys[] = {
    {"name", String, "", {}, "", "", "unique joint name; default joint<index>"},
    {"type",
     Choice,
     "",
     {},
     "hinge|ball|slider|fixed",
     nullptr,
     "hinge (turns about axis), ball (turns freely about the anchor), slider (moves along "
     "axis), fixed (welds)"},
    {"parent", String, "", {}, "", "world", "a rigid body's name, or world"},
    {"child", String, "", {}, "", nullptr, "a rigid body's name"},
    {"anchor", Vector, "m", kAnyNumber, "", nullptr, "where the bodies are joined, at rest"},
    {"axis", Vector, "", kAnyNumber, "", "[0, 0, 1]", "hinge and slider: the axis, non-zero"},
    {"lower", Number, "rad or m", kAnyNumber, "", "-inf",
     "hinge and slider: lower limit of the coordinate (0 at rest), < 0"},
    {"upper", Number, "rad or m", kAnyNumber, "", "inf", "upper limit, > 0"},
    {"stiffness", Number, "N/m", kNonNegative, "", "0",
     "penalty on the anchor's separation; 0: 1e4 m / dt^2 (m: the lighter body)"},
    {"angular_stiffness", Number, "N m", kNonNegative, "", "0",
     "penalty on the axis' or frame's misalignment; 0: 1e4 S / dt^2 (S: the smallest second "
     "moment)"},
    {"limit_stiffness", Number, "N m/rad or N/m", kNonNegative, "", "0",
     "penalty beyond a limit; 0: 1e2 S / dt^2 (slider: 1e2 m / dt^2)"},
};

constexpr KeySpec kMotorKeys[] = {
    {"name", String, "", {}, "", "", "unique motor name; default motor<index>"},
    {"joint", String, "", {}, "", nullptr, "the hinge or slider it drives"},
    {"mode",
     Choice,
     "",
     {},
     "position|velocity|force",
     "position",
     "position servo (gain kp, damping kd), velocity servo (gain kv) or force (the target is "
     "the torque or force)"},
    {"gain", Number, "N m/rad, N m s/rad, N/m or N s/m", kNonNegative, "", "0",
     "position: kp; velocity: kv; required (> 0) for servos"},
    {"damping", Number, "N m s/rad or N s/m", kNonNegative, "", "0", "position: kd"},
    {"max_force", Number, "N m or N", kPositive, "", "inf",
     "torque or force limit (servos saturate smoothly; force targets are clipped)"},
    {"target", Number, "rad, m, rad/s, m/s, N m or N", kAnyNumber, "", "0",
     "every step's target until a controller or the parameter motors.target sets it"},
};

constexpr KeySpec kAttachmentKeys[] = {
    {"name", String, "", {}, "", "", "unique name; default attachment<index>"},
    {"rigid_body", String, "", {}, "", nullptr, "the rigid body (the bone) the vertices follow"},
    {"region", Object, "", {}, "", nullptr, "the deformable bodies' vertices bound to it"},
    {"stiffness", Number, "N/m", kNonNegative, "", "0",
     "spring of each vertex to its body point; 0: 1e4 m / dt^2 (m: the vertices' mean mass)"},
};

Eigen::Matrix3d read_rotation(const ObjectReader& body) {
  if (!body.has("rotation")) return Eigen::Matrix3d::Identity();
  const ObjectReader r = body.object("rotation", schema::rotation);
  const Eigen::Vector3d axis = r.vector("axis", 3, Eigen::Vector3d::UnitZ());
  if (!(axis.norm() > 0.0)) r.fail("axis", "the axis must be non-zero");
  return Eigen::AngleAxisd(r.number("angle"), axis.normalized()).toRotationMatrix();
}

// The schema's variants have checked which keys the type takes.
std::shared_ptr<const Shape> read_shape(const ObjectReader& body) {
  const ObjectReader s = body.object("shape", schema::shape);
  const std::string type = s.string("type");
  const Eigen::Vector3d zero = Eigen::Vector3d::Zero();
  if (type == "box") return std::make_shared<Box>("", zero, 0.5 * s.vector("size", 3, {}));
  if (type == "sphere") return std::make_shared<Sphere>("", zero, s.number("radius"));
  if (type == "capsule")
    return std::make_shared<Capsule>("", zero, s.number("length"), s.number("radius"));
  if (type == "cylinder")
    return std::make_shared<Cylinder>("", zero, s.number("length"), s.number("radius"));
  const std::filesystem::path file(s.string("file"));
  try {
    const SurfaceMesh surface =
        read_surface_mesh((file.is_absolute() ? file : s.source().dir / file).string());
    check_surface(surface);  // its volume integrals (mass, inertia) need a closed surface
    return std::make_shared<TriangleMesh>("", surface.X * s.number("scale"), surface.triangles);
  } catch (const InputError& e) {
    s.fail("file", e.what());
  }
}

// Index of the rigid body called `name` at key `key` of `r` (the world: -1 when allowed).
int body_index(const ObjectReader& r, const char* key, const Model& model, bool world) {
  const std::string name = r.string(key);
  if (world && name == "world") return -1;
  const int b = find_rigid_body(model, name);
  if (b >= 0) return b;
  std::string names;
  for (const RigidBody& body : model.rigid_bodies) names += (names.empty() ? "" : ", ") + body.name;
  r.fail(key, "no rigid body '" + name + "'" + (world ? " (nor 'world')" : "") +
                  "; the rigid bodies are: " + (names.empty() ? "none" : names));
}

// /motors, their targets held for `steps` steps.
void read_motors(const ObjectReader& top, int steps, Model& model) {
  std::vector<MotorSpec> motors;
  const std::vector<const Json*> entries = top.list("motors");
  for (size_t i = 0; i < entries.size(); ++i) {
    const ObjectReader r(top.source(), *entries[i], "/motors/" + std::to_string(i), schema::motor);
    MotorSpec m;
    m.name = r.has("name") ? r.string("name") : "motor" + std::to_string(i);
    for (const MotorSpec& other : motors)
      if (other.name == m.name) r.fail("name", "another motor is called '" + m.name + "'");
    const std::string joint = r.string("joint");
    m.joint = -1;
    for (size_t j = 0; j < model.joints.size(); ++j)
      if (model.joints[j].name == joint) m.joint = static_cast<int>(j);
    if (m.joint < 0) r.fail("joint", "no joint '" + joint + "' (see /joints)");
    const std::string mode = r.string("mode");
    m.mode = mode == "velocity" ? MotorMode::Velocity
             : mode == "force"  ? MotorMode::Force
                                : MotorMode::Position;
    m.gain = r.number("gain");
    m.damping = r.number("damping");
    m.max_force = r.number("max_force");
    m.target = r.number("target");
    motors.push_back(std::move(m));
  }
  try {
    add_motors(model, motors, steps);
  } catch (const InputError& e) {
    top.fail("motors", e.what());
  }
}

void read_attachments(const ObjectReader& top, double dt, Model& model) {
  const std::vector<const Json*> entries = top.list("attachments");
  for (size_t i = 0; i < entries.size(); ++i) {
    const ObjectReader r(top.source(), *entries[i], "/attachments/" + std::to_string(i),
                         schema::attachment);
    const std::string name = r.has("name") ? r.string("name") : "attachment" + std::to_string(i);
    const int body = body_index(r, "rigid_body", model, false);
    const std::vector<int> vertices = select_region(r, "region", model);
    double k = r.number("stiffness");
    if (!(k > 0.0) && !vertices.empty()) {
      const Eigen::VectorXd m = model.translational_mass();
      double mean = 0.0;
      for (int v : vertices) mean += m[3 * v] / static_cast<double>(vertices.size());
      k = 1e4 * mean / (dt * dt);
    }
    try {
      add_attachment(model, name, body, vertices, k);
    } catch (const InputError& e) {
      r.fail_here(e.what());
    }
  }
}

}  // namespace

namespace schema {
const Section rigid_body{"/rigid_bodies/*", "a rigid body (an affine body held rigid)",
                         kRigidBodyKeys};
const Section shape{"/rigid_bodies/*/shape", "a rigid body's shape, in its own frame", kShapeKeys,
                    kShapeVariants};
const Section rotation{"/rigid_bodies/*/rotation", "an orientation as an axis and an angle",
                       kRotationKeys};
const Section joint{"/joints/*", "a joint between rigid bodies (or a body and the world)",
                    kJointKeys};
const Section motor{"/motors/*", "a motor driving a hinge or a slider towards per-step targets",
                    kMotorKeys};
const Section attachment{"/attachments/*",
                         "deformable-body vertices bound to a rigid body (a soft body on a bone)",
                         kAttachmentKeys};
}  // namespace schema

void read_rigid_bodies(const ObjectReader& top, Model& model) {
  const std::vector<const Json*> entries = top.list("rigid_bodies");
  if (!entries.empty() && model.dim != 3)
    top.fail("rigid_bodies", "rigid bodies need a 3D scene (\"dim\": 3)");
  for (size_t i = 0; i < entries.size(); ++i) {
    const ObjectReader r(top.source(), *entries[i], "/rigid_bodies/" + std::to_string(i),
                         schema::rigid_body);
    RigidBodySpec spec;
    spec.name = r.has("name") ? r.string("name") : "rigid" + std::to_string(i);
    if (find_rigid_body(model, spec.name) >= 0)
      r.fail("name", "another rigid body is called '" + spec.name + "'");
    spec.shape = read_shape(r);
    spec.density = r.number("density");
    spec.position = r.vector("position", 3, Eigen::Vector3d::Zero());
    spec.rotation = read_rotation(r);
    spec.collides = r.boolean("collides");
    spec.rigidity = r.number("rigidity");
    for (const char* key : {"start", "stop"})
      if (r.has(key) && !r.has("motion"))
        r.fail(key, "'" + std::string(key) + "' applies to a kinematic body (with 'motion')");
    if (r.has("motion")) {
      KinematicGroup motion;
      read_motion(r, 3, motion);
      motion.start = r.number("start");
      motion.stop = r.number("stop");
      if (!(motion.stop > motion.start))
        r.fail("stop", "the motion must stop after it starts (start " +
                           std::to_string(motion.start) + " s)");
      spec.motion = motion;
      for (const char* key : {"velocity", "angular_velocity"})
        if (r.has(key))
          r.fail(key, "a kinematic body ('motion') moves as prescribed; remove '" +
                          std::string(key) + "'");
    }
    try {
      add_rigid_body(model, std::move(spec));
    } catch (const InputError& e) {
      r.fail("shape", e.what());
    }
  }
}

void add_rigid_terms(const ObjectReader& top, double dt, int motor_steps, Model& model) {
  add_rigidity_term(model);
  const std::vector<const Json*> joints = top.list("joints");
  if (!joints.empty() && model.rigid_bodies.empty())
    top.fail("joints", "joints join rigid bodies; the scene has none (see /rigid_bodies)");
  for (size_t i = 0; i < joints.size(); ++i) {
    const ObjectReader r(top.source(), *joints[i], "/joints/" + std::to_string(i), schema::joint);
    JointSpec spec;
    spec.name = r.has("name") ? r.string("name") : "joint" + std::to_string(i);
    for (const Joint& j : model.joints)
      if (j.name == spec.name) r.fail("name", "another joint is called '" + spec.name + "'");
    const std::string type = r.string("type");
    spec.type = type == "hinge"    ? JointType::Hinge
                : type == "ball"   ? JointType::Ball
                : type == "slider" ? JointType::Slider
                                   : JointType::Fixed;
    spec.parent = body_index(r, "parent", model, true);
    spec.child = body_index(r, "child", model, false);
    spec.anchor = r.vector("anchor", 3, {});
    spec.axis = r.vector("axis", 3, Eigen::Vector3d::UnitZ());
    spec.lower = r.number("lower");
    spec.upper = r.number("upper");
    spec.stiffness = r.number("stiffness");
    spec.angular_stiffness = r.number("angular_stiffness");
    spec.limit_stiffness = r.number("limit_stiffness");
    try {
      add_joint(model, with_default_stiffness(model, spec, dt));
    } catch (const InputError& e) {
      r.fail_here(e.what());
    }
  }
  add_joint_term(model);
  read_attachments(top, dt, model);

  read_motors(top, motor_steps, model);
}

void read_rigid_velocities(const ObjectReader& top, const Model& model, Eigen::VectorXd& v) {
  const std::vector<const Json*> entries = top.list("rigid_bodies");
  for (size_t i = 0; i < entries.size(); ++i) {
    const ObjectReader r(top.source(), *entries[i], "/rigid_bodies/" + std::to_string(i),
                         schema::rigid_body);
    if (!r.has("velocity") && !r.has("angular_velocity")) continue;
    if (v.size() == 0) v = Eigen::VectorXd::Zero(model.n_dofs());
    set_rigid_velocity(model, static_cast<int>(i), r.vector("velocity", 3, Eigen::Vector3d::Zero()),
                       r.vector("angular_velocity", 3, Eigen::Vector3d::Zero()), model.X, v);
  }
}

}  // namespace softgrad::detail
