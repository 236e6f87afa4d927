/// @file muscle_term.hpp
/// A sum of small per-stencil energies E_s(x_s; a_m(s)) driven by per-step muscle activations
/// (softgrad/muscles.hpp): muscle edges (2 vertices) and fibre muscles (an element's d + 1).
/// Every derivative, the activation products included, comes from the element AD
/// (AdStencilTerm); muscle edges also give their gradient and Hessian in closed form.
#pragma once

#include <vector>

#include "softgrad/ad_stencil_term.hpp"

namespace softgrad {

/// Energy is a functor `T operator()(const T* x, const P* a)` over the stencil's N positions;
/// one per stencil (it carries rest data).
template <class Energy, int N>
class MuscleTerm final : public AdStencilTerm<MuscleTerm<Energy, N>, N, 1> {
  using Base = AdStencilTerm<MuscleTerm<Energy, N>, N, 1>;
  using Data = typename Base::Data;
  friend Base;

 public:
  MuscleTerm(std::string name, int dim, int n_verts, std::vector<int> verts,
             std::vector<Energy> energies, std::vector<int> muscle_of, int n_muscles, int n_steps);

  std::string name() const override { return name_; }
  /// One PerStep group "activation": p[n * n_muscles + m] drives muscle m in step n.
  std::vector<ParameterGroup> parameter_groups() const override;
  Eigen::VectorXd default_parameters() const override;
  void validate_parameters(const double* p) const override;
  void validate_parameter_range(int offset, const double* values, int count) const override;

 private:
  // AdStencilTerm's hooks.
  const Energy& stencil_energy(const Data&, int s) const { return energies_[s]; }
  void local_inputs(const Data& d, int s, double* q) const;
  bool closed_form(const Data& d, int s, const double* xs, const double* q, double& e, double* g,
                   double* H) const;
  void scatter_parameter_products(const Data& d, const double* P,
                                  double* parameters_bar) const override;
  void gather_parameter_directions(const Data& d, const double* direction,
                                   double* dP) const override;
  /// Index of stencil s's activation in the parameters, -1 outside the activations' steps.
  int activation_index(const Data& d, int s) const;

  std::string name_;
  std::vector<Energy> energies_;
  std::vector<int> muscle_of_;
  int n_muscles_;
  int n_steps_;
};

}  // namespace softgrad
