/// @file damping_term.hpp
/// Rayleigh damping as a dissipation potential over one step (dynamics only):
///   D(x) = 1/(2 dt) (x - x_n)^T (alpha M + beta K_n) (x - x_n),
/// K_n the PSD-projected elastic Hessian at the step's start, held fixed during the step, so
/// that dD/dx = (alpha M + beta K_n) v_{n+1} is the damping force of the new velocity.
#pragma once

#include <vector>

#include "../assembly/vector_scatter.hpp"
#include "softgrad/energy.hpp"
#include "softgrad/model.hpp"

namespace softgrad {

class DampingTerm final : public EnergyTerm {
 public:
  /// References the model's bodies and masses, which must outlive the term.
  DampingTerm(const Model& model, double alpha, double beta);

  std::string name() const override { return "damping"; }
  bool in_statics() const override { return false; }
  void declare_sparsity(SparsityBuilder& builder) override;
  void begin_step(const StepContext& ctx) override;
  double value(const Eigen::VectorXd& x) const override;
  void add_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const override;
  void add_hessian(const Eigen::VectorXd& x, bool project, HessianAssembler& H) const override;
  void add_hessian_vector_product(const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                                  Eigen::VectorXd& out) const override;
  void add_hessian_diagonal(const Eigen::VectorXd& x, Eigen::VectorXd& d) const override;

 private:
  /// out += (alpha M + beta K_n) u / dt.
  void apply(const Eigen::VectorXd& u, Eigen::VectorXd& out) const;

  struct BodyBlocks {
    const Body* body;
    int stencil_set = -1;
    VectorScatter scatter;
    std::vector<double> K;           ///< per-element projected Hessians at x_n
    mutable std::vector<double> Ku;  ///< per-element products (scratch)
  };
  const Model& model_;
  double alpha_;
  double beta_;
  double dt_ = 0.0;
  Eigen::VectorXd x_prev_;
  std::vector<BodyBlocks> blocks_;
  mutable Eigen::VectorXd scratch_;
};

}  // namespace softgrad
