// Additive CCD on random trajectories (grazing, 1e-8 apart, fast, rotating): no early crossing.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>

#include "ccd_test_support.hpp"
#include "contact/ccd.hpp"
#include "support/exact_intersections.hpp"

namespace {

using namespace softgrad::test::ccd_support;

double pt_distance(const std::array<Vec3, 4>& y) {
  return cd::point_triangle_distance(y[0].data(), y[1].data(), y[2].data(), y[3].data());
}
double ee_distance(const std::array<Vec3, 4>& y) {
  return cd::segment_segment_distance(y[0].data(), y[1].data(), y[2].data(), y[3].data());
}
int pt_orient(const std::array<Vec3, 4>& y) {
  return ex::orient3d_exact(y[1].data(), y[2].data(), y[3].data(), y[0].data());
}
int ee_orient(const std::array<Vec3, 4>& y) {
  return ex::orient3d_exact(y[0].data(), y[1].data(), y[2].data(), y[3].data());
}
bool pt_touch(const std::array<Vec3, 4>& y) {
  return ex::segment_triangle_intersect(y[0].data(), y[0].data(), y[1].data(), y[2].data(),
                                        y[3].data());
}
bool ee_touch(const std::array<Vec3, 4>& y) {
  return ex::segments_intersect_3d(y[0].data(), y[1].data(), y[2].data(), y[3].data());
}

/// What a check of [0, toi] found wrong (empty: nothing).
struct Verdict {
  bool touched = false;         ///< exactly in contact at a sample
  bool crossed = false;         ///< passed through between samples
  double min_ratio = INFINITY;  ///< min (distance - thickness) / (d0 - thickness) over samples
  double end_ratio = INFINITY;  ///< the same at toi
};

/// Samples [0, toi] densely: at each sample the exact contact test and the distance; where the
/// exact orientation of the four points changes sign between samples, bisects to the change and
/// checks that the primitives did not pass through each other there (the distance at both sides
/// of the change stays above the bound, the exact contact test fails on both sides).
template <class Distance, class Orient, class Touch>
Verdict check_interval(const Trajectory3& tr, double toi, double thickness, Distance distance,
                       Orient orient, Touch touch, int samples = 200) {
  Verdict v;
  const double d0 = distance(tr.at_time(0.0)) - thickness;
  auto ratio = [&](const std::array<Vec3, 4>& y) { return (distance(y) - thickness) / d0; };
  auto visit = [&](double s) {
    const auto y = tr.at_time(s);
    if (touch(y)) v.touched = true;
    v.min_ratio = std::min(v.min_ratio, ratio(y));
    return orient(y);
  };
  double prev_s = 0.0;
  int prev = visit(0.0);
  for (int k = 1; k <= samples; ++k) {
    const double s = k == samples ? toi : toi * k / samples;
    const int o = visit(s);
    if (o != prev) {
      double lo = prev_s, hi = s;
      for (int it = 0; it < 200; ++it) {
        const double mid = 0.5 * (lo + hi);
        if (!(mid > lo && mid < hi)) break;
        (orient(tr.at_time(mid)) == prev ? lo : hi) = mid;
      }
      visit(lo);
      visit(hi);
      // Through each other: the distance near the change is zero up to rounding.
      const double scale = 1e-12 * (1.0 + tr.x[0].norm() + tr.dx[0].norm());
      if (std::min(distance(tr.at_time(lo)), distance(tr.at_time(hi))) - thickness <= scale)
        v.crossed = true;
    }
    prev = o;
    prev_s = s;
  }
  v.end_ratio = ratio(tr.at_time(toi));
  return v;
}

/// Tallies of a batch of random trajectories.
struct Tally {
  int cases = 0, touched = 0, crossed = 0, below_bound = 0, end_below = 0, not_before = 0, zero = 0;
  void add(const Verdict& v, double toi, double s, bool started_apart) {
    ++cases;
    touched += v.touched;
    crossed += v.crossed;
    // Between steps (1 - s)^2 of the initial gap remains, at toi (1 - s) of it (rounding: 1e-6).
    below_bound += v.min_ratio < (1 - s) * (1 - s) * (1 - 1e-6);
    end_below += v.end_ratio < (1 - s) * (1 - 1e-6);
    zero += started_apart && !(toi > 0.0);
  }
};

void require_clean(const Tally& t) {
  INFO("cases " << t.cases);
  CHECK(t.touched == 0);
  CHECK(t.crossed == 0);
  CHECK(t.below_bound == 0);
  CHECK(t.end_below == 0);
  CHECK(t.not_before == 0);
  CHECK(t.zero == 0);
}

/// Vertices moved to a rotation about a random centre plus a translation (linear trajectories).
void rigid_motion(Random& r, const Vec3* x, Vec3* dx, int n, double angle, double shift) {
  const Eigen::Matrix3d R = r.rotation(angle);
  const Vec3 c = r.vec3(), T = shift * r.vec3();
  for (int k = 0; k < n; ++k) dx[k] = R * (x[k] - c) + c + T - x[k];
}

}  // namespace

