// The schema tables of markers, the bent initial pose and system identification.
#include "schema.hpp"

namespace softgrad::detail {

namespace {

using enum KeyType;

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
