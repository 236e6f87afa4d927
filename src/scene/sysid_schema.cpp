// The schema tables of contact, markers, the bent initial pose and system identification.
#include "schema.hpp"

namespace softgrad::detail {

namespace {

using enum KeyType;

constexpr Range kAtLeastTwo{2.0, kInf, true, false};

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

constexpr KeySpec kMarkerKeys[] = {
    {"name", String, "", {}, "", nullptr, "unique name, as recordings call it"},
    {"position", Vector, "m", kAnyNumber, "", nullptr,
     "rest position, inside a body: the marker moves with the element containing it"},
};

constexpr KeySpec kBendKeys[] = {
    {"deflection", Number, "m", kAnyNumber, "", nullptr, "delta: displacement of the free end"},
    {"length", Number, "m", kPositive, "", nullptr, "L: from origin to the free end"},
    {"origin", Vector, "m", kAnyNumber, "", "[0, 0(, 0)]",
     "a point of the clamped end on the beam's neutral axis"},
    {"axis", Vector, "", kAnyNumber, "", "[1, 0(, 0)]", "along the beam (non-zero)"},
    {"direction", Vector, "", kAnyNumber, "", "[0, 1(, 0)]",
     "of the deflection (non-zero, perpendicular to axis)"},
};

constexpr KeySpec kSysIdKeys[] = {
    {"parameters",
     List,
     "",
     {},
     "",
     nullptr,
     "the parameters to identify (at least one), see /sysid/parameters/*"},
    {"method",
     Choice,
     "",
     {},
     "lm|lbfgs",
     "lm",
     "lm: Levenberg-Marquardt with sensitivity Jacobians and covariance; lbfgs: L-BFGS on the "
     "adjoint gradient (for fields)"},
    {"log", Boolean, "", {}, "", "true", "fit parameters with a positive range in log space"},
    {"robust",
     Choice,
     "",
     {},
     "none|huber|cauchy",
     "none",
     "robust loss on each observation's residual (outliers count less)"},
    {"robust_scale", Number, "m", kPositive, "", "1e-3", "residuals beyond it count less (robust)"},
    {"max_iterations", Integer, "", kAtLeastOne, "", "50", "solver iteration limit"},
    {"smoothness", Number, "", kNonNegative, "", "0",
     "lbfgs: w in w/2 sum over adjacent elements (phi_e - phi_f)^2 of field parameters"},
    {"starts", Integer, "", kAtLeastOne, "", "1",
     "fits from this many starting points side by side (threads, MPI processes), the best kept"},
    {"start_spread", Number, "", kNonNegative, "", "0.5",
     "starts 1.. move each fitted value by spread N(0, 1) (in log space for positive ones)"},
    {"experiments",
     List,
     "",
     {},
     "",
     "[]",
     "recordings of variants of this scene, fitted together (softgrad sysid without --data), "
     "see /sysid/experiments/*"},
    {"validation",
     List,
     "",
     {},
     "",
     "[]",
     "held-out recordings, entries as in experiments: never fitted; their marker error is "
     "reported after every iteration and the estimate is the iterate where it is lowest (one "
     "start)"},
    {"patience", Integer, "", kNonNegative, "", "0",
     "with validation: stop when its error has not improved for this many iterations (0: "
     "never)"},
};

constexpr KeySpec kSysIdExperimentKeys[] = {
    {"data",
     String,
     "",
     {},
     "",
     nullptr,
     "the recording (CSV of time,marker,x,y(,z)), relative to the scene file"},
    {"patch",
     Object,
     "",
     {},
     "",
     "{}",
     "a JSON merge patch (RFC 7386) of this scene: what the experiment changes (initial pose, "
     "duration, loads, markers, ...); {} is the scene itself"},
};

constexpr KeySpec kSysIdParameterKeys[] = {
    {"name",
     String,
     "",
     {},
     "",
     nullptr,
     "a parameter name: youngs, damping.alpha, contact.friction, youngs[] (a field), ... "
     "(softgrad params SCENE lists them)"},
    {"initial", Number, "", kAnyNumber, "", "",
     "the starting guess (every entry of a field); default: the scene's value"},
    {"lower", Number, "", kAnyNumber, "", "", "lower bound; default: the parameter's range"},
    {"upper", Number, "", kAnyNumber, "", "", "upper bound; default: the parameter's range"},
};

}  // namespace

namespace schema {
const Section contact{"/contact", "contact and lagged friction against analytic obstacles",
                      kContactKeys};
const Section obstacle{"/contact/obstacles/*", "one obstacle (keys by type)", kObstacleKeys,
                       kObstacleVariants};
const Section markers{"/markers/*", "a marker: a named point embedded in the rest mesh",
                      kMarkerKeys};
const Section bend{"/initial/bend",
                   "x0 = X + w(s) direction - h w'(s) axis, w(s) = delta s^2 (3L - s) / (2 L^3), "
                   "s = (X - origin) . axis in [0, L], h = (X - origin) . direction (the "
                   "Euler-Bernoulli cantilever under a tip load; the pose starts at rest)",
                   kBendKeys};
const Section sysid{"/sysid", "softgrad sysid: the parameters fitted to a recording", kSysIdKeys};
const Section sysid_parameter{"/sysid/parameters/*", "one identified parameter",
                              kSysIdParameterKeys};
const Section sysid_experiment{"/sysid/experiments/*",
                               "one experiment: a recording of the scene with a patch applied; "
                               "every experiment shares the identified parameters",
                               kSysIdExperimentKeys};
}  // namespace schema

}  // namespace softgrad::detail
