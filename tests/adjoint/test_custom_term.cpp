// A term written outside the library, with a parameter, gets exact gradients from the adjoint
// through the stencil base alone: no derivative or adjoint code of its own.
#include <doctest/doctest.h>

#include "adjoint/gradient_check.hpp"
#include "softgrad/ad_stencil_term.hpp"

namespace softgrad::test {
namespace {

/// W = k/2 sum_v |x_v - a_v|^2: vertices tied to anchor points by zero-length springs. Written
/// as a user would, on the AD stencil base: one stencil per vertex, its energy a template, and
/// the parameter k mapped to the stencils' local inputs. Everything else (gradients, Hessians,
/// the adjoint's products) comes from the base.
class AnchorTerm final : public AdStencilTerm<AnchorTerm, 3, 1> {
  friend AdStencilTerm<AnchorTerm, 3, 1>;

 public:
  AnchorTerm(int n_verts, std::vector<int> verts, Eigen::VectorXd anchors, double k)
      : AdStencilTerm(3, n_verts, std::move(verts), 1), anchors_(std::move(anchors)), k_(k) {}
  std::string name() const override { return "anchor"; }
  std::vector<ParameterGroup> parameter_groups() const override {
    return {{"stiffness", "N/m", 0, 1, ParameterGroup::Layout::Scalar, 0.0, 1e300}};
  }
  Eigen::VectorXd default_parameters() const override { return Eigen::VectorXd::Constant(1, k_); }

 private:
  /// E_s(x; k) = k/2 |x - a_s|^2.
  struct Spring {
    const double* a;
    template <class T, class P>
    T operator()(const T* x, const P* q) const {
      T e = T(0.0);
      for (int i = 0; i < 3; ++i) e = e + 0.5 * q[0] * (x[i] - a[i]) * (x[i] - a[i]);
      return e;
    }
  };
  Spring stencil_energy(const Data&, int s) const { return {anchors_.data() + 3 * s}; }
  void local_inputs(const Data& d, int, double* q) const { q[0] = d.parameters[0]; }
  void scatter_parameter_products(const Data&, const double* P, double* bar) const override {
    for (int s = 0; s < n_stencils(); ++s) bar[0] += P[s];
  }
  void gather_parameter_directions(const Data&, const double* dir, double* dP) const override {
    for (int s = 0; s < n_stencils(); ++s) dP[s] = dir[0];
  }

  Eigen::VectorXd anchors_;
  double k_;
};

}  // namespace

TEST_CASE("adjoint: a user-defined term's parameter is differentiated through its mixed product") {
  Problem p = cantilever_problem(3, 20);
  Model& m = *p.model;
  Eigen::VectorXd anchors(p.tip.size() * 3);
  for (size_t i = 0; i < p.tip.size(); ++i)
    anchors.segment(i * 3, 3) = m.X.segment(p.tip[i] * 3, 3) + Eigen::Vector3d(0.0, 0.02, 0.0);
  m.terms.push_back(std::make_unique<AnchorTerm>(m.n_verts, p.tip, anchors, 20.0));
  p.sim = std::make_unique<Simulator>(p.model, p.sim->options());  // the pattern is analysed anew
  const auto loss = mixed_loss(p);
  const ParameterSet params(*p.sim, p.rollout, {"anchor.stiffness", "youngs"});
  const GradientResult g = gradient(*p.sim, simulate(*p.sim, p.rollout), *loss, params);
  const GradientResult t = tangent_gradient(*p.sim, p.rollout, *loss, params);
  for (int i = 0; i < 2; ++i) {
    INFO(params.label(i));
    Eigen::VectorXd d = Eigen::VectorXd::Zero(2);
    d[i] = std::abs(params.get(*p.sim, p.rollout)[i]);
    const double fd = directional_fd(p, params, d, *loss, 1e-4);
    CHECK(std::abs(fd) > 1e-8);
    CHECK(g.gradient.dot(d) == doctest::Approx(fd).epsilon(1e-6));
    CHECK(t.gradient[i] == doctest::Approx(g.gradient[i]).epsilon(1e-10));
  }
}

}  // namespace softgrad::test
