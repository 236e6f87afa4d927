#include "icnn.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "softgrad/errors.hpp"

namespace softgrad::detail {
namespace {

// softplus(x) = log(1 + e^x) without overflow, and its first two derivatives.
double softplus(double x) {
  return x > 0.0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}
double sigmoid(double x) {
  if (x >= 0.0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}

// softplus(x), its slope sigmoid(x) and its curvature from one exponential (the curvature
// e / (1 + e)^2 stays exact where 1 - sigmoid(x) would round to 0).
void softplus_and_slopes(double x, double& value, double& slope, double& curvature) {
  const double e = std::exp(-std::abs(x));
  value = std::max(x, 0.0) + std::log1p(e);
  slope = x >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
  curvature = e / ((1.0 + e) * (1.0 + e));
}

constexpr int K = Icnn::kInputs;
constexpr int W = Icnn::kMaxWidth;
constexpr int L = Icnn::kMaxLayers;

}  // namespace

Icnn::Icnn(std::vector<int> hidden) : hidden_(std::move(hidden)) {
  if (static_cast<int>(hidden_.size()) > kMaxLayers)
    throw InputError("a neural material has at most " + std::to_string(kMaxLayers) +
                     " hidden layers, got " + std::to_string(hidden_.size()));
  int offset = 0, previous = 0;
  for (size_t l = 0; l < hidden_.size(); ++l) {
    const int width = hidden_[l];
    if (width < 1 || width > kMaxWidth)
      throw InputError("hidden layer " + std::to_string(l + 1) + " of a neural material has " +
                       std::to_string(width) + " units; 1 to " + std::to_string(kMaxWidth) +
                       " are allowed");
    Layer layer;
    layer.width = width;
    layer.previous = previous;
    layer.V = offset;
    offset += width * previous;
    layer.W = offset;
    offset += width * K;
    layer.b = offset;
    offset += width;
    layers_.push_back(layer);
    previous = width;
  }
  q_ = offset;
  n_weights_ = offset + previous;
}

std::string Icnn::describe(int i) const {
  for (size_t l = 0; l < layers_.size(); ++l) {
    const Layer& y = layers_[l];
    const std::string layer = "layer " + std::to_string(l + 1) + " ";
    if (i < y.W && i >= y.V) {
      const int r = i - y.V;
      return layer + "V[" + std::to_string(r / y.previous) + "][" + std::to_string(r % y.previous) +
             "]";
    }
    if (i < y.b && i >= y.W) {
      const int r = i - y.W;
      return layer + "W[" + std::to_string(r / K) + "][" + std::to_string(r % K) + "]";
    }
    if (i < y.b + y.width && i >= y.b) return layer + "b[" + std::to_string(i - y.b) + "]";
  }
  return "output q[" + std::to_string(i - q_) + "]";
}

std::vector<double> Icnn::initial_weights() const {
  std::vector<double> raw(n_weights_);
  // A fixed linear congruential sequence in [-1, 1): distinct units, the same start everywhere.
  unsigned state = 12345u;
  const auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return (state >> 8) / double(1u << 24) * 2.0 - 1.0;
  };
  for (const Layer& y : layers_) {
    for (int i = 0; i < y.width * y.previous; ++i) raw[y.V + i] = -1.0 + 0.5 * next();
    for (int i = 0; i < y.width * K; ++i) raw[y.W + i] = -1.0 + 0.5 * next();
    for (int i = 0; i < y.width; ++i) raw[y.b + i] = -1.0 + next();
  }
  for (int i = q_; i < n_weights_; ++i) raw[i] = -3.0 + 0.5 * next();
  return raw;
}

void Icnn::prepare(std::span<const double> raw, Weights& w) const {
  w.raw.assign(raw.begin(), raw.end());
  w.value.resize(n_weights_);
  w.slope.resize(n_weights_);
  const auto positive = [&](int first, int count) {
    for (int i = first; i < first + count; ++i) {
      w.value[i] = softplus(raw[i]);
      w.slope[i] = sigmoid(raw[i]);
    }
  };
  for (const Layer& y : layers_) {
    positive(y.V, y.width * y.previous);
    positive(y.W, y.width * K);
    for (int i = y.b; i < y.b + y.width; ++i) {
      w.value[i] = raw[i];
      w.slope[i] = 1.0;
    }
  }
  positive(q_, n_weights_ - q_);
}

namespace {

// One pass's activations: a (pre-activation), y = softplus(a), and slopes s1 = y', s2 = y''.
struct Pass {
  double a[L][W], y[L][W], s1[L][W], s2[L][W];
};

/// The pass at z: every layer's pre-activations, values and slopes (v: the weights' values).
template <class Layers>
void primal(const Layers& layers, const double* v, const double* z, Pass& p) {
  for (int l = 0; l < static_cast<int>(layers.size()); ++l) {
    const auto& y = layers[l];
    for (int i = 0; i < y.width; ++i) {
      double s = v[y.b + i];
      for (int m = 0; m < K; ++m) s += v[y.W + i * K + m] * z[m];
      for (int j = 0; j < y.previous; ++j) s += v[y.V + i * y.previous + j] * p.y[l - 1][j];
      p.a[l][i] = s;
      softplus_and_slopes(s, p.y[l][i], p.s1[l][i], p.s2[l][i]);
    }
  }
}

}  // namespace

double Icnn::evaluate(const Weights& w, const double* z, double* grad, double* hess) const {
  if (grad)
    for (int k = 0; k < K; ++k) grad[k] = 0.0;
  if (hess)
    for (int k = 0; k < K * K; ++k) hess[k] = 0.0;
  if (layers_.empty()) return 0.0;
  const double* v = w.value.data();
  Pass p;
  double adot[L][K][W];  // tangents along e_k (Hessian only)
  const int n_layers = static_cast<int>(layers_.size());
  primal(layers_, v, z, p);
  for (int l = 0; hess && l < n_layers; ++l) {
    const Layer& y = layers_[l];
    for (int i = 0; i < y.width; ++i) {
      for (int k = 0; k < K; ++k) {
        double t = v[y.W + i * K + k];
        for (int j = 0; j < y.previous; ++j)
          t += v[y.V + i * y.previous + j] * p.s1[l - 1][j] * adot[l - 1][k][j];
        adot[l][k][i] = t;
      }
    }
  }
  const Layer& last = layers_.back();
  double N = 0.0;
  for (int i = 0; i < last.width; ++i) N += v[q_ + i] * p.y[n_layers - 1][i];
  if (!grad && !hess) return N;

  double ybar[W], ydotbar[K][W];
  for (int i = 0; i < last.width; ++i) {
    ybar[i] = v[q_ + i];
    for (int k = 0; k < K; ++k) ydotbar[k][i] = 0.0;
  }
  double g[K] = {0.0, 0.0, 0.0};
  for (int l = n_layers - 1; l >= 0; --l) {
    const Layer& y = layers_[l];
    double abar[W], adotbar[K][W];
    for (int i = 0; i < y.width; ++i) {
      abar[i] = ybar[i] * p.s1[l][i];
      if (hess)
        for (int k = 0; k < K; ++k)
          adotbar[k][i] = ydotbar[k][i] * p.s1[l][i] + ybar[i] * p.s2[l][i] * adot[l][k][i];
    }
    for (int i = 0; i < y.width; ++i)
      for (int m = 0; m < K; ++m) {
        const double wim = v[y.W + i * K + m];
        g[m] += wim * abar[i];
        if (hess)
          for (int k = 0; k < K; ++k) hess[m * K + k] += wim * adotbar[k][i];
      }
    for (int j = 0; j < y.previous; ++j) {
      double sum = 0.0, sums[K] = {0.0, 0.0, 0.0};
      for (int i = 0; i < y.width; ++i) {
        const double vij = v[y.V + i * y.previous + j];
        sum += vij * abar[i];
        if (hess)
          for (int k = 0; k < K; ++k) sums[k] += vij * adotbar[k][i];
      }
      ybar[j] = sum;
      for (int k = 0; k < K; ++k) ydotbar[k][j] = sums[k];
    }
  }
  if (grad)
    for (int k = 0; k < K; ++k) grad[k] = g[k];
  if (hess)  // exact arithmetic gives a symmetric matrix; remove the rounding asymmetry
    for (int m = 0; m < K; ++m)
      for (int k = m + 1; k < K; ++k)
        hess[m * K + k] = hess[k * K + m] = 0.5 * (hess[m * K + k] + hess[k * K + m]);
  return N;
}

void Icnn::parameter_gradient(const Weights& w, const double* z, const double* t, double cN,
                              double cT, double* raw_bar) const {
  if (layers_.empty()) return;
  const bool tangent = t != nullptr && cT != 0.0;
  const double* v = w.value.data();
  Pass p;
  double adot[L][W], ydot[L][W];
  const int n_layers = static_cast<int>(layers_.size());
  primal(layers_, v, z, p);
  for (int l = 0; tangent && l < n_layers; ++l) {
    const Layer& y = layers_[l];
    for (int i = 0; i < y.width; ++i) {
      double d = 0.0;
      for (int m = 0; m < K; ++m) d += v[y.W + i * K + m] * t[m];
      for (int j = 0; j < y.previous; ++j) d += v[y.V + i * y.previous + j] * ydot[l - 1][j];
      adot[l][i] = d;
      ydot[l][i] = p.s1[l][i] * d;
    }
  }
  // The adjoints of the values (before the reparametrisation), then raw_bar += bar * slope.
  const Layer& last = layers_.back();
  double ybar[W], ydotbar[W];
  for (int i = 0; i < last.width; ++i) {
    const double q = v[q_ + i];
    ybar[i] = cN * q;
    ydotbar[i] = tangent ? cT * q : 0.0;
    const double qbar = cN * p.y[n_layers - 1][i] + (tangent ? cT * ydot[n_layers - 1][i] : 0.0);
    raw_bar[q_ + i] += qbar * w.slope[q_ + i];
  }
  for (int l = n_layers - 1; l >= 0; --l) {
    const Layer& y = layers_[l];
    double abar[W], adotbar[W];
    for (int i = 0; i < y.width; ++i) {
      abar[i] = ybar[i] * p.s1[l][i];
      adotbar[i] = 0.0;
      if (tangent) {
        adotbar[i] = ydotbar[i] * p.s1[l][i];
        abar[i] += ydotbar[i] * p.s2[l][i] * adot[l][i];
      }
      raw_bar[y.b + i] += abar[i];
      for (int m = 0; m < K; ++m) {
        const int k = y.W + i * K + m;
        raw_bar[k] += (abar[i] * z[m] + (tangent ? adotbar[i] * t[m] : 0.0)) * w.slope[k];
      }
      for (int j = 0; j < y.previous; ++j) {
        const int k = y.V + i * y.previous + j;
        raw_bar[k] +=
            (abar[i] * p.y[l - 1][j] + (tangent ? adotbar[i] * ydot[l - 1][j] : 0.0)) * w.slope[k];
      }
    }
    for (int j = 0; j < y.previous; ++j) {
      double sum = 0.0, sumdot = 0.0;
      for (int i = 0; i < y.width; ++i) {
        const double vij = v[y.V + i * y.previous + j];
        sum += vij * abar[i];
        sumdot += vij * adotbar[i];
      }
      ybar[j] = sum;
      ydotbar[j] = sumdot;
    }
  }
}

}  // namespace softgrad::detail
