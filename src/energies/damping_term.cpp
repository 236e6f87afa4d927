#include "damping_term.hpp"

#include <cmath>

#include "softgrad/assembly.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/parallel.hpp"

namespace softgrad {

DampingTerm::DampingTerm(const Model& model, double alpha, double beta)
    : model_(model), alpha_(alpha), beta_(beta) {
  for (const Body& b : model.bodies)
    blocks_.push_back(
        {&b,
         -1,
         VectorScatter(b.elems.data(), b.n_elems(), model.dim + 1, model.n_verts, model.dim),
         {},
         {}});
  if (beta_ > 0.0) ensure_stiffness();
}

void DampingTerm::ensure_stiffness() const {
  if (have_stiffness_) return;
  const int n = (model_.dim + 1) * model_.dim;
  for (const auto& blk : blocks_) {
    const Body& b = *blk.body;
    blk.K.resize(static_cast<size_t>(b.n_elems()) * n * n);
    blk.Ku.resize(static_cast<size_t>(b.n_elems()) * n);
    std::vector<double> energy(b.n_elems()), grad(static_cast<size_t>(b.n_elems()) * n);
    const BatchReport r = b.material->hessian(b.batch(), model_.X.data(), true, energy.data(),
                                              grad.data(), blk.K.data());
    SOFTGRAD_CHECK(r.ok(), "damping matrix of body '" << b.name << "' at the rest state: "
                                                      << r.n_inverted << " inverted elements");
  }
  have_stiffness_ = true;
}

void DampingTerm::declare_sparsity(SparsityBuilder& builder) {
  for (auto& blk : blocks_)
    blk.stencil_set =
        builder.add_stencils(blk.body->elems.data(), blk.body->n_elems(), model_.dim + 1);
}

void DampingTerm::begin_step(const StepContext& ctx) {
  SOFTGRAD_CHECK(ctx.dt > 0.0 && ctx.x_prev, "damping needs a dynamic step");
  dt_ = ctx.dt;
  x_prev_ = *ctx.x_prev;
}

void DampingTerm::apply(double a, double b, const Eigen::VectorXd& u, Eigen::VectorXd& out) const {
  if (a != 0.0) out += (a / dt_) * model_.mass.cwiseProduct(u);
  if (b == 0.0) return;
  ensure_stiffness();
  const int d = model_.dim;
  const int n = (d + 1) * d;
  for (const auto& blk : blocks_) {
    const Body& body = *blk.body;
    parallel_for(body.n_elems(), kParallelMinElements, [&](int e) {
      double ue[12];
      for (int v = 0; v <= d; ++v)
        for (int i = 0; i < d; ++i) ue[v * d + i] = u[body.elems[e * (d + 1) + v] * d + i];
      const double* K = blk.K.data() + static_cast<size_t>(e) * n * n;
      for (int r = 0; r < n; ++r) {
        double s = 0.0;
        for (int c = 0; c < n; ++c) s += K[r * n + c] * ue[c];
        blk.Ku[static_cast<size_t>(e) * n + r] = s;
      }
    });
    blk.scatter.add(blk.Ku.data(), out, b / dt_);
  }
}

double DampingTerm::value(const Eigen::VectorXd& x) const {
  const Eigen::VectorXd dx = x - x_prev_;
  scratch_.setZero(dx.size());
  apply(alpha_, beta_, dx, scratch_);
  return 0.5 * dx.dot(scratch_);
}

void DampingTerm::add_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
  apply(alpha_, beta_, x - x_prev_, g);
}

void DampingTerm::add_hessian(const Eigen::VectorXd&, bool, HessianAssembler& H) const {
  H.add_diagonal((alpha_ / dt_) * model_.mass);
  if (beta_ == 0.0) return;
  for (const auto& blk : blocks_) H.add_stencils(blk.stencil_set, blk.K.data(), beta_ / dt_);
}

void DampingTerm::add_hessian_vector_product(const Eigen::VectorXd&, const Eigen::VectorXd& u,
                                             Eigen::VectorXd& out) const {
  apply(alpha_, beta_, u, out);
}

void DampingTerm::add_hessian_diagonal(const Eigen::VectorXd&, Eigen::VectorXd& d) const {
  const int dim = model_.dim;
  const int n = (dim + 1) * dim;
  d += (alpha_ / dt_) * model_.mass;
  if (beta_ == 0.0) return;
  for (const auto& blk : blocks_) {
    const Body& b = *blk.body;
    for (int e = 0; e < b.n_elems(); ++e)
      for (int k = 0; k < n; ++k)
        blk.Ku[static_cast<size_t>(e) * n + k] = blk.K[(static_cast<size_t>(e) * n + k) * n + k];
    blk.scatter.add(blk.Ku.data(), d, beta_ / dt_);
  }
}

std::vector<ParameterGroup> DampingTerm::parameter_groups() const {
  return {{"alpha", "1/s", 0, 1, ParameterGroup::Layout::Scalar, 0.0, 1e300},
          {"beta", "s", 1, 1, ParameterGroup::Layout::Scalar, 0.0, 1e300}};
}

void DampingTerm::get_parameters(double* p) const {
  p[0] = alpha_;
  p[1] = beta_;
}

void DampingTerm::set_parameters(const double* p) {
  if (!(p[0] >= 0.0) || !std::isfinite(p[0]))
    throw InputError("damping alpha must be finite and >= 0, got " + std::to_string(p[0]));
  if (!(p[1] >= 0.0) || !std::isfinite(p[1]))
    throw InputError("damping beta must be finite and >= 0, got " + std::to_string(p[1]));
  alpha_ = p[0];
  beta_ = p[1];
  if (beta_ > 0.0) ensure_stiffness();
}

// dD/dx = (alpha M + beta K_0)(x - x_n) / dt is linear in alpha, beta and x_n.

void DampingTerm::add_parameter_mixed_product(const Eigen::VectorXd& x,
                                              const Eigen::VectorXd& lambda, double* out) const {
  const Eigen::VectorXd dx = x - x_prev_;
  scratch_.setZero(dx.size());
  apply(1.0, 0.0, dx, scratch_);
  out[0] += lambda.dot(scratch_);
  scratch_.setZero(dx.size());
  apply(0.0, 1.0, dx, scratch_);
  out[1] += lambda.dot(scratch_);
}

void DampingTerm::add_parameter_jvp(const Eigen::VectorXd& x, const double* dp,
                                    Eigen::VectorXd& out) const {
  apply(dp[0], dp[1], x - x_prev_, out);
}

void DampingTerm::add_previous_state_mixed_product(const Eigen::VectorXd&,
                                                   const Eigen::VectorXd& lambda,
                                                   Eigen::VectorXd& x_prev_bar,
                                                   Eigen::VectorXd&) const {
  apply(-alpha_, -beta_, lambda, x_prev_bar);  // C is symmetric
}

void DampingTerm::add_previous_state_jvp(const Eigen::VectorXd&, const Eigen::VectorXd& dx_prev,
                                         const Eigen::VectorXd&, Eigen::VectorXd& out) const {
  apply(-alpha_, -beta_, dx_prev, out);
}

}  // namespace softgrad
