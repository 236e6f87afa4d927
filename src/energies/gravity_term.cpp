#include "gravity_term.hpp"

#include "softgrad/errors.hpp"
#include "softgrad/model.hpp"

namespace softgrad {
namespace {

struct GravityData : TermData {
  Eigen::VectorXd force;  ///< M a at the step's masses
};

GravityData& gravity(TermData& d) { return static_cast<GravityData&>(d); }

}  // namespace

std::unique_ptr<TermData> GravityTerm::make_data() const { return std::make_unique<GravityData>(); }

void GravityTerm::begin_step(TermData& d) const {
  if (!d.step.mass) {
    gravity(d).force = model_force_;
    return;
  }
  SOFTGRAD_CHECK(d.step.mass->size() == acceleration_.size(), "gravity: masses of another model");
  gravity(d).force = d.step.mass->cwiseProduct(acceleration_);
}

const Eigen::VectorXd& GravityTerm::force(TermData& d) const {
  const Eigen::VectorXd& f = gravity(d).force;
  return f.size() == acceleration_.size() ? f : model_force_;  // before any begin_step
}

double GravityTerm::value(TermData& d, const Eigen::VectorXd& x) const { return -force(d).dot(x); }

double GravityTerm::value_and_gradient(TermData& d, const Eigen::VectorXd& x,
                                       Eigen::VectorXd& g) const {
  const Eigen::VectorXd& f = force(d);
  g -= f;
  return -f.dot(x);
}

// dW/dx = -M a: d/dM_i = -a_i.

void GravityTerm::pull_back(TermData&, const Eigen::VectorXd&, const Eigen::VectorXd& lambda,
                            const StepInputBars& bars) const {
  if (bars.mass) *bars.mass -= lambda.cwiseProduct(acceleration_);
}

void GravityTerm::push_forward(TermData&, const Eigen::VectorXd&,
                               const StepInputDirections& directions, Eigen::VectorXd& out) const {
  if (directions.mass) out -= directions.mass->cwiseProduct(acceleration_);
}

void add_gravity(Model& model, const Eigen::VectorXd& g) {
  if (g.size() != model.dim) throw InputError("gravity needs one component per dimension");
  Eigen::VectorXd a(model.n_dofs());
  for (int v = 0; v < model.n_verts; ++v) a.segment(v * model.dim, model.dim) = g;
  // A rigid body's axis vertices carry its second moments, which gravity does not pull.
  for (const RigidBody& b : model.rigid_bodies) a.segment(b.dof(3), 9).setZero();
  model.terms.push_back(std::make_unique<GravityTerm>(std::move(a), model.mass));
}

}  // namespace softgrad
