// The GPU linear algebra against Eigen and the CPU PCG: device vectors, the CSR SpMV, the
// Jacobi and block-Jacobi preconditioned CG behind the LinearSolver interface; and the clear
// error when no device is present.
#include <doctest/doctest.h>

#include <random>

#include "cuda/cuda_test.hpp"
#include "softgrad/errors.hpp"
#include "solvers/cpu/pcg_solver.hpp"
#include "solvers/cuda/device_csr_matrix.hpp"
#include "solvers/cuda/pcg_solver.hpp"

namespace softgrad::test {
namespace {

/// A sparse SPD matrix with 3x3 blocks on a 1D chain of n nodes (full symmetric storage):
/// a stiffness-like matrix, diagonally shifted.
SparseMatrix block_chain(int n_nodes, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Eigen::Triplet<double>> t;
  for (int a = 0; a + 1 < n_nodes; ++a) {
    Eigen::Matrix3d B;
    for (int k = 0; k < 9; ++k) B(k / 3, k % 3) = u(rng);
    const Eigen::Matrix3d K = B * B.transpose() + Eigen::Matrix3d::Identity();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        t.emplace_back(3 * a + i, 3 * a + j, K(i, j));
        t.emplace_back(3 * (a + 1) + i, 3 * (a + 1) + j, K(i, j));
        t.emplace_back(3 * a + i, 3 * (a + 1) + j, -K(i, j));
        t.emplace_back(3 * (a + 1) + i, 3 * a + j, -K(j, i));
      }
  }
  for (int i = 0; i < 3 * n_nodes; ++i) t.emplace_back(i, i, 0.1);
  SparseMatrix A(3 * n_nodes, 3 * n_nodes);
  A.setFromTriplets(t.begin(), t.end());
  A.makeCompressed();
  return A;
}

Eigen::VectorXd random_vector(Eigen::Index n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::VectorXd v(n);
  for (Eigen::Index i = 0; i < n; ++i) v[i] = u(rng);
  return v;
}

}  // namespace

TEST_CASE("cuda/context: without a CUDA device the backend is a clear InputError") {
  std::string why;
  if (cuda::device_count(&why) > 0) {
    MESSAGE("skipped: a CUDA device is present; this case checks machines without one");
    cuda_case_skipped() = true;
    return;
  }
  CHECK_THROWS_WITH_AS(cuda::Context(), doctest::Contains("no CUDA device is available"),
                       InputError);
  LinearSolverOptions options;
  options.kind = "cuda";
  CHECK_THROWS_WITH_AS(make_linear_solver(options),
                       doctest::Contains("no CUDA device is available"), InputError);
}

TEST_CASE("cuda/device_vector: dot, norm, axpy, axpby and copy match Eigen") {
  SOFTGRAD_REQUIRE_CUDA_DEVICE();
  cuda::Context context;
  const Eigen::VectorXd a = random_vector(1000, 1), b = random_vector(1000, 2);
  cuda::DeviceVector da(context, 1000), db(context, 1000);
  da.upload(a);
  db.upload(b);
  CHECK(cuda::dot(da, db) == doctest::Approx(a.dot(b)).epsilon(1e-13));
  CHECK(cuda::norm(da) == doctest::Approx(a.norm()).epsilon(1e-13));
  cuda::axpy(0.5, da, db);
  cuda::axpby(2.0, da, -1.0, db);
  Eigen::VectorXd out;
  db.download(out);
  CHECK((out - (2.0 * a - (b + 0.5 * a))).norm() <= 1e-13 * out.norm());
  cuda::copy(da, db);
  db.download(out);
  CHECK(out == a);
  CHECK(cuda::all_finite(db));
}

TEST_CASE("cuda/pcg_solver: Jacobi and block-Jacobi CG solve like the CPU PCG") {
  SOFTGRAD_REQUIRE_CUDA_DEVICE();
  const SparseMatrix A = block_chain(200, 3);
  const Eigen::VectorXd b = random_vector(A.rows(), 4);
  CgOptions options;
  options.rel_tol = 1e-12;
  PcgSolver cpu(PcgPreconditioner::Jacobi, options);
  REQUIRE(cpu.factorize(A).ok());
  Eigen::VectorXd x_cpu;
  REQUIRE(cpu.solve(b, x_cpu).ok());
  for (auto pre : {cuda::CudaPreconditioner::Jacobi, cuda::CudaPreconditioner::BlockJacobi}) {
    cuda::CudaPcgSolver gpu(pre, options);
    INFO(gpu.name());
    gpu.analyze(A);
    REQUIRE(gpu.factorize(A).ok());
    Eigen::VectorXd x_gpu;
    const LinearSolveReport r = gpu.solve(b, x_gpu);
    CHECK(r.ok());
    CHECK(r.relative_residual <= 1e-12);
    CHECK((x_gpu - x_cpu).norm() <= 1e-9 * x_cpu.norm());
    // New values, same pattern: only the values are uploaded.
    const SparseMatrix A2 = 2.0 * A;
    REQUIRE(gpu.factorize(A2).ok());
    CHECK(gpu.solve(b, x_gpu).ok());
    CHECK((2.0 * x_gpu - x_cpu).norm() <= 1e-9 * x_cpu.norm());
  }
}

TEST_CASE("cuda/pcg_solver: the factory, the SpMV and the failure reports") {
  SOFTGRAD_REQUIRE_CUDA_DEVICE();
  LinearSolverOptions options;
  options.kind = "cuda";
  CHECK(make_linear_solver(options)->name() == "cuda_pcg(jacobi)");
  options.preconditioner = "ichol";
  CHECK_THROWS_AS(make_linear_solver(options), InputError);
  // SpMV against Eigen.
  cuda::Context context;
  const SparseMatrix A = block_chain(50, 5);
  const Eigen::VectorXd v = random_vector(A.rows(), 6);
  cuda::DeviceCsrMatrix dA(context);
  dA.set_pattern(A);
  cuda::DeviceVector dv(context, v.size()), dy(context, v.size());
  dv.upload(v);
  dA.multiply(dv, dy);
  Eigen::VectorXd y;
  dy.download(y);
  CHECK((y - A * v).norm() <= 1e-13 * y.norm());
  // A negative diagonal entry: NotPositiveDefinite from factorize and solve.
  SparseMatrix bad = A;
  bad.coeffRef(4, 4) = -1.0;
  cuda::CudaPcgSolver gpu;
  CHECK(gpu.factorize(bad).status == LinearSolveReport::Status::NotPositiveDefinite);
  Eigen::VectorXd x;
  CHECK(gpu.solve(v, x).status == LinearSolveReport::Status::NotPositiveDefinite);
  CHECK_THROWS_AS(gpu.solve(Eigen::VectorXd::Zero(3), x), InputError);
}

}  // namespace softgrad::test
