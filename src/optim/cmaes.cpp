#include "softgrad/cmaes.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <utility>

#include "softgrad/errors.hpp"

namespace softgrad {

namespace {

/// Largest condition number of C that the eigenvalue (or diagonal) floor lets through.
constexpr double kMaxCondition = 1e14;
/// C is rescaled into sigma when its largest eigenvalue leaves [1 / kScaleLimit, kScaleLimit].
constexpr double kScaleLimit = 1e50;
/// Bounds on sigma * sqrt(largest eigenvalue of C), the longest sampling axis: keeps sigma
/// finite and positive, and squares of steps finite.
constexpr double kMinAxis = 1e-200, kMaxAxis = 1e150;

/// Validates the constructor's arguments; the messages name the problem and its fix.
void check_arguments(const Eigen::VectorXd& mean, const CmaEsOptions& options) {
  if (mean.size() == 0)
    throw InputError("CmaEs: the initial mean is empty; give x0 with at least one entry");
  for (Eigen::Index i = 0; i < mean.size(); ++i)
    if (!std::isfinite(mean[i]))
      throw InputError("CmaEs: the initial mean has a non-finite entry at index " +
                       std::to_string(i) + "; give a finite x0");
  if (!(options.sigma > 0.0) || !std::isfinite(options.sigma)) {
    std::ostringstream os;
    os << "CmaEs: sigma must be positive and finite (got " << options.sigma
       << "); give the initial step size in the units of x, e.g. 0.3";
    throw InputError(os.str());
  }
  if (options.population < 0 || options.population == 1)
    throw InputError(
        "CmaEs: the population (lambda) must be >= 2, or 0 for the default 4 + "
        "floor(3 ln n) (got " +
        std::to_string(options.population) + ")");
}

/// The ranking of the candidates, best first: finite losses ascending, then the non-finite
/// ones; ties keep ask() order (a stable sort on a strict weak order).
std::vector<int> rank_losses(const std::vector<double>& losses) {
  std::vector<int> order(losses.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const bool fa = std::isfinite(losses[a]), fb = std::isfinite(losses[b]);
    if (fa != fb) return fa;
    return fa && losses[a] < losses[b];
  });
  return order;
}

}  // namespace

CmaEs::CmaEs(Eigen::VectorXd mean, CmaEsOptions options)
    : rng_(options.seed), best_loss_(std::numeric_limits<double>::infinity()) {
  check_arguments(mean, options);
  const int n = static_cast<int>(mean.size());
  mean_ = std::move(mean);
  best_ = mean_;
  sigma_ = options.sigma;
  covariance_ = options.covariance;
  if (covariance_ == CmaEsOptions::Covariance::Auto)
    covariance_ = n <= CmaEsOptions::kAutoFullMaxDimension ? CmaEsOptions::Covariance::Full
                                                           : CmaEsOptions::Covariance::Diagonal;
  lambda_ = options.population > 0 ? options.population
                                   : 4 + static_cast<int>(std::floor(3.0 * std::log(n)));
  set_strategy_parameters();
  p_c_.setZero(n);
  p_sigma_.setZero(n);
  D_.setOnes(n);
  if (covariance_ == CmaEsOptions::Covariance::Full) {
    C_.setIdentity(n, n);
    B_.setIdentity(n, n);
  }
}

void CmaEs::set_strategy_parameters() {
  const double n = static_cast<double>(mean_.size());
  // Recombination: w_i proportional to ln((lambda + 1) / 2) - ln i for the best mu = lambda / 2.
  const int mu = lambda_ / 2;
  weights_.resize(mu);
  for (int i = 0; i < mu; ++i) weights_[i] = std::log((lambda_ + 1) / 2.0) - std::log(i + 1.0);
  weights_ /= weights_.sum();
  mu_eff_ = 1.0 / weights_.squaredNorm();
  // Cumulation and learning rates (tutorial, Table 1, with alpha_cov = 2).
  c_c_ = (4.0 + mu_eff_ / n) / (n + 4.0 + 2.0 * mu_eff_ / n);
  c_sigma_ = (mu_eff_ + 2.0) / (n + mu_eff_ + 5.0);
  c_1_ = 2.0 / ((n + 1.3) * (n + 1.3) + mu_eff_);
  c_mu_ =
      std::min(1.0 - c_1_, 2.0 * (mu_eff_ - 2.0 + 1.0 / mu_eff_) / ((n + 2) * (n + 2) + mu_eff_));
  // sep-CMA-ES: a diagonal C has n degrees of freedom instead of n (n + 1) / 2, so it may
  // learn (n + 2) / 3 times faster (Ros and Hansen 2008).
  if (covariance_ == CmaEsOptions::Covariance::Diagonal) {
    c_1_ = std::min(1.0, c_1_ * (n + 2.0) / 3.0);
    c_mu_ = std::min(1.0 - c_1_, c_mu_ * (n + 2.0) / 3.0);
  }
  d_sigma_ = 1.0 + 2.0 * std::max(0.0, std::sqrt((mu_eff_ - 1.0) / (n + 1.0)) - 1.0) + c_sigma_;
  // E||N(0, I)||, the target length of the conjugate evolution path.
  chi_n_ = std::sqrt(n) * (1.0 - 1.0 / (4.0 * n) + 1.0 / (21.0 * n * n));
}

