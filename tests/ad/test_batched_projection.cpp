/// @file test_batched_projection.cpp
/// The batched projection's kernels (ad/batched_projection.hpp): every kernel this CPU runs gives
/// each element the bits of the one-element projection, whatever its neighbours in the batch;
/// stand-in lanes (null A) are not written; a kernel the CPU lacks is refused.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <cstring>
#include <vector>

#include "softgrad/detail/ad/batched_projection.hpp"
#include "softgrad/detail/ad/hyperelastic.hpp"
#include "softgrad/materials/mooney_rivlin.hpp"
#include "softgrad/materials/stable_neo_hookean.hpp"
#include "support/random.hpp"

namespace softgrad {
namespace {

using test::random_rotation;
using test::uniform;
using Mat3 = Mat<double, 3, 3>;

constexpr ad::ProjectionKernel kKernels[] = {ad::ProjectionKernel::Sse2, ad::ProjectionKernel::Avx2,
                                             ad::ProjectionKernel::Avx512};

/// One element's inputs: its invariant basis, derivatives and exact d^2 psi / dF^2.
struct ElementInput {
  ad::InvariantBasis<3> b;
  double dpsi[3];
  double d2psi[9];
  double A[81];
};

template <class Material>
ElementInput element_input(const Eigen::Matrix3d& Fe, const double* p) {
  Mat3 F;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) F(i, j) = Fe(i, j);
  ElementInput in;
  in.b = ad::invariant_basis(F);
  double psi = 0.0;
  REQUIRE(ad::invariant_hessian<Material>(in.b.I, p, psi, in.dpsi, in.d2psi));
  ad::invariant_stress_differential(in.b, in.dpsi, in.d2psi, in.A);
  return in;
}

/// States that cover the kernels' branches: near rest, stretched, repeated and nearly repeated
/// singular values, a nearly singular F (the closed-form SVD declines it), inverted (where the
/// material allows it).
std::vector<Eigen::Matrix3d> states(bool inversion) {
  std::vector<Eigen::Matrix3d> Fs;
  for (int k = 0; k < 12; ++k) {
    const double lo = k < 6 ? 0.9 : 0.6, hi = k < 6 ? 1.1 : 1.6;
    Fs.push_back(random_rotation(3) *
                 Eigen::Vector3d(uniform(lo, hi), uniform(lo, hi), uniform(lo, hi)).asDiagonal() *
                 random_rotation(3).transpose());
  }
  Fs.push_back(Eigen::Matrix3d::Identity());
  Fs.push_back(random_rotation(3) * Eigen::Vector3d(1.3, 1.3, 0.7).asDiagonal());
  Fs.push_back(random_rotation(3) * Eigen::Vector3d(0.8 + 1e-9, 0.8, 0.8).asDiagonal());
  Fs.push_back(random_rotation(3) * Eigen::Vector3d(1.5, 1.0, 1e-5).asDiagonal());
  if (inversion) Fs.push_back(random_rotation(3) * Eigen::Vector3d(1.1, 0.9, -0.4).asDiagonal());
  return Fs;
}

template <class Material>
void check_kernels(const std::vector<double>& params) {
  const std::vector<Eigen::Matrix3d> Fs = states(Material::kAllowsInversion);
  const int n = static_cast<int>(Fs.size());
  std::vector<ElementInput> inputs;
  for (const auto& F : Fs) inputs.push_back(element_input<Material>(F, params.data()));
  // The one-element projection of each: the reference.
  std::vector<std::vector<double>> alone(n);
  int projected = 0;
  for (int e = 0; e < n; ++e) {
    alone[e].assign(inputs[e].A, inputs[e].A + 81);
    double* rows[1] = {alone[e].data()};
    ad::project_invariant_hessian<ad::ProjectedEntries::ChainBlocks, double>(
        inputs[e].b.F, inputs[e].b.C, inputs[e].b.I[2], inputs[e].dpsi, inputs[e].d2psi, rows);
    if (std::memcmp(alone[e].data(), inputs[e].A, sizeof(inputs[e].A)) != 0) ++projected;
  }
  CHECK(projected >= 8);  // most states have negative modes
  int kernels_run = 0;
  for (const ad::ProjectionKernel kernel : kKernels) {
    if (!ad::projection_kernel_available(kernel)) {
      CHECK_THROWS_WITH(ad::project_invariant_batch(kernel, ad::ProjectionBatch{}),
                        doctest::Contains("is not available on this CPU"));
      continue;
    }
    ++kernels_run;
    // Batches of eight taken in several rotations of the states, the last lane of each batch
    // a stand-in, so that every element meets other neighbours and other lanes.
    for (int shift = 0; shift < 3; ++shift)
      for (int first = 0; first < n; first += ad::kProjectionBatch - 1) {
        INFO(ad::projection_kernel_name(kernel) << ", shift " << shift << ", first " << first);
        ad::ProjectionBatch batch;
        double A[ad::kProjectionBatch][81];
        int element[ad::kProjectionBatch];
        for (int l = 0; l < ad::kProjectionBatch; ++l) {
          const bool real = l < ad::kProjectionBatch - 1 && first + l < n;
          element[l] = real ? (first + l + shift) % n : 0;
          const ElementInput& in = inputs[element[l]];
          for (int k = 0; k < 81; ++k) A[l][k] = real ? in.A[k] : -1.0;
          for (int k = 0; k < 9; ++k) {
            batch.F[k][l] = in.b.F.a[k];
            batch.C[k][l] = in.b.C.a[k];
            batch.d2psi[k][l] = in.d2psi[k];
          }
          for (int k = 0; k < 3; ++k) batch.dpsi[k][l] = in.dpsi[k];
          batch.J[l] = in.b.I[2];
          batch.A[l] = real ? A[l] : nullptr;
        }
        ad::project_invariant_batch(kernel, batch);
        for (int l = 0; l < ad::kProjectionBatch; ++l) {
          if (!batch.A[l]) {
            for (int k = 0; k < 81; ++k) REQUIRE(A[l][k] == -1.0);  // not written
            continue;
          }
          INFO("lane " << l << ", element " << element[l]);
          CHECK(std::memcmp(A[l], alone[element[l]].data(), sizeof(A[l])) == 0);
        }
      }
  }
  CHECK(kernels_run >= 1);
  CHECK(ad::projection_kernel_available(ad::best_projection_kernel()));
}

}  // namespace

TEST_CASE("ad/batched_projection: every kernel projects each element as the one-element path") {
  check_kernels<StableNeoHookean>({1e6, 0.45});
  check_kernels<MooneyRivlin>({2e5, 5e4, 1e6});
}

}  // namespace softgrad
