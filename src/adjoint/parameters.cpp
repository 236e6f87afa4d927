#include "softgrad/parameters.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <sstream>

#include "../rigid/spin_velocity.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {
namespace {

using Layout = ParameterGroup::Layout;

int path_size(const Model& model, const Rollout& rollout) {
  const int steps = rollout.static_solve ? 1 : rollout.steps;
  return steps * static_cast<int>(model.kinematic_dofs().size());
}

std::string list_available(const Model& model, const Rollout& rollout) {
  std::ostringstream os;
  for (const auto& [name, what] : ParameterSet::available(model, rollout)) os << "\n  " << name;
  return os.str();
}

/// The rollout's values of term k: its own, or the model's defaults.
const Eigen::VectorXd& term_values(const Simulator& sim, const Rollout& rollout, int k) {
  return rollout.parameters.empty() ? sim.default_parameters()[k] : rollout.parameters[k];
}

using Block = ParameterSet::Block;
using Source = ParameterSet::Source;

/// Resolves "TERM.GROUP" or "TERM.GROUP[]" (`raw`) into b.
void resolve_term(const Model& model, const Rollout& rollout, const std::string& raw, Block& b) {
  std::string name = raw;
  const bool field = name.size() > 2 && name.ends_with("[]");
  if (field) name.resize(name.size() - 2);
  const auto dot = name.rfind('.');
  const std::string term_name = dot == std::string::npos ? "" : name.substr(0, dot);
  const std::string group_name = dot == std::string::npos ? name : name.substr(dot + 1);
  int found = 0;
  for (size_t k = 0; k < model.terms.size(); ++k) {
    if (!term_name.empty() && model.terms[k]->name() != term_name) continue;
    for (const ParameterGroup& g : model.terms[k]->parameter_groups())
      if (g.name == group_name) {
        ++found;
        b.term = static_cast<int>(k);
        b.group = g;
      }
  }
  if (found == 0)
    throw InputError("unknown parameter '" + raw +
                     "'; available:" + list_available(model, rollout));
  if (found > 1)
    throw InputError("parameter '" + raw + "' is ambiguous: " + std::to_string(found) +
                     " terms have a group '" + group_name +
                     "'; prefix the term's name, one of:" + list_available(model, rollout));
  if (field && b.group.layout != Layout::PerElement)
    throw InputError("parameter '" + raw + "': '[]' selects a per-element field, but '" +
                     group_name + "' is not per element");
  if (rollout.controller && model.terms[b.term]->name() == rollout.controlled_term)
    throw InputError("parameter '" + raw + "' is written by the rollout's controller '" +
                     rollout.controller->name() + "': select 'controller' instead");
  b.source = Source::Term;
  b.tied = b.group.layout == Layout::PerElement && !field;
  b.size = b.tied ? b.group.width : b.group.size;
}

constexpr const char* kRigidPrefix = "rigid:";

std::string list_rigid_bodies(const Model& model) {
  std::string out;
  for (const RigidBody& body : model.rigid_bodies)
    out += "\n  " + body.name + (body.kinematic ? " (kinematic)" : "");
  return out.empty() ? " none" : out;
}

/// Resolves "rigid:BODY.velocity" or "rigid:BODY.angular_velocity" (`raw`) into b.
void resolve_rigid(const Model& model, const std::string& raw, Block& b) {
  const std::string rest = raw.substr(std::string(kRigidPrefix).size());
  const auto dot = rest.rfind('.');
  const std::string body = dot == std::string::npos ? rest : rest.substr(0, dot);
  const std::string what = dot == std::string::npos ? "" : rest.substr(dot + 1);
  if (what != "velocity" && what != "angular_velocity")
    throw InputError("parameter '" + raw +
                     "': a rigid body offers 'rigid:BODY.velocity' and "
                     "'rigid:BODY.angular_velocity'");
  b.body = find_rigid_body(model, body);
  if (b.body < 0)
    throw InputError("parameter '" + raw + "': the model has no rigid body '" + body +
                     "'; rigid bodies:" + list_rigid_bodies(model));
  if (model.rigid_bodies[b.body].kinematic)
    throw InputError("parameter '" + raw + "': rigid body '" + body +
                     "' is kinematic (its motion is prescribed, not simulated)");
  b.source = Source::RigidVelocity;
  b.angular = what == "angular_velocity";
  b.size = 3;
}

/// True if a and b select the same values.
bool same_block(const Block& a, const Block& b) {
  if (a.source != b.source) return false;
  if (a.source == Source::Term) return a.term == b.term && a.group.offset == b.group.offset;
  if (a.source == Source::RigidVelocity) return a.body == b.body && a.angular == b.angular;
  return true;
}

/// @throws InputError unless the rollout's initial state has the model's dofs (`who` names the
/// parameter that reads it).
void check_initial_state(const Model& model, const Rollout& rollout, const std::string& who) {
  if (rollout.initial.x.size() != model.n_dofs() || rollout.initial.v.size() != model.n_dofs())
    throw InputError("parameter '" + who + "': the rollout's initial state has " +
                     std::to_string(rollout.initial.x.size()) + " positions and " +
                     std::to_string(rollout.initial.v.size()) + " velocities, the model " +
                     std::to_string(model.n_dofs()) + " dofs");
}

/// Writes a rigid velocity block: p' = values, or a_i' = omega x a_i(x0) with omega = values.
void write_rigid_velocity(const Model& model, const Block& b, const Eigen::Vector3d& values,
                          Rollout& rollout) {
  check_initial_state(model, rollout, b.name);
  const RigidBody& body = model.rigid_bodies[b.body];
  State& s = rollout.initial;
  if (!b.angular) {
    s.v.segment<3>(body.dof(0)) = values;
    return;
  }
  write_spin_velocity(body, values, s.x, s.v);
}

/// Writes every block but the rigid velocities (see ParameterSet::set).
void write_block(const Simulator& sim, const Block& b, const Eigen::VectorXd& values,
                 Rollout& rollout) {
  const Model& model = sim.model();
  switch (b.source) {
    case Source::InitialPosition:
      rollout.initial.x = values;
      break;
    case Source::InitialVelocity:
      rollout.initial.v = values;
      break;
    case Source::Controller: {
      std::shared_ptr<Controller> copy = rollout.controller->clone();  // others keep theirs
      copy->set_parameters(values);
      rollout.controller = std::move(copy);
      break;
    }
    case Source::Kinematic: {
      const int m = static_cast<int>(model.kinematic_dofs().size());
      const int steps = b.size / std::max(m, 1);
      rollout.kinematic_path.resize(steps);
      for (int n = 0; n < steps; ++n) rollout.kinematic_path[n] = values.segment(n * m, m);
      break;
    }
    case Source::Term: {
      // Validated as a whole vector, written only if valid.
      Eigen::VectorXd p = rollout.parameters[b.term];
      if (b.tied) {
        const int n = b.group.size / b.group.width;
        for (int k = 0; k < b.group.width; ++k)
          p.segment(b.group.offset + k * n, n).setConstant(values[k]);
      } else {
        p.segment(b.group.offset, b.group.size) = values;
      }
      model.terms[b.term]->validate_parameters(p.data());
      rollout.parameters[b.term].swap(p);
      break;
    }
    case Source::RigidVelocity:
      write_rigid_velocity(model, b, values, rollout);
      break;
  }
}

}  // namespace