double CmaEs::standard_normal() {
  // Box-Muller on the 53-bit uniforms of mt19937_64: the same numbers with every standard
  // library (std::normal_distribution's algorithm is implementation-defined), given the same
  // std::log, std::sqrt, std::cos and std::sin.
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return spare_normal_;
  }
  const double u1 = (static_cast<double>(rng_() >> 11) + 0.5) * 0x1.0p-53;  // in (0, 1)
  const double u2 = static_cast<double>(rng_() >> 11) * 0x1.0p-53;          // in [0, 1)
  const double r = std::sqrt(-2.0 * std::log(u1)), angle = 6.283185307179586 * u2;
  spare_normal_ = r * std::sin(angle);
  has_spare_normal_ = true;
  return r * std::cos(angle);
}

void CmaEs::sample() {
  const int n = dimension();
  z_.resize(lambda_);
  candidates_.resize(lambda_);
  for (int k = 0; k < lambda_; ++k) {
    // z_k ~ N(0, I) in a fixed order, then x_k = m + sigma B D z_k.
    z_[k].resize(n);
    for (int i = 0; i < n; ++i) z_[k][i] = standard_normal();
    if (covariance_ == CmaEsOptions::Covariance::Full)
      candidates_[k].noalias() = mean_ + sigma_ * (B_ * D_.cwiseProduct(z_[k]));
    else
      candidates_[k].noalias() = mean_ + sigma_ * D_.cwiseProduct(z_[k]);
  }
}

const std::vector<Eigen::VectorXd>& CmaEs::ask() {
  if (!asked_) {
    sample();
    asked_ = true;
  }
  return candidates_;
}

void CmaEs::tell(const std::vector<double>& losses) {
  if (!asked_)
    throw InputError("CmaEs::tell: no candidates to rank; call ask() before each tell()");
  if (static_cast<int>(losses.size()) != lambda_)
    throw InputError("CmaEs::tell: expected " + std::to_string(lambda_) +
                     " losses (one per candidate of ask(), the population), got " +
                     std::to_string(losses.size()));
  const int n = dimension(), mu = parents();
  const bool full = covariance_ == CmaEsOptions::Covariance::Full;
  const std::vector<int> order = rank_losses(losses);
  if (std::isfinite(losses[order[0]]) && losses[order[0]] < best_loss_) {
    best_loss_ = losses[order[0]];
    best_ = candidates_[order[0]];
  }
  // The mu best steps: z (isotropic) and y = B D z, so that x = m + sigma y.
  Eigen::MatrixXd z_sel(n, mu);
  for (int i = 0; i < mu; ++i) z_sel.col(i) = z_[order[i]];
  const Eigen::MatrixXd y_sel = full ? Eigen::MatrixXd(B_ * D_.asDiagonal() * z_sel)
                                     : Eigen::MatrixXd(D_.asDiagonal() * z_sel);
  const Eigen::VectorXd z_w = z_sel * weights_, y_w = y_sel * weights_;
  // Mean (c_m = 1).
  mean_ += sigma_ * y_w;
  // Conjugate evolution path, with C^(-1/2) y_w = B z_w.
  const double norm_factor = std::sqrt(c_sigma_ * (2.0 - c_sigma_) * mu_eff_);
  if (full)
    p_sigma_ = (1.0 - c_sigma_) * p_sigma_ + norm_factor * (B_ * z_w);
  else
    p_sigma_ = (1.0 - c_sigma_) * p_sigma_ + norm_factor * z_w;
  // h_sigma stalls the rank-one path while ||p_sigma|| is large, e.g. after sigma grew fast.
  const double p_sigma_norm = p_sigma_.norm();
  const double fade = 1.0 - std::pow(1.0 - c_sigma_, 2.0 * (generation_ + 1));
  const bool h_sigma = p_sigma_norm / std::sqrt(fade) < (1.4 + 2.0 / (n + 1.0)) * chi_n_;
  p_c_ = (1.0 - c_c_) * p_c_;
  if (h_sigma) p_c_ += std::sqrt(c_c_ * (2.0 - c_c_) * mu_eff_) * y_w;
  update_covariance(y_sel, h_sigma);
  // Cumulative step-size adaptation; the exponent is capped at 1 (as in Hansen's pycma): sigma
  // grows at most e-fold per generation.
  sigma_ *= std::exp(std::min(1.0, c_sigma_ / d_sigma_ * (p_sigma_norm / chi_n_ - 1.0)));
  ++generation_;
  update_eigensystem();
  // Keep the longest sampling axis sigma * max(D) in [kMinAxis, kMaxAxis].
  const double d_max = D_.maxCoeff();
  sigma_ = std::clamp(sigma_, kMinAxis / d_max, kMaxAxis / d_max);
  asked_ = false;
}

