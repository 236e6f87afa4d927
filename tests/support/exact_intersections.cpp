// Exact intersection predicates: double-precision orientation filters (Shewchuk's stage-A
// bounds) with GMP rationals behind them, and the segment/triangle tests built on their signs.
#include "support/exact_intersections.hpp"

#include <gmpxx.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace softgrad::test {
namespace {

// Shewchuk's o3derrboundA = (7 + 56 eps) eps and ccwerrboundA = (3 + 16 eps) eps (eps = 2^-53),
// rounded up; below kTiny the products may have underflowed and the bound is not trusted.
constexpr double kOrient3dBound = 7.8e-16;
constexpr double kOrient2dBound = 3.4e-16;
constexpr double kTiny = 1e-250;

int sign(const mpq_class& v) { return sgn(v); }

/// Orientation of the projections of a, b, c onto coordinates (i, j).
int orient2d_ij(const double* a, const double* b, const double* c, int i, int j) {
  const double ux = b[i] - a[i], uy = b[j] - a[j], vx = c[i] - a[i], vy = c[j] - a[j];
  const double l = ux * vy, r = uy * vx, det = l - r;
  const double perm = std::abs(l) + std::abs(r);
  if (perm > kTiny) {
    const double bound = kOrient2dBound * perm;
    if (det > bound) return 1;
    if (-det > bound) return -1;
  }
  const mpq_class qux = mpq_class(b[i]) - mpq_class(a[i]), quy = mpq_class(b[j]) - mpq_class(a[j]);
  const mpq_class qvx = mpq_class(c[i]) - mpq_class(a[i]), qvy = mpq_class(c[j]) - mpq_class(a[j]);
  return sign(qux * qvy - quy * qvx);
}

/// The coordinate pairs that drop x, y and z.
constexpr int kProjection[3][2] = {{1, 2}, {0, 2}, {0, 1}};

bool equal3(const double* a, const double* b) {
  return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

/// Collinear (or coincident) points: every coordinate projection is degenerate.
bool collinear3(const double* a, const double* b, const double* c) {
  for (const auto& pr : kProjection)
    if (orient2d_ij(a, b, c, pr[0], pr[1]) != 0) return false;
  return true;
}

/// A coordinate to drop that keeps (a, b, c) non-degenerate; -1 for collinear points.
int projection_axis(const double* a, const double* b, const double* c) {
  for (int k = 0; k < 3; ++k)
    if (orient2d_ij(a, b, c, kProjection[k][0], kProjection[k][1]) != 0) return k;
  return -1;
}

/// Exact sign of (a - s) . (b - s).
int dot_sign(const double* s, const double* a, const double* b, int dim) {
  mpq_class sum = 0;
  for (int i = 0; i < dim; ++i)
    sum += (mpq_class(a[i]) - mpq_class(s[i])) * (mpq_class(b[i]) - mpq_class(s[i]));
  return sign(sum);
}

/// q lies in the bounding box of (a, b) in coordinates (i, j): on the segment when collinear.
bool in_box(const double* a, const double* b, const double* q, int i, int j) {
  return std::min(a[i], b[i]) <= q[i] && q[i] <= std::max(a[i], b[i]) &&
         std::min(a[j], b[j]) <= q[j] && q[j] <= std::max(a[j], b[j]);
}

/// Closed segments in the projection onto coordinates (i, j) (either may be a point).
bool segments_intersect_ij(const double* a0, const double* a1, const double* b0, const double* b1,
                           int i, int j) {
  const int o1 = orient2d_ij(a0, a1, b0, i, j), o2 = orient2d_ij(a0, a1, b1, i, j);
  const int o3 = orient2d_ij(b0, b1, a0, i, j), o4 = orient2d_ij(b0, b1, a1, i, j);
  if (o1 * o2 < 0 && o3 * o4 < 0) return true;
  return (o1 == 0 && in_box(a0, a1, b0, i, j)) || (o2 == 0 && in_box(a0, a1, b1, i, j)) ||
         (o3 == 0 && in_box(b0, b1, a0, i, j)) || (o4 == 0 && in_box(b0, b1, a1, i, j));
}

/// p in the closed triangle (a, b, c) in the projection (i, j), where the triangle is not
/// degenerate (orientation o).
bool point_in_triangle_ij(const double* p, const double* a, const double* b, const double* c, int o,
                          int i, int j) {
  return orient2d_ij(a, b, p, i, j) * o >= 0 && orient2d_ij(b, c, p, i, j) * o >= 0 &&
         orient2d_ij(c, a, p, i, j) * o >= 0;
}

/// Segment (s, a) and the triangle (s, b1, b2) share a point other than s.
bool segment_beyond_vertex(const double* s, const double* a, const double* b1, const double* b2,
                           bool b_degenerate) {
  if (equal3(a, s)) return false;
  if (b_degenerate) {
    // The triangle is the union of the segments (s, b1) and (s, b2): overlap beyond s when one
    // of them points the same way as (s, a).
    for (const double* b : {b1, b2})
      if (!equal3(b, s) && collinear3(s, a, b) && dot_sign(s, a, b, 3) > 0) return true;
    return false;
  }
  // The farthest point of the segment inside the triangle is a itself or on the opposite edge.
  return segment_triangle_intersect(a, a, s, b1, b2) || segments_intersect_3d(s, a, b1, b2);
}

using Q3 = std::array<mpq_class, 3>;

Q3 q_sub(const double* a, const double* b, int dim) {
  Q3 r;
  for (int i = 0; i < dim; ++i) r[i] = mpq_class(a[i]) - mpq_class(b[i]);
  return r;
}

mpq_class q_dot(const Q3& a, const Q3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/// |r - t e|^2 for t the clamped projection of r onto e.
mpq_class q_point_segment(const Q3& r, const Q3& e) {
  const mpq_class ee = q_dot(e, e);
  mpq_class t = 0;
  if (sgn(ee) > 0) {
    t = q_dot(r, e) / ee;
    if (t < 0) t = 0;
    if (t > 1) t = 1;
  }
  Q3 d;
  for (int i = 0; i < 3; ++i) d[i] = r[i] - t * e[i];
  return q_dot(d, d);
}

struct Box {
  double lo[3], hi[3];
};

template <int D, int N>
std::vector<Box> boxes(const Eigen::VectorXd& x, const std::vector<std::array<int, N>>& cells) {
  const int n_vertices = static_cast<int>(x.size() / D);
  std::vector<Box> b(cells.size());
  for (size_t c = 0; c < cells.size(); ++c) {
    for (int i = 0; i < 3; ++i) b[c].lo[i] = b[c].hi[i] = 0.0;
    for (int k = 0; k < N; ++k) {
      const int v = cells[c][k];
      if (v < 0 || v >= n_vertices)
        throw std::invalid_argument("exact intersections: vertex index " + std::to_string(v) +
                                    " outside the " + std::to_string(n_vertices) + " vertices");
      for (int i = 0; i < D; ++i) {
        const double xi = x[D * v + i];
        b[c].lo[i] = k == 0 ? xi : std::min(b[c].lo[i], xi);
        b[c].hi[i] = k == 0 ? xi : std::max(b[c].hi[i], xi);
      }
    }
  }
  return b;
}

/// Calls test(c, d) for every pair c < d of overlapping boxes (closed: touching counts).
template <class Test>
int sweep(const std::vector<Box>& b, Test test) {
  std::vector<int> order(b.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int i, int j) { return b[i].lo[0] < b[j].lo[0]; });
  int count = 0;
  for (size_t oi = 0; oi < order.size(); ++oi) {
    const Box& bi = b[order[oi]];
    for (size_t oj = oi + 1; oj < order.size() && b[order[oj]].lo[0] <= bi.hi[0]; ++oj) {
      const Box& bj = b[order[oj]];
      if (bj.lo[1] > bi.hi[1] || bi.lo[1] > bj.hi[1] || bj.lo[2] > bi.hi[2] || bi.lo[2] > bj.hi[2])
        continue;
      if (test(order[oi], order[oj])) ++count;
    }
  }
  return count;
}

}  // namespace

int orient3d_exact(const double* a, const double* b, const double* c, const double* d) {
  const double ux = b[0] - a[0], uy = b[1] - a[1], uz = b[2] - a[2];
  const double vx = c[0] - a[0], vy = c[1] - a[1], vz = c[2] - a[2];
  const double wx = d[0] - a[0], wy = d[1] - a[1], wz = d[2] - a[2];
  const double m1 = vy * wz, m2 = vz * wy, m3 = vz * wx, m4 = vx * wz, m5 = vx * wy, m6 = vy * wx;
  const double det = ux * (m1 - m2) + uy * (m3 - m4) + uz * (m5 - m6);
  const double perm = std::abs(ux) * (std::abs(m1) + std::abs(m2)) +
                      std::abs(uy) * (std::abs(m3) + std::abs(m4)) +
                      std::abs(uz) * (std::abs(m5) + std::abs(m6));
  if (perm > kTiny) {
    const double bound = kOrient3dBound * perm;
    if (det > bound) return 1;
    if (-det > bound) return -1;
  }
  mpq_class u[3], v[3], w[3];
  for (int i = 0; i < 3; ++i) {
    const mpq_class ai(a[i]);
    u[i] = mpq_class(b[i]) - ai;
    v[i] = mpq_class(c[i]) - ai;
    w[i] = mpq_class(d[i]) - ai;
  }
  const mpq_class q = u[0] * (v[1] * w[2] - v[2] * w[1]) + u[1] * (v[2] * w[0] - v[0] * w[2]) +
                      u[2] * (v[0] * w[1] - v[1] * w[0]);
  return sign(q);
}

int orient2d_exact(const double* a, const double* b, const double* c) {
  return orient2d_ij(a, b, c, 0, 1);
}

bool segments_intersect_2d(const double* a0, const double* a1, const double* b0, const double* b1) {
  return segments_intersect_ij(a0, a1, b0, b1, 0, 1);
}

bool segments_intersect_3d(const double* a0, const double* a1, const double* b0, const double* b1) {
  if (orient3d_exact(a0, a1, b0, b1) != 0) return false;
  // Coplanar: some coordinate projection is one-to-one on a plane through the four points, and
  // every projection keeps a common point; so they meet iff every projection meets.
  for (const auto& pr : kProjection)
    if (!segments_intersect_ij(a0, a1, b0, b1, pr[0], pr[1])) return false;
  return true;
}

bool segment_triangle_intersect(const double* p, const double* q, const double* a, const double* b,
                                const double* c) {
  const int k = projection_axis(a, b, c);
  if (k < 0)  // a degenerate triangle is the union of its edges
    return segments_intersect_3d(p, q, a, b) || segments_intersect_3d(p, q, b, c) ||
           segments_intersect_3d(p, q, c, a);
  const int sp = orient3d_exact(a, b, c, p), sq = orient3d_exact(a, b, c, q);
  if (sp * sq > 0) return false;
  if (sp == 0 && sq == 0) {
    // Coplanar: dropping coordinate k is one-to-one on the triangle's plane.
    const int i = kProjection[k][0], j = kProjection[k][1];
    const int o = orient2d_ij(a, b, c, i, j);
    return point_in_triangle_ij(p, a, b, c, o, i, j) || point_in_triangle_ij(q, a, b, c, o, i, j) ||
           segments_intersect_ij(p, q, a, b, i, j) || segments_intersect_ij(p, q, b, c, i, j) ||
           segments_intersect_ij(p, q, c, a, i, j);
  }
  // The segment meets the plane at one point: it is in the triangle when the line (p, q) passes
  // every edge on the same side (zeros allowed: through an edge or a vertex).
  const int s1 = orient3d_exact(p, q, a, b), s2 = orient3d_exact(p, q, b, c),
            s3 = orient3d_exact(p, q, c, a);
  const bool positive = s1 > 0 || s2 > 0 || s3 > 0, negative = s1 < 0 || s2 < 0 || s3 < 0;
  return !(positive && negative);
}

bool triangles_intersect(const double* a0, const double* a1, const double* a2, const double* b0,
                         const double* b1, const double* b2) {
  // All of one triangle strictly on one side of the other's plane.
  auto separated = [](const double* p0, const double* p1, const double* p2, const double* q0,
                      const double* q1, const double* q2) {
    const int s0 = orient3d_exact(p0, p1, p2, q0), s1 = orient3d_exact(p0, p1, p2, q1),
              s2 = orient3d_exact(p0, p1, p2, q2);
    return (s0 > 0 && s1 > 0 && s2 > 0) || (s0 < 0 && s1 < 0 && s2 < 0);
  };
  if (separated(a0, a1, a2, b0, b1, b2) || separated(b0, b1, b2, a0, a1, a2)) return false;
  // Two closed triangles (convex) meet iff an edge of one meets the other: the end of their
  // common segment (or, coplanar, a boundary point of the smaller) is on an edge.
  return segment_triangle_intersect(a0, a1, b0, b1, b2) ||
         segment_triangle_intersect(a1, a2, b0, b1, b2) ||
         segment_triangle_intersect(a2, a0, b0, b1, b2) ||
         segment_triangle_intersect(b0, b1, a0, a1, a2) ||
         segment_triangle_intersect(b1, b2, a0, a1, a2) ||
         segment_triangle_intersect(b2, b0, a0, a1, a2);
}

bool triangles_intersect_sharing_vertex(const double* s, const double* a1, const double* a2,
                                        const double* b1, const double* b2) {
  const bool a_degenerate = collinear3(s, a1, a2), b_degenerate = collinear3(s, b1, b2);
  // A degenerate triangle is the union of the segments from s to its other two vertices.
  if (a_degenerate)
    return segment_beyond_vertex(s, a1, b1, b2, b_degenerate) ||
           segment_beyond_vertex(s, a2, b1, b2, b_degenerate);
  if (b_degenerate)
    return segment_beyond_vertex(s, b1, a1, a2, false) ||
           segment_beyond_vertex(s, b2, a1, a2, false);
  // The intersection is convex and holds s; a farther point of it, followed from s, leaves one
  // of the triangles through the edge opposite s. That edge does not hold s.
  return segment_triangle_intersect(a1, a2, s, b1, b2) ||
         segment_triangle_intersect(b1, b2, s, a1, a2);
}

double point_segment_distance_sq_exact(const double* p, const double* a, const double* b, int dim) {
  return q_point_segment(q_sub(p, a, dim), q_sub(b, a, dim)).get_d();
}

double point_triangle_distance_sq_exact(const double* p, const double* a, const double* b,
                                        const double* c) {
  const Q3 r = q_sub(p, a, 3), e0 = q_sub(b, a, 3), e1 = q_sub(c, a, 3);
  const mpq_class A = q_dot(e0, e0), B = q_dot(e0, e1), C = q_dot(e1, e1), D = q_dot(r, e0),
                  E = q_dot(r, e1), det = A * C - B * B;
  if (sgn(det) != 0) {
    const mpq_class u = (C * D - B * E) / det, v = (A * E - B * D) / det;
    if (sgn(u) >= 0 && sgn(v) >= 0 && u + v <= 1) {
      Q3 d;
      for (int i = 0; i < 3; ++i) d[i] = r[i] - u * e0[i] - v * e1[i];
      return q_dot(d, d).get_d();
    }
  }
  const mpq_class m = std::min({q_point_segment(r, e0), q_point_segment(r, e1),
                                q_point_segment(q_sub(p, b, 3), q_sub(c, b, 3))});
  return m.get_d();
}

double segment_segment_distance_sq_exact(const double* a0, const double* a1, const double* b0,
                                         const double* b1) {
  const Q3 ea = q_sub(a1, a0, 3), eb = q_sub(b1, b0, 3), r = q_sub(a0, b0, 3);
  const mpq_class A = q_dot(ea, ea), B = q_dot(ea, eb), C = q_dot(eb, eb), D = q_dot(ea, r),
                  E = q_dot(eb, r), det = A * C - B * B;
  if (sgn(det) != 0) {
    const mpq_class s = (B * E - C * D) / det, t = (A * E - B * D) / det;
    if (sgn(s) >= 0 && s <= 1 && sgn(t) >= 0 && t <= 1) {
      Q3 d;
      for (int i = 0; i < 3; ++i) d[i] = r[i] + s * ea[i] - t * eb[i];
      return q_dot(d, d).get_d();
    }
  }
  const mpq_class m =
      std::min({q_point_segment(q_sub(a0, b0, 3), eb), q_point_segment(q_sub(a1, b0, 3), eb),
                q_point_segment(q_sub(b0, a0, 3), ea), q_point_segment(q_sub(b1, a0, 3), ea)});
  return m.get_d();
}

int count_intersecting_triangles(const Eigen::VectorXd& x,
                                 const std::vector<std::array<int, 3>>& triangles) {
  const std::vector<Box> b = boxes<3, 3>(x, triangles);
  const double* X = x.data();
  return sweep(b, [&](int c, int d) {
    const auto& t = triangles[c];
    const auto& u = triangles[d];
    int shared = 0, ct = -1, cu = -1;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        if (t[i] == u[j]) ++shared, ct = i, cu = j;
    if (shared >= 2) return false;
    if (shared == 1)
      return triangles_intersect_sharing_vertex(X + 3 * t[ct], X + 3 * t[(ct + 1) % 3],
                                                X + 3 * t[(ct + 2) % 3], X + 3 * u[(cu + 1) % 3],
                                                X + 3 * u[(cu + 2) % 3]);
    return triangles_intersect(X + 3 * t[0], X + 3 * t[1], X + 3 * t[2], X + 3 * u[0], X + 3 * u[1],
                               X + 3 * u[2]);
  });
}

int count_intersecting_edges_2d(const Eigen::VectorXd& x,
                                const std::vector<std::array<int, 2>>& edges) {
  const std::vector<Box> b = boxes<2, 2>(x, edges);
  const double* X = x.data();
  return sweep(b, [&](int c, int d) {
    const auto& e = edges[c];
    const auto& f = edges[d];
    const bool s00 = e[0] == f[0], s01 = e[0] == f[1], s10 = e[1] == f[0], s11 = e[1] == f[1];
    const int shared = int(s00) + int(s01) + int(s10) + int(s11);
    if (shared >= 2) return false;
    if (shared == 1) {
      // (s, a) and (s, b) overlap beyond s when collinear and pointing the same way.
      const int vs = s00 || s01 ? e[0] : e[1];
      const int va = vs == e[0] ? e[1] : e[0], vb = vs == f[0] ? f[1] : f[0];
      const double *S = X + 2 * vs, *A = X + 2 * va, *B = X + 2 * vb;
      const bool a_at_s = A[0] == S[0] && A[1] == S[1], b_at_s = B[0] == S[0] && B[1] == S[1];
      return !a_at_s && !b_at_s && orient2d_exact(S, A, B) == 0 && dot_sign(S, A, B, 2) > 0;
    }
    return segments_intersect_2d(X + 2 * e[0], X + 2 * e[1], X + 2 * f[0], X + 2 * f[1]);
  });
}

}  // namespace softgrad::test