std::vector<Eigen::VectorXd> scripted_kinematic_path(const Simulator& sim, const Rollout& rollout) {
  const Model& model = sim.model();
  const std::vector<int> dofs = model.kinematic_dofs();
  std::vector<Eigen::VectorXd> path;
  const int steps = rollout.static_solve ? 1 : rollout.steps;
  Eigen::VectorXd x = rollout.initial.x;
  for (int n = 0; n < steps; ++n) {
    const double t =
        rollout.static_solve ? rollout.initial.t : rollout.initial.t + (n + 1) * sim.options().dt;
    model.apply_kinematics(t, x);
    Eigen::VectorXd k(dofs.size());
    for (size_t i = 0; i < dofs.size(); ++i) k[i] = x[dofs[i]];
    path.push_back(std::move(k));
  }
  return path;
}

std::vector<std::pair<std::string, std::string>> ParameterSet::available(const Simulator& sim,
                                                                         const Rollout& rollout) {
  return available(sim.model(), rollout);
}

std::vector<std::pair<std::string, std::string>> ParameterSet::available(const Model& model,
                                                                         const Rollout& rollout) {
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("x0", "initial positions (" + std::to_string(model.n_dofs()) + " values, m)");
  out.emplace_back("v0", "initial velocities (" + std::to_string(model.n_dofs()) + " values, m/s)");
  if (rollout.controller)
    out.emplace_back("controller", "the " + rollout.controller->name() + " controller's " +
                                       std::to_string(rollout.controller->n_parameters()) +
                                       " parameters");
  if (path_size(model, rollout) > 0)
    out.emplace_back("kinematic", "prescribed positions of the kinematic dofs per step (" +
                                      std::to_string(path_size(model, rollout)) + " values, m)");
  for (const RigidBody& body : model.rigid_bodies) {
    if (body.kinematic) continue;
    const std::string name = kRigidPrefix + body.name, who = "rigid body '" + body.name + "': ";
    out.emplace_back(name + ".velocity",
                     who + "centre-of-mass velocity at the start (3 values, m/s)");
    out.emplace_back(name + ".angular_velocity",
                     who + "angular velocity at the start (3 values, rad/s)");
  }
  for (const auto& t : model.terms)
    for (const ParameterGroup& g : t->parameter_groups()) {
      const std::string name = t->name() + "." + g.name;
      const std::string unit = g.unit.empty() ? "" : ", " + g.unit;
      switch (g.layout) {
        case Layout::Scalar:
          out.emplace_back(name, "one value" + unit);
          break;
        case Layout::PerElement:
          if (g.width == 1) {
            out.emplace_back(name, "one value shared by all elements" + unit);
            out.emplace_back(name + "[]", "a field: one value per element (" +
                                              std::to_string(g.size) + " values" + unit + ")");
          } else {
            out.emplace_back(name,
                             std::to_string(g.width) + " values shared by all elements" + unit);
            out.emplace_back(name + "[]", "a field: " + std::to_string(g.width) +
                                              " values per element (" + std::to_string(g.size) +
                                              " values" + unit + ")");
          }
          break;
        case Layout::PerStep:
          out.emplace_back(name, "per-step values (" + std::to_string(g.size) + unit + ")");
          break;
      }
    }
  return out;
}

