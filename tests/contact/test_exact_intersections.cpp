// The exact intersection predicates of tests/support/exact_intersections.hpp (GMP rationals).
#include <doctest/doctest.h>
#include <gmpxx.h>

#include <Eigen/Dense>
#include <array>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "ccd_test_support.hpp"
#include "support/exact_intersections.hpp"

namespace {

using namespace softgrad::test::ccd_support;

/// Brute force for the exact predicates: the vertices of the polytope {u, v >= 0 : sum u = 1,
/// sum v = 1, sum u_i P_i = sum v_j R_j} (every basic solution, by exact elimination over each
/// subset of the weights), as the points sum u_i P_i. None: the hulls of P and R are disjoint;
/// all equal to s: they meet at s only (the common part is the hull of these points).
std::vector<std::array<mpq_class, 3>> hull_meeting_vertices(const std::vector<const double*>& P,
                                                            const std::vector<const double*>& R,
                                                            int dim) {
  const int np = static_cast<int>(P.size()), n = np + static_cast<int>(R.size()), m = 2 + dim;
  std::vector<std::vector<mpq_class>> A(m, std::vector<mpq_class>(n + 1, 0));
  for (int j = 0; j < n; ++j) {
    const double* x = j < np ? P[j] : R[j - np];
    A[j < np ? 0 : 1][j] = 1;
    for (int k = 0; k < dim; ++k) A[2 + k][j] = j < np ? mpq_class(x[k]) : mpq_class(-x[k]);
  }
  A[0][n] = A[1][n] = 1;
  std::vector<std::array<mpq_class, 3>> points;
  for (int mask = 1; mask < (1 << n); ++mask) {
    std::vector<int> cols;
    for (int j = 0; j < n; ++j)
      if (mask >> j & 1) cols.push_back(j);
    const int c = static_cast<int>(cols.size());
    // [A_S | b], reduced to row echelon form.
    std::vector<std::vector<mpq_class>> M(m, std::vector<mpq_class>(c + 1));
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < c; ++j) M[i][j] = A[i][cols[j]];
      M[i][c] = A[i][n];
    }
    int rank = 0;
    std::vector<int> pivot_col;
    for (int j = 0; j < c && rank < m; ++j) {
      int piv = -1;
      for (int i = rank; i < m; ++i)
        if (sgn(M[i][j]) != 0) piv = i;
      if (piv < 0) continue;
      std::swap(M[piv], M[rank]);
      for (int i = 0; i < m; ++i)
        if (i != rank && sgn(M[i][j]) != 0) {
          const mpq_class f = M[i][j] / M[rank][j];
          for (int k = j; k <= c; ++k) M[i][k] -= f * M[rank][k];
        }
      pivot_col.push_back(j);
      ++rank;
    }
    if (rank < c) continue;  // dependent columns: not a basic solution
    bool consistent = true;
    for (int i = rank; i < m; ++i) consistent &= sgn(M[i][c]) == 0;
    if (!consistent) continue;
    std::vector<mpq_class> w(n, 0);
    bool nonnegative = true;
    for (int q = 0; q < rank; ++q) {
      w[cols[pivot_col[q]]] = M[q][c] / M[q][pivot_col[q]];
      nonnegative &= sgn(w[cols[pivot_col[q]]]) >= 0;
    }
    if (!nonnegative) continue;
    std::array<mpq_class, 3> point = {0, 0, 0};
    for (int j = 0; j < np; ++j)
      for (int k = 0; k < dim; ++k) point[k] += w[j] * mpq_class(P[j][k]);
    points.push_back(point);
  }
  return points;
}

}  // namespace

