#include "incremental_potential.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <sstream>

#include "../energies/inertia_term.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {

IncrementalPotential::IncrementalPotential(const Model& model)
    : model_(model), inertia_(inertia_term(model)), fixed_(model.kinematic_dofs()) {
  if (!inertia_ && model.n_dofs() > 0)
    throw InputError(
        "the model has no inertia term: build its bodies with add_body or "
        "add_rigid_body, which put it first");
  builder_ = std::make_unique<SparsityBuilder>(model.n_verts, model.dim);
  SparsityBuilder& builder = *builder_;
  for (size_t k = 0; k < model.terms.size(); ++k) {
    const EnergyTerm& t = *model.terms[k];
    data_.push_back(t.make_data());
    t.declare_sparsity(builder, *data_.back());
    if (const auto* s = dynamic_cast<const StepLimit*>(&t))
      step_limits_.emplace_back(static_cast<int>(k), s);
    if (const auto* c = dynamic_cast<const DirectionCorrection*>(&t))
      corrections_.emplace_back(static_cast<int>(k), c);
  }
  assembler_ = std::make_unique<HessianAssembler>(builder);
  int offset = 0;
  for (const auto& t : model.terms) {
    adaptive_offset_.push_back(offset);
    offset += t->n_adaptive();
  }
  initial_adaptive_ = model.initial_adaptive();
}

void IncrementalPotential::begin(const StepContext& ctx, const TermParameters& p) {
  SOFTGRAD_CHECK(p.size() == model_.terms.size(),
                 "parameters for " << p.size() << " of " << model_.terms.size() << " terms");
  dt_ = ctx.dt;
  if (inertia_)
    inertia_->masses(p[0].data(), mass_);
  else
    mass_ = model_.mass;
  StepContext step = ctx;
  step.mass = &mass_;
  if (ctx.adaptive && ctx.adaptive->size() > 0) {
    if (ctx.adaptive->size() != initial_adaptive_.size())
      throw InputError("the state's adaptive values: expected " +
                       std::to_string(initial_adaptive_.size()) + " (the terms'), got " +
                       std::to_string(ctx.adaptive->size()));
    adaptive_ = *ctx.adaptive;
  } else {
    adaptive_ = initial_adaptive_;
  }
  for (size_t k = 0; k < data_.size(); ++k) {
    data_[k]->step = step;
    data_[k]->parameters = p[k].data();
    data_[k]->adaptive =
        model_.terms[k]->n_adaptive() > 0 ? adaptive_.data() + adaptive_offset_[k] : nullptr;
    if (active(static_cast<int>(k))) model_.terms[k]->begin_step(*data_[k]);
  }
}

void IncrementalPotential::update_adaptive(const Eigen::VectorXd& x, Eigen::VectorXd& adaptive) {
  adaptive = adaptive_;
  for (size_t k = 0; k < data_.size(); ++k)
    if (active(static_cast<int>(k)) && model_.terms[k]->n_adaptive() > 0)
      model_.terms[k]->update_adaptive(*data_[k], x, adaptive.data() + adaptive_offset_[k]);
}

double IncrementalPotential::value(const Eigen::VectorXd& x) {
  double phi = 0.0;
  for (size_t k = 0; k < data_.size(); ++k)
    if (active(static_cast<int>(k))) phi += model_.terms[k]->value(*data_[k], x);
  return phi;
}

std::string IncrementalPotential::infeasibility(const Eigen::VectorXd& x) {
  if (!x.allFinite()) return "a position is not a finite number";
  if (dynamic() && inertia_) {
    if (!std::isfinite(inertia_->value(*data_[0], x))) {
      std::ostringstream os;
      os << "the inertia term M |x - x_pred|^2 / (2 dt^2) is not finite ";
      if (!std::isfinite(1.0 / (dt_ * dt_)))
        os << "(dt = " << dt_ << " s is too small for it)";
      else
        os << "(the positions are too far from the prediction x + dt v: a velocity too large?)";
      return os.str();
    }
  }
  for (size_t k = inertia_ ? 1 : 0; k < data_.size(); ++k) {
    if (!active(static_cast<int>(k))) continue;
    const double e = model_.terms[k]->value(*data_[k], x);
    if (std::isnan(e))
      return "the energy of term '" + model_.terms[k]->name() +
             "' is NaN (not a number): its model is evaluated where it is not defined (a "
             "plugin material's code, or a parameter out of its range?)";
    if (!std::isfinite(e))
      return "the energy of term '" + model_.terms[k]->name() +
             "' is infinite: an element is inverted (det F <= 0) or a contact is at zero "
             "distance";
  }
  return "the energy is not finite";
}

