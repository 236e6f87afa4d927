#include "damping_term.hpp"

#include "softgrad/assembly.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/parallel.hpp"

namespace softgrad {

DampingTerm::DampingTerm(const Model& model, double alpha, double beta)
    : model_(model), alpha_(alpha), beta_(beta) {
  if (beta_ > 0.0)
    for (const Body& b : model.bodies)
      blocks_.push_back(
          {&b,
           -1,
           VectorScatter(b.elems.data(), b.n_elems(), model.dim + 1, model.n_verts, model.dim),
           {},
           {}});
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
  const int n = (model_.dim + 1) * model_.dim;
  for (auto& blk : blocks_) {
    const Body& b = *blk.body;
    blk.K.resize(static_cast<size_t>(b.n_elems()) * n * n);
    blk.Ku.resize(static_cast<size_t>(b.n_elems()) * n);
    std::vector<double> energy(b.n_elems()), grad(static_cast<size_t>(b.n_elems()) * n);
    const BatchReport r = b.material->hessian(b.batch(), x_prev_.data(), true, energy.data(),
                                              grad.data(), blk.K.data());
    SOFTGRAD_CHECK(r.ok(),
                   "damping matrix at an invalid state (" << r.n_inverted << " inverted elements)");
  }
}

void DampingTerm::apply(const Eigen::VectorXd& u, Eigen::VectorXd& out) const {
  const int d = model_.dim;
  const int n = (d + 1) * d;
  out += (alpha_ / dt_) * model_.mass.cwiseProduct(u);
  for (const auto& blk : blocks_) {
    const Body& b = *blk.body;
#pragma omp parallel for schedule(static) if (b.n_elems() >= kParallelMinElements)
    for (int e = 0; e < b.n_elems(); ++e) {
      double ue[12];
      for (int a = 0; a <= d; ++a)
        for (int i = 0; i < d; ++i) ue[a * d + i] = u[b.elems[e * (d + 1) + a] * d + i];
      const double* K = blk.K.data() + static_cast<size_t>(e) * n * n;
      for (int r = 0; r < n; ++r) {
        double s = 0.0;
        for (int c = 0; c < n; ++c) s += K[r * n + c] * ue[c];
        blk.Ku[static_cast<size_t>(e) * n + r] = s;
      }
    }
    blk.scatter.add(blk.Ku.data(), out, beta_ / dt_);
  }
}

double DampingTerm::value(const Eigen::VectorXd& x) const {
  const Eigen::VectorXd dx = x - x_prev_;
  scratch_.setZero(dx.size());
  apply(dx, scratch_);
  return 0.5 * dx.dot(scratch_);
}

void DampingTerm::add_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
  apply(x - x_prev_, g);
}

void DampingTerm::add_hessian(const Eigen::VectorXd&, bool, HessianAssembler& H) const {
  H.add_diagonal((alpha_ / dt_) * model_.mass);
  for (const auto& blk : blocks_) H.add_stencils(blk.stencil_set, blk.K.data(), beta_ / dt_);
}

void DampingTerm::add_hessian_vector_product(const Eigen::VectorXd&, const Eigen::VectorXd& u,
                                             Eigen::VectorXd& out) const {
  apply(u, out);
}

void DampingTerm::add_hessian_diagonal(const Eigen::VectorXd&, Eigen::VectorXd& d) const {
  const int dim = model_.dim;
  const int n = (dim + 1) * dim;
  d += (alpha_ / dt_) * model_.mass;
  for (const auto& blk : blocks_) {
    const Body& b = *blk.body;
    for (int e = 0; e < b.n_elems(); ++e)
      for (int k = 0; k < n; ++k)
        blk.Ku[static_cast<size_t>(e) * n + k] = blk.K[(static_cast<size_t>(e) * n + k) * n + k];
    blk.scatter.add(blk.Ku.data(), d, beta_ / dt_);
  }
}

}  // namespace softgrad
