// The invariant path (ad/invariants.hpp) against the generic F-path AD, for every built-in material
// with psi_invariants, 2D (plane strain) and 3D, near rest and strongly deformed: the two forms
// of the density agree in value, and every derivative the kernels use agrees to ~1e-12, the
// closed-form singular-frame Hessian of the PSD projection included.
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cmath>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "softgrad/detail/ad/hyperelastic.hpp"
#include "softgrad/materials/mooney_rivlin.hpp"
#include "softgrad/materials/neo_hookean.hpp"
#include "softgrad/materials/stable_neo_hookean.hpp"
#include "softgrad/materials/stvk.hpp"
#include "support/finite_difference.hpp"
#include "support/random.hpp"

namespace ad = softgrad::ad;
using softgrad::Mat;
using softgrad::test::close;
using softgrad::test::random_deformation;
using softgrad::test::random_matrix;
using softgrad::test::uniform;

namespace {

/// The material without its invariant form: the kernels fall back to AD with respect to F.
template <class Material>
struct FPath {
  static constexpr const char* kName = Material::kName;
  static constexpr auto& kParams = Material::kParams;
  static constexpr bool kAllowsInversion = Material::kAllowsInversion;
  template <class T, class P, int d>
  SOFTGRAD_HD static T psi(const Mat<T, d, d>& F, const P* p) {
    return Material::psi(F, p);
  }
};

static_assert(ad::HasInvariantForm<softgrad::NeoHookean>);
static_assert(!ad::HasInvariantForm<FPath<softgrad::NeoHookean>>);

constexpr double kRtol = 1e-12;

using Vec = Eigen::VectorXd;
Vec vec(const double* v, int n) { return Eigen::Map<const Vec>(v, n); }

template <int d>
Mat<double, d, d> to_mat(const Eigen::MatrixXd& F) {
  Mat<double, d, d> m;
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) m(i, j) = F(i, j);
  return m;
}

/// Random parameters: E in [1e3, 1e6] Pa, nu in [0.05, 0.45] (Mooney-Rivlin: mapped from them).
template <class Material>
std::vector<double> sample_params() {
  const double youngs = std::pow(10.0, uniform(3.0, 6.0)), poisson = uniform(0.05, 0.45);
  if constexpr (std::is_same_v<Material, softgrad::MooneyRivlin>) {
    std::vector<double> p(3);
    Material::from_youngs_poisson(youngs, poisson, p.data());
    return p;
  } else {
    return {youngs, poisson};
  }
}

/// Deformation gradients: near rest, moderately and strongly deformed (singular values in
/// [0.25, 4]), and, for materials defined there, inverted and degenerate ones.
template <class Material, int d>
std::vector<Mat<double, d, d>> sample_gradients() {
  std::vector<Mat<double, d, d>> out;
  for (const auto& [lo, hi] : {std::pair{0.9, 1.1}, {0.5, 2.0}, {0.25, 4.0}})
    for (int s = 0; s < 3; ++s) out.push_back(to_mat<d>(random_deformation(d, lo, hi)));
  if (Material::kAllowsInversion) {
    Eigen::MatrixXd F = random_deformation(d, 0.5, 2.0);
    F.row(0) *= -1.0;  // reflected: det F < 0
    out.push_back(to_mat<d>(F));
    F.row(0) *= 0.0;  // degenerate: det F = 0
    out.push_back(to_mat<d>(F));
  }
  return out;
}

/// psi(F) and psi_invariants(I(F)) agree to rounding of the terms of psi.
template <class Material, int d>
void check_values() {
  for (const auto& F : sample_gradients<Material, d>()) {
    const auto p = sample_params<Material>();
    const ad::InvariantBasis<d> b = ad::invariant_basis(F);
    const double a = Material::psi(F, p.data());
    const double c = Material::psi_invariants(b.I[0], b.I[1], b.I[2], p.data());
    INFO(std::string(Material::kName)
         << " in " << d << "D: psi = " << a << ", psi_invariants = " << c);
    CHECK(std::isfinite(a));
    CHECK(std::abs(a - c) <= 1e-13 * (std::abs(a) + p[0] * (1.0 + b.I[0] * b.I[0])));
  }
}

