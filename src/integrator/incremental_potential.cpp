#include "incremental_potential.hpp"

#include <algorithm>
#include <limits>

namespace softgrad {

IncrementalPotential::IncrementalPotential(const Model& model, HessianAssembler& assembler)
    : model_(model), assembler_(assembler), fixed_(model.kinematic_dofs()) {
  is_fixed_.assign(model.n_dofs(), 0);
  for (int i : fixed_) is_fixed_[i] = 1;
}

void IncrementalPotential::begin(const StepContext& ctx, const Eigen::VectorXd& xhat) {
  dt_ = ctx.dt;
  xhat_ = xhat;
  for (const auto& t : model_.terms)
    if (active(*t)) t->begin_step(ctx);
}

double IncrementalPotential::value(const Eigen::VectorXd& x) const {
  double phi = 0.0;
  if (dynamic()) {
    scratch_ = x - xhat_;
    phi = 0.5 / (dt_ * dt_) * scratch_.dot(model_.mass.cwiseProduct(scratch_));
  }
  for (const auto& t : model_.terms)
    if (active(*t)) phi += t->value(x);
  return phi;
}

double IncrementalPotential::max_step(const Eigen::VectorXd& x, const Eigen::VectorXd& dx) const {
  double t = 1.0;
  for (const auto& term : model_.terms)
    if (active(*term)) t = std::min(t, term->max_step(x, dx));
  return t;
}

bool IncrementalPotential::correct_direction(const Eigen::VectorXd& x, const Eigen::VectorXd& g,
                                             Eigen::VectorXd& dx) const {
  bool changed = false;
  for (const auto& term : model_.terms)
    if (active(*term) && term->correct_direction(x, g, dx)) changed = true;
  if (changed)
    for (int i : fixed_) dx[i] = 0.0;
  return changed;
}

void IncrementalPotential::gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
  if (dynamic()) {
    g = model_.mass.cwiseProduct(x - xhat_) / (dt_ * dt_);
  } else {
    g.setZero(x.size());
  }
  for (const auto& t : model_.terms)
    if (active(*t)) t->add_gradient(x, g);
  for (int i : fixed_) g[i] = 0.0;
}

double IncrementalPotential::value_and_gradient(const Eigen::VectorXd& x,
                                                Eigen::VectorXd& g) const {
  double phi = 0.0;
  if (dynamic()) {
    scratch_ = x - xhat_;
    g = model_.mass.cwiseProduct(scratch_) / (dt_ * dt_);
    phi = 0.5 * scratch_.dot(g);
  } else {
    g.setZero(x.size());
  }
  for (const auto& t : model_.terms) {
    if (!active(*t)) continue;
    phi += t->value_and_gradient(x, g);
    if (phi == std::numeric_limits<double>::infinity()) return phi;
  }
  for (int i : fixed_) g[i] = 0.0;
  return phi;
}

void IncrementalPotential::hessian(const Eigen::VectorXd& x, bool project) const {
  assembler_.set_zero();
  if (dynamic()) assembler_.add_diagonal(model_.mass / (dt_ * dt_));
  for (const auto& t : model_.terms)
    if (active(*t)) t->add_hessian(x, project, assembler_);
  assembler_.apply_dirichlet(fixed_);
}

void IncrementalPotential::Operator::apply(const Eigen::VectorXd& in, Eigen::VectorXd& out) const {
  const auto& phi = phi_;
  // Eliminated dofs: the operator acts as the identity there and couples nothing.
  Eigen::VectorXd& u = phi.scratch_;
  u = in;
  for (int i : phi.fixed_) u[i] = 0.0;
  if (phi.dynamic()) {
    out = phi.model_.mass.cwiseProduct(u) / (phi.dt_ * phi.dt_);
  } else {
    out.setZero(in.size());
  }
  for (const auto& t : phi.model_.terms)
    if (phi.active(*t)) t->add_hessian_vector_product(x_, u, out);
  for (int i : phi.fixed_) out[i] = in[i];
}

void IncrementalPotential::Operator::diagonal(Eigen::VectorXd& d) const {
  const auto& phi = phi_;
  if (phi.dynamic()) {
    d = phi.model_.mass / (phi.dt_ * phi.dt_);
  } else {
    d.setZero(x_.size());
  }
  for (const auto& t : phi.model_.terms)
    if (phi.active(*t)) t->add_hessian_diagonal(x_, d);
  for (int i : phi.fixed_) d[i] = 1.0;
}

}  // namespace softgrad
