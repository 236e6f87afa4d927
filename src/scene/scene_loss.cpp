// The /loss section: position, center_of_mass and trajectory terms, summed.
#include "scene_loss.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "regions.hpp"
#include "softgrad/errors.hpp"

namespace softgrad::detail {

namespace {

using enum KeyType;

// The schema of /loss/*, beside its reader.
constexpr KeySpec kLossKeys[] = {
    {"type",
     Choice,
     "",
     {},
     "position|center_of_mass|trajectory",
     nullptr,
     "position: vertices to targets; center_of_mass: the centre of mass (or its velocity) to a "
     "target; trajectory: vertices to a reference trajectory from a file"},
    {"region",
     Object,
     "",
     {},
     "",
     "",
     "the vertices (position: this or vertex; center_of_mass: default all)"},
    {"vertex", Integer, "", kNonNegative, "", "", "one vertex, model numbering (position)"},
    {"time", Time, "s", kNonNegative, "", "final",
     "when the term applies: a time on a step (t = n dt), or \"final\" (position, "
     "center_of_mass)"},
    {"target", Vector, "m", kAnyNumber, "", "",
     "the point each selected vertex should reach (position: this or offset)"},
    {"offset", Vector, "m", kAnyNumber, "", "",
     "target = rest position + offset, per vertex (position)"},
    {"position", Vector, "m", kAnyNumber, "", "", "target of the centre of mass (center_of_mass)"},
    {"velocity", Vector, "m/s", kAnyNumber, "", "",
     "target of the centre-of-mass velocity (center_of_mass)"},
    {"file",
     String,
     "",
     {},
     "",
     "",
     "CSV reference, relative to the scene: a header 'step' or 'time', 'vertex', 'x', 'y'(, "
     "'z'), then one row per vertex and state (trajectory)"},
    {"weight", Number, "", kNonNegative, "", "1",
     "w in w/2 |x - target|^2, summed over vertices (and states); at most 1e30"},
};

constexpr Variant kLossVariants[] = {{"position", "", "region|vertex|time|target|offset"},
                                     {"center_of_mass", "", "region|time|position|velocity"},
                                     {"trajectory", "file", ""}};

}  // namespace

namespace schema {
const Section loss{"/loss/*", "one term of the loss: w/2 |x - target|^2 summed", kLossKeys,
                   kLossVariants};
}  // namespace schema

namespace {

// "time": a number of seconds on a step, or "final" (the default).
int read_step(const ObjectReader& entry, const StepGrid& grid) {
  if (!entry.has("time")) return kFinalStep;
  const Json& j = entry.at("time");
  if (j.is_string()) {
    if (j.get<std::string>() == "final") return kFinalStep;
    entry.fail("time", "unknown time " + j.dump() + "; use a time in s or \"final\"");
  }
  const double t = read_number(entry.source(), j, entry.path("time"), "s", kNonNegative);
  if (grid.static_solve)
    entry.fail("time",
               "a static scene has one state to compare: use \"final\" or leave 'time' out");
  std::string error;
  const int step = step_of_time(t, grid, error);
  if (!error.empty()) entry.fail("time", error);
  return step;
}

// The vertices of a position term: its region or its one vertex.
std::vector<int> position_vertices(const ObjectReader& entry, const Model& model) {
  if (entry.has("region") == entry.has("vertex"))
    entry.fail_here("a position term needs exactly one of 'region' or 'vertex'");
  if (entry.has("region")) return select_region(entry, "region", model);
  const int v = entry.integer("vertex");
  if (v >= model.n_verts) {
    entry.fail("vertex", "vertex " + std::to_string(v) + " is out of range [0, " +
                             std::to_string(model.n_verts) + ")");
  }
  return {v};
}

std::shared_ptr<const Loss> position_term(const ObjectReader& entry, const Model& model, int step,
                                          double weight) {
  const std::vector<int> verts = position_vertices(entry, model);
  if (entry.has("target") == entry.has("offset"))
    entry.fail_here("a position term needs exactly one of 'target' or 'offset'");
  const bool offset = entry.has("offset");
  const Eigen::VectorXd value = entry.vector(offset ? "offset" : "target", model.dim, {});
  std::vector<PositionTarget> targets;
  for (const int v : verts) {
    const Eigen::VectorXd rest =
        model.X.segment(static_cast<Eigen::Index>(v) * model.dim, model.dim);
    targets.push_back({step, v, offset ? Eigen::VectorXd(rest + value) : value, weight});
  }
  return std::make_shared<PositionLoss>(model, std::move(targets));
}

std::shared_ptr<const Loss> center_of_mass_term(const ObjectReader& entry, const Model& model,
                                                int step, double weight) {
  if (!entry.has("position") && !entry.has("velocity"))
    entry.fail_here("a center_of_mass term needs 'position', 'velocity' or both");
  std::vector<int> verts;
  if (entry.has("region")) verts = select_region(entry, "region", model);
  CenterOfMassTarget target;
  target.step = step;
  target.position = entry.vector("position", model.dim, Eigen::VectorXd());
  target.velocity = entry.vector("velocity", model.dim, Eigen::VectorXd());
  target.weight = weight;
  return std::make_shared<CenterOfMassLoss>(model, std::move(verts), std::vector{target});
}

// A reference file as a TrajectoryLoss when every listed state lists the same vertices (the
// usual case, evaluated in O(rows)), else one position target per row.
std::shared_ptr<const Loss> trajectory_term(const ObjectReader& entry, const Model& model,
                                            const StepGrid& grid, double weight, int& first) {
  const std::string name = entry.string("file");
  std::vector<ReferenceRow> rows;
  try {
    rows = read_reference_csv(entry.source().dir / name, name, model, grid);
  } catch (const InputError& e) {
    entry.fail("file", e.what());
  }
  std::map<int, std::vector<const ReferenceRow*>> by_step;
  for (const ReferenceRow& r : rows) by_step[r.step].push_back(&r);
  first = by_step.begin()->first;
  const auto sorted_vertices = [](std::vector<const ReferenceRow*>& group) {
    std::sort(group.begin(), group.end(), [](auto* a, auto* b) { return a->vertex < b->vertex; });
    std::vector<int> verts;
    for (const ReferenceRow* r : group) verts.push_back(r->vertex);
    return verts;
  };
  const std::vector<int> verts = sorted_vertices(by_step.begin()->second);
  bool uniform = true;
  for (auto& [step, group] : by_step) uniform = uniform && sorted_vertices(group) == verts;
  if (!uniform) {
    std::vector<PositionTarget> targets;
    for (const ReferenceRow& r : rows) targets.push_back({r.step, r.vertex, r.x, weight});
    return std::make_shared<PositionLoss>(model, std::move(targets));
  }
  const int n_states = by_step.rbegin()->first + 1;
  std::vector<Eigen::VectorXd> reference(n_states);
  for (const auto& [step, group] : by_step) {
    Eigen::VectorXd& x = reference[step];
    x.resize(static_cast<Eigen::Index>(group.size()) * model.dim);
    for (size_t i = 0; i < group.size(); ++i)
      x.segment(static_cast<Eigen::Index>(i) * model.dim, model.dim) = group[i]->x;
  }
  return std::make_shared<TrajectoryLoss>(model, verts, std::move(reference),
                                          std::vector<double>(n_states, weight));
}

}  // namespace

int step_of_time(double t, const StepGrid& grid, std::string& error) {
  const double k = t / grid.dt;
  const double n = std::round(k);
  std::ostringstream os;
  if (!(t >= 0)) {
    os << "t = " << t << " s is before the start of the run";
  } else if (!(std::abs(k - n) <= 1e-6)) {
    os << "t = " << t << " s does not fall on a step (dt = " << grid.dt
       << " s); the nearest steps are at " << std::floor(k) * grid.dt << " s and "
       << std::ceil(k) * grid.dt << " s";
  } else if (n > grid.steps) {
    os << "t = " << t << " s is after the end of the run (" << grid.steps << " steps of " << grid.dt
       << " s end at " << grid.steps * grid.dt << " s)";
  }
  error = os.str();
  return error.empty() ? static_cast<int>(n) : -1;
}

std::shared_ptr<const Loss> read_loss(const ObjectReader& top, const Model& model,
                                      const StepGrid& grid, int& min_steps) {
  min_steps = 0;
  std::vector<std::shared_ptr<const Loss>> terms;
  const std::vector<const Json*> entries = top.list("loss");
  for (size_t i = 0; i < entries.size(); ++i) {
    const ObjectReader entry(top.source(), *entries[i], "/loss/" + std::to_string(i), schema::loss);
    const std::string type = entry.string("type");
    const double weight = entry.number("weight");
    // Beyond this, w |x - target|^2 and its adjoint overflow for distances of metres.
    if (weight > 1e30) entry.fail("weight", "a weight above 1e30 overflows the loss's gradient");
    if (type == "trajectory") {
      int first = 0;
      terms.push_back(trajectory_term(entry, model, grid, weight, first));
      min_steps = std::max(min_steps, first);
      continue;
    }
    const int step = read_step(entry, grid);
    min_steps = std::max(min_steps, step);
    terms.push_back(type == "position" ? position_term(entry, model, step, weight)
                                       : center_of_mass_term(entry, model, step, weight));
  }
  if (terms.empty()) return nullptr;
  return std::make_shared<SumLoss>(std::move(terms));
}

}  // namespace softgrad::detail
