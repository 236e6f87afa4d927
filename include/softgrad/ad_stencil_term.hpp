/// @file ad_stencil_term.hpp
/// AdStencilTerm: a StencilTerm whose kernels come from the element AD (ad/derivatives.hpp)
/// applied to one templated stencil energy E_s(x_s; q_s), with x_s the stencil's N position
/// entries and q_s its M local inputs. Including this header instantiates AD code: keep it to
/// the translation units that define such terms.
///
/// A term derives as `class MyTerm : public AdStencilTerm<MyTerm, N, M>` and supplies
///   decltype(auto) stencil_energy(const Data& d, int s) const;
///       a functor `template <class T, class P> T operator()(const T* x, const P* q) const`
///   void local_inputs(const Data& d, int s, double* q) const;   // M values
/// and, where it has them,
///   bool active(const Data& d, int s, const double* x_s) const;    // false: E_s = 0
///   bool feasible(const Data& d, int s, const double* x_s) const;  // false: W = +infinity
///   bool closed_form(const Data& d, int s, const double* x_s, const double* q, double& e,
///                    double* g, double* H) const;  // true if it gave e, g (and H unless null)
///   the StencilTerm parameter mappings (scatter_parameter_products, gather_parameter_directions)
/// The local inputs q_s hold, from entry `previous_offset` on, the stencil's N positions at the
/// start of the step when the term is lagged or dissipative (previous_offset >= 0); the other
/// M - N (or M) entries are its local parameters, in order.
#pragma once

#include <Eigen/Eigenvalues>

#include "softgrad/detail/ad/derivatives.hpp"
#include "softgrad/detail/ad/psd_projection.hpp"
#include "softgrad/detail/parallel.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/stencil_term.hpp"

namespace softgrad {

template <class Derived, int N, int M, int TapeCapacity = ad::kDefaultTapeCapacity>
class AdStencilTerm : public StencilTerm {
 protected:
  AdStencilTerm(int dim, int n_verts, std::vector<int> verts, int size, int previous_offset = -1)
      : StencilTerm(dim, n_verts, std::move(verts), size, previous_offset >= 0 ? M - N : M,
                    previous_offset >= 0),
        previous_offset_(previous_offset) {
    SOFTGRAD_CHECK(size * dim == N,
                   "an AdStencilTerm<" << N << "> with " << size << " vertices in " << dim << "D");
  }

  double energies(Data& d, const double* x, double* E) const override {
    struct Sum {
      double total = 0.0;
      bool infeasible = false;
    };
    const Sum sum = parallel_reduce(
        n_stencils(), kParallelMinElements, Sum{},
        [&](int s, Sum& acc) {
          double xs[N], q[M];
          E[s] = 0.0;
          gather(x, s, xs);
          if (!is_active(d, s, xs)) return;
          if (!is_feasible(d, s, xs)) acc.infeasible = true;
          self().local_inputs(d, s, q);
          E[s] = self().stencil_energy(d, s)(static_cast<const double*>(xs),
                                             static_cast<const double*>(q));
          acc.total += E[s];
        },
        [](Sum& total, const Sum& part) {
          total.total += part.total;
          total.infeasible = total.infeasible || part.infeasible;
        });
    return sum.infeasible ? ad::detail::infinity() : sum.total;
  }

  bool gradients(Data& d, const double* x, double* E, double* G) const override {
    struct Flag {
      bool infeasible = false;
    };
    const Flag flag = parallel_reduce(
        n_stencils(), kParallelMinElements, Flag{},
        [&](int s, Flag& acc) {
          double xs[N], q[M];
          double* g = G + static_cast<size_t>(s) * N;
          E[s] = 0.0;
          for (int i = 0; i < N; ++i) g[i] = 0.0;
          gather(x, s, xs);
          if (!is_active(d, s, xs)) return;
          if (!is_feasible(d, s, xs)) acc.infeasible = true;
          self().local_inputs(d, s, q);
          if (closed(d, s, xs, q, E[s], g, nullptr)) return;
          check(ad::gradient<N, M, TapeCapacity>(self().stencil_energy(d, s), xs, q, E[s], g));
        },
        [](Flag& total, const Flag& part) {
          total.infeasible = total.infeasible || part.infeasible;
        });
    return !flag.infeasible;
  }

  void hessians(Data& d, const double* x, bool project, int first, int count,
                double* H) const override {
    parallel_for(count, kParallelMinElements, [&](int k) {
      const int s = first + k;
      double xs[N], q[M], g[N], e = 0.0;
      double* h = H + static_cast<size_t>(k) * N * N;
      for (int i = 0; i < N * N; ++i) h[i] = 0.0;
      gather(x, s, xs);
      if (!is_active(d, s, xs)) return;
      self().local_inputs(d, s, q);
      if (!closed(d, s, xs, q, e, g, h))
        check(ad::hessian<N, M, TapeCapacity>(self().stencil_energy(d, s), xs, q, e, g, h));
      if (project) project_psd(h);
    });
  }

