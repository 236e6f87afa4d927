// Motors: servos and force motors on hinges and sliders, driven by per-step targets.
#include <cmath>
#include <sstream>

#include "joint_term.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {
namespace {

void validate(const Model& model, const MotorSpec& m) {
  const std::string where = "motor '" + m.name + "'";
  if (m.joint < 0 || m.joint >= static_cast<int>(model.joints.size()))
    throw InputError(where + ": its joint is not in the model");
  const Joint& j = model.joints[m.joint];
  if (!j.has_coordinate())
    throw InputError(where + ": joint '" + j.name + "' is a " + to_string(j.type) +
                     " joint; motors drive hinges and sliders");
  std::ostringstream os;
  if (m.mode != MotorMode::Force && (!(m.gain > 0.0) || !std::isfinite(m.gain)))
    os << where << ": gain must be positive and finite, got " << m.gain;
  else if (!(m.damping >= 0.0) || !std::isfinite(m.damping))
    os << where << ": damping must be non-negative and finite, got " << m.damping;
  else if (!(m.max_force > 0.0))
    os << where << ": max_force must be positive (inf: no limit), got " << m.max_force;
  else if (!std::isfinite(m.target))
    os << where << ": the target must be finite, got " << m.target;
  if (!os.str().empty()) throw InputError(os.str());
}

std::vector<int> motor_stencils(const Model& model, const std::vector<MotorSpec>& motors) {
  std::vector<int> verts;
  for (const MotorSpec& m : motors) {
    validate(model, m);
    const std::vector<int> s = joint_stencil(model, model.joints[m.joint]);
    verts.insert(verts.end(), s.begin(), s.end());
  }
  return verts;
}

}  // namespace

MotorTerm::MotorTerm(const Model& model, const std::vector<MotorSpec>& motors, int n_steps)
    : AdStencilTerm(3, model.n_verts, motor_stencils(model, motors), 8, 0),
      specs_(motors),
      n_steps_(n_steps) {
  for (const MotorSpec& m : motors)
    geometry_.push_back(detail::joint_geometry(model.joints[m.joint]));
  for (size_t s = 0; s < motors.size(); ++s) {
    const MotorSpec& m = motors[s];
    energies_.push_back({&geometry_[s], m.mode, m.gain, m.damping, m.max_force, 0.0});
  }
}

detail::MotorEnergy MotorTerm::stencil_energy(const Data& d, int s) const {
  detail::MotorEnergy e = energies_[s];
  e.dt = d.step.dt;
  return e;
}

int MotorTerm::target_index(const Data& d, int s) const {
  const int step = d.step.step;
  if (step < 0 || step >= n_steps_) return -1;
  return step * static_cast<int>(specs_.size()) + s;
}

void MotorTerm::local_inputs(const Data& d, int s, double* q) const {
  // q[0..24): the stencil's positions at the start of the step; q[24]: the target.
  const int* v = stencil_vertices().data() + static_cast<size_t>(s) * 8;
  for (int k = 0; k < 8; ++k)
    for (int i = 0; i < 3; ++i) q[3 * k + i] = (*d.step.x_prev)[3 * v[k] + i];
  const int t = target_index(d, s);
  q[24] = t < 0 ? specs_[s].target : d.parameters[t];
}

void MotorTerm::scatter_parameter_products(const Data& d, const double* P,
                                           double* parameters_bar) const {
  for (int s = 0; s < n_stencils(); ++s) {
    const int t = target_index(d, s);
    if (t >= 0) parameters_bar[t] += P[s];
  }
}

void MotorTerm::gather_parameter_directions(const Data& d, const double* direction,
                                            double* dP) const {
  for (int s = 0; s < n_stencils(); ++s) {
    const int t = target_index(d, s);
    dP[s] = t < 0 ? 0.0 : direction[t];
  }
}

std::vector<ParameterGroup> MotorTerm::parameter_groups() const {
  const int n = n_steps_ * static_cast<int>(specs_.size());
  return {{"target", "rad, m, rad/s, m/s, N m or N", 0, n, ParameterGroup::Layout::PerStep, -1e300,
           1e300}};
}

Eigen::VectorXd MotorTerm::default_parameters() const {
  const int m = static_cast<int>(specs_.size());
  Eigen::VectorXd p(static_cast<Eigen::Index>(n_steps_) * m);
  for (int n = 0; n < n_steps_; ++n)
    for (int k = 0; k < m; ++k) p[n * m + k] = specs_[k].target;
  return p;
}

void MotorTerm::validate_parameters(const double* p) const {
  validate_parameter_range(0, p, n_steps_ * static_cast<int>(specs_.size()));
}

void MotorTerm::validate_parameter_range(int offset, const double* values, int count) const {
  const int m = static_cast<int>(specs_.size());
  SOFTGRAD_CHECK(offset >= 0 && offset + count <= n_steps_ * m, "motor target range out of bounds");
  for (int i = 0; i < count; ++i)
    if (!std::isfinite(values[i])) {
      std::ostringstream os;
      os << "motors: the target of motor '" << specs_[(offset + i) % m].name << "' in step "
         << (offset + i) / m << " is " << values[i] << "; targets must be finite";
      throw InputError(os.str());
    }
}

}  // namespace softgrad
