/// @file mlp.hpp
/// A small multilayer perceptron (tanh hidden layers, linear output) with exact reverse-mode
/// products: what the closed-loop policies use, both for training through the simulator and
/// for the model-free baselines. Parameters are one flat vector (weights then biases, layer by
/// layer), initialised from a seed.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace softgrad {

class Mlp {
 public:
  Mlp() = default;
  /// sizes = {inputs, hidden..., outputs}. Weights ~ N(0, 1/fan_in) (the last layer scaled by
  /// `output_scale`), biases zero.
  Mlp(std::vector<int> sizes, std::uint64_t seed, double output_scale = 0.1);

  int inputs() const { return sizes_.front(); }
  int outputs() const { return sizes_.back(); }
  int n_parameters() const { return static_cast<int>(params_.size()); }
  const Eigen::VectorXd& parameters() const { return params_; }
  void set_parameters(const Eigen::VectorXd& p);
  const std::vector<int>& sizes() const { return sizes_; }

  /// y = f(x).
  Eigen::VectorXd forward(const Eigen::VectorXd& x) const;
  /// For y = f(x) and an output adjoint ybar: param_bar += (dy/dp)^T ybar, and returns
  /// x_bar = (dy/dx)^T ybar. Recomputes the forward pass (no stored activations).
  Eigen::VectorXd backward(const Eigen::VectorXd& x, const Eigen::VectorXd& ybar,
                           Eigen::VectorXd& param_bar) const;

 private:
  std::vector<int> sizes_;
  Eigen::VectorXd params_;
};

}  // namespace softgrad
