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

class IncrementalPotential;

class StepLinearization {
 public:
  /// Uses the simulator's potential and assembler (pattern analysed once), and its linear
  /// solver when `options` asks for the same kind. With `keep_factorizations` (the adjoint: one
  /// right-hand side per step), a direct solver of its own keeps factorisations across steps.
  StepLinearization(Simulator& sim, const LinearSolverOptions& options,
                    bool keep_factorizations = false);
  ~StepLinearization();

  std::string backend() const;

  /// Linearises the step prev -> x (dynamic), or the equilibrium x at prev.t (statics), with the
  /// rollout's parameter values (which must outlive the linearisation's use).
  /// Assembles the exact Hessian. A direct solver factorises it, unless the factorisation of an
  /// earlier step is kept (see solve()); if it is not positive definite, the step falls back to
  /// sparse LU and indefinite() says so.
  void linearize(const State& prev, const Eigen::VectorXd& x, bool statics,
                 const TermParameters& parameters);
  bool indefinite() const { return indefinite_; }

  /// lambda = H^-1 rhs on the free dofs, 0 on the kinematic ones (rhs there is ignored).
  /// With a direct solver, a factorisation kept from an earlier step preconditions CG on this
  /// step's Hessian (to the options' rel_tol): the Hessians of neighbouring steps differ by one
  /// step's motion, so a few CG iterations, each one solve with the kept factor, replace a new
  /// factorisation (peer beam at 10k tets: ~11 solves' worth). When CG takes more than
  /// max(kMinReuseIterations, cost / 8) iterations, cost the factorisation's in solves, the
  /// next step factorises again; when it fails to converge within twice that, this step does.
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

  /// The fewest CG iterations a kept factorisation is allowed before it is replaced.
  static constexpr int kMinReuseIterations = 4;
  /// Factorisations are kept across steps only where one costs at least this many solves
  /// (LinearSolver::factorization_cost_in_solves: the peer beam 38 at 2.5k tets, 88 at 10k).
  static constexpr double kMinReuseCost = 32.0;
  /// Factorisations this linearisation has computed (for reports and tests).
  int factorizations() const { return factorizations_; }
  /// Steps whose iterative solve could not converge (CG gave up or broke down) and were solved
  /// again by CHOLMOD, in the order solved.
  const std::vector<int>& direct_fallback_steps() const { return fallback_steps_; }
  /// Whether a CG solve that cannot converge is solved again by CHOLMOD (default: no).
  void set_direct_fallback(bool on) { direct_fallback_ = on; }

 private:
  void factorize_exact(int step);
  bool solve_with_kept_factor(const Eigen::VectorXd& b, Eigen::VectorXd& lambda,
                              RecycledGuess* recycled, LinearSolveReport& r);
  int reuse_iterations() const;
  LinearSolveReport solve_directly(const Eigen::VectorXd& b, Eigen::VectorXd& lambda,
                                   const LinearSolveReport& failed);

  const Model& model_;
  double dt_step_;             ///< the simulator's dt
  IncrementalPotential* phi_;  ///< the simulator's
  LinearSolverOptions options_;
  std::unique_ptr<LinearSolver> own_solver_;  ///< when the kind differs from Newton's
  LinearSolver* solver_ = nullptr;            ///< null for matrix-free
  std::unique_ptr<MatrixFreeCgSolver> matrix_free_;
  SparseMatrixOperator assembled_;  ///< the factorised matrix, for recycled guesses
  Eigen::SparseLU<SparseMatrix> lu_;
  bool indefinite_ = false;
  bool reuse_ = false;        ///< a direct solver of its own, whose factorisation steps may share
  bool have_factor_ = false;  ///< the solver holds a factorisation of an exact Hessian
  bool stale_ = false;        ///< ... of an earlier step's Hessian, not this one's
  bool refactor_ = false;     ///< the last solve with the kept factor was slow: factorise next time
  int step_ = 0;
  int factorizations_ = 0;
  std::unique_ptr<LinearSolver> direct_;  ///< CHOLMOD, made at the first fallback
  std::vector<int> fallback_steps_;
  bool direct_fallback_ = false;
  CgScratch<Eigen::VectorXd> cg_;
  bool statics_ = false;
  double dt_ = 0.0;
  Eigen::VectorXd x_;
  Eigen::VectorXd x_prev_, v_prev_;
  Eigen::VectorXd adaptive_;  ///< the terms' adaptive values at the start of the step
  Eigen::VectorXd scratch_;
  Eigen::VectorXd mass_bar_;        ///< lambda^T dg/dM (pull_back with densities)
  Eigen::VectorXd mass_direction_;  ///< dM (push_forward with densities)
};

}  // namespace softgrad
