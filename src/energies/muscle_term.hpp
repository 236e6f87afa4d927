/// @file muscle_term.hpp
/// A sum of small per-stencil energies E_s(x_s; a_m(s)) driven by per-step muscle activations
/// (softgrad/muscles.hpp): muscle edges (2 vertices) and fibre muscles (an element's d + 1).
/// Every derivative, the activation products included, comes from the element AD.
#pragma once

#include <vector>

#include "softgrad/energy.hpp"

namespace softgrad {

/// Energy is a functor `T operator()(const T* x, const P* a)` over the stencil's N positions;
/// one per stencil (it carries rest data).
template <class Energy, int N>
class MuscleTerm final : public EnergyTerm {
 public:
  static constexpr int kVerts = Energy::kVerts;
  MuscleTerm(std::string name, int dim, std::vector<int> verts, std::vector<Energy> energies,
             std::vector<int> muscle_of, int n_muscles, int n_steps);

  std::string name() const override { return name_; }
  void declare_sparsity(SparsityBuilder& builder) override;
  void begin_step(const StepContext& ctx) override { step_ = ctx.step; }
  double value(const Eigen::VectorXd& x) const override;
  void add_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const override;
  double value_and_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const override;
  void add_hessian(const Eigen::VectorXd& x, bool project, HessianAssembler& H) const override;
  void add_hessian_vector_product(const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                                  Eigen::VectorXd& out) const override;
  void add_hessian_diagonal(const Eigen::VectorXd& x, Eigen::VectorXd& d) const override;

  std::vector<ParameterGroup> parameter_groups() const override;
  void get_parameters(double* p) const override;
  void set_parameters(const double* p) override;
  void set_parameter_range(int offset, const double* values, int count) override;
  void get_parameter_range(int offset, double* values, int count) const override;
  void add_parameter_mixed_product(const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                                   double* out) const override;
  void add_parameter_jvp(const Eigen::VectorXd& x, const double* dp,
                         Eigen::VectorXd& out) const override;

 private:
  int n_stencils() const { return static_cast<int>(energies_.size()); }
  double activation(int s) const;
  void gather(const Eigen::VectorXd& v, int s, double* out) const;
  void scatter(const double* in, int s, Eigen::VectorXd& v) const;

  std::string name_;
  int dim_;
  std::vector<int> verts_;  ///< n_stencils x kVerts
  std::vector<Energy> energies_;
  std::vector<int> muscle_of_;
  int n_muscles_;
  int n_steps_;
  std::vector<double> activations_;  ///< n_steps x n_muscles
  int step_ = 0;
  int stencil_set_ = -1;
  mutable std::vector<double> blocks_;
};

}  // namespace softgrad
