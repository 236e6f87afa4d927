/// @file recycled_guess.hpp
/// A starting guess for CG from the solutions of earlier, similar systems (Fischer, "Projection
/// techniques for iterative solution of Ax = b with successive right-hand sides", 1998): the
/// adjoint solves one system per step, backward in time, with matrices and right-hand sides that
/// change little from one step to the next. The guess is the A-norm-closest point to A^-1 b in
/// the span of the last few solutions (a Galerkin projection: k products with A and a k x k
/// system), so it is never further from the solution, in the A-norm, than any of them alone,
/// the previous solution (the plain warm start) included.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "solvers/cpu/linear_operator.hpp"

namespace softgrad {

class RecycledGuess {
 public:
  /// Keeps at most `capacity` solutions (0: guess() leaves x alone).
  explicit RecycledGuess(int capacity) : capacity_(capacity) {}

  /// x <- the Galerkin projection of A^-1 b onto the span of the kept solutions and of x itself
  /// (the caller's warm start). Directions that are linearly dependent to round-off are dropped.
  /// Leaves x alone when nothing is kept, or when A is not positive on the span (then CG itself
  /// reports the matrix). @pre A symmetric; b.size() == x.size() == A.size().
  void guess(const LinearOperator& A, const Eigen::VectorXd& b, Eigen::VectorXd& x);
  /// Keeps x (a converged solution), dropping the oldest beyond the capacity.
  void add(const Eigen::VectorXd& x);

  /// Solutions kept.
  int size() const { return static_cast<int>(kept_.size()); }

 private:
  int capacity_;
  std::vector<Eigen::VectorXd> kept_;              // oldest first
  std::vector<Eigen::VectorXd> basis_, products_;  // scratch: the span and A times it
};

}  // namespace softgrad