  void hessian_products(Data& d, const double* x, const double* u, double* HU) const override {
    parallel_for(n_stencils(), kParallelMinElements, [&](int s) {
      double xs[N], us[N], q[M];
      double* hu = HU + static_cast<size_t>(s) * N;
      for (int i = 0; i < N; ++i) hu[i] = 0.0;
      gather(x, s, xs);
      if (!is_active(d, s, xs)) return;
      gather(u, s, us);
      self().local_inputs(d, s, q);
      check(ad::hessian_vector_product<N, M, TapeCapacity>(self().stencil_energy(d, s), xs, q, us,
                                                           hu));
    });
  }

  void parameter_products(Data& d, const double* x, const double* lambda, double* P,
                          double* X) const override {
    const int n_p = n_local_parameters();
    for (int s = 0; s < n_stencils(); ++s) {
      double xs[N], ls[N], q[M], mixed[M];
      for (int k = 0; k < M; ++k) mixed[k] = 0.0;
      gather(x, s, xs);
      if (is_active(d, s, xs)) {
        gather(lambda, s, ls);
        self().local_inputs(d, s, q);
        check(ad::parameter_derivatives<N, M, TapeCapacity>(self().stencil_energy(d, s), xs, q, ls,
                                                            nullptr, mixed));
      }
      split(mixed, block(P, s, n_p), block(X, s, N));
    }
  }

  void parameter_jvps(Data& d, const double* x, const double* dP, const double* dX,
                      double* out) const override {
    const int n_p = n_local_parameters();
    for (int s = 0; s < n_stencils(); ++s) {
      double xs[N], q[M], dq[M];
      double* o = out + static_cast<size_t>(s) * N;
      for (int i = 0; i < N; ++i) o[i] = 0.0;
      join(block(dP, s, n_p), block(dX, s, N), dq);
      bool zero = true;
      for (int k = 0; k < M; ++k) zero = zero && dq[k] == 0.0;
      gather(x, s, xs);
      if (zero || !is_active(d, s, xs)) continue;
      self().local_inputs(d, s, q);
      check(ad::gradient_parameter_jvp<N, M, TapeCapacity>(self().stencil_energy(d, s), xs, q, dq,
                                                           nullptr, o));
    }
  }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
  // Stencil s's block of a per-stencil array; null for an array the term has no part in (X
  // without previous-position inputs, P without parameters): no arithmetic on a null pointer.
  template <class T>
  static T* block(T* base, int s, int size) {
    return base ? base + static_cast<size_t>(s) * size : nullptr;
  }

  bool is_active(const Data& d, int s, const double* xs) const {
    if constexpr (requires { self().active(d, s, xs); }) {
      return self().active(d, s, xs);
    } else {
      return true;
    }
  }
  bool is_feasible(const Data& d, int s, const double* xs) const {
    if constexpr (requires { self().feasible(d, s, xs); }) {
      return self().feasible(d, s, xs);
    } else {
      return true;
    }
  }
  bool closed(const Data& d, int s, const double* xs, const double* q, double& e, double* g,
              double* H) const {
    if constexpr (requires { self().closed_form(d, s, xs, q, e, g, H); }) {
      return self().closed_form(d, s, xs, q, e, g, H);
    } else {
      return false;
    }
  }
  void check(bool ok) const {
    SOFTGRAD_CHECK(
        ok, name() << ": AD tape overflow (more than " << TapeCapacity << " nodes in one stencil)");
  }
  /// Eigenvalues clamped at zero; the shared projection for element-sized blocks.
  static void project_psd(double* H) {
    if constexpr (N == 4 || N == 6 || N == 9 || N == 12) {
      ad::project_psd<N>(H);
    } else {
      Eigen::Map<Eigen::Matrix<double, N, N, Eigen::RowMajor>> A(H);
      const Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, N, N>> eig(A);
      if (eig.eigenvalues().minCoeff() < 0.0)
        A = eig.eigenvectors() * eig.eigenvalues().cwiseMax(0.0).asDiagonal() *
            eig.eigenvectors().transpose();
    }
  }
  /// Local input products -> the parameter part (P) and the previous-position part (X).
  void split(const double* mixed, double* P, double* X) const {
    int k = 0;
    for (int j = 0; j < M; ++j) {
      if (previous_offset_ >= 0 && j >= previous_offset_ && j < previous_offset_ + N) {
        X[j - previous_offset_] = mixed[j];
      } else {
        P[k++] = mixed[j];
      }
    }
  }
  void join(const double* P, const double* X, double* dq) const {
    int k = 0;
    for (int j = 0; j < M; ++j) {
      if (previous_offset_ >= 0 && j >= previous_offset_ && j < previous_offset_ + N) {
        dq[j] = X[j - previous_offset_];
      } else {
        dq[j] = P[k++];
      }
    }
  }

  int previous_offset_;
};

}  // namespace softgrad
