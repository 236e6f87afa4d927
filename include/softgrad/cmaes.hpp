/// @file cmaes.hpp
/// CMA-ES, the covariance matrix adaptation evolution strategy: softgrad's derivative-free
/// baseline against gradient-based training. The (mu/mu_w, lambda)-CMA-ES of Hansen, "The CMA
/// Evolution Strategy: A Tutorial" (arXiv:1604.00772, 2016), with rank-one and rank-mu updates of
/// the covariance C, cumulative step-size adaptation of sigma, the h_sigma stall of the
/// rank-one path and the tutorial's default strategy parameters (positive recombination
/// weights only, no active update). Each generation samples
///   x_k = m + sigma B D z_k,  z_k ~ N(0, I),  C = B D^2 B^T,
/// ranks the candidates by loss and moves m to the weighted mean of the best mu = lambda / 2.
///
/// For large n (neural-network policies with thousands of weights) the separable variant
/// sep-CMA-ES (Ros and Hansen, PPSN 2008) keeps C diagonal: O(n) per sample and per update
/// instead of O(n^2), no eigendecomposition, and learning rates c_1, c_mu scaled by (n + 2) / 3.
/// It learns per-coordinate scales but no correlations.
///
/// Usage (ask and tell; the caller evaluates, e.g. in parallel rollouts):
///   CmaEs es(x0, {.sigma = 0.5});
///   while (es.best_loss() > 1e-8) {
///     const auto& xs = es.ask();
///     std::vector<double> losses;
///     for (const auto& x : xs) losses.push_back(f(x));
///     es.tell(losses);
///   }
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <random>
#include <vector>

namespace softgrad {

/// Options of CmaEs; the defaults are the tutorial's.
struct CmaEsOptions {
  /// The covariance model: full C, or diagonal C (sep-CMA-ES).
  enum class Covariance {
    Auto,     ///< Full up to n = kAutoFullMaxDimension, Diagonal above
    Full,     ///< O(n^2) per sample, O(n^3) per eigendecomposition; learns correlations
    Diagonal  ///< sep-CMA-ES: O(n) per sample, no eigendecomposition
  };
  /// Auto chooses the full covariance up to this dimension.
  static constexpr int kAutoFullMaxDimension = 100;

  int population = 0;      ///< lambda, >= 2; 0: the default 4 + floor(3 ln n)
  double sigma = 0.3;      ///< initial step size, in the units of x; > 0 and finite
  std::uint64_t seed = 1;  ///< std::mt19937_64 seed: same seed and losses, same run, bit for bit
  Covariance covariance = Covariance::Auto;  ///< see Covariance
};

/// Ask-and-tell CMA-ES minimising a loss of x in R^n (see the file comment).
class CmaEs {
 public:
  /// Starts at the mean x0 with the options' step size, C = I.
  /// @throws InputError for an empty or non-finite mean, a sigma that is not positive and finite,
  ///         or a population below 2 (other than 0, the default).
  explicit CmaEs(Eigen::VectorXd mean, CmaEsOptions options = {});

  /// n, the length of x.
  int dimension() const { return static_cast<int>(mean_.size()); }
  /// lambda, the candidates per generation.
  int population() const { return lambda_; }
  /// mu, the best candidates recombined into the next mean (lambda / 2).
  int parents() const { return static_cast<int>(weights_.size()); }
  /// Completed generations (calls of tell()).
  int generation() const { return generation_; }
  /// Losses told so far: generation() * population().
  long long evaluations() const { return static_cast<long long>(generation_) * lambda_; }
  /// The covariance model in use (Auto resolved to Full or Diagonal).
  CmaEsOptions::Covariance covariance() const { return covariance_; }

  /// The next generation's lambda candidates; the same ones until tell() is called.
  const std::vector<Eigen::VectorXd>& ask();
  /// Ranks the candidates of ask() by their losses, given in ask() order, and updates the mean,
  /// the step size and the covariance. A non-finite loss (NaN, +-inf: e.g. a failed simulation)
  /// ranks worse than every finite one; ties keep ask() order.
  /// @throws InputError for a count other than population(), or when ask() was not called
  ///         since the last tell().
  void tell(const std::vector<double>& losses);

  /// The distribution mean m, the current estimate of the minimiser.
  const Eigen::VectorXd& mean() const { return mean_; }
  /// The step size sigma (the overall scale of the sampling distribution).
  double sigma() const { return sigma_; }
  /// The diagonal of C (sampling standard deviations are sigma * sqrt of it, per coordinate).
  Eigen::VectorXd covariance_diagonal() const;
  /// The best candidate told so far with a finite loss (before one: the initial mean).
  const Eigen::VectorXd& best() const { return best_; }
  /// Its loss (before a finite one was told: +inf).
  double best_loss() const { return best_loss_; }

 private:
  void set_strategy_parameters();
  void sample();
  void update_eigensystem();
  void update_covariance(const Eigen::MatrixXd& y_sel, bool h_sigma);
  double standard_normal();

  CmaEsOptions::Covariance covariance_;
  int lambda_ = 0;
  Eigen::VectorXd weights_;  // mu positive recombination weights, sum 1
  double mu_eff_ = 0, c_c_ = 0, c_sigma_ = 0, c_1_ = 0, c_mu_ = 0, d_sigma_ = 0, chi_n_ = 0;

  Eigen::VectorXd mean_;
  double sigma_ = 0;
  Eigen::VectorXd p_c_, p_sigma_;
  // Full: C, its eigenvectors B and the square roots of its eigenvalues D (C = B D^2 B^T).
  // Diagonal: C = diag(D^2), B and C unused.
  Eigen::MatrixXd C_, B_;
  Eigen::VectorXd D_;
  long long eigen_evaluations_ = 0;  // evaluations() when B and D were last computed

  std::mt19937_64 rng_;
  bool has_spare_normal_ = false;
  double spare_normal_ = 0;
  std::vector<Eigen::VectorXd> z_, candidates_;  // z_k ~ N(0, I) and x_k of this generation
  bool asked_ = false;
  int generation_ = 0;

  Eigen::VectorXd best_;
  double best_loss_;
};

}  // namespace softgrad