void CmaEs::update_covariance(const Eigen::MatrixXd& y_sel, bool h_sigma) {
  // C <- (1 + c_1 delta(h) - c_1 - c_mu) C + c_1 p_c p_c^T + c_mu sum_i w_i y_i y_i^T, where
  // delta(h) = (1 - h) c_c (2 - c_c) makes up for the variance the stalled p_c lacks.
  const double delta = h_sigma ? 0.0 : c_c_ * (2.0 - c_c_);
  const double decay = 1.0 + c_1_ * delta - c_1_ - c_mu_;
  if (covariance_ == CmaEsOptions::Covariance::Full) {
    const Eigen::MatrixXd weighted = y_sel * weights_.asDiagonal();
    C_ *= decay;
    C_.noalias() += c_1_ * p_c_ * p_c_.transpose();
    C_.noalias() += c_mu_ * weighted * y_sel.transpose();
    // Enforce symmetry against rounding in the products.
    C_ = (0.5 * (C_ + C_.transpose())).eval();
  } else {
    Eigen::VectorXd c_diag = D_.cwiseAbs2() * decay + c_1_ * p_c_.cwiseAbs2();
    c_diag += c_mu_ * (y_sel.cwiseAbs2() * weights_);
    D_ = c_diag;  // variances until update_eigensystem() takes the square roots
  }
}

void CmaEs::update_eigensystem() {
  const bool full = covariance_ == CmaEsOptions::Covariance::Full;
  // Full: decompose C lazily, after lambda / ((c_1 + c_mu) n 10) evaluations (as the tutorial's
  // purecmaes.m does): every generation up to n of about 100, O(n^2) per sample above.
  if (full) {
    const double gap = lambda_ / ((c_1_ + c_mu_) * dimension() * 10.0);
    if (static_cast<double>(evaluations() - eigen_evaluations_) < gap) return;
    eigen_evaluations_ = evaluations();
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(C_);
    SOFTGRAD_CHECK(eigen.info() == Eigen::Success && eigen.eigenvalues().allFinite(),
                   "CmaEs: the eigendecomposition of C failed");
    B_ = eigen.eigenvectors();
    D_ = eigen.eigenvalues();  // variances for now
  }
  // Floor the eigenvalues (cap the condition number): keeps C positive definite.
  const double max_variance = D_.maxCoeff();
  SOFTGRAD_CHECK(max_variance > 0.0 && std::isfinite(max_variance),
                 "CmaEs: the covariance degenerated (largest eigenvalue " << max_variance << ")");
  const bool floored = (D_.array() < max_variance / kMaxCondition).any();
  D_ = D_.cwiseMax(max_variance / kMaxCondition);
  // Move C's overall scale into sigma when it drifts far from 1 (sigma^2 C is unchanged).
  double scale = 1.0;
  if (max_variance > kScaleLimit || max_variance < 1.0 / kScaleLimit) scale = max_variance;
  D_ /= scale;
  p_c_ /= std::sqrt(scale);
  sigma_ *= std::sqrt(scale);
  if (full && (floored || scale != 1.0)) C_ = B_ * D_.asDiagonal() * B_.transpose();
  D_ = D_.cwiseSqrt();
}

Eigen::VectorXd CmaEs::covariance_diagonal() const {
  if (covariance_ == CmaEsOptions::Covariance::Full) return C_.diagonal();
  return D_.cwiseAbs2();
}

}  // namespace softgrad
