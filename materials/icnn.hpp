/// @file icnn.hpp
/// The input-convex network of the neural material (materials/neural.hpp): N(z) for z in R^3,
///
///     a_1 = W_1 z + b_1,   a_l = V_l y_{l-1} + W_l z + b_l (l > 1),   y_l = softplus(a_l),
///     N = q . y_L,
///
/// with V_l, W_l and q non-negative (softplus of the raw parameters: a reparametrisation, not a
/// clip) and the biases free. Softplus is convex and increasing, so N is convex and
/// non-decreasing in z, and so is each dN/dz_k (every path from z_k to N has non-negative
/// weights and non-decreasing slopes). The derivatives are written out by hand: values,
/// gradient and Hessian in z, and gradients in the raw parameters of N and of a directional
/// derivative dN/dz . t, which is what the adjoint's mixed products need.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace softgrad::detail {

class Icnn {
 public:
  static constexpr int kInputs = 3;
  static constexpr int kMaxWidth = 64;
  static constexpr int kMaxLayers = 4;

  /// hidden: the layer widths (may be empty: N = 0). @throws InputError beyond the limits.
  explicit Icnn(std::vector<int> hidden);

  const std::vector<int>& hidden() const { return hidden_; }
  /// Raw parameters: per layer V_l (width x previous width, l > 1), W_l (width x 3), b_l, then q.
  int n_weights() const { return n_weights_; }
  /// What weight i is, e.g. "layer 2 V[3][1]", for messages.
  std::string describe(int i) const;
  /// A small deterministic start: a mild stiffening, with distinct units.
  std::vector<double> initial_weights() const;

  /// The raw weights turned into the network's values (softplus where non-negative), with
  /// their slopes d(value)/d(raw), for one raw vector; reused while the raw vector repeats.
  struct Weights {
    std::vector<double> raw;
    std::vector<double> value;
    std::vector<double> slope;
  };
  void prepare(std::span<const double> raw, Weights& w) const;

  /// N(z), and optionally dN/dz (3) and d2N/dz2 (3 x 3, row-major).
  double evaluate(const Weights& w, const double* z, double* grad, double* hess) const;
  /// raw_bar += cN dN/draw + cT d(dN/dz . t)/draw (t may be null when cT is 0).
  void parameter_gradient(const Weights& w, const double* z, const double* t, double cN, double cT,
                          double* raw_bar) const;

 private:
  struct Layer {
    int width = 0, previous = 0;
    int V = 0, W = 0, b = 0;  // offsets into the weights
  };
  std::vector<int> hidden_;
  std::vector<Layer> layers_;
  int q_ = 0;
  int n_weights_ = 0;
};

}  // namespace softgrad::detail