/// Stress, stress differential, Hessian-vector product and parameter derivatives.
template <class Material, int d>
void check_density_derivatives() {
  constexpr int D = d * d;
  constexpr int M = ad::kNumParams<Material>;
  using Ref = FPath<Material>;
  for (const auto& F : sample_gradients<Material, d>()) {
    INFO(std::string(Material::kName) << " in " << d << "D, det F = " << det(F));
    const auto p = sample_params<Material>();
    double psi_a = 0, psi_b = 0, P_a[D]{}, P_b[D]{}, A_a[D * D]{}, A_b[D * D]{};
    REQUIRE(ad::density_gradient<Material>(F, p.data(), psi_a, P_a));
    REQUIRE(ad::density_gradient<Ref>(F, p.data(), psi_b, P_b));
    CHECK(close(vec(P_a, D), vec(P_b, D), kRtol));
    REQUIRE(ad::density_hessian<Material>(F, p.data(), psi_a, P_a, A_a));
    REQUIRE(ad::density_hessian<Ref>(F, p.data(), psi_b, P_b, A_b));
    CHECK(vec(A_b, D * D).norm() > 0.0);
    CHECK(close(vec(P_a, D), vec(P_b, D), kRtol));
    CHECK(close(vec(A_a, D * D), vec(A_b, D * D), kRtol));
    // Hessian-vector product, parameter gradient and mixed product, parameter JVP
    Mat<double, d, d> dF;
    for (int k = 0; k < D; ++k) dF.a[k] = uniform(-1.0, 1.0);
    double dP_a[D], dP_b[D];
    REQUIRE(ad::density_hessian_vector_product<Material>(F, p.data(), dF, dP_a));
    REQUIRE(ad::density_hessian_vector_product<Ref>(F, p.data(), dF, dP_b));
    CHECK(close(vec(dP_a, D), vec(dP_b, D), kRtol));
    double g_a[M] = {}, g_b[M] = {}, m_a[M] = {}, m_b[M] = {};
    REQUIRE(ad::density_parameter_derivatives<Material>(F, p.data(), dF, g_a, m_a));
    REQUIRE(ad::density_parameter_derivatives<Ref>(F, p.data(), dF, g_b, m_b));
    CHECK(close(vec(g_a, M), vec(g_b, M), kRtol));
    CHECK(close(vec(m_a, M), vec(m_b, M), kRtol));
    double dp[M];
    for (int j = 0; j < M; ++j) dp[j] = uniform(-1.0, 1.0) * p[j];
    REQUIRE(ad::density_parameter_jvp<Material>(F, p.data(), dp, dP_a));
    REQUIRE(ad::density_parameter_jvp<Ref>(F, p.data(), dp, dP_b));
    CHECK(close(vec(dP_a, D), vec(dP_b, D), kRtol));
  }
}

/// Element kernels: gradient and Hessian through the shared chain rule.
template <class Material, int d>
void check_elements() {
  constexpr int N = (d + 1) * d;
  using Ref = FPath<Material>;
  const Eigen::MatrixXd Dm = Eigen::MatrixXd::Identity(d, d) + 0.3 * random_matrix(d, d);
  const Eigen::MatrixXd Dm_inv = Dm.inverse();
  const ad::ElementShape<d> s =
      ad::element_shape<d>(to_mat<d>(Dm_inv).a, std::abs(Dm.determinant()));
  for (const auto& F : sample_gradients<Material, d>()) {
    INFO(std::string(Material::kName) << " in " << d << "D, det F = " << det(F));
    const auto p = sample_params<Material>();
    // Positions with deformation gradient F (vertex 0 at a shifted origin).
    double x[N];
    for (int i = 0; i < d; ++i) x[i] = 0.1 * (i + 1);
    for (int a = 1; a <= d; ++a)
      for (int i = 0; i < d; ++i) {
        double v = x[i];
        for (int j = 0; j < d; ++j) v += F(i, j) * Dm(j, a - 1);
        x[a * d + i] = v;
      }
    double E_a = 0, E_b = 0, g_a[N], g_b[N], H_a[N * N], H_b[N * N];
    REQUIRE(ad::element_hessian<Material, d>(s, x, p.data(), false, E_a, g_a, H_a) ==
            ad::ElementStatus::Ok);
    REQUIRE(ad::element_hessian<Ref, d>(s, x, p.data(), false, E_b, g_b, H_b) ==
            ad::ElementStatus::Ok);
    CHECK(E_a == doctest::Approx(E_b).epsilon(1e-12).scale(p[0] * s.volume));
    CHECK(close(vec(g_a, N), vec(g_b, N), kRtol));
    CHECK(close(vec(H_a, N * N), vec(H_b, N * N), kRtol));
    REQUIRE(ad::element_gradient<Material, d>(s, x, p.data(), E_a, g_a) == ad::ElementStatus::Ok);
    CHECK(close(vec(g_a, N), vec(g_b, N), kRtol));
  }
}

