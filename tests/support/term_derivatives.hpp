/// @file term_derivatives.hpp
/// Checks one energy term's hand-written derivatives at x: its assembled Hessian against its AD
/// Hessian-vector products (three directions), and its gradient (through value_and_gradient,
/// whose value must equal value()) against central differences of value().
#pragma once

#include <doctest/doctest.h>

#include <cmath>

#include "softgrad/detail/assembly.hpp"
#include "softgrad/energy.hpp"
#include "support/term_evaluation.hpp"

namespace softgrad::test {

/// `hessian_tol`: relative to |H u|; `h`: the difference step; `gradient_tol`: relative, with
/// 1e-6 |g| as the absolute floor.
/// `d`: the term's data for the step (support/term_evaluation.hpp).
inline void check_term_derivatives(const EnergyTerm& term, TermData& d, const Eigen::VectorXd& x,
                                   int n_verts, int dim, double hessian_tol, double h,
                                   double gradient_tol) {
  SparsityBuilder builder(n_verts, dim);
  term.declare_sparsity(builder, d);
  HessianAssembler H0(builder);
  H0.set_zero();
  term.add_hessian(d, x, false, H0);
  // Pairs found at x (mesh contact) grow the pattern, as the integrator grows it.
  builder.set_extra_pairs(H0.dynamic_pairs());
  HessianAssembler H(builder);
  H.set_zero();
  term.add_hessian(d, x, false, H);
  CHECK_FALSE(H.pattern_incomplete());
  for (int k = 0; k < 3; ++k) {
    const Eigen::VectorXd u = Eigen::VectorXd::NullaryExpr(
        x.size(), [k](Eigen::Index i) { return std::cos(0.9 * static_cast<double>(i) + k); });
    Eigen::VectorXd ad_hu = Eigen::VectorXd::Zero(x.size());
    term.add_hessian_vector_product(d, x, u, ad_hu);
    const Eigen::VectorXd hu = H.matrix() * u;
    CHECK((hu - ad_hu).norm() <= hessian_tol * ad_hu.norm());
  }
  Eigen::VectorXd g = Eigen::VectorXd::Zero(x.size());
  CHECK(term.value_and_gradient(d, x, g) == doctest::Approx(term.value(d, x)).epsilon(1e-13));
  for (int i = 0; i < x.size(); ++i) {
    Eigen::VectorXd xp = x, xm = x;
    xp[i] += h;
    xm[i] -= h;
    const double fd = (term.value(d, xp) - term.value(d, xm)) / (2 * h);
    CHECK(g[i] == doctest::Approx(fd).epsilon(gradient_tol).scale(1e-6 * g.norm()));
  }
}

}  // namespace softgrad::test
