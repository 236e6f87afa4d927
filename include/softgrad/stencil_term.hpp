/// @file stencil_term.hpp
/// The shared code of energy terms that are sums over small stencils,
///     W(x) = sum_s E_s(x_s; q_s),
/// where a stencil is a fixed number of vertices (an element, a muscle edge, a contact vertex)
/// and q_s its local inputs: some of the term's parameters, and for lagged or dissipative terms
/// the stencil's positions at the start of the step. A term supplies its stencils and kernels
/// that evaluate every stencil at once into dense per-stencil buffers; this class does the rest,
/// once for every term: scattering into global vectors (in parallel over vertices, in stencil
/// order, so results do not depend on the thread count), Hessian assembly, diagonals, and the
/// adjoint and tangent products through the local inputs.
///
/// Terms whose stencil energy is a templated function get their kernels from the element AD:
/// AdStencilTerm (ad_stencil_term.hpp).
#pragma once

#include <memory>
#include <vector>

#include "softgrad/energy.hpp"

namespace softgrad {

class VectorScatter;

class StencilTerm : public EnergyTerm {
 public:
  ~StencilTerm() override;
  int dim() const { return dim_; }
  /// Vertices per stencil.
  int stencil_size() const { return size_; }
  int n_stencils() const { return n_stencils_; }
  /// Dofs per stencil (stencil_size() * dim()).
  int stencil_dofs() const { return size_ * dim_; }
  /// n_stencils x stencil_size model vertex indices.
  const std::vector<int>& stencil_vertices() const { return verts_; }

  std::unique_ptr<TermData> make_data() const final;
  void declare_sparsity(SparsityBuilder& builder, TermData& d) const final;
  double value(TermData& d, const Eigen::VectorXd& x) const override;
  double value_and_gradient(TermData& d, const Eigen::VectorXd& x,
                            Eigen::VectorXd& g) const override;
  void add_hessian(TermData& d, const Eigen::VectorXd& x, bool project,
                   HessianAssembler& H) const override;
  void add_hessian_vector_product(TermData& d, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                                  Eigen::VectorXd& out) const override;
  void add_hessian_diagonal(TermData& d, const Eigen::VectorXd& x,
                            Eigen::VectorXd& diag) const override;
  void pull_back(TermData& d, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                 const StepInputBars& bars) const override;
  void push_forward(TermData& d, const Eigen::VectorXd& x, const StepInputDirections& directions,
                    Eigen::VectorXd& out) const override;

 protected:
  /// Per-rollout buffers of a stencil term. A term that keeps more per step derives from it and
  /// overrides new_data().
  struct Data : TermData {
    std::vector<double> E;  ///< per stencil: energies
    std::vector<double> G;  ///< per stencil: gradients, products (stencil_dofs() each)
    std::vector<double> H;  ///< per stencil: Hessians (stencil_dofs()^2 each), sized on first use
    std::vector<double> P;  ///< per stencil: local parameter products or directions
    std::vector<double> X;  ///< per stencil: previous-position products or directions
  };

  /// @param verts n_stencils x size model vertex indices.
  /// @param n_local_parameters entries of q_s taken from the term's parameters.
  /// @param previous_positions whether q_s also holds the stencil's positions at the start of
  ///        the step (lagged and dissipative terms).
  StencilTerm(int dim, int n_verts, std::vector<int> verts, int size, int n_local_parameters,
              bool previous_positions);

  /// A Data of the term's own type (buffers are sized by make_data).
  virtual std::unique_ptr<Data> new_data() const { return std::make_unique<Data>(); }
  static Data& data(TermData& d) { return static_cast<Data&>(d); }
  static const Data& data(const TermData& d) { return static_cast<const Data&>(d); }

  // ---- Kernels: every stencil at once; outputs dense per stencil ------------------------------
  /// Sum of the E_s [J] (each also written to E); +infinity at an infeasible point.
  virtual double energies(Data& d, const double* x, double* E) const = 0;
  /// E_s and their gradients g_s; false at an infeasible point (outputs then unspecified).
  virtual bool gradients(Data& d, const double* x, double* E, double* G) const = 0;
  /// Hessians H_s (row-major) of the `count` stencils from `first` on, into H from its start,
  /// each projected to PSD when `project`. Assembly asks for chunks of stencils at a time.
  virtual void hessians(Data& d, const double* x, bool project, int first, int count,
                        double* H) const = 0;
  /// H_s u_s for the global direction u.
  virtual void hessian_products(Data& d, const double* x, const double* u, double* HU) const = 0;
  /// d/dq_s (lambda_s . dE_s/dx_s): the parameter part into P (n_local_parameters per stencil),
  /// the previous-position part into X (stencil_dofs per stencil) when the term has one.
  virtual void parameter_products(Data& d, const double* x, const double* lambda, double* P,
                                  double* X) const {}
  /// (d^2E_s / dx_s dq_s) dq_s into out (stencil_dofs per stencil), for local directions dP
  /// and dX laid out as parameter_products writes them.
  virtual void parameter_jvps(Data& d, const double* x, const double* dP, const double* dX,
                              double* out) const {}
  /// parameters_bar += the local parameter products P mapped to the term's parameters.
  virtual void scatter_parameter_products(const Data& d, const double* P,
                                          double* parameters_bar) const {}
  /// dP = a direction of the term's parameters mapped to the local parameters.
  virtual void gather_parameter_directions(const Data& d, const double* direction,
                                           double* dP) const {}

  /// Stencil s's values of a global per-vertex vector (stencil_dofs values).
  void gather(const double* global, int s, double* local) const;
  /// out += scale * the per-stencil vectors `local` (stencil_dofs each), summed per vertex.
  void scatter(const double* local, Eigen::VectorXd& out, double scale = 1.0) const;
  int n_local_parameters() const { return n_local_parameters_; }

 private:
  int dim_;
  int size_;
  int n_stencils_;
  int n_local_parameters_;
  bool previous_positions_;
  std::vector<int> verts_;
  std::unique_ptr<const VectorScatter> scatter_;
};

}  // namespace softgrad
