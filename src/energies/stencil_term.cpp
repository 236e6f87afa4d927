// The loops every stencil term shares: buffers, scatter, assembly, diagonals, and the adjoint and
// tangent products through the stencils' local inputs.
#include "softgrad/stencil_term.hpp"

#include <omp.h>

#include <algorithm>
#include <exception>
#include <limits>

#include "../assembly/vector_scatter.hpp"
#include "softgrad/detail/assembly.hpp"
#include "softgrad/detail/parallel.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {

StencilTerm::StencilTerm(int dim, int n_verts, std::vector<int> verts, int size,
                         int n_local_parameters, bool previous_positions)
    : dim_(dim),
      size_(size),
      n_stencils_(size > 0 ? static_cast<int>(verts.size()) / size : 0),
      n_local_parameters_(n_local_parameters),
      previous_positions_(previous_positions),
      verts_(std::move(verts)),
      scatter_(
          std::make_unique<const VectorScatter>(verts_.data(), n_stencils_, size, n_verts, dim)) {
  SOFTGRAD_CHECK(size >= 1 && verts_.size() == static_cast<size_t>(n_stencils_) * size,
                 "stencil list of " << verts_.size() << " vertices in stencils of " << size);
}

StencilTerm::~StencilTerm() = default;

std::unique_ptr<TermData> StencilTerm::make_data() const {
  std::unique_ptr<Data> d = new_data();
  const size_t n = static_cast<size_t>(n_stencils_);
  d->E.assign(n, 0.0);
  d->G.assign(n * stencil_dofs(), 0.0);
  d->P.assign(n * n_local_parameters_, 0.0);
  if (previous_positions_) d->X.assign(n * stencil_dofs(), 0.0);
  return d;
}

void StencilTerm::gather(const double* global, int s, double* local) const {
  const int* v = verts_.data() + static_cast<size_t>(s) * size_;
  for (int a = 0; a < size_; ++a)
    for (int i = 0; i < dim_; ++i) local[a * dim_ + i] = global[v[a] * dim_ + i];
}

void StencilTerm::scatter(const double* local, Eigen::VectorXd& out, double scale) const {
  scatter_->add(local, out, scale);
}

void StencilTerm::declare_sparsity(SparsityBuilder& builder, TermData& d) const {
  d.stencil_set = builder.add_stencils(verts_.data(), n_stencils_, size_);
}

double StencilTerm::value(TermData& d, const Eigen::VectorXd& x) const {
  Data& s = data(d);
  return energies(s, x.data(), s.E.data());
}

double StencilTerm::value_and_gradient(TermData& d, const Eigen::VectorXd& x,
                                       Eigen::VectorXd& g) const {
  Data& s = data(d);
  if (!gradients(s, x.data(), s.E.data(), s.G.data()))
    return std::numeric_limits<double>::infinity();  // an infeasible point
  scatter_->add(s.G.data(), g);
  double total = 0.0;
  for (double e : s.E) total += e;
  return total;
}

