/// @file distance_test_support.hpp
/// Shared helpers of the primitive-distance tests: configurations, a seeded generator, wrappers.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <array>
#include <random>
#include <vector>

#include "contact/primitive_distance.hpp"

namespace softgrad::test::distance_support {

namespace col = softgrad::collision;
using PTType = col::PointTriangleType;
using EEType = col::EdgeEdgeType;
using PEType = col::PointEdgeType;
using V3 = Eigen::Vector3d;

/// Four points (point-triangle p, t0, t1, t2; edge-edge ea0, ea1, eb0, eb1). A point-edge
/// configuration stores p, e0, e1 in its first 3 dim values.
using Config = std::array<double, 12>;
struct EdgeConfig {
  Config x;
  int dim;
};

inline constexpr PTType kPTTypes[] = {PTType::P_T0, PTType::P_T1, PTType::P_T2, PTType::P_E0,
                                      PTType::P_E1, PTType::P_E2, PTType::P_T};
inline constexpr EEType kEETypes[] = {EEType::EA0_EB0, EEType::EA0_EB1, EEType::EA1_EB0,
                                      EEType::EA1_EB1, EEType::EA_EB0,  EEType::EA_EB1,
                                      EEType::EA0_EB,  EEType::EA1_EB,  EEType::EA_EB};
inline constexpr PEType kPETypes[] = {PEType::P_E0, PEType::P_E1, PEType::P_E};

struct Random {
  std::mt19937 g;
  explicit Random(unsigned seed) : g(seed) {}
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(g); }
  int index(int n) { return std::uniform_int_distribution<int>(0, n - 1)(g); }
  V3 point() { return V3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)); }
  V3 unit() {
    V3 d = point();
    while (d.norm() < 0.1) d = point();
    return d.normalized();
  }
  /// A unit vector perpendicular to u.
  V3 perpendicular(const V3& u) {
    V3 d = u.cross(unit());
    while (d.norm() < 0.1 * u.norm()) d = u.cross(unit());
    return d.normalized();
  }
  /// Coordinates k / 1024: their differences, sums and halvings are exact.
  V3 dyadic() { return V3(index(2049) - 1024, index(2049) - 1024, index(2049) - 1024) / 1024.0; }
};

inline Config pack(const V3& a, const V3& b, const V3& c, const V3& d) {
  Config x{};
  for (int k = 0; k < 3; ++k) {
    x[k] = a[k];
    x[3 + k] = b[k];
    x[6 + k] = c[k];
    x[9 + k] = d[k];
  }
  return x;
}

// ---- The functions under test on a Config ----

inline double pt(const Config& x) { return col::point_triangle_sq(&x[0], &x[3], &x[6], &x[9]); }
inline double pt(const Config& x, PTType t) {
  return col::point_triangle_sq(&x[0], &x[3], &x[6], &x[9], t);
}
inline PTType pt_type(const Config& x) {
  return col::point_triangle_type(&x[0], &x[3], &x[6], &x[9]);
}
inline double ee(const Config& x) { return col::edge_edge_sq(&x[0], &x[3], &x[6], &x[9]); }
inline double ee(const Config& x, EEType t) {
  return col::edge_edge_sq(&x[0], &x[3], &x[6], &x[9], t);
}
inline EEType ee_type(const Config& x) { return col::edge_edge_type(&x[0], &x[3], &x[6], &x[9]); }
inline double pe(const EdgeConfig& c) {
  const int d = c.dim;
  return col::point_edge_sq(&c.x[0], &c.x[d], &c.x[2 * d], d);
}
inline double pe(const EdgeConfig& c, PEType t) {
  const int d = c.dim;
  return col::point_edge_sq(&c.x[0], &c.x[d], &c.x[2 * d], d, t);
}
inline PEType pe_type(const EdgeConfig& c) {
  const int d = c.dim;
  return col::point_edge_type(&c.x[0], &c.x[d], &c.x[2 * d], d);
}

inline constexpr double kOffsets[] = {0.4, 1e-3, 1e-6, 1e-9, 0.0};

inline std::vector<EdgeConfig> point_edge_configs(unsigned seed) {
  Random r(seed);
  std::vector<EdgeConfig> out;
  for (int k = 0; k < 1200; ++k) {
    const int dim = 2 + k % 2;
    const V3 flat(1.0, 1.0, dim == 3 ? 1.0 : 0.0);
    const V3 e0 = r.point().cwiseProduct(flat);
    V3 e1 = r.point().cwiseProduct(flat);
    const double h = kOffsets[r.index(5)];
    V3 p = r.point().cwiseProduct(flat);
    switch ((k / 2) % 4) {
      case 0:
        break;
      case 1:
        p = (r.index(2) ? e0 : e1) + h * r.unit().cwiseProduct(flat);
        break;
      case 2:
        p = e0 + r.uniform(-0.5, 1.5) * (e1 - e0) + h * r.unit().cwiseProduct(flat);
        break;
      case 3:
        e1 = e0;
        break;
    }
    EdgeConfig c{Config{}, dim};
    for (int i = 0; i < dim; ++i) {
      c.x[i] = p[i];
      c.x[dim + i] = e0[i];
      c.x[2 * dim + i] = e1[i];
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace softgrad::test::distance_support
