// Stored stress differentials (MaterialModel::stress_differentials), from which the elastic term
// computes the Hessian-vector products of matrix-free CG: equal to the per-F differential, to
// the assembled Hessian and to central differences of the gradient, and recomputed whenever the
// positions or the parameters change.
#include <doctest/doctest.h>

#include <cmath>

#include "support/material_conformance.hpp"
#include "support/random.hpp"
#include "support/single_element.hpp"
#include "support/term_derivatives.hpp"
#include "support/term_evaluation.hpp"
#include "support/tiny_models.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

/// A smooth, non-trivial deformation of the model's rest shape (no element inverted).
Eigen::VectorXd bent(const Model& model, double amount) {
  Eigen::VectorXd x = model.X;
  for (int v = 0; v < model.n_verts; ++v) {
    const double s = model.X[v * 3];
    x[v * 3 + 1] += amount * s * s;
    x[v * 3 + 2] += 0.3 * amount * std::sin(3.0 * s);
    x[v * 3] *= 1.0 + 0.5 * amount;
  }
  return x;
}

Eigen::VectorXd direction(Eigen::Index n, int k) {
  return Eigen::VectorXd::NullaryExpr(
      n, [k](Eigen::Index i) { return std::cos(0.7 * static_cast<double>(i) + k); });
}

Eigen::VectorXd product(const EnergyTerm& term, TermData& d, const Eigen::VectorXd& x,
                        const Eigen::VectorXd& u) {
  Eigen::VectorXd hu = Eigen::VectorXd::Zero(x.size());
  term.add_hessian_vector_product(d, x, u, hu);
  return hu;
}

}  // namespace

TEST_CASE("stress_differentials equals each element's dP/dF, for every density model") {
  int n_checked = 0;
  for (const auto& m : density_models())
    for (int d : {2, 3}) {
      CAPTURE(m->name());
      CAPTURE(d);
      SingleElement el(d, sample_params(*m));
      const Eigen::MatrixXd F = random_rotation(d) * random_deformation(d, 0.7, 1.4);
      const Eigen::VectorXd x = el.deformed(F);
      Eigen::VectorXd F_rows(d * d);
      for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j) F_rows[i * d + j] = F(i, j);
      Eigen::VectorXd A(d * d * d * d);
      BatchReport r;
      REQUIRE(m->stress_differentials(el.batch(), x.data(), A.data(), r));
      CHECK(r.ok());
      const RowMajor expected = stress_differential(*m, d, F_rows, el.params);
      const Eigen::Map<const RowMajor> stored(A.data(), d * d, d * d);
      CHECK((stored - expected).norm() <= 1e-12 * expected.norm());
      ++n_checked;
    }
  CHECK(n_checked >= 10);
}

TEST_CASE("the spring network has no stress differentials, and its products still come") {
  const auto springs = find_material("mass_spring");
  SingleElement el(3, sample_params(*springs));
  const Eigen::VectorXd x = el.deformed(Eigen::MatrixXd::Identity(3, 3) * 1.1);
  Eigen::VectorXd A = Eigen::VectorXd::Constant(81, 7.0);
  BatchReport r;
  CHECK_FALSE(springs->stress_differentials(el.batch(), x.data(), A.data(), r));
  CHECK(A == Eigen::VectorXd::Constant(81, 7.0));  // nothing written

  const auto model = box_model("mass_spring", 1e5, 0.25, 1000.0, {3, 2, 2}, {0.6, 0.2, 0.2});
  TermEvaluation eval(*model->terms[1], model->X);
  check_term_derivatives(*model->terms[1], eval.data(), bent(*model, 0.2), model->n_verts, 3, 1e-10,
                         1e-6, 1e-6);
}

TEST_CASE("elastic Hessian-vector products from stored differentials") {
  for (const char* material : {"stable_neo_hookean", "corotated"}) {
    const std::string name = material;
    CAPTURE(name);
    const auto model = box_model(material, 1e5, 0.3, 1000.0, {4, 2, 2}, {0.8, 0.2, 0.2});
    const EnergyTerm& term = *model->terms[1];
    const Eigen::VectorXd x1 = bent(*model, 0.3);
    const Eigen::VectorXd x2 = bent(*model, -0.2);
    TermEvaluation eval(term, model->X);

    SUBCASE("equal the assembled exact Hessian's products; the gradient matches differences") {
      check_term_derivatives(term, eval.data(), x1, model->n_verts, 3, 1e-12, 1e-7, 1e-6);
    }

    SUBCASE("equal central differences of the gradient") {
      const Eigen::VectorXd u = direction(x1.size(), 1);
      const double h = 1e-6;
      Eigen::VectorXd gp = Eigen::VectorXd::Zero(x1.size()), gm = gp;
      term.value_and_gradient(eval.data(), x1 + h * u, gp);
      term.value_and_gradient(eval.data(), x1 - h * u, gm);
      const Eigen::VectorXd fd = (gp - gm) / (2 * h);
      const Eigen::VectorXd hu = product(term, eval.data(), x1, u);
      CHECK((hu - fd).norm() <= 1e-6 * hu.norm());
    }

    SUBCASE("follow the positions: a product at x2 after x1 is x2's") {
      const Eigen::VectorXd u = direction(x1.size(), 2);
      const Eigen::VectorXd at_x1 = product(term, eval.data(), x1, u);
      const Eigen::VectorXd at_x2 = product(term, eval.data(), x2, u);
      TermEvaluation fresh(term, model->X);
      const Eigen::VectorXd expected = product(term, fresh.data(), x2, u);
      CHECK((at_x2 - expected).norm() <= 1e-14 * expected.norm());
      CHECK((at_x1 - at_x2).norm() > 1e-3 * expected.norm());  // the positions mattered
      // Back at x1, the same products as the first time, bit for bit.
      CHECK(product(term, eval.data(), x1, u) == at_x1);
    }

    SUBCASE("follow the parameters: a new step with stiffer elements") {
      const Eigen::VectorXd u = direction(x1.size(), 3);
      const Eigen::VectorXd soft = product(term, eval.data(), x1, u);
      // Both models take (youngs, poisson), group-major: at a fixed Poisson ratio, psi and H
      // are proportional to Young's modulus.
      Eigen::VectorXd stiff_p = term.default_parameters();
      REQUIRE(term.parameter_groups().front().name == "youngs");
      stiff_p.head(stiff_p.size() / 2) *= 2.0;
      TermData& d = eval.data();
      d.parameters = stiff_p.data();
      term.begin_step(d);
      const Eigen::VectorXd stiff = product(term, d, x1, u);
      CHECK((stiff - 2.0 * soft).norm() <= 1e-12 * stiff.norm());
    }
  }
}
