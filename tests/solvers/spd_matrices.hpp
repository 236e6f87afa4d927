/// @file spd_matrices.hpp
/// Test matrices for tests_solvers: Laplacians plus a shift, random sparse SPD matrices and
/// random vectors from a fixed-seed std::mt19937_64 (never Eigen's Random).
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "softgrad/solvers/linear_solver.hpp"

namespace softgrad::test {

/// 5-point Laplacian on an nx x ny grid (Dirichlet) plus shift * I; SPD for shift > -lambda_min.
inline SparseMatrix laplacian_2d(int nx, int ny, double shift) {
  std::vector<Eigen::Triplet<double>> t;
  const auto id = [nx](int i, int j) { return j * nx + i; };
  for (int j = 0; j < ny; ++j) {
    for (int i = 0; i < nx; ++i) {
      t.emplace_back(id(i, j), id(i, j), 4.0 + shift);
      if (i > 0) t.emplace_back(id(i, j), id(i - 1, j), -1.0);
      if (i + 1 < nx) t.emplace_back(id(i, j), id(i + 1, j), -1.0);
      if (j > 0) t.emplace_back(id(i, j), id(i, j - 1), -1.0);
      if (j + 1 < ny) t.emplace_back(id(i, j), id(i, j + 1), -1.0);
    }
  }
  SparseMatrix A(nx * ny, nx * ny);
  A.setFromTriplets(t.begin(), t.end());
  return A;
}

/// 7-point Laplacian on an n x n x n grid (Dirichlet) plus shift * I.
inline SparseMatrix laplacian_3d(int n, double shift) {
  std::vector<Eigen::Triplet<double>> t;
  const auto id = [n](int i, int j, int k) { return (k * n + j) * n + i; };
  for (int k = 0; k < n; ++k) {
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) {
        const int row = id(i, j, k);
        t.emplace_back(row, row, 6.0 + shift);
        if (i > 0) t.emplace_back(row, id(i - 1, j, k), -1.0);
        if (i + 1 < n) t.emplace_back(row, id(i + 1, j, k), -1.0);
        if (j > 0) t.emplace_back(row, id(i, j - 1, k), -1.0);
        if (j + 1 < n) t.emplace_back(row, id(i, j + 1, k), -1.0);
        if (k > 0) t.emplace_back(row, id(i, j, k - 1), -1.0);
        if (k + 1 < n) t.emplace_back(row, id(i, j, k + 1), -1.0);
      }
    }
  }
  SparseMatrix A(n * n * n, n * n * n);
  A.setFromTriplets(t.begin(), t.end());
  return A;
}

/// kron(L, K): every entry L(i, j) of a sparse SPD matrix L times a dense SPD K (b x b), the
/// vertex-block layout of an elasticity Hessian with b dofs per vertex. SPD.
inline SparseMatrix block_kronecker(const SparseMatrix& L, const Eigen::MatrixXd& K) {
  const int b = static_cast<int>(K.rows());
  std::vector<Eigen::Triplet<double>> t;
  for (int col = 0; col < L.outerSize(); ++col)
    for (SparseMatrix::InnerIterator it(L, col); it; ++it)
      for (int i = 0; i < b; ++i)
        for (int j = 0; j < b; ++j)
          t.emplace_back(static_cast<int>(it.row()) * b + i, col * b + j, it.value() * K(i, j));
  SparseMatrix A(L.rows() * b, L.cols() * b);
  A.setFromTriplets(t.begin(), t.end());
  A.makeCompressed();
  return A;
}

/// Random symmetric sparse matrix with about `per_column` off-diagonal entries per column in
/// [-1, 1] and diagonal sum_j |a_ij| + diag_margin: SPD (strictly diagonally dominant) when
/// diag_margin > 0.
inline SparseMatrix random_spd(int n, int per_column, double diag_margin, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pick(0, n - 1);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<Eigen::Triplet<double>> t;
  Eigen::VectorXd row_sum = Eigen::VectorXd::Zero(n);
  for (int j = 0; j < n; ++j) {
    for (int e = 0; e < per_column; ++e) {
      const int i = pick(rng);
      if (i == j) continue;
      const double v = value(rng);
      t.emplace_back(i, j, v);
      t.emplace_back(j, i, v);
      row_sum[i] += std::abs(v);
      row_sum[j] += std::abs(v);
    }
  }
  for (int i = 0; i < n; ++i) t.emplace_back(i, i, row_sum[i] + diag_margin);
  SparseMatrix A(n, n);
  A.setFromTriplets(t.begin(), t.end());
  return A;
}

/// Vector with entries uniform in [-1, 1].
inline Eigen::VectorXd random_vector(Eigen::Index n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  Eigen::VectorXd v(n);
  for (Eigen::Index i = 0; i < n; ++i) v[i] = value(rng);
  return v;
}

/// ||A x - b|| / ||b||.
inline double relative_residual(const SparseMatrix& A, const Eigen::VectorXd& x,
                                const Eigen::VectorXd& b) {
  return (A * x - b).norm() / b.norm();
}

}  // namespace softgrad::test
