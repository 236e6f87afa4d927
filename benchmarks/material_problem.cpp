// material_throughput's random test problem: well-shaped rest tetrahedra, random deformations
// and material parameters from a fixed-seed generator.
#include "material_problem.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "softgrad/detail/ad/hyperelastic.hpp"

namespace softgrad::bench {
namespace {

using Mat3 = Mat<double, 3, 3>;

/// The fixed-seed random numbers the problem is built from.
struct Random {
  std::mt19937_64 engine;
  std::uniform_real_distribution<double> sym_dist{-1.0, 1.0};
  std::uniform_real_distribution<double> unit_dist{0.0, 1.0};
  std::normal_distribution<double> normal_dist{0.0, 1.0};
  double sym() { return sym_dist(engine); }    ///< uniform in [-1, 1)
  double unit() { return unit_dist(engine); }  ///< uniform in [0, 1)
  double normal() { return normal_dist(engine); }

  /// A uniformly distributed rotation (from a normalized Gaussian quaternion).
  Mat3 rotation() {
    double q[4];
    double n2 = 0.0;
    for (double& c : q) {
      c = normal();
      n2 += c * c;
    }
    const double s = 1.0 / std::sqrt(n2);
    const double w = q[0] * s, a = q[1] * s, b = q[2] * s, c = q[3] * s;
    Mat3 R;
    R.a[0] = 1 - 2 * (b * b + c * c), R.a[1] = 2 * (a * b - w * c), R.a[2] = 2 * (a * c + w * b);
    R.a[3] = 2 * (a * b + w * c), R.a[4] = 1 - 2 * (a * a + c * c), R.a[5] = 2 * (b * c - w * a);
    R.a[6] = 2 * (a * c - w * b), R.a[7] = 2 * (b * c + w * a), R.a[8] = 1 - 2 * (a * a + b * b);
    return R;
  }
};

/// The edge matrix (v1 - v0, v2 - v0, v3 - v0) of a tet's vertices, by columns.
Mat3 edge_matrix(const double (*v)[3]) {
  Mat3 D;
  for (int i = 0; i < 3; ++i)
    for (int a = 1; a <= 3; ++a) D(i, a - 1) = v[a][i] - v[0][i];
  return D;
}

/// A well-shaped rest tet X with positive orientation: a regular tet of edge h in [1, 10] cm with
/// 15% jitter, randomly rotated and placed, accepted if its volume is at least half that of the
/// regular tet with its longest edge. Returns h.
double random_rest_tet(Random& rnd, double (*X)[3]) {
  constexpr double kRegular[4][3] = {{1, 1, 1}, {-1, 1, -1}, {1, -1, -1}, {-1, -1, 1}};
  for (;;) {
    const double h = 0.01 + 0.09 * rnd.unit();
    const Mat3 R = rnd.rotation();
    const double c[3] = {rnd.sym(), rnd.sym(), rnd.sym()};
    for (int a = 0; a < 4; ++a) {
      double p[3];
      for (int i = 0; i < 3; ++i) p[i] = h * (kRegular[a][i] / std::sqrt(8.0) + 0.15 * rnd.sym());
      for (int i = 0; i < 3; ++i) X[a][i] = c[i] + R(i, 0) * p[0] + R(i, 1) * p[1] + R(i, 2) * p[2];
    }
    double longest = 0.0;
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) {
        double l2 = 0.0;
        for (int i = 0; i < 3; ++i) l2 += (X[a][i] - X[b][i]) * (X[a][i] - X[b][i]);
        longest = std::max(longest, std::sqrt(l2));
      }
    if (det(edge_matrix(X)) / 6.0 >= 0.5 * std::pow(longest, 3) / (6.0 * std::sqrt(2.0))) return h;
  }
}

/// Current positions xe of the rest tet X (edge h): a random rotation times a stretch with
/// principal values in [0.74, 1.35], a translation and 5% jitter, accepted if det F > 0.2.
void random_current_shape(Random& rnd, const double (*X)[3], double h,
                          const ad::ElementShape<3>& shape, double* xe) {
  do {
    const Mat3 Q = rnd.rotation();
    Mat3 S = filled<double, 3, 3>(0.0);
    for (int i = 0; i < 3; ++i) S(i, i) = std::exp(0.3 * rnd.sym());
    const Mat3 F = rnd.rotation() * Q * S * transpose(Q);
    const double t[3] = {0.1 * rnd.sym(), 0.1 * rnd.sym(), 0.1 * rnd.sym()};
    for (int a = 0; a < 4; ++a)
      for (int i = 0; i < 3; ++i) {
        double v = X[0][i] + t[i] + 0.05 * h * rnd.sym();
        for (int j = 0; j < 3; ++j) v += F(i, j) * (X[a][j] - X[0][j]);
        xe[3 * a + i] = v;
      }
  } while (!(det(ad::apply_shape(shape, xe)) > 0.2));
}

}  // namespace

Problem make_problem(int n_elems, std::uint64_t seed) {
  Random rnd{std::mt19937_64(seed)};
  Problem pr;
  pr.n_elems = n_elems;
  pr.elems.resize(4 * size_t(n_elems));
  pr.Dm_inv.resize(9 * size_t(n_elems));
  pr.volume.resize(n_elems);
  pr.x.resize(12 * size_t(n_elems));
  pr.youngs.resize(n_elems);
  pr.poisson.resize(n_elems);
  for (int e = 0; e < n_elems; ++e) {
    double X[4][3];
    const double h = random_rest_tet(rnd, X);
    const Mat3 Dm_inv = inverse(edge_matrix(X));
    pr.volume[e] = det(edge_matrix(X)) / 6.0;
    for (int k = 0; k < 9; ++k) pr.Dm_inv[9 * e + k] = Dm_inv.a[k];
    for (int a = 0; a < 4; ++a) pr.elems[4 * e + a] = 4 * e + a;
    const ad::ElementShape<3> shape = ad::element_shape<3>(&pr.Dm_inv[9 * e], pr.volume[e]);
    random_current_shape(rnd, X, h, shape, &pr.x[12 * e]);
    pr.youngs[e] = std::pow(10.0, 4.0 + 3.0 * rnd.unit());
    pr.poisson[e] = 0.45 * rnd.unit();
  }
  return pr;
}

std::vector<double> params_for(const MaterialModel& model, const Problem& pr) {
  const int m = model.n_params();
  std::vector<double> p(static_cast<size_t>(m) * pr.n_elems);
  for (int e = 0; e < pr.n_elems; ++e) {
    const auto pe = params_from_youngs_poisson(model, pr.youngs[e], pr.poisson[e]);
    std::copy(pe.begin(), pe.end(), p.begin() + static_cast<size_t>(m) * e);
  }
  return p;
}

ElementBatch batch_of(const Problem& pr, const std::vector<double>& params, int n_elems) {
  ElementBatch b;
  b.dim = 3;
  b.n_elems = n_elems;
  b.elems = pr.elems.data();
  b.Dm_inv = pr.Dm_inv.data();
  b.volume = pr.volume.data();
  b.params = params.data();
  return b;
}

}  // namespace softgrad::bench
