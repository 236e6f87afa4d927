/// @file term_evaluation.hpp
/// One energy term evaluated outside a simulator: its TermData for a step (a static one, or a
/// step of dt from x_prev) with the term's default parameters or given ones.
#pragma once

#include <memory>

#include "softgrad/energy.hpp"

namespace softgrad::test {

class TermEvaluation {
 public:
  TermEvaluation(const EnergyTerm& term, const Eigen::VectorXd& x_prev, double dt = 0.0,
                 Eigen::VectorXd parameters = {}, int step = 0)
      : x_prev_(x_prev),
        v_prev_(Eigen::VectorXd::Zero(x_prev.size())),
        parameters_(parameters.size() > 0 ? std::move(parameters) : term.default_parameters()),
        data_(term.make_data()) {
    data_->step = {dt, dt, &x_prev_, &v_prev_, step};
    data_->parameters = parameters_.data();
    term.begin_step(*data_);
  }
  TermEvaluation(const TermEvaluation&) = delete;
  TermEvaluation& operator=(const TermEvaluation&) = delete;

  TermData& data() { return *data_; }

 private:
  Eigen::VectorXd x_prev_, v_prev_, parameters_;
  std::unique_ptr<TermData> data_;
};

/// The gradient of a term at x.
inline Eigen::VectorXd term_gradient(const EnergyTerm& term, TermData& d,
                                     const Eigen::VectorXd& x) {
  Eigen::VectorXd g = Eigen::VectorXd::Zero(x.size());
  term.value_and_gradient(d, x, g);
  return g;
}

}  // namespace softgrad::test
