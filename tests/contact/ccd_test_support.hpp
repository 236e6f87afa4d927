/// @file ccd_test_support.hpp
/// Shared helpers of the CCD and exact-intersection tests: a seeded generator, linear trajectories.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include "contact/ccd.hpp"

namespace softgrad::test::ccd_support {

namespace cd = softgrad::collision;
namespace ex = softgrad::test;
using Vec3 = Eigen::Vector3d;
using Vec2 = Eigen::Vector2d;

/// x + t d, formed as the CCD forms it.
template <class V>
V at(const V& x, const V& d, double t) {
  V r;
  for (int i = 0; i < r.size(); ++i) r[i] = x[i] + t * d[i];
  return r;
}

class Random {
 public:
  explicit Random(unsigned long long seed) : g_(seed) {}
  double uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(g_);
  }
  int integer(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g_); }
  Vec3 vec3(double lo = -1, double hi = 1) {
    return {uniform(lo, hi), uniform(lo, hi), uniform(lo, hi)};
  }
  Vec3 unit3() {
    std::normal_distribution<double> n;
    Vec3 v(n(g_), n(g_), n(g_));
    return v.normalized();
  }
  Vec2 unit2() {
    const double a = uniform(0, 2 * M_PI);
    return {std::cos(a), std::sin(a)};
  }
  /// Barycentric weights of a random point strictly inside a triangle.
  Vec3 barycentric(double margin = 0.02) {
    double u, v;
    do {
      u = uniform(0, 1);
      v = uniform(0, 1);
    } while (u + v > 1 || std::min({u, v, 1 - u - v}) < margin);
    return {1 - u - v, u, v};
  }
  Eigen::Matrix3d rotation(double max_angle) {
    return Eigen::AngleAxisd(uniform(-max_angle, max_angle), unit3()).toRotationMatrix();
  }

 private:
  std::mt19937_64 g_;
};

/// A trajectory's four vertices (points and primitives in the function's order).
struct Trajectory3 {
  std::array<Vec3, 4> x, dx;
  std::array<Vec3, 4> at_time(double t) const {
    std::array<Vec3, 4> r;
    for (int k = 0; k < 4; ++k) r[k] = at(x[k], dx[k], t);
    return r;
  }
};

inline double ccd_pt(const Trajectory3& t, double thickness = 0.0, double s = 0.9,
                     int max_iterations = cd::kDefaultCcdMaxIterations) {
  return cd::point_triangle_ccd(t.x[0].data(), t.x[1].data(), t.x[2].data(), t.x[3].data(),
                                t.dx[0].data(), t.dx[1].data(), t.dx[2].data(), t.dx[3].data(),
                                thickness, s, max_iterations);
}
inline double ccd_ee(const Trajectory3& t, double thickness = 0.0, double s = 0.9,
                     int max_iterations = cd::kDefaultCcdMaxIterations) {
  return cd::edge_edge_ccd(t.x[0].data(), t.x[1].data(), t.x[2].data(), t.x[3].data(),
                           t.dx[0].data(), t.dx[1].data(), t.dx[2].data(), t.dx[3].data(),
                           thickness, s, max_iterations);
}

/// A random triangle of size about 1 that is not a sliver.
inline std::array<Vec3, 3> random_triangle(Random& r) {
  for (;;) {
    std::array<Vec3, 3> t = {r.vec3(), r.vec3(), r.vec3()};
    const double area = 0.5 * (t[1] - t[0]).cross(t[2] - t[0]).norm();
    const double longest =
        std::max({(t[1] - t[0]).norm(), (t[2] - t[1]).norm(), (t[0] - t[2]).norm()});
    if (area > 0.05 * longest * longest) return t;
  }
}

}  // namespace softgrad::test::ccd_support