TEST_SUITE("contact ccd") {
  TEST_CASE("exact intersections: orientation signs are exact where doubles round") {
    const double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0}, up[3] = {0.3, 0.3, 1},
                 dn[3] = {0.3, 0.3, -1}, in[3] = {0.3, 0.3, 0};
    CHECK(ex::orient3d_exact(a, b, c, up) == 1);
    CHECK(ex::orient3d_exact(a, b, c, dn) == -1);
    CHECK(ex::orient3d_exact(a, b, c, in) == 0);
    CHECK(ex::orient2d_exact(a, b, c) == 1);
    CHECK(ex::orient2d_exact(a, c, b) == -1);
    // Nearly collinear: 0.1 + 0.2 on the line y = x through 0.1 and 0.2 in doubles, the smallest
    // offsets above and below.
    const double p0[2] = {0.1, 0.1}, p1[2] = {0.2, 0.2};
    const double q[2] = {0.5, 0.5}, q_up[2] = {0.5, std::nextafter(0.5, 1.0)},
                 q_dn[2] = {0.5, std::nextafter(0.5, 0.0)};
    CHECK(ex::orient2d_exact(p0, p1, q) == 0);
    CHECK(ex::orient2d_exact(p0, p1, q_up) == 1);
    CHECK(ex::orient2d_exact(p0, p1, q_dn) == -1);
    // Four points on the plane x + y + z = 1 with binary fractions: coplanar exactly; a point
    // one ulp off is not.
    const double u0[3] = {0.125, 0.375, 0.5}, u1[3] = {0.75, 0.0625, 0.1875},
                 u2[3] = {0.3125, 0.3125, 0.375}, u3[3] = {0.5, 0.25, 0.25};
    CHECK(ex::orient3d_exact(u0, u1, u2, u3) == 0);
    const double u3o[3] = {0.5, 0.25, std::nextafter(0.25, 1.0)};
    CHECK(ex::orient3d_exact(u0, u1, u2, u3o) != 0);
    // Large coordinates with a tiny offset: the double determinant cancels.
    const double big0[3] = {1e8, 1e8, 1e8}, big1[3] = {1e8 + 1, 1e8, 1e8},
                 big2[3] = {1e8, 1e8 + 1, 1e8},
                 big3[3] = {1e8 + 0.5, 1e8 + 0.5, 1e8 + 1.4901161193847656e-8};
    CHECK(ex::orient3d_exact(big0, big1, big2, big3) == 1);
  }

  TEST_CASE(
      "exact intersections: triangle pairs that cross or touch or are coplanar or apart or share a "
      "vertex") {
    using T = std::array<Vec3, 3>;
    auto tt = [](const T& a, const T& b) {
      const bool ab = ex::triangles_intersect(a[0].data(), a[1].data(), a[2].data(), b[0].data(),
                                              b[1].data(), b[2].data());
      const bool ba = ex::triangles_intersect(b[0].data(), b[1].data(), b[2].data(), a[0].data(),
                                              a[1].data(), a[2].data());
      CHECK(ab == ba);
      return ab;
    };
    const T base = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)};
    // Piercing: a vertical triangle through the interior.
    CHECK(tt(base, {Vec3(0.2, 0.2, -1), Vec3(0.3, 0.2, 1), Vec3(0.25, 0.3, 1)}));
    // Above, apart.
    CHECK_FALSE(tt(base, {Vec3(0.2, 0.2, 0.1), Vec3(0.3, 0.2, 1), Vec3(0.25, 0.3, 1)}));
    // Crossing the plane beside the triangle (its plane is cut, not the triangle).
    CHECK_FALSE(tt(base, {Vec3(0.8, 0.8, -1), Vec3(0.9, 0.8, 1), Vec3(0.85, 0.9, 1)}));
    // Touching at one point: a vertex on the interior, a vertex on an edge, vertex on vertex.
    CHECK(tt(base, {Vec3(0.2, 0.2, 0), Vec3(0.3, 0.2, 1), Vec3(0.25, 0.3, 1)}));
    CHECK(tt(base, {Vec3(0.5, 0, 0), Vec3(0.6, -0.2, 1), Vec3(0.4, -0.1, 1)}));
    CHECK(tt(base, {Vec3(1, 0, 0), Vec3(2, 0, 1), Vec3(2, 1, 1)}));
    // Edge across edge (touching, crossed edges).
    CHECK(tt(base, {Vec3(0.5, -0.5, 0.0), Vec3(0.5, 0.5, 0.0) + Vec3(0, 0, 0), Vec3(0.5, 0, 1)}));
    CHECK_FALSE(tt(
        base, {Vec3(0.6, 0.5, 0.0), Vec3(0.6, 0.5, 0.0) + Vec3(0.1, 0.1, 0), Vec3(0.6, 0.5, 1)}));
    // Coplanar: overlapping, one inside the other, touching at a vertex, apart.
    CHECK(tt(base, {Vec3(0.5, 0.5, 0) - Vec3(0.2, 0.2, 0), Vec3(1.5, 0.2, 0), Vec3(0.2, 1.5, 0)}));
    CHECK(tt(base, {Vec3(0.1, 0.1, 0), Vec3(0.2, 0.1, 0), Vec3(0.1, 0.2, 0)}));
    CHECK(tt(base, {Vec3(1, 0, 0), Vec3(2, 0, 0), Vec3(2, 1, 0)}));
    CHECK_FALSE(tt(base, {Vec3(0.6, 0.6, 0), Vec3(2, 0.6, 0), Vec3(0.6, 2, 0)}));
    // Coplanar in a tilted plane with binary-fraction coordinates (exactly coplanar).
    const T tilted = {Vec3(0, 0, 0), Vec3(1, 0, 1), Vec3(0, 1, 1)};
    CHECK(tt(tilted, {Vec3(0.25, 0.25, 0.5), Vec3(2, 0.25, 2.25), Vec3(0.25, 2, 2.25)}));
    CHECK_FALSE(tt(tilted, {Vec3(0.75, 0.75, 1.5), Vec3(2, 0.75, 2.75), Vec3(0.75, 2, 2.75)}));
    // Degenerate triangles (segments, a point).
    CHECK(tt(base, {Vec3(0.2, 0.2, -1), Vec3(0.2, 0.2, 1), Vec3(0.2, 0.2, 0.5)}));
    CHECK_FALSE(tt(base, {Vec3(2, 2, -1), Vec3(2, 2, 1), Vec3(2, 2, 0.5)}));
    CHECK(tt(base, {Vec3(0.3, 0.3, 0), Vec3(0.3, 0.3, 0), Vec3(0.3, 0.3, 0)}));

    auto shared = [](const Vec3& s, const Vec3& a1, const Vec3& a2, const Vec3& b1,
                     const Vec3& b2) {
      const bool ab = ex::triangles_intersect_sharing_vertex(s.data(), a1.data(), a2.data(),
                                                             b1.data(), b2.data());
      const bool ba = ex::triangles_intersect_sharing_vertex(s.data(), b1.data(), b2.data(),
                                                             a1.data(), a2.data());
      CHECK(ab == ba);
      return ab;
    };
    const Vec3 o(0, 0, 0);
    // A fan around a vertex: meeting only there.
    CHECK_FALSE(shared(o, Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(-1, 0, 0), Vec3(0, -1, 0)));
    CHECK_FALSE(shared(o, Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(-1, 0, 0.5), Vec3(0, -1, 0.5)));
    // Folded onto each other (coplanar overlap), crossing through each other, or touching along
    // a segment from the shared vertex.
    CHECK(shared(o, Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(1, 0.2, 0), Vec3(0.2, 1, 0)));
    CHECK(shared(o, Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0.5, 0.2, -1), Vec3(0.2, 0.5, 1)));
    CHECK(shared(o, Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0.5, 0.5, 0), Vec3(0, 0, 1)));
    // The far edge of one pierces the other: a tent through a floor.
    CHECK(shared(o, Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0.3, 0.3, 1), Vec3(0.3, 0.3, -1)));
    // Degenerate (a needle from the shared vertex) inside or outside the other triangle.
    CHECK(shared(o, Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0.2, 0.2, 0), Vec3(0.4, 0.4, 0)));
    CHECK_FALSE(shared(o, Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(-0.2, -0.2, 0), Vec3(-0.4, -0.4, 0)));
    CHECK_FALSE(shared(o, Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0.2, 0.2, 1), Vec3(0.4, 0.4, 2)));

    // 2D segments: crossing, touching, collinear overlapping or apart, parallel.
    auto seg = [](Vec2 a, Vec2 b, Vec2 c, Vec2 d) {
      return ex::segments_intersect_2d(a.data(), b.data(), c.data(), d.data());
    };
    CHECK(seg({0, 0}, {1, 1}, {0, 1}, {1, 0}));
    CHECK(seg({0, 0}, {1, 1}, {1, 1}, {2, 0}));
    CHECK(seg({0, 0}, {2, 0}, {1, 0}, {3, 0}));
    CHECK_FALSE(seg({0, 0}, {1, 0}, {2, 0}, {3, 0}));
    CHECK_FALSE(seg({0, 0}, {1, 0}, {0, 1}, {1, 1}));
    CHECK_FALSE(seg({0, 0}, {1, 1}, {0.6, 0.5}, {2, 0}));
  }

  TEST_CASE("exact intersections: the predicates agree with brute-force exact linear programs") {
    // Small integer coordinates: coplanar, collinear, touching and degenerate pairs abound. Every
    // tenth configuration is generic (random doubles) instead.
    Random r(31);
    int disagree_tt = 0, disagree_shared = 0, disagree_st = 0, disagree_ss3 = 0, disagree_ss2 = 0,
        hits = 0, shared_hits = 0;
    const int n = 1000;
    for (int c = 0; c < n; ++c) {
      std::array<Vec3, 6> v;
      for (auto& x : v)
        x = c % 10 == 9 ? r.vec3() : Vec3(r.integer(0, 2), r.integer(0, 2), r.integer(-1, 1));
      const std::vector<const double*> A = {v[0].data(), v[1].data(), v[2].data()},
                                       B = {v[3].data(), v[4].data(), v[5].data()};
      const bool brute = !hull_meeting_vertices(A, B, 3).empty();
      hits += brute;
      disagree_tt += brute != ex::triangles_intersect(A[0], A[1], A[2], B[0], B[1], B[2]);
      disagree_st += !hull_meeting_vertices({A[0], A[1]}, B, 3).empty() !=
                     ex::segment_triangle_intersect(A[0], A[1], B[0], B[1], B[2]);
      disagree_ss3 += !hull_meeting_vertices({A[0], A[1]}, {B[0], B[1]}, 3).empty() !=
                      ex::segments_intersect_3d(A[0], A[1], B[0], B[1]);
      disagree_ss2 += !hull_meeting_vertices({A[0], A[1]}, {B[0], B[1]}, 2).empty() !=
                      ex::segments_intersect_2d(A[0], A[1], B[0], B[1]);
      // Sharing vertex v[0]: (v0, v1, v2) and (v0, v4, v5).
      const std::vector<const double*> S = {v[0].data(), v[4].data(), v[5].data()};
      bool elsewhere = false;
      for (const auto& q : hull_meeting_vertices(A, S, 3))
        for (int k = 0; k < 3; ++k) elsewhere |= q[k] != mpq_class(v[0][k]);
      shared_hits += elsewhere;
      disagree_shared +=
          elsewhere != ex::triangles_intersect_sharing_vertex(A[0], A[1], A[2], S[1], S[2]);
    }
    INFO("intersecting " << hits << " of " << n << ", sharing a vertex and meeting elsewhere "
                         << shared_hits);
    CHECK(disagree_tt == 0);
    CHECK(disagree_st == 0);
    CHECK(disagree_ss3 == 0);
    CHECK(disagree_ss2 == 0);
    CHECK(disagree_shared == 0);
    // Both outcomes occur often enough to mean something.
    CHECK(hits > n / 10);
    CHECK(hits < n - n / 10);
    CHECK(shared_hits > n / 10);
    CHECK(shared_hits < n - n / 10);
  }

  TEST_CASE("exact intersections: a closed box surface has none until a vertex is pushed through") {
    // The unit cube's surface, 12 outward triangles.
    Eigen::VectorXd x(24);
    for (int v = 0; v < 8; ++v)
      for (int i = 0; i < 3; ++i) x[3 * v + i] = (v >> i) & 1;
    const std::vector<std::array<int, 3>> box = {{0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6},
                                                 {0, 1, 5}, {0, 5, 4}, {2, 6, 7}, {2, 7, 3},
                                                 {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};
    CHECK(ex::count_intersecting_triangles(x, box) == 0);
    // Vertex 7 (1, 1, 1) pushed through the bottom face z = 0 to (0.4, 0.6, -0.5).
    Eigen::VectorXd pushed = x;
    pushed.segment<3>(21) = Vec3(0.4, 0.6, -0.5);
    CHECK(ex::count_intersecting_triangles(pushed, box) > 0);
    // Pushed past the opposite corner instead, its fan of triangles wraps around the three faces
    // at vertex 0 without crossing them: inside out, yet no intersection.
    Eigen::VectorXd everted = x;
    everted.segment<3>(21) = Vec3(-0.5, -0.4, -0.3);
    CHECK(ex::count_intersecting_triangles(everted, box) == 0);
    // Pushed only inward, still inside the box: a dented, valid surface.
    Eigen::VectorXd dented = x;
    dented.segment<3>(21) = Vec3(0.6, 0.6, 0.6);
    CHECK(ex::count_intersecting_triangles(dented, box) == 0);
    // Pushed exactly onto the opposite face's plane z = 0 inside it: touching counts.
    Eigen::VectorXd touching = x;
    touching.segment<3>(21) = Vec3(0.25, 0.5, 0.0);
    CHECK(ex::count_intersecting_triangles(touching, box) > 0);

    // A tetrahedron's surface, and a second one piercing it.
    Eigen::VectorXd y(24);
    const double pts[8][3] = {{0, 0, 0},        {1, 0, 0},     {0, 1, 0},     {0, 0, 1},
                              {0.2, 0.2, -0.5}, {0.3, 0.2, 2}, {0.2, 0.3, 2}, {0.25, 0.25, 3}};
    for (int v = 0; v < 8; ++v)
      for (int i = 0; i < 3; ++i) y[3 * v + i] = pts[v][i];
    const std::vector<std::array<int, 3>> tet = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    CHECK(ex::count_intersecting_triangles(y, tet) == 0);
    std::vector<std::array<int, 3>> two = tet;
    for (const auto& f : tet) two.push_back({f[0] + 4, f[1] + 4, f[2] + 4});
    CHECK(ex::count_intersecting_triangles(y, two) > 0);
    // Moved away, the two are apart.
    Eigen::VectorXd apart = y;
    for (int v = 4; v < 8; ++v) apart[3 * v] += 5;
    CHECK(ex::count_intersecting_triangles(apart, two) == 0);
    CHECK_THROWS_AS(ex::count_intersecting_triangles(y, {{0, 1, 8}}), std::invalid_argument);

    // 2D: a square's boundary, then a vertex pushed across the opposite edge; an edge folded
    // back onto its neighbour (collinear, sharing a vertex).
    Eigen::VectorXd sq(8);
    sq << 0, 0, 1, 0, 1, 1, 0, 1;
    const std::vector<std::array<int, 2>> loop = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
    CHECK(ex::count_intersecting_edges_2d(sq, loop) == 0);
    Eigen::VectorXd crossed = sq;
    crossed.segment<2>(4) = Vec2(-0.5, 0.5);
    CHECK(ex::count_intersecting_edges_2d(crossed, loop) > 0);
    Eigen::VectorXd folded = sq;
    folded.segment<2>(4) = Vec2(0.5, 0.0);
    CHECK(ex::count_intersecting_edges_2d(folded, loop) > 0);
  }
}
