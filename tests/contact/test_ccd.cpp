// Additive CCD (src/contact/ccd.hpp): known times of impact, options and edge cases, the
// distances it uses against brute force and exact rationals, and the cost of a call.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <initializer_list>
#include <vector>

#include "ccd_test_support.hpp"
#include "contact/ccd.hpp"
#include "softgrad/errors.hpp"
#include "support/exact_intersections.hpp"

namespace {
using namespace softgrad::test::ccd_support;
}  // namespace

TEST_SUITE("contact ccd") {
  TEST_CASE(
      "ccd: a point falling onto a triangle stops before the impact time and within 80% of it") {
    const Vec3 t0(0, 0, 0), t1(1, 0, 0), t2(0, 1, 0), z = Vec3::Zero();
    const Vec3 p(0.2, 0.3, 1.0), dp(0, 0, -2.0);  // impact at t = 0.5
    const double toi = cd::point_triangle_ccd(p.data(), t0.data(), t1.data(), t2.data(), dp.data(),
                                              z.data(), z.data(), z.data());
    CHECK(toi < 0.5);
    CHECK(toi >= 0.8 * 0.5);
    // The same with the triangle rising to meet it (impact at 1 / 3) and a common drift.
    const Vec3 up(0.7, -0.2, 1.0), dp2 = dp + Vec3(0.7, -0.2, 0.0);
    const double toi2 = cd::point_triangle_ccd(p.data(), t0.data(), t1.data(), t2.data(),
                                               dp2.data(), up.data(), up.data(), up.data());
    CHECK(toi2 < 1.0 / 3.0);
    CHECK(toi2 >= 0.8 / 3.0);
    // Thickness 0.1: the distance 0.1 is reached at t = 0.45.
    const double toi3 = cd::point_triangle_ccd(p.data(), t0.data(), t1.data(), t2.data(), dp.data(),
                                               z.data(), z.data(), z.data(), 0.1);
    CHECK(toi3 < 0.45);
    CHECK(toi3 >= 0.8 * 0.45);
    // Smaller rescaling: smaller steps, a larger final gap.
    const double toi4 = cd::point_triangle_ccd(p.data(), t0.data(), t1.data(), t2.data(), dp.data(),
                                               z.data(), z.data(), z.data(), 0.0, 0.5);
    CHECK(toi4 < 0.5);
    CHECK(toi4 >= 0.5 * 0.5);
    // Beside the triangle it passes the plane without contact.
    const Vec3 q(1.0, 1.0, 1.0);
    CHECK(cd::point_triangle_ccd(q.data(), t0.data(), t1.data(), t2.data(), dp.data(), z.data(),
                                 z.data(), z.data()) == 1.0);
  }

  TEST_CASE("ccd: crossing edges and a 2D point onto a segment and two points stop before impact") {
    // Edge a along x at height 1 falls (impact at t = 0.5) onto edge b along y.
    const Vec3 a0(-1, 0.1, 1), a1(1, 0.1, 1), b0(0.2, -1, 0), b1(0.2, 1, 0);
    const Vec3 down(0, 0, -2), z = Vec3::Zero();
    const double toi = cd::edge_edge_ccd(a0.data(), a1.data(), b0.data(), b1.data(), down.data(),
                                         down.data(), z.data(), z.data());
    CHECK(toi < 0.5);
    CHECK(toi >= 0.4);
    // Parallel edges approaching (distance 1, closing speed 4: impact at 0.25).
    const Vec3 c0(-0.5, 0.1, 0), c1(0.5, 0.1, 0), e0(0, 0.1, 1), e1(2, 0.1, 1), dn(0, 0, -4);
    const double toip = cd::edge_edge_ccd(c0.data(), c1.data(), e0.data(), e1.data(), z.data(),
                                          z.data(), dn.data(), dn.data());
    CHECK(toip < 0.25);
    CHECK(toip >= 0.2);
    // Crossing lines whose segments miss each other: no contact.
    const Vec3 f0(2, -1, 0), f1(2, 1, 0);
    CHECK(cd::edge_edge_ccd(a0.data(), a1.data(), f0.data(), f1.data(), down.data(), down.data(),
                            z.data(), z.data()) == 1.0);

    const Vec2 p(0.3, 1.0), dp(0.0, -4.0), s0(0, 0), s1(1, 0), z2 = Vec2::Zero();  // t = 0.25
    const double toi2 =
        cd::point_edge_ccd_2d(p.data(), s0.data(), s1.data(), dp.data(), z2.data(), z2.data());
    CHECK(toi2 < 0.25);
    CHECK(toi2 >= 0.2);
    const Vec2 far(3.0, 1.0);
    CHECK(cd::point_edge_ccd_2d(far.data(), s0.data(), s1.data(), dp.data(), z2.data(),
                                z2.data()) == 1.0);
    // 3D point onto an edge, and two points (impact at 0.5).
    const Vec3 p3(0.3, 0.0, 1.0), dz(0, 0, -2), g0(0, 0, 0), g1(1, 0, 0);
    const double toi3 =
        cd::point_edge_ccd(p3.data(), g0.data(), g1.data(), dz.data(), z.data(), z.data());
    CHECK(toi3 < 0.5);
    CHECK(toi3 >= 0.4);
    const Vec3 p4(0.0, 0.0, 1.0);
    const double toi4 = cd::point_point_ccd(p4.data(), g0.data(), dz.data(), z.data(), 3);
    CHECK(toi4 < 0.5);
    CHECK(toi4 >= 0.4);
  }

  TEST_CASE("ccd: no motion or receding or touching at the start and bad options") {
    const Vec3 t0(0, 0, 0), t1(1, 0, 0), t2(0, 1, 0), z = Vec3::Zero();
    const Vec3 p(0.2, 0.3, 1.0), up(0, 0, 5), side(3, 3, 0);
    CHECK(cd::point_triangle_ccd(p.data(), t0.data(), t1.data(), t2.data(), z.data(), z.data(),
                                 z.data(), z.data()) == 1.0);
    CHECK(cd::point_triangle_ccd(p.data(), t0.data(), t1.data(), t2.data(), up.data(), z.data(),
                                 z.data(), z.data()) == 1.0);
    // A common translation is no relative motion.
    CHECK(cd::point_triangle_ccd(p.data(), t0.data(), t1.data(), t2.data(), side.data(),
                                 side.data(), side.data(), side.data()) == 1.0);
    // Within the thickness at the start (distance 1 <= 1), or touching: 0.
    CHECK(cd::point_triangle_ccd(p.data(), t0.data(), t1.data(), t2.data(), up.data(), z.data(),
                                 z.data(), z.data(), 1.0) == 0.0);
    // On the triangle (a distance of rounding size, 1e-17): 0, with or without thickness.
    const Vec3 on(0.2, 0.3, 0.0), down(0, 0, -5);
    CHECK(cd::point_triangle_ccd(on.data(), t0.data(), t1.data(), t2.data(), down.data(), z.data(),
                                 z.data(), z.data(), 1e-12) == 0.0);
    CHECK(cd::point_triangle_ccd(on.data(), t0.data(), t1.data(), t2.data(), down.data(), z.data(),
                                 z.data(), z.data()) == 0.0);
    // Not finite: 0.
    const Vec3 bad(NAN, 0, 0);
    CHECK(cd::point_triangle_ccd(p.data(), t0.data(), t1.data(), t2.data(), bad.data(), z.data(),
                                 z.data(), z.data()) == 0.0);
    CHECK_THROWS_AS(cd::point_triangle_ccd(p.data(), t0.data(), t1.data(), t2.data(), up.data(),
                                           z.data(), z.data(), z.data(), -1.0),
                    softgrad::InputError);
    CHECK_THROWS_AS(cd::point_triangle_ccd(p.data(), t0.data(), t1.data(), t2.data(), up.data(),
                                           z.data(), z.data(), z.data(), 0.0, 1.0),
                    softgrad::InputError);
    CHECK_THROWS_AS(cd::edge_edge_ccd(p.data(), t0.data(), t1.data(), t2.data(), up.data(),
                                      z.data(), z.data(), z.data(), 0.0, 0.9, 0),
                    softgrad::InputError);
    // The iteration cap returns the time reached: sliding 1e-6 above the triangle.
    const Vec3 low(0.1, 0.3, 1e-6), slide(2, 0, 0);
    const double capped =
        cd::point_triangle_ccd(low.data(), t0.data(), t1.data(), t2.data(), slide.data(), z.data(),
                               z.data(), z.data(), 0.0, 0.9, 100);
    CHECK(capped > 0.0);
    CHECK(capped < 1e-3);
  }

  TEST_CASE("ccd: the distances and their exact references match a brute-force minimum") {
    Random r(7);
    int over = 0, under = 0;
    const int n = 100, m = 60;
    for (int c = 0; c < n; ++c) {
      const auto t = random_triangle(r);
      const Vec3 p = r.vec3(-1.5, 1.5);
      double brute = INFINITY;
      for (int i = 0; i <= m; ++i)
        for (int j = 0; i + j <= m; ++j) {
          const Vec3 q = t[0] + (double(i) / m) * (t[1] - t[0]) + (double(j) / m) * (t[2] - t[0]);
          brute = std::min(brute, (p - q).norm());
        }
      const double d = cd::point_triangle_distance(p.data(), t[0].data(), t[1].data(), t[2].data());
      // The exact reference (the next test's) as well.
      const double dx = std::sqrt(
          ex::point_triangle_distance_sq_exact(p.data(), t[0].data(), t[1].data(), t[2].data()));
      over += (d > brute + 1e-14) + (dx > brute + 1e-14);       // never above any pair of points
      under += (d < brute - 4.0 / m) + (dx < brute - 4.0 / m);  // the grid is 1/m fine
      const Vec3 a0 = r.vec3(), a1 = r.vec3(), b0 = r.vec3(), b1 = r.vec3();
      double brute_ee = INFINITY;
      for (int i = 0; i <= 2 * m; ++i)
        for (int j = 0; j <= 2 * m; ++j) {
          const Vec3 u = a0 + (i / (2.0 * m)) * (a1 - a0), v = b0 + (j / (2.0 * m)) * (b1 - b0);
          brute_ee = std::min(brute_ee, (u - v).norm());
        }
      const double dee = cd::segment_segment_distance(a0.data(), a1.data(), b0.data(), b1.data());
      const double dxee = std::sqrt(
          ex::segment_segment_distance_sq_exact(a0.data(), a1.data(), b0.data(), b1.data()));
      over += (dee > brute_ee + 1e-14) + (dxee > brute_ee + 1e-14);
      under += (dee < brute_ee - 4.0 / m) + (dxee < brute_ee - 4.0 / m);
    }
    CHECK(over == 0);
    CHECK(under == 0);
  }

  TEST_CASE("ccd: the distances match exact rational ones with near-parallel edges and slivers") {
    Random r(11);
    // Worst |d - exact| / (1e-16 * largest coordinate), and the count of results off by more than
    // 1e-14 of the largest coordinate.
    double worst = 0.0;
    int off = 0, cases = 0;
    auto record = [&](double d, double exact_sq, double scale) {
      const double err = std::abs(d - std::sqrt(exact_sq));
      worst = std::max(worst, err / (1e-16 * scale));
      off += err > 1e-14 * scale;
      ++cases;
    };
    auto magnitude = [](std::initializer_list<Vec3> v) {
      double m = 0.0;
      for (const Vec3& x : v) m = std::max(m, x.cwiseAbs().maxCoeff());
      return m;
    };
    for (int c = 0; c < 4000; ++c) {
      // An offset of up to 1e3 (absolute rounding grows with it).
      const Vec3 shift = c % 4 == 0 ? Vec3(r.vec3(-1e3, 1e3)) : Vec3::Zero();
      // Segments at an angle of 1e-12..1e-1 whose lines pass 1e-12..1e-2 apart, near or beyond
      // each other's ends.
      const Vec3 b0 = r.vec3() + shift, db = r.unit3() * r.uniform(0.2, 2.0), b1 = b0 + db;
      const double angle = std::pow(10.0, r.uniform(-12, -1)),
                   gap = std::pow(10.0, r.uniform(-12, -2));
      const Vec3 axis = r.unit3(), n = db.cross(axis).normalized();
      const Vec3 da = Eigen::AngleAxisd(angle, axis) * db * r.uniform(0.3, 1.5);
      const Vec3 a0 = b0 + r.uniform(-1.2, 1.2) * db + gap * n - r.uniform(0, 1) * da, a1 = a0 + da;
      record(cd::segment_segment_distance(a0.data(), a1.data(), b0.data(), b1.data()),
             ex::segment_segment_distance_sq_exact(a0.data(), a1.data(), b0.data(), b1.data()),
             magnitude({a0, a1, b0, b1}));
      // Triangles down to slivers of width 1e-8, points 1e-12..1 from them above the interior or
      // beside an edge.
      const Vec3 t0 = r.vec3() + shift, e = r.unit3() * r.uniform(0.2, 2.0);
      const Vec3 side = e.cross(r.unit3()).normalized();
      const Vec3 t1 = t0 + e, t2 = t0 + r.uniform(0.05, 0.95) * e +
                                   std::pow(10.0, r.uniform(-8, 0)) * e.norm() * side;
      const Vec3 nt = e.cross(t2 - t0).normalized();
      const Vec3 bc = r.barycentric(0.0);
      const Vec3 foot = bc[0] * t0 + bc[1] * t1 + bc[2] * t2 +
                        (c % 3 == 0 ? Vec3(r.uniform(-1e-3, 1e-3) * r.unit3()) : Vec3::Zero());
      const Vec3 p = foot + std::pow(10.0, r.uniform(-12, 0)) * (c % 2 ? 1.0 : -1.0) * nt;
      record(cd::point_triangle_distance(p.data(), t0.data(), t1.data(), t2.data()),
             ex::point_triangle_distance_sq_exact(p.data(), t0.data(), t1.data(), t2.data()),
             magnitude({p, t0, t1, t2}));
      record(cd::point_segment_distance(p.data(), t0.data(), t1.data(), 3),
             ex::point_segment_distance_sq_exact(p.data(), t0.data(), t1.data(), 3),
             magnitude({p, t0, t1}));
    }
    MESSAGE("distances: worst error " << worst << " x 1e-16 of the largest coordinate over "
                                      << cases << " cases");
    CHECK(off == 0);
  }

  TEST_CASE("ccd: cost of a call (reported)") {
    Random r(5);
    std::vector<Trajectory3> cases(2000);
    for (auto& tr : cases) {
      const auto tri = random_triangle(r);
      for (int k = 0; k < 3; ++k) tr.x[k + 1] = tri[k], tr.dx[k + 1] = 0.3 * r.vec3();
      tr.x[0] = r.vec3();
      tr.dx[0] = r.vec3();
    }
    double sum = 0.0;
    const auto start = std::chrono::steady_clock::now();
    for (int rep = 0; rep < 5; ++rep)
      for (const auto& tr : cases) sum += ccd_pt(tr) + ccd_ee(tr);
    const double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() /
        (5.0 * 2.0 * cases.size());
    MESSAGE("ccd: " << ns << " ns per call (random unit-size trajectories)");
    CHECK(sum > 0.0);
  }
}