ParameterSet::ParameterSet(const Simulator& sim, const Rollout& rollout,
                           const std::vector<std::string>& names)
    : ParameterSet(sim.model(), rollout, names) {}

ParameterSet::ParameterSet(const Model& model, const Rollout& rollout,
                           const std::vector<std::string>& names) {
  for (const std::string& raw : names) {
    Block b;
    b.name = raw;
    b.offset = size_;
    if (raw == "x0" || raw == "v0") {
      b.source = raw == "x0" ? Source::InitialPosition : Source::InitialVelocity;
      b.size = model.n_dofs();
    } else if (raw == "controller") {
      if (!rollout.controller)
        throw InputError("parameter 'controller': the rollout has no controller");
      b.source = Source::Controller;
      b.size = rollout.controller->n_parameters();
    } else if (raw == "kinematic") {
      b.source = Source::Kinematic;
      b.size = path_size(model, rollout);
      if (b.size == 0) throw InputError("parameter 'kinematic': the model has no kinematic dofs");
    } else if (raw.starts_with(kRigidPrefix)) {
      resolve_rigid(model, raw, b);
    } else {
      resolve_term(model, rollout, raw, b);
    }
    for (const Block& other : blocks_) {
      if (same_block(other, b))
        throw InputError("parameter '" + raw + "' is selected twice (also as '" + other.name +
                         "')");
      const auto is = [](const Block& x, Source source) { return x.source == source; };
      if ((is(b, Source::InitialVelocity) && is(other, Source::RigidVelocity)) ||
          (is(b, Source::RigidVelocity) && is(other, Source::InitialVelocity)))
        throw InputError("parameter '" + raw + "' overlaps '" + other.name +
                         "': 'v0' holds every initial velocity; select one or the other");
    }
    size_ += b.size;
    blocks_.push_back(std::move(b));
  }
}

