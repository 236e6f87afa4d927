/// @file step_linearization.hpp
/// One converged step (or static equilibrium) linearised: the exact Hessian H of the incremental
/// potential at the solution, factorised (or applied matrix-free), and the two products of the
/// step's input Jacobian dg/d(inputs) that the adjoint (pull_back) and forward sensitivities
/// (push_forward) need. Inputs: x_n, v_n, the terms' parameters and the kinematic positions.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseLU>
#include <memory>
#include <vector>

#include "softgrad/adjoint.hpp"
#include "softgrad/simulator.hpp"
#include "solvers/cpu/linear_operator.hpp"
#include "solvers/cpu/matrix_free_cg.hpp"
#include "solvers/cpu/recycled_guess.hpp"

namespace softgrad {

class StepLinearization {
 public:
  /// Uses the simulator's potential and assembler (pattern analysed once), and its linear
  /// solver when `options` asks for the same kind.
  StepLinearization(Simulator& sim, const LinearSolverOptions& options);
  ~StepLinearization();

  std::string backend() const;

  /// Linearises the step prev -> x (dynamic), or the equilibrium x at prev.t (statics), with the
  /// rollout's parameter values (which must outlive the linearisation's use).
  /// Factorises the exact Hessian; if it is not positive definite, falls back to sparse LU
  /// and indefinite() says so.
  void linearize(const State& prev, const Eigen::VectorXd& x, bool statics,
                 const TermParameters& parameters);
  bool indefinite() const { return indefinite_; }

  /// lambda = H^-1 rhs on the free dofs, 0 on the kinematic ones (rhs there is ignored).
  /// lambda is the warm start of the CG backends; with `recycled`, the CG backends start from
  /// its projection (the kept solutions and lambda), and the solution is kept there. Returns the
  /// linear solver's report.
  LinearSolveReport solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& lambda,
                          RecycledGuess* recycled = nullptr);

  /// out = H_full u: the exact Hessian of the potential without kinematic elimination.
  void hessian_product(const Eigen::VectorXd& u, Eigen::VectorXd& out);

  /// For y_bar = -lambda^T dg/dy over the step's inputs y:
  /// x_prev_bar += ..., v_prev_bar += ..., term_bars[t] += ... (for each t with a non-empty
  /// vector, sized Model::terms[t]->n_parameters()).
  void pull_back(const Eigen::VectorXd& lambda, Eigen::VectorXd& x_prev_bar,
                 Eigen::VectorXd& v_prev_bar, std::vector<Eigen::VectorXd>& term_bars);

  /// dg = dg/dx_n dx_prev + dg/dv_n dv_prev + sum_t dg/dp_t dp[t] (dp[t] null: no direction).
  void push_forward(const Eigen::VectorXd& dx_prev, const Eigen::VectorXd& dv_prev,
                    const std::vector<const double*>& dp, Eigen::VectorXd& dg);

  const std::vector<int>& kinematic_dofs() const;

 private:
  Simulator& sim_;
  Simulator::Impl& impl_;
  LinearSolverOptions options_;
  std::unique_ptr<LinearSolver> own_solver_;  ///< when the kind differs from Newton's
  LinearSolver* solver_ = nullptr;            ///< null for matrix-free
  std::unique_ptr<MatrixFreeCgSolver> matrix_free_;
  SparseMatrixOperator assembled_;  ///< the factorised matrix, for recycled guesses
  Eigen::SparseLU<SparseMatrix> lu_;
  bool indefinite_ = false;
  bool statics_ = false;
  double dt_ = 0.0;
  Eigen::VectorXd x_;
  Eigen::VectorXd x_prev_, v_prev_;
  Eigen::VectorXd adaptive_;  ///< the terms' adaptive values at the start of the step
  Eigen::VectorXd scratch_;
};

}  // namespace softgrad
