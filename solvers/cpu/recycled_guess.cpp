#include "solvers/cpu/recycled_guess.hpp"

#include <Eigen/Cholesky>
#include <cmath>

namespace softgrad {

namespace {
/// A vector whose part orthogonal to the basis so far is below this fraction of its norm adds
/// nothing but round-off (dropped).
constexpr double kDependentTol = 1e-10;
}  // namespace

void RecycledGuess::add(const Eigen::VectorXd& x) {
  if (capacity_ <= 0) return;
  if (static_cast<int>(kept_.size()) == capacity_) {
    Eigen::VectorXd oldest = std::move(kept_.front());
    kept_.erase(kept_.begin());
    oldest = x;  // reuse its memory
    kept_.push_back(std::move(oldest));
  } else {
    kept_.push_back(x);
  }
}

void RecycledGuess::guess(const LinearOperator& A, const Eigen::VectorXd& b, Eigen::VectorXd& x) {
  if (kept_.empty()) return;
  if (kept_.back().size() != b.size()) {  // another system: nothing kept applies
    kept_.clear();
    return;
  }
  // An orthonormal basis of the span (the kept solutions, and x unless it is the newest of them,
  // the usual warm start), newest first, by Gram-Schmidt twice. Consecutive solutions are nearly
  // parallel: their differences carry the information, which orthogonalising the vectors
  // themselves keeps (a Gram matrix of the raw vectors would square their conditioning).
  const bool with_x = x.size() == b.size() && x.squaredNorm() > 0.0 && x != kept_.back();
  basis_.resize(kept_.size() + 1);
  int k = 0;
  auto add_direction = [&](const Eigen::VectorXd& v) {
    const double norm = v.norm();
    if (!(norm > 0.0) || !std::isfinite(norm)) return;
    Eigen::VectorXd& q = basis_[static_cast<size_t>(k)];
    q = v;
    for (int pass = 0; pass < 2; ++pass)
      for (int i = 0; i < k; ++i) q -= basis_[i].dot(q) * basis_[i];
    const double rest = q.norm();
    if (!(rest > kDependentTol * norm)) return;
    q /= rest;
    ++k;
  };
  if (with_x) add_direction(x);
  for (auto it = kept_.rbegin(); it != kept_.rend(); ++it) add_direction(*it);
  if (k == 0) return;
  // G c = r with G = Q^T A Q and r = Q^T b: the guess Q c minimises the A-norm error over the span.
  products_.resize(static_cast<size_t>(k));
  Eigen::MatrixXd G(k, k);
  Eigen::VectorXd r(k);
  for (int i = 0; i < k; ++i) {
    products_[i].resize(b.size());
    A.apply(basis_[i], products_[i]);
  }
  for (int i = 0; i < k; ++i) {
    for (int j = i; j < k; ++j) G(i, j) = G(j, i) = basis_[i].dot(products_[j]);
    r[i] = basis_[i].dot(b);
  }
  const Eigen::LLT<Eigen::MatrixXd> llt(G);
  // Not positive on the span (or NaN): leave the warm start, and the matrix to CG.
  if (llt.info() != Eigen::Success) return;
  const Eigen::VectorXd c = llt.solve(r);
  if (!c.allFinite()) return;
  x.setZero(b.size());
  for (int i = 0; i < k; ++i) x += c[i] * basis_[i];
}

}  // namespace softgrad