void StencilTerm::add_hessian(TermData& d, const Eigen::VectorXd& x, bool project,
                              HessianAssembler& H) const {
  Data& s = data(d);
  const size_t n_local = static_cast<size_t>(stencil_dofs()) * stencil_dofs();
  const int chunk = H.chunk_stencils(d.stencil_set);
  if (chunk <= 0 || chunk >= n_stencils_) {
    s.H.resize(n_stencils_ * n_local);
    hessians(s, x.data(), project, 0, n_stencils_, s.H.data());
    H.add_stencils(d.stencil_set, s.H.data());
    return;
  }
  // A chunk at a time, so that its Hessians are summed while in cache (the whole set's would be
  // 11.5 MB at 10k tets, its pages touched anew by the first assembly). A team of threads makes
  // chunks side by side, each into its own buffer, and adds them in order (an ordered loop: one
  // thread sums a chunk while the other makes the next), so the sums are the one thread's bits.
  const int n_chunks = (n_stencils_ + chunk - 1) / chunk;
  const int team = n_stencils_ >= kParallelMinElements ? std::min(parallel_team(), n_chunks) : 1;
  const size_t chunk_size = static_cast<size_t>(chunk) * n_local;
  s.H.resize(static_cast<size_t>(team) * chunk_size);
  const auto make = [&](int q, double* out) {
    const int first = q * chunk;
    hessians(s, x.data(), project, first, std::min(chunk, n_stencils_ - first), out);
  };
  // Chunk 0 on this thread first: a term's per-step caches (damping's stiffness) are filled
  // before threads share the term.
  make(0, s.H.data());
  H.add_stencil_chunk(d.stencil_set, 0, s.H.data());
  if (team > 1) {
    // The first failing chunk's error, raised after the loop as one thread would raise it; the
    // chunks after it are not added. Both are touched only in the ordered part, one at a time.
    std::exception_ptr error;
#pragma omp parallel for ordered schedule(static, 1) num_threads(team)
    for (int q = 1; q < n_chunks; ++q) {
      double* out = s.H.data() + static_cast<size_t>(omp_get_thread_num()) * chunk_size;
      std::exception_ptr failure;
      try {
        make(q, out);
      } catch (...) {
        failure = std::current_exception();
      }
#pragma omp ordered
      {
        if (!error && failure) error = failure;
        if (!error) {
          try {
            H.add_stencil_chunk(d.stencil_set, q, out);
          } catch (...) {
            error = std::current_exception();
          }
        }
      }
    }
    if (error) std::rethrow_exception(error);
  } else {
    for (int q = 1; q < n_chunks; ++q) {
      make(q, s.H.data());
      H.add_stencil_chunk(d.stencil_set, q, s.H.data());
    }
  }
  H.finish_stencil_chunks(d.stencil_set);
}

void StencilTerm::add_hessian_vector_product(TermData& d, const Eigen::VectorXd& x,
                                             const Eigen::VectorXd& u, Eigen::VectorXd& out) const {
  Data& s = data(d);
  hessian_products(s, x.data(), u.data(), s.G.data());
  scatter_->add(s.G.data(), out);
}

void StencilTerm::add_hessian_diagonal(TermData& d, const Eigen::VectorXd& x,
                                       Eigen::VectorXd& diag) const {
  Data& s = data(d);
  const int n = stencil_dofs();
  s.H.resize(static_cast<size_t>(n_stencils_) * n * n);
  hessians(s, x.data(), /*project=*/true, 0, n_stencils_, s.H.data());
  // Per-stencil diagonals, through the vector buffer.
  for (int k = 0; k < n_stencils_; ++k)
    for (int i = 0; i < n; ++i)
      s.G[static_cast<size_t>(k) * n + i] = s.H[(static_cast<size_t>(k) * n + i) * n + i];
  scatter_->add(s.G.data(), diag);
}

void StencilTerm::pull_back(TermData& d, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                            const StepInputBars& bars) const {
  const bool parameters = bars.parameters && n_local_parameters_ > 0;
  const bool previous = bars.x_prev && previous_positions_ && depends_on_previous_state(d);
  if (!parameters && !previous) return;
  Data& s = data(d);
  parameter_products(s, x.data(), lambda.data(), s.P.data(), s.X.data());
  if (parameters) scatter_parameter_products(s, s.P.data(), bars.parameters);
  if (previous) scatter_->add(s.X.data(), *bars.x_prev);
}

void StencilTerm::push_forward(TermData& d, const Eigen::VectorXd& x,
                               const StepInputDirections& directions, Eigen::VectorXd& out) const {
  const bool parameters = directions.parameters && n_local_parameters_ > 0;
  const bool previous = directions.x_prev && previous_positions_ && depends_on_previous_state(d);
  if (!parameters && !previous) return;
  Data& s = data(d);
  std::fill(s.P.begin(), s.P.end(), 0.0);
  if (parameters) gather_parameter_directions(s, directions.parameters, s.P.data());
  std::fill(s.X.begin(), s.X.end(), 0.0);
  if (previous)
    for (int k = 0; k < n_stencils_; ++k)
      gather(directions.x_prev->data(), k, s.X.data() + static_cast<size_t>(k) * stencil_dofs());
  parameter_jvps(s, x.data(), s.P.data(), s.X.data(), s.G.data());
  scatter_->add(s.G.data(), out);
}

}  // namespace softgrad