double IncrementalPotential::max_step(const Eigen::VectorXd& x, const Eigen::VectorXd& dx) const {
  double t = 1.0;
  for (const auto& [k, limit] : step_limits_)
    if (active(k)) t = std::min(t, limit->max_step(*data_[k], x, dx));
  return t;
}

bool IncrementalPotential::correct_direction(const Eigen::VectorXd& x, const Eigen::VectorXd& g,
                                             Eigen::VectorXd& dx) {
  bool changed = false;
  for (const auto& [k, correction] : corrections_)
    if (active(k) && correction->correct_direction(*data_[k], x, g, dx)) changed = true;
  if (changed)
    for (int i : fixed_) dx[i] = 0.0;
  return changed;
}

double IncrementalPotential::value_and_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) {
  double phi = 0.0;
  g.setZero(x.size());
  for (size_t k = 0; k < data_.size(); ++k) {
    if (!active(static_cast<int>(k))) continue;
    phi += model_.terms[k]->value_and_gradient(*data_[k], x, g);
    if (phi == std::numeric_limits<double>::infinity()) return phi;
  }
  for (int i : fixed_) g[i] = 0.0;
  return phi;
}

void IncrementalPotential::hessian(const Eigen::VectorXd& x, bool project) {
  for (;;) {
    assembler_->set_zero();
    for (size_t k = 0; k < data_.size(); ++k)
      if (active(static_cast<int>(k)))
        model_.terms[k]->add_hessian(*data_[k], x, project, *assembler_);
    if (!assembler_->pattern_incomplete()) break;
    // The pattern keeps the pairs it had (contact that comes and goes costs no new analysis)
    // unless most of them are gone: then it holds just this assembly's.
    std::vector<std::pair<int, int>> now = assembler_->dynamic_pairs();
    std::sort(now.begin(), now.end());
    now.erase(std::unique(now.begin(), now.end()), now.end());
    std::vector<std::pair<int, int>> pairs;
    std::set_union(extra_pairs_.begin(), extra_pairs_.end(), now.begin(), now.end(),
                   std::back_inserter(pairs));
    if (pairs.size() > 4 * now.size() + 256) pairs = now;
    extra_pairs_ = pairs;
    builder_->set_extra_pairs(std::move(pairs));
    assembler_ = std::make_unique<HessianAssembler>(*builder_);
  }
  assembler_->apply_dirichlet(fixed_);
}

void IncrementalPotential::Operator::apply(const Eigen::VectorXd& in, Eigen::VectorXd& out) const {
  IncrementalPotential& phi = phi_;
  // Eliminated dofs: the operator acts as the identity there and couples nothing.
  Eigen::VectorXd& u = phi.scratch_;
  u = in;
  for (int i : phi.fixed_) u[i] = 0.0;
  out.setZero(in.size());
  for (size_t k = 0; k < phi.data_.size(); ++k)
    if (phi.active(static_cast<int>(k)))
      phi.model_.terms[k]->add_hessian_vector_product(*phi.data_[k], x_, u, out);
  for (int i : phi.fixed_) out[i] = in[i];
}

void IncrementalPotential::Operator::diagonal(Eigen::VectorXd& d) const {
  IncrementalPotential& phi = phi_;
  d.setZero(x_.size());
  for (size_t k = 0; k < phi.data_.size(); ++k)
    if (phi.active(static_cast<int>(k)))
      phi.model_.terms[k]->add_hessian_diagonal(*phi.data_[k], x_, d);
  for (int i : phi.fixed_) d[i] = 1.0;
}

}  // namespace softgrad