const ParameterSet::Block& ParameterSet::block_of(int i) const {
  for (const Block& b : blocks_)
    if (i >= b.offset && i < b.offset + b.size) return b;
  throw InputError("parameter index " + std::to_string(i) + " out of range (" +
                   std::to_string(size_) + " parameters)");
}

std::string ParameterSet::label(int i) const {
  const Block& b = block_of(i);
  const int k = i - b.offset;
  std::string base = b.name;
  if (base.ends_with("[]")) base.resize(base.size() - 2);
  if (b.size == 1) return base;
  if (b.source == Source::Term && !b.tied && b.group.width > 1) {  // value-major: [value][element]
    const int n = b.group.size / b.group.width;
    return base + "[" + std::to_string(k / n) + "][" + std::to_string(k % n) + "]";
  }
  return base + "[" + std::to_string(k) + "]";
}

Eigen::VectorXd ParameterSet::get(const Simulator& sim, const Rollout& rollout) const {
  Eigen::VectorXd theta(size_);
  const Model& model = sim.model();
  for (const Block& b : blocks_) {
    switch (b.source) {
      case Source::InitialPosition:
        theta.segment(b.offset, b.size) = rollout.initial.x;
        break;
      case Source::InitialVelocity:
        theta.segment(b.offset, b.size) = rollout.initial.v;
        break;
      case Source::Controller:
        theta.segment(b.offset, b.size) = rollout.controller->parameters();
        break;
      case Source::Kinematic: {
        const auto path = rollout.kinematic_path.empty() ? scripted_kinematic_path(sim, rollout)
                                                         : rollout.kinematic_path;
        const int m = static_cast<int>(model.kinematic_dofs().size());
        for (size_t n = 0; n < path.size(); ++n) theta.segment(b.offset + n * m, m) = path[n];
        break;
      }
      case Source::RigidVelocity: {
        check_initial_state(model, rollout, b.name);
        const RigidBody& body = model.rigid_bodies[b.body];
        const State& s = rollout.initial;
        theta.segment<3>(b.offset) =
            b.angular ? body.angular_velocity(s.x, s.v) : body.position(s.v);
        break;
      }
      case Source::Term: {
        const auto slice = term_values(sim, rollout, b.term).segment(b.group.offset, b.group.size);
        if (b.tied) {
          const int n = b.group.size / b.group.width;
          for (int k = 0; k < b.group.width; ++k) {
            const auto part = slice.segment(k * n, n);
            if (part.maxCoeff() != part.minCoeff())
              throw InputError("parameter '" + b.name + "' varies over the elements (from " +
                               std::to_string(part.minCoeff()) + " to " +
                               std::to_string(part.maxCoeff()) + "); select '" + b.name +
                               "[]' to treat it as a field");
            theta[b.offset + k] = part[0];
          }
        } else {
          theta.segment(b.offset, b.size) = slice;
        }
        break;
      }
    }
  }
  return theta;
}

void ParameterSet::set(const Simulator& sim, Rollout& rollout, const Eigen::VectorXd& theta) const {
  if (theta.size() != size_)
    throw InputError("parameters: expected " + std::to_string(size_) + " values, got " +
                     std::to_string(theta.size()));
  if (!theta.allFinite()) throw InputError("parameters: theta contains NaN or infinite values");
  if (rollout.parameters.empty()) rollout.parameters = sim.default_parameters();
  sim.check_parameters(rollout.parameters);
  // Rigid velocities last: a_i' = omega x a_i follows a selected x0.
  for (const bool rigid : {false, true})
    for (const Block& b : blocks_)
      if ((b.source == Source::RigidVelocity) == rigid)
        write_block(sim, b, theta.segment(b.offset, b.size), rollout);
}

}  // namespace softgrad