TEST_SUITE("contact ccd") {
  TEST_CASE("ccd: random point-triangle trajectories never cross before the returned time") {
    Random r(20261130);
    Tally tally;
    int exact_swept_hits = 0;
    const double s = 0.9;
    for (int c = 0; c < 2400; ++c) {
      const auto tri = random_triangle(r);
      const Vec3 n = (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalized();
      const Vec3 bc = r.barycentric(c % 7 == 0 ? 0.0 : 0.02);
      const Vec3 target = bc[0] * tri[0] + bc[1] * tri[1] + bc[2] * tri[2];
      Trajectory3 tr;
      for (int k = 0; k < 3; ++k) tr.x[k + 1] = tri[k], tr.dx[k + 1] = Vec3::Zero();
      const int kind = c % 6;
      double t_star = INFINITY;  // the exact impact time, where known
      // A thickness for some of the approaching and rotating ones (the close ones would start
      // within it).
      const double thickness = c % 5 == 0 && (kind == 0 || kind >= 4) ? r.uniform(0.0, 0.05) : 0.0;
      if (kind == 0 || kind == 1) {
        // Through an interior point at t*, at any angle; kind 1 starts 1e-8..1e-4 away and moves
        // up to 1e3 times that far.
        t_star = kind == 0 ? r.uniform(0.05, 1.5) : r.uniform(1e-3, 1.0);
        Vec3 dir = r.unit3();
        if (std::abs(dir.dot(n)) < 0.05) dir = (dir + 0.2 * n).normalized();
        const double h = kind == 0 ? r.uniform(0.01, 2.0) : std::pow(10.0, r.uniform(-8, -4));
        const double speed = h / std::abs(dir.dot(n)) / t_star;
        tr.dx[0] = speed * dir;
        tr.x[0] = target - t_star * tr.dx[0];
        if (thickness > 0) t_star = INFINITY;  // reaches the thickness earlier
      } else if (kind == 2) {
        // Grazing: parallel to the plane, 1e-8..1e-3 above or below it, from over the interior
        // (sliding past an edge) or from beside the triangle.
        const double h = std::pow(10.0, r.uniform(-8, -3)) * (r.uniform(0, 1) < 0.5 ? 1 : -1);
        Vec3 dir = r.unit3();
        dir = (dir - dir.dot(n) * n).normalized();
        tr.x[0] = target + h * n - (r.uniform(0, 1) < 0.5 ? 0.0 : r.uniform(0.5, 1.5)) * dir;
        tr.dx[0] = r.uniform(0.5, 3.0) * dir;
      } else if (kind == 3) {
        // Starting 1e-8 away (above the interior or beside an edge), moving fast toward it.
        const double h = 1e-8 * r.uniform(0.5, 2);
        const int e = r.integer(0, 2);
        const Vec3 edge_point = 0.5 * (tri[e] + tri[(e + 1) % 3]);
        const Vec3 start_near = r.uniform(0, 1) < 0.5 ? target + h * n : edge_point + h * n;
        tr.x[0] = start_near;
        tr.dx[0] = 1e3 * h * (r.unit3() - 0.5 * n);
      } else {
        // Rotating and translating past each other (kind 4: the triangle, 5: both).
        tr.x[0] = target + r.uniform(-0.3, 0.3) * n;
        rigid_motion(r, tri.data(), tr.dx.data() + 1, 3, M_PI, 0.5);
        tr.dx[0] = kind == 5 ? Vec3(r.vec3(-1, 1)) : Vec3::Zero();
      }
      // A common drift changes nothing.
      if (c % 3 == 0) {
        const Vec3 drift = r.vec3(-2, 2);
        for (auto& d : tr.dx) d += drift;
      }
      const double toi = ccd_pt(tr, thickness, s);
      const Verdict v = check_interval(tr, toi, thickness, pt_distance, pt_orient, pt_touch);
      const bool apart = pt_distance(tr.at_time(0)) > thickness;
      tally.add(v, toi, s, apart);
      if (std::isfinite(t_star) && !(toi < t_star)) ++tally.not_before;
      // Without triangle motion the point's path is one segment: exactly no contact on it.
      bool static_triangle = true;
      for (int k = 1; k < 4; ++k) static_triangle &= tr.dx[k].isZero(0);
      if (static_triangle && thickness == 0.0) {
        const Vec3 end = at(tr.x[0], tr.dx[0], toi);
        exact_swept_hits += ex::segment_triangle_intersect(
            tr.x[0].data(), end.data(), tri[0].data(), tri[1].data(), tri[2].data());
      }
    }
    require_clean(tally);
    CHECK(exact_swept_hits == 0);
  }

  TEST_CASE("ccd: random edge-edge trajectories never cross before the returned time") {
    Random r(99);
    Tally tally;
    int exact_swept_hits = 0;
    const double s = 0.9;
    for (int c = 0; c < 2400; ++c) {
      Trajectory3 tr;
      const Vec3 b0 = r.vec3(), b1 = r.vec3();
      const Vec3 qb = b0 + r.uniform(0.02, 0.98) * (b1 - b0);
      const Vec3 u = r.unit3() * r.uniform(0.3, 2.0);
      const double alpha = r.uniform(0.02, 0.98);
      tr.x[2] = b0;
      tr.x[3] = b1;
      tr.dx[2] = tr.dx[3] = Vec3::Zero();
      const int kind = c % 5;
      double t_star = INFINITY;
      const double thickness = c % 7 == 0 && (kind == 0 || kind == 4) ? r.uniform(0.0, 0.05) : 0.0;
      bool rigid_translation = false;
      if (kind == 0 || kind == 1) {
        // Edge a translates through the interior point qb at t*: the relative motion is a
        // translation, so its plane through b is crossed once, at t*.
        t_star = kind == 0 ? r.uniform(0.05, 1.5) : r.uniform(1e-3, 1.0);
        const Vec3 nb = u.cross(b1 - b0).normalized();
        Vec3 dir = r.unit3();
        if (std::abs(dir.dot(nb)) < 0.05) dir = (dir + 0.2 * nb).normalized();
        const double h = kind == 0 ? r.uniform(0.01, 2.0) : std::pow(10.0, r.uniform(-8, -4));
        const Vec3 v = h / std::abs(dir.dot(nb)) / t_star * dir;
        tr.x[0] = qb - alpha * u - t_star * v;
        tr.x[1] = qb + (1 - alpha) * u - t_star * v;
        tr.dx[0] = tr.dx[1] = v;
        rigid_translation = true;
        if (thickness > 0) t_star = INFINITY;
      } else if (kind == 2) {
        // Grazing: edge a slides in a plane 1e-8..1e-3 from b (or just past b's end).
        const Vec3 nb = u.cross(b1 - b0).normalized();
        const double h = std::pow(10.0, r.uniform(-8, -3));
        Vec3 dir = r.unit3();
        dir = (dir - dir.dot(nb) * nb).normalized();
        const Vec3 base = r.uniform(0, 1) < 0.3 ? Vec3(b1 + 1e-6 * (b1 - b0)) : qb;
        tr.x[0] =
            base - alpha * u + h * nb - (r.uniform(0, 1) < 0.5 ? 0.0 : r.uniform(0.5, 1.0)) * dir;
        tr.x[1] = tr.x[0] + u;
        tr.dx[0] = tr.dx[1] = r.uniform(0.5, 3.0) * dir;
        rigid_translation = true;
      } else if (kind == 3) {
        // Starting 1e-8 away (crossing or parallel), moving fast.
        const Vec3 nb = u.cross(b1 - b0).normalized();
        const double h = 1e-8 * r.uniform(0.5, 2);
        const Vec3 along = r.uniform(0, 1) < 0.25 ? Vec3((b1 - b0).normalized()) : u;
        tr.x[0] = qb - alpha * along + h * nb;
        tr.x[1] = tr.x[0] + along;
        tr.dx[0] = 1e3 * h * (r.unit3() - 0.5 * nb);
        tr.dx[1] = 1e3 * h * (r.unit3() - 0.5 * nb);
      } else {
        // Both rotating and translating past each other.
        tr.x[0] = qb - alpha * u + r.uniform(-0.3, 0.3) * r.unit3();
        tr.x[1] = tr.x[0] + u;
        rigid_motion(r, tr.x.data(), tr.dx.data(), 2, M_PI, 0.5);
        rigid_motion(r, tr.x.data() + 2, tr.dx.data() + 2, 2, M_PI, 0.5);
      }
      if (c % 3 == 0) {
        const Vec3 drift = r.vec3(-2, 2);
        for (auto& d : tr.dx) d += drift;
        rigid_translation = false;  // b moves too
      }
      const double toi = ccd_ee(tr, thickness, s);
      const Verdict v = check_interval(tr, toi, thickness, ee_distance, ee_orient, ee_touch);
      tally.add(v, toi, s, ee_distance(tr.at_time(0)) > thickness);
      if (std::isfinite(t_star) && !(toi < t_star)) ++tally.not_before;
      // b static and a translating: a sweeps a parallelogram, which b must not meet (both of its
      // triangulations, as the rounded end positions need not be coplanar).
      if (rigid_translation && thickness == 0.0) {
        const Vec3 e0 = at(tr.x[0], tr.dx[0], toi), e1 = at(tr.x[1], tr.dx[1], toi);
        const double* a0 = tr.x[0].data();
        const double* a1 = tr.x[1].data();
        exact_swept_hits +=
            ex::segment_triangle_intersect(b0.data(), b1.data(), a0, a1, e1.data()) ||
            ex::segment_triangle_intersect(b0.data(), b1.data(), a0, e1.data(), e0.data()) ||
            ex::segment_triangle_intersect(b0.data(), b1.data(), a0, a1, e0.data()) ||
            ex::segment_triangle_intersect(b0.data(), b1.data(), a1, e1.data(), e0.data());
      }
    }
    require_clean(tally);
    CHECK(exact_swept_hits == 0);
  }

  TEST_CASE("ccd: random 2D point-segment trajectories never cross before the returned time") {
    Random r(4242);
    int crossed = 0, not_before = 0, below = 0, zero = 0;
    const double s = 0.9;
    for (int c = 0; c < 3000; ++c) {
      const Vec2 e0(r.uniform(-1, 1), r.uniform(-1, 1)), e1(r.uniform(-1, 1), r.uniform(-1, 1));
      if ((e1 - e0).norm() < 0.2) continue;
      const Vec2 target = e0 + r.uniform(0.01, 0.99) * (e1 - e0);
      const Vec2 nrm = Vec2(-(e1 - e0)[1], (e1 - e0)[0]).normalized();
      Vec2 p, dp, de0 = Vec2::Zero(), de1 = Vec2::Zero();
      double t_star = INFINITY;
      const int kind = c % 4;
      if (kind == 0) {
        t_star = r.uniform(1e-3, 1.5);
        Vec2 dir = r.unit2();
        if (std::abs(dir.dot(nrm)) < 0.05) dir = (dir + 0.2 * nrm).normalized();
        const double h = std::pow(10.0, r.uniform(-8, 0));
        dp = h / std::abs(dir.dot(nrm)) / t_star * dir;
        p = target - t_star * dp;
      } else if (kind == 1) {
        // Grazing along the segment, or starting 1e-8 away and moving fast.
        const double h = std::pow(10.0, r.uniform(-8, -3)) * (r.uniform(0, 1) < 0.5 ? 1 : -1);
        const Vec2 tangent = (e1 - e0).normalized();
        p = (r.uniform(0, 1) < 0.5 ? target : Vec2(e0 - r.uniform(0.1, 0.5) * tangent)) + h * nrm;
        dp = r.uniform(0.5, 3) * tangent +
             (r.uniform(0, 1) < 0.5 ? Vec2(1e3 * h * r.unit2()) : Vec2::Zero());
      } else {
        // The segment rotates about a random centre (linear trajectories), the point moves.
        const double angle = r.uniform(-M_PI, M_PI);
        const Eigen::Matrix2d R = Eigen::Rotation2Dd(angle).toRotationMatrix();
        const Vec2 ctr(r.uniform(-1, 1), r.uniform(-1, 1));
        de0 = R * (e0 - ctr) + ctr - e0;
        de1 = R * (e1 - ctr) + ctr - e1;
        p = target + r.uniform(-0.3, 0.3) * nrm;
        dp = kind == 3 ? Vec2(r.uniform(-1, 1), r.uniform(-1, 1)) : Vec2::Zero();
      }
      const double toi =
          cd::point_edge_ccd_2d(p.data(), e0.data(), e1.data(), dp.data(), de0.data(), de1.data());
      auto dist = [&](double t) {
        const Vec2 x = at(p, dp, t), a = at(e0, de0, t), b = at(e1, de1, t);
        return cd::point_segment_distance(x.data(), a.data(), b.data(), 2);
      };
      auto orient = [&](double t) {
        const Vec2 x = at(p, dp, t), a = at(e0, de0, t), b = at(e1, de1, t);
        return ex::orient2d_exact(a.data(), b.data(), x.data());
      };
      const double d0 = dist(0.0);
      zero += !(toi > 0.0);
      if (std::isfinite(t_star) && !(toi < t_star)) ++not_before;
      // Static segment: the point's path is one segment, exactly clear of it.
      if (de0.isZero(0) && de1.isZero(0)) {
        const Vec2 end = at(p, dp, toi);
        crossed += ex::segments_intersect_2d(p.data(), end.data(), e0.data(), e1.data());
      }
      int prev = orient(0.0);
      double prev_s = 0.0;
      for (int k = 1; k <= 200; ++k) {
        const double sk = k == 200 ? toi : toi * k / 200;
        below += dist(sk) < (1 - s) * (1 - s) * d0 * (1 - 1e-6);
        const int o = orient(sk);
        if (o != prev) {
          double lo = prev_s, hi = sk;
          for (int it = 0; it < 200; ++it) {
            const double mid = 0.5 * (lo + hi);
            if (!(mid > lo && mid < hi)) break;
            (orient(mid) == prev ? lo : hi) = mid;
          }
          below += std::min(dist(lo), dist(hi)) < (1 - s) * (1 - s) * d0 * (1 - 1e-6);
        }
        prev = o;
        prev_s = sk;
      }
      below += dist(toi) < (1 - s) * d0 * (1 - 1e-6);
    }
    CHECK(crossed == 0);
    CHECK(not_before == 0);
    CHECK(below == 0);
    CHECK(zero == 0);
  }
}
