// A term written outside the library, with a parameter, gets exact gradients from the adjoint
// through its mixed product alone: no adjoint code of its own.
#include <doctest/doctest.h>

#include "adjoint/gradient_check.hpp"
#include "softgrad/assembly.hpp"

namespace softgrad::test {
namespace {

/// W = k/2 sum_v |x_v - a_v|^2: vertices tied to anchor points by zero-length springs.
class AnchorTerm final : public EnergyTerm {
 public:
  AnchorTerm(int dim, std::vector<int> verts, Eigen::VectorXd anchors, double k)
      : dim_(dim), verts_(std::move(verts)), anchors_(std::move(anchors)), k_(k) {}
  std::string name() const override { return "anchor"; }
  void declare_sparsity(SparsityBuilder&) override {}
  double value(const Eigen::VectorXd& x) const override {
    double w = 0.0;
    for (size_t i = 0; i < verts_.size(); ++i) w += 0.5 * k_ * r(x, i).squaredNorm();
    return w;
  }
  void add_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const override {
    for (size_t i = 0; i < verts_.size(); ++i) g.segment(verts_[i] * dim_, dim_) += k_ * r(x, i);
  }
  void add_hessian(const Eigen::VectorXd& x, bool, HessianAssembler& H) const override {
    Eigen::VectorXd d = Eigen::VectorXd::Zero(x.size());
    add_hessian_diagonal(x, d);
    H.add_diagonal(d);
  }
  void add_hessian_vector_product(const Eigen::VectorXd&, const Eigen::VectorXd& u,
                                  Eigen::VectorXd& out) const override {
    for (int v : verts_) out.segment(v * dim_, dim_) += k_ * u.segment(v * dim_, dim_);
  }
  void add_hessian_diagonal(const Eigen::VectorXd&, Eigen::VectorXd& d) const override {
    for (int v : verts_) d.segment(v * dim_, dim_).array() += k_;
  }
  // The parameter: one group, and the two products of d(dW/dx)/dk = sum_v (x_v - a_v).
  std::vector<ParameterGroup> parameter_groups() const override {
    return {{"stiffness", "N/m", 0, 1, ParameterGroup::Layout::Scalar, 0.0, 1e300}};
  }
  void get_parameters(double* p) const override { p[0] = k_; }
  void set_parameters(const double* p) override { k_ = p[0]; }
  void add_parameter_mixed_product(const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                                   double* out) const override {
    for (size_t i = 0; i < verts_.size(); ++i)
      out[0] += lambda.segment(verts_[i] * dim_, dim_).dot(r(x, i));
  }
  void add_parameter_jvp(const Eigen::VectorXd& x, const double* dp,
                         Eigen::VectorXd& out) const override {
    for (size_t i = 0; i < verts_.size(); ++i)
      out.segment(verts_[i] * dim_, dim_) += dp[0] * r(x, i);
  }

 private:
  Eigen::VectorXd r(const Eigen::VectorXd& x, size_t i) const {
    return x.segment(verts_[i] * dim_, dim_) - anchors_.segment(i * dim_, dim_);
  }
  int dim_;
  std::vector<int> verts_;
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
  m.terms.push_back(std::make_unique<AnchorTerm>(3, p.tip, anchors, 20.0));
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
