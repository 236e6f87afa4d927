/// @file state_loss.hpp
/// A loss written by the user as a generic function of the states, differentiated by softgrad's
/// reverse-mode AD (its scalar type comes from the AD tape, hence a header of its own).
#pragma once

#include <functional>
#include <vector>

#include "softgrad/ad/tape.hpp"
#include "softgrad/loss.hpp"

namespace softgrad {

/// A user loss on chosen vertices, differentiated by softgrad's reverse-mode AD:
///     l_n = fn(n, T, t, x, v)
/// where x and v point to the |vertices| * dim positions and velocities of those vertices as
/// AD scalars (ad::Var<double>) and fn returns one. Write it generically, like an energy:
///     auto fn = [](int n, int T, double t, const auto* x, const auto* v) {
///       return n == T ? 0.5 * (x[1] - 1.0) * (x[1] - 1.0) : decltype(x[0])(0.0); };
class StateLoss final : public Loss {
 public:
  using Scalar = ad::Var<double>;
  using Function = std::function<Scalar(int n, int T, double t, const Scalar* x, const Scalar* v)>;
  /// @param tape_capacity AD nodes per evaluation (the heap tape is sized once).
  StateLoss(const Model& model, std::vector<int> vertices, Function fn,
            int tape_capacity = 1 << 16);
  double evaluate(int n, int T, const State& s, Eigen::VectorXd* xbar,
                  Eigen::VectorXd* vbar) const override;

 private:
  int dim_;
  std::vector<int> vertices_;
  Function fn_;
  int capacity_;
};

}  // namespace softgrad