/// The singular-frame Hessian in closed form from the invariant derivatives at F equals the
/// F-path AD's d^2 psi / dF^2 at diag(sigma) (the signed singular values of F).
template <class Material, int d>
void check_singular_frame() {
  constexpr int D = d * d;
  using Ref = FPath<Material>;
  for (const auto& F : sample_gradients<Material, d>()) {
    INFO(std::string(Material::kName) << " in " << d << "D, det F = " << det(F));
    const auto p = sample_params<Material>();
    Mat<double, d, d> U, V;
    double sigma[d];
    softgrad::signed_svd(F, U, sigma, V);
    Mat<double, d, d> Sigma = softgrad::filled<double, d, d>(0.0);
    for (int k = 0; k < d; ++k) Sigma(k, k) = sigma[k];
    double psi = 0, P[D], A_ref[D * D];
    REQUIRE(ad::density_hessian<Ref>(Sigma, p.data(), psi, P, A_ref));
    const ad::InvariantBasis<d> b = ad::invariant_basis(F);
    double dpsi[3], d2psi[9], Ap[D * D];
    REQUIRE(ad::invariant_hessian<Material>(b.I, p.data(), psi, dpsi, d2psi));
    ad::invariant_singular_frame_hessian<d>(sigma, dpsi, d2psi, Ap);
    CHECK(vec(A_ref, D * D).norm() > 0.0);
    CHECK(close(vec(Ap, D * D), vec(A_ref, D * D), kRtol));
    if constexpr (d == 3) {
      // The compact blocks are the same entries of A_ref.
      const ad::InvariantFrameBlocks<double> blocks =
          ad::invariant_frame_blocks(sigma, dpsi, d2psi);
      double compact[15], reference[15];
      for (int k = 0; k < 3; ++k)
        for (int l = 0; l < 3; ++l) {
          compact[k * 3 + l] = blocks.stretch[k * 3 + l];
          reference[k * 3 + l] = A_ref[(k * d + k) * D + l * d + l];
        }
      for (int q = 0; q < 3; ++q) {
        const int kl = ad::frame_pair_first(q) * d + ad::frame_pair_second(q);
        const int lk = ad::frame_pair_second(q) * d + ad::frame_pair_first(q);
        compact[9 + q] = blocks.c[q];
        compact[12 + q] = blocks.e[q];
        reference[9 + q] = A_ref[kl * D + kl];
        reference[12 + q] = A_ref[kl * D + lk];
        CHECK(std::abs(A_ref[lk * D + lk] - A_ref[kl * D + kl]) <=
              kRtol * vec(A_ref, D * D).norm());  // both diagonal entries are c
      }
      CHECK(close(vec(compact, 15), vec(reference, 15), kRtol));
    }
  }
}

template <class Material>
void check_all() {
  check_values<Material, 2>();
  check_values<Material, 3>();
  check_density_derivatives<Material, 2>();
  check_density_derivatives<Material, 3>();
  check_elements<Material, 2>();
  check_elements<Material, 3>();
  // Last: the random states of the checks above stay those they were written with.
  check_singular_frame<Material, 2>();
  check_singular_frame<Material, 3>();
}

}  // namespace

TEST_CASE("ad/invariants: Neo-Hookean's invariant form equals its F form") {
  check_all<softgrad::NeoHookean>();
}

TEST_CASE("ad/invariants: stable Neo-Hookean's invariant form equals its F form") {
  check_all<softgrad::StableNeoHookean>();
}

TEST_CASE("ad/invariants: Mooney-Rivlin's invariant form equals its F form") {
  check_all<softgrad::MooneyRivlin>();
}

TEST_CASE("ad/invariants: St. Venant-Kirchhoff's invariant form equals its F form") {
  check_all<softgrad::StVenantKirchhoff>();
}

TEST_CASE("ad/invariants: log-based models report inverted elements on the invariant path") {
  for (int d : {2, 3}) {
    INFO(d << "D");
    const double p[2] = {1e5, 0.3};
    double x3[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, -1};  // mirrored unit tet: det F = -1
    double x2[6] = {0, 0, 1, 0, 0, -1};
    double E = 0, g[12], H[144];
    const auto st = d == 2 ? ad::element_hessian<softgrad::NeoHookean, 2>(
                                 ad::element_shape<2>(softgrad::identity<double, 2>().a, 0.5), x2,
                                 p, false, E, g, H)
                           : ad::element_hessian<softgrad::NeoHookean, 3>(
                                 ad::element_shape<3>(softgrad::identity<double, 3>().a, 1.0 / 6),
                                 x3, p, false, E, g, H);
    CHECK(st == ad::ElementStatus::Inverted);
  }
}
