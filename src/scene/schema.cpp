// The scene schema tables (schema.hpp); the messages built from them are in schema_text.cpp.
#include "schema.hpp"

namespace softgrad::detail {

namespace {

using enum KeyType;

constexpr Range kClosed2To3{2.0, 3.0, true, true};
constexpr Range kUnitOpen{0.0, 1.0, false, false};
constexpr Range kUnitInterval{0.0, 1.0, true, false};  // [0, 1)

// Top level.
constexpr KeySpec kTopKeys[] = {
    {"name", String, "", {}, "", "", "scene name; default: the file name without extension"},
    {"description", String, "", {}, "", "", "free text for readers; ignored"},
    {"plugins",
     Strings,
     "",
     {},
     "",
     "[]",
     "material plugins (shared libraries, relative to the scene's folder) the bodies need: "
     "loaded by the user (--plugin), or by the scene with --allow-scene-plugins"},
    {"dim", Integer, "", kClosed2To3, "", "3", "2 (triangles, plane strain) or 3 (tetrahedra)"},
    {"mode",
     Choice,
     "",
     {},
     "dynamic|static",
     "dynamic",
     "dynamic: backward Euler steps; static: equilibrium at each load step"},
    {"time", Object, "", {}, "", "{}", "time stepping, see /time"},
    {"gravity", Vector, "m/s^2", kAnyNumber, "", "[0, -9.81(, 0)]",
     "gravitational acceleration (y is up)"},
    {"damping", Object, "", {}, "", "{}", "Rayleigh damping, see /damping"},
    {"solver", Object, "", {}, "", "{}", "Newton and linear solver settings, see /solver"},
    {"bodies",
     List,
     "",
     {},
     "",
     "[]",
     "deformable bodies (1+, or rigid bodies, or a creature), see /bodies/*"},
    {"rigid_bodies", List, "", {}, "", "[]", "rigid bodies (3D), see /rigid_bodies/*"},
    {"joints", List, "", {}, "", "[]", "joints between rigid bodies, see /joints/*"},
    {"motors", List, "", {}, "", "[]", "motors on hinges and sliders, see /motors/*"},
    {"attachments",
     List,
     "",
     {},
     "",
     "[]",
     "deformable-body vertices bound to rigid bodies, see /attachments/*"},
    {"boundary", List, "", {}, "", "[]", "kinematic constraints, see /boundary/*"},
    {"forces", List, "", {}, "", "[]", "external forces, see /forces/*"},
    {"initial", Object, "", {}, "", "{}", "the initial state, see /initial"},
    {"loss", List, "", {}, "", "[]", "terms of a loss for softgrad grad, see /loss/*"},
    {"parameters",
     Strings,
     "",
     {},
     "",
     "[]",
     "what softgrad grad differentiates by (softgrad params SCENE lists the names)"},
    {"output", Object, "", {}, "", "{}", "what a run writes, see /output"},
    {"contact", Object, "", {}, "", "", "contact and friction against obstacles, see /contact"},
    {"markers", List, "", {}, "", "[]", "named points that recordings track, see /markers/*"},
    {"sysid", Object, "", {}, "", "", "what softgrad sysid identifies, see /sysid"},
    {"creature", Object, "", {}, "", "", "a locomotion scene's creature, see /creature"},
    {"controller", Object, "", {}, "", "{}", "the creature's muscle controller, see /controller"},
    {"task", Object, "", {}, "", "{}", "the creature's objective, see /task"},
    {"train", Object, "", {}, "", "{}", "softgrad train: gradient-based training, see /train"},
    {"compare", Object, "", {}, "", "{}", "softgrad compare: the baselines, see /compare"},
};

constexpr KeySpec kTimeKeys[] = {
    {"dt", Number, "s", kPositive, "", "0.01",
     "time step, at least 1e-12 s (static mode: the load step between equilibria)"},
    {"duration", Number, "s", kPositive, "", "1", "simulated time; steps = round(duration / dt)"},
};

constexpr KeySpec kDampingKeys[] = {
    {"alpha", Number, "1/s", kNonNegative, "", "0", "mass-proportional Rayleigh coefficient"},
    {"beta", Number, "s", kNonNegative, "", "0", "stiffness-proportional Rayleigh coefficient"},
};

constexpr KeySpec kSolverKeys[] = {
    {"linear",
     Choice,
     "",
     {},
     "cholmod|pcg|amg|matfree|cuda",
     "cholmod",
     "linear solver: Cholesky (CHOLMOD), CG on the assembled matrix, CG preconditioned by "
     "algebraic multigrid (hypre), matrix-free CG, or CUDA CG"},
    {"preconditioner",
     Choice,
     "",
     {},
     "jacobi|block_jacobi|ichol",
     "jacobi",
     "CG preconditioner (block_jacobi and ichol need linear = pcg)"},
    {"cg_tolerance", Number, "", kUnitOpen, "", "1e-10", "CG stops when |r| <= tol |b|"},
    {"cg_max_iterations", Integer, "", kAtLeastOne, "", "10000", "CG iteration limit"},
    {"newton_tolerance", Number, "", kPositive, "", "1e-9",
     "Newton stops when |dx|_inf <= tol L (static) or |dx|_inf / dt <= tol L per second "
     "(dynamic); L is the bounding-box diagonal"},
    {"newton_max_iterations", Integer, "", kAtLeastOne, "", "50",
     "Newton iteration limit per step"},
    {"line_search_max_halvings", Integer, "", kAtLeastOne, "", "40",
     "backtracking halvings before the line search gives up"},
    {"project_hessian",
     Boolean,
     "",
     {},
     "",
     "true",
     "project element Hessians to PSD where the exact Hessian is not positive definite"},
    {"exact_hessian_first",
     Boolean,
     "",
     {},
     "",
     "true",
     "with project_hessian: try the exact Hessian first in each step (quadratic convergence "
     "near the minimum), project only if it fails; false: always project"},
    {"chord_window", Number, "", kNonNegative, "", "1e4",
     "with a direct solver: after a full step within this many tolerances, try the next steps "
     "as chord steps with the same factorization (0: never)"},
    {"chord_always_cost", Number, "", kNonNegative, "", "6",
     "with a direct solver whose factorization costs at least this many solves (flops): try "
     "chord steps after every full step, whatever its length"},
    {"chord_contraction", Number, "", kUnitInterval, "", "0.3",
     "a chord step is taken if it is at most this fraction of the step before it (and "
     "decreases the energy); 0: chord steps only end a solve"},
    {"chord_forcing", Number, "", kUnitInterval, "", "0.03",
     "with pcg, amg: chord steps follow every full step, with its matrix and preconditioner, "
     "by CG stopped at this relative residual (0: never)"},
    {"accelerated_guess",
     Boolean,
     "",
     {},
     "",
     "true",
     "start Newton from x + h v + h^2 a, a the acceleration at x (the last step's), where that "
     "lowers the energy; false: from x + h v"},
    {"correct_directions",
     Boolean,
     "",
     {},
     "",
     "true",
     "let energy terms correct Newton directions where their quadratic model fails (friction: a "
     "contact vertex's step goes to its own friction minimiser); same solution, fewer "
     "iterations"},
    {"max_forcing", Number, "", kUnitInterval, "", "0.1",
     "with pcg, matfree, cuda: inexact Newton, CG stops at a relative residual shrinking with "
     "the gradient (Eisenstat-Walker), at most this; the last step is solved to cg_tolerance "
     "(0: every solve to cg_tolerance)"},
    {"on_failure",
     Choice,
     "",
     {},
     "stop|continue",
     "stop",
     "when Newton does not converge: stop the run, or warn and continue"},
};

constexpr KeySpec kOutputKeys[] = {
    {"directory",
     String,
     "",
     {},
     "",
     "",
     "output folder, relative to the working directory; default out/<scene name>"},
    {"every", Integer, "", kNonNegative, "", "1", "write a frame every N steps (0: none)"},
    {"vtu", Boolean, "", {}, "", "true", "write .vtu frames and a .pvd collection"},
    {"vtu_format",
     Choice,
     "",
     {},
     "zlib|raw|ascii",
     "zlib",
     "how frames store their arrays: appended binary, zlib-compressed or raw, or ASCII text"},
};

constexpr KeySpec kBodyKeys[] = {
    {"name", String, "", {}, "", "", "unique body name; default body<index>"},
    {"mesh", Object, "", {}, "", nullptr, "the rest mesh, see /bodies/*/mesh"},
    {"material", Object, "", {}, "", nullptr, "the material, see /bodies/*/material"},
    {"density", Number, "kg/m^3", kPositive, "", "1000", "mass density (kg/m^2 in 2D)"},
    {"vertex_masses",
     String,
     "kg",
     {},
     "",
     "",
     "a file of one mass per vertex (.npy, or text such as .csv; relative to the scene's "
     "folder) that replaces the lumped masses (each element's density x volume split equally "
     "among its vertices)"},
};

constexpr KeySpec kMeshKeys[] = {
    {"file",
     String,
     "",
     {},
     "",
     "",
     "mesh file (.msh, .node or .ele; or a closed surface .obj, .off, .stl, filled with "
     "tetrahedra by TetGen), relative to the scene file; give file, generator or vertices"},
    {"vertices", Numbers, "m", kAnyNumber, "", "",
     "an inline mesh's coordinates, dim numbers per vertex [x0, y0(, z0), x1, ...] (with "
     "elements; Python: an (n, dim) array)"},
    {"elements", Integers, "", kNonNegative, "", "",
     "an inline mesh's elements, dim + 1 0-based vertex indices each (with vertices; Python: an "
     "(m, dim + 1) array); oriented and checked as a file's are"},
    {"quality", Number, "", Range{1.1, kInf, true, false}, "", "1.5",
     "surface files: bound on each tetrahedron's circumradius / shortest edge (TetGen -q; "
     "below 1.1 its refinement may never end)"},
    {"max_volume", Number, "m^3", kPositive, "", "",
     "surface files: bound on each tetrahedron's volume (after scale); default: none"},
    {"generator",
     Choice,
     "",
     {},
     "box|ball|rectangle|disk",
     "",
     "built-in mesh: box or ball (3D, tetrahedra; a ball is the ellipsoid inscribed in "
     "[origin, origin + size], resolution [n, n, n]), rectangle or disk (2D, triangles; a disk "
     "is the ellipse inscribed in [origin, origin + size])"},
    {"resolution", Integers, "", kAtLeastOne, "", "",
     "cells per axis, [nx, ny(, nz)]; disk: [rings, sectors] (ring k has sectors k vertices) "
     "(generator only, required with it)"},
    {"size", Vector, "m", kPositive, "", "", "extent [sx, sy(, sz)] (generator only, required)"},
    {"origin", Vector, "m", kAnyNumber, "", "[0, 0(, 0)]", "lowest corner (generator only)"},
    {"scale", Number, "", kPositive, "", "1", "multiplies the coordinates (before translate)"},
    {"translate", Vector, "m", kAnyNumber, "", "[0, 0(, 0)]", "added to the coordinates"},
};

// The material keys besides the model's own parameter keys (listed per model in the reference).
constexpr KeySpec kMaterialKeys[] = {
    {"model", String, "", {}, "", nullptr, "a registered material name (listed below)"},
    {"youngs", Number, "Pa", kPositive, "", "1e5",
     "Young's modulus, mapped to the model's parameters (not with its own keys)"},
    {"poisson", Number, "", Range{-1.0, 0.5, false, false}, "", "0.3",
     "Poisson's ratio, mapped with youngs"},
    {"network",
     String,
     "",
     {},
     "",
     "",
     "model \"neural\" only: its file (architecture and parameters, relative to the scene's "
     "folder); the material's keys override the file's"},
    {"fields",
     Object,
     "",
     {},
     "",
     "",
     "per-element values from files, {\"KEY\": FILE, ...}: for any of the model's own keys, or "
     "youngs and poisson where it maps them; one value per element in mesh order (.npy, or "
     "text such as .csv; relative to the scene's folder), in place of the key's value"},
    {"hidden", Integers, "", kAtLeastOne, "", "[8, 8]",
     "model \"neural\" only, without network: the hidden layer widths of a new network, at "
     "its fixed start (what training begins from)"},
};

constexpr KeySpec kBoundaryKeys[] = {
    {"name", String, "", {}, "", "", "name in reports; default boundary<index>"},
    {"region", Object, "", {}, "", nullptr, "the vertices held, see region"},
    {"motion", Motion, "", {}, "", "fixed", "\"fixed\", or an object, see /boundary/*/motion"},
    {"start", Number, "s", kNonNegative, "", "0", "the motion starts (before: rest positions)"},
    {"stop", Number, "s", kPositive, "", "inf", "the motion stops (after: held); > start"},
    {"axes",
     Strings,
     "",
     {},
     "x|y|z",
     "all",
     "the components held, e.g. [\"x\"] for a roller on a plane x = const; the others are free"},
};

constexpr KeySpec kForceKeys[] = {
    {"type",
     Choice,
     "",
     {},
     "point|body|steps",
     nullptr,
     "point: a force on each vertex of a region; body: an acceleration on all mass; steps: a "
     "force per step on each vertex of a region, the parameter forces:<i>.force (a control)"},
    {"region", Object, "", {}, "", "", "the loaded vertices (point and steps, required)"},
    {"force", Vector, "N", kAnyNumber, "", "",
     "force on each selected vertex (point: required; steps: every step's initial value, default "
     "0)"},
    {"acceleration", Vector, "m/s^2", kAnyNumber, "", "", "added to gravity (body only)"},
    {"file",
     String,
     "",
     {},
     "",
     "",
     "steps only, instead of force: the forces of every step from a file (.npy, or text such "
     "as .csv; relative to the scene's folder), steps x vertices x dim values in that order: "
     "the region's vertices in ascending index; a single step's worth applies to every step"},
};

constexpr Variant kForceVariants[] = {
    {"point", "region|force", ""}, {"body", "acceleration", ""}, {"steps", "region", "force|file"}};

constexpr KeySpec kInitialKeys[] = {
    {"velocity", Vector, "m/s", kAnyNumber, "", "[0, 0(, 0)]",
     "initial velocity of the selected vertices (kinematic ones excepted)"},
    {"region", Object, "", {}, "", "", "the vertices that get the velocity; default all"},
    {"bend",
     Object,
     "",
     {},
     "",
     "",
     "start from a bent pose instead of the rest positions, see /initial/bend"},
};

}  // namespace

namespace schema {
const Section top{"", "the scene", kTopKeys};
const Section time{"/time", "time stepping", kTimeKeys};
const Section damping{"/damping", "Rayleigh damping", kDampingKeys};
const Section solver{"/solver", "Newton and linear solver settings", kSolverKeys};
const Section output{"/output", "what a run writes", kOutputKeys};
const Section body{"/bodies/*", "one deformable body", kBodyKeys};
const Section mesh{"/bodies/*/mesh", "the body's rest mesh: a file or a generator", kMeshKeys};
const Section material{"/bodies/*/material",
                       "the body's material: youngs/poisson, or the model's own parameters",
                       kMaterialKeys};
const Section boundary{"/boundary/*", "a kinematic constraint on a region", kBoundaryKeys};
const Section force{"/forces/*", "an external force", kForceKeys, kForceVariants};
const Section initial{"/initial", "the initial state (positions are the rest positions)",
                      kInitialKeys};

std::span<const Section* const> all() {
  static const Section* const kAll[] = {&top,
                                        &time,
                                        &damping,
                                        &solver,
                                        &output,
                                        &body,
                                        &mesh,
                                        &material,
                                        &rigid_body,
                                        &shape,
                                        &rotation,
                                        &joint,
                                        &motor,
                                        &attachment,
                                        &boundary,
                                        &motion,
                                        &translate,
                                        &rotate,
                                        &region,
                                        &box,
                                        &plane,
                                        &force,
                                        &initial,
                                        &bend,
                                        &loss,
                                        &contact,
                                        &obstacle,
                                        &markers,
                                        &sysid,
                                        &sysid_parameter,
                                        &sysid_experiment,
                                        &creature,
                                        &controller,
                                        &task,
                                        &train,
                                        &compare};
  return kAll;
}
}  // namespace schema

}  // namespace softgrad::detail
