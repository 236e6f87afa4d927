#include "softgrad/mlp.hpp"

#include <cmath>
#include <random>

#include "softgrad/errors.hpp"

namespace softgrad {
namespace {

/// Offsets of layer l's weights (rows = out, cols = in, row-major) and biases.
struct Layout {
  std::vector<int> w, b;
};

Layout layout(const std::vector<int>& sizes) {
  Layout L;
  int k = 0;
  for (size_t l = 0; l + 1 < sizes.size(); ++l) {
    L.w.push_back(k);
    k += sizes[l] * sizes[l + 1];
    L.b.push_back(k);
    k += sizes[l + 1];
  }
  return L;
}

}  // namespace

Mlp::Mlp(std::vector<int> sizes, std::uint64_t seed, double output_scale)
    : sizes_(std::move(sizes)) {
  if (sizes_.size() < 2) throw InputError("an MLP needs at least an input and an output layer");
  for (int s : sizes_)
    if (s < 1) throw InputError("MLP layer sizes must be positive");
  const Layout L = layout(sizes_);
  int total = 0;
  for (size_t l = 0; l + 1 < sizes_.size(); ++l) total += sizes_[l] * sizes_[l + 1] + sizes_[l + 1];
  params_.setZero(total);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (size_t l = 0; l + 1 < sizes_.size(); ++l) {
    const double scale = (l + 2 == sizes_.size() ? output_scale : 1.0) / std::sqrt(sizes_[l]);
    for (int i = 0; i < sizes_[l] * sizes_[l + 1]; ++i) params_[L.w[l] + i] = scale * normal(rng);
  }
}

void Mlp::set_parameters(const Eigen::VectorXd& p) {
  if (p.size() != params_.size())
    throw InputError("MLP: expected " + std::to_string(params_.size()) + " parameters, got " +
                     std::to_string(p.size()));
  params_ = p;
}

Eigen::VectorXd Mlp::forward(const Eigen::VectorXd& x) const {
  if (x.size() != inputs())
    throw InputError("MLP: expected " + std::to_string(inputs()) + " inputs, got " +
                     std::to_string(x.size()));
  const Layout L = layout(sizes_);
  Eigen::VectorXd h = x;
  for (size_t l = 0; l + 1 < sizes_.size(); ++l) {
    const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>
        W(params_.data() + L.w[l], sizes_[l + 1], sizes_[l]);
    const Eigen::Map<const Eigen::VectorXd> b(params_.data() + L.b[l], sizes_[l + 1]);
    Eigen::VectorXd z = W * h + b;
    if (l + 2 < sizes_.size()) z = z.array().tanh();
    h = std::move(z);
  }
  return h;
}

Eigen::VectorXd Mlp::backward(const Eigen::VectorXd& x, const Eigen::VectorXd& ybar,
                              Eigen::VectorXd& param_bar) const {
  const Layout L = layout(sizes_);
  const size_t n_layers = sizes_.size() - 1;
  if (param_bar.size() != params_.size()) param_bar.setZero(params_.size());
  std::vector<Eigen::VectorXd> h(n_layers + 1);  // inputs of each layer, then the output
  h[0] = x;
  for (size_t l = 0; l < n_layers; ++l) {
    const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>
        W(params_.data() + L.w[l], sizes_[l + 1], sizes_[l]);
    const Eigen::Map<const Eigen::VectorXd> b(params_.data() + L.b[l], sizes_[l + 1]);
    Eigen::VectorXd z = W * h[l] + b;
    if (l + 1 < n_layers) z = z.array().tanh();
    h[l + 1] = std::move(z);
  }
  Eigen::VectorXd g = ybar;  // d/d(layer output)
  for (size_t l = n_layers; l-- > 0;) {
    if (l + 1 < n_layers) g = g.array() * (1.0 - h[l + 1].array().square());  // through tanh
    const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>
        W(params_.data() + L.w[l], sizes_[l + 1], sizes_[l]);
    Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> Wbar(
        param_bar.data() + L.w[l], sizes_[l + 1], sizes_[l]);
    Wbar += g * h[l].transpose();
    param_bar.segment(L.b[l], sizes_[l + 1]) += g;
    g = W.transpose() * g;
  }
  return g;
}

}  // namespace softgrad
