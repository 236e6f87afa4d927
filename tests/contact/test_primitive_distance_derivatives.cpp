// The AD's derivatives of the primitive distances and the mollifier, and C1 across their types.
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <vector>

#include "contact/primitive_distance.hpp"
#include "distance_test_support.hpp"
#include "softgrad/detail/ad/derivatives.hpp"
#include "support/finite_difference.hpp"

namespace softgrad::test {
namespace {

using namespace distance_support;

struct PointTriangleFn {
  PTType type;
  template <class T, class P>
  T operator()(const T* x, const P*) const {
    return col::point_triangle_sq(x, x + 3, x + 6, x + 9, type);
  }
};
struct EdgeEdgeFn {
  EEType type;
  template <class T, class P>
  T operator()(const T* x, const P*) const {
    return col::edge_edge_sq(x, x + 3, x + 6, x + 9, type);
  }
};
struct PointEdgeFn {
  PEType type;
  int dim;
  template <class T, class P>
  T operator()(const T* x, const P*) const {
    return col::point_edge_sq(x, x + dim, x + 2 * dim, dim, type);
  }
};
/// m(|ea x eb|^2) alone, or times the edge-edge distance as in IPC's mollified barrier.
struct MollifierFn {
  double eps_x;
  bool times_distance;
  EEType type;
  template <class T, class P>
  T operator()(const T* x, const P*) const {
    const T m = col::edge_edge_mollifier(col::edge_cross_sq(x, x + 3, x + 6, x + 9), eps_x);
    return times_distance ? m * col::edge_edge_sq(x, x + 3, x + 6, x + 9, type) : m;
  }
};

/// The AD's value, gradient and Hessian against the double version: central differences of
/// the value (gradient) and of the AD gradient (Hessian).
template <int N, class Fn>
void check_derivatives(const Fn& f, const double* x0) {
  const Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(x0, N);
  const auto value = [&](const Eigen::VectorXd& y) {
    return f(y.data(), static_cast<const double*>(nullptr));
  };
  const auto gradient = [&](const Eigen::VectorXd& y) {
    Eigen::VectorXd g(N);
    double e = 0.0;
    REQUIRE(ad::gradient<N, 0>(f, y.data(), nullptr, e, g.data()));
    return g;
  };
  double e = 0.0;
  Eigen::VectorXd g(N);
  Eigen::Matrix<double, N, N, Eigen::RowMajor> H;
  REQUIRE(ad::hessian<N, 0>(f, x.data(), nullptr, e, g.data(), H.data()));
  CHECK(e == doctest::Approx(value(x)).epsilon(1e-13));
  CHECK(g.norm() > 1e-6);
  CHECK(close(g, fd_gradient(value, x), 1e-6));
  CHECK(close(g, gradient(x), 1e-12));
  const Eigen::MatrixXd fd = fd_jacobian(gradient, x);
  CHECK(close(Eigen::VectorXd(H.reshaped()), Eigen::VectorXd(fd.reshaped()), 1e-6));
}

/// Configurations from the generic generator whose classified type is `type` (at most `count`).
template <class Type, class Classify>
std::vector<Config> configs_of_type(const std::vector<Config>& all, Type type,
                                    const Classify& classify, int count) {
  std::vector<Config> out;
  for (const Config& x : all)
    if (static_cast<int>(out.size()) < count && classify(x) == type) out.push_back(x);
  return out;
}

std::vector<Config> generic_configs(unsigned seed, int n) {
  Random r(seed);
  std::vector<Config> out;
  for (int k = 0; k < n; ++k) out.push_back(pack(r.point(), r.point(), r.point(), r.point()));
  return out;
}

}  // namespace

TEST_SUITE("contact geometry") {
  TEST_CASE(
      "primitive distance: AD gradients and Hessians of every typed distance match central "
      "differences") {
    const std::vector<Config> all = generic_configs(31, 4000);
    for (PTType type : kPTTypes) {
      const auto xs = configs_of_type(all, type, pt_type, 3);
      REQUIRE(xs.size() == 3);
      for (const Config& x : xs) {
        INFO("point-triangle type " << static_cast<int>(type));
        check_derivatives<12>(PointTriangleFn{type}, x.data());
      }
    }
    for (EEType type : kEETypes) {
      const auto xs = configs_of_type(all, type, ee_type, 3);
      REQUIRE(xs.size() == 3);
      for (const Config& x : xs) {
        INFO("edge-edge type " << static_cast<int>(type));
        check_derivatives<12>(EdgeEdgeFn{type}, x.data());
      }
    }
    int checked[2][3] = {};
    for (const EdgeConfig& c : point_edge_configs(32)) {
      const PEType type = pe_type(c);
      int& n = checked[c.dim - 2][static_cast<int>(type)];
      if (n >= 3 || pe(c) < 1e-4) continue;
      ++n;
      INFO("point-edge type " << static_cast<int>(type) << ", dim " << c.dim);
      if (c.dim == 2)
        check_derivatives<6>(PointEdgeFn{type, 2}, c.x.data());
      else
        check_derivatives<9>(PointEdgeFn{type, 3}, c.x.data());
    }
    for (int d = 0; d < 2; ++d)
      for (int t = 0; t < 3; ++t) CHECK(checked[d][t] == 3);
  }

  TEST_CASE(
      "primitive distance: the edge-edge mollifier, alone and times the distance, has the AD's "
      "derivatives") {
    // The closed form: m(0) = 0, m(eps_x / 2) = 3/4, m = 1 from eps_x on, and m'(eps_x-) = 0.
    CHECK(col::edge_edge_mollifier(0.0, 2.0) == 0.0);
    CHECK(col::edge_edge_mollifier(1.0, 2.0) == doctest::Approx(0.75).epsilon(1e-15));
    CHECK(col::edge_edge_mollifier(2.0, 2.0) == 1.0);
    CHECK(col::edge_edge_mollifier(5.0, 2.0) == 1.0);
    CHECK((1.0 - col::edge_edge_mollifier(2.0 - 1e-6, 2.0)) < 1e-12);
    Random r(41);
    for (int k = 0; k < 6; ++k) {
      // Nearly parallel edges crossing at distance 0.2: x = |u x v|^2 below eps_x at rest.
      const V3 a0 = r.point(), u = r.uniform(0.5, 1.5) * r.unit(), axis = r.perpendicular(u);
      const V3 v = r.uniform(0.5, 1.5) * (Eigen::AngleAxisd(0.02, axis) * u.normalized());
      const V3 c = a0 + r.uniform(0.3, 0.7) * u + 0.2 * u.cross(v).normalized();
      const V3 b0 = c - r.uniform(0.3, 0.7) * v;
      const Config y = pack(a0, a0 + u, b0, b0 + v);
      const double eps_x = col::edge_edge_mollifier_threshold(&y[0], &y[3], &y[6], &y[9]);
      CHECK(eps_x == doctest::Approx(1e-3 * u.squaredNorm() * v.squaredNorm()).epsilon(1e-12));
      const double cross = col::edge_cross_sq(&y[0], &y[3], &y[6], &y[9]);
      CHECK(cross == doctest::Approx(u.cross(v).squaredNorm()).epsilon(1e-10));
      REQUIRE(cross < eps_x);
      REQUIRE(ee_type(y) == EEType::EA_EB);
      check_derivatives<12>(MollifierFn{eps_x, false, EEType::EA_EB}, y.data());
      check_derivatives<12>(MollifierFn{eps_x, true, EEType::EA_EB}, y.data());
      // Above the threshold m = 1: the product's derivatives are the distance's.
      check_derivatives<12>(MollifierFn{0.5 * cross, true, EEType::EA_EB}, y.data());
    }
  }

  TEST_CASE("primitive distance: the classified distances are C1 across the types' boundaries") {
    // Points a hair (3e-7) from a boundary between two types: central differences of the
    // classified distance (step 1e-6, across the boundary) agree with the AD gradient of the
    // chosen type to O(step).
    Random r(51);
    const auto check_c1 = [](const auto& classified, const auto& typed_gradient, const Config& x,
                             int n) {
      const Eigen::VectorXd xv = Eigen::Map<const Eigen::VectorXd>(x.data(), n);
      const auto f = [&](const Eigen::VectorXd& y) {
        Config z{};
        std::copy(y.data(), y.data() + n, z.begin());
        return classified(z);
      };
      CHECK(close(typed_gradient(x), fd_gradient(f, xv), 1e-5));
    };
    const auto pt_gradient = [](const Config& x) {
      Eigen::VectorXd g(12);
      double e = 0.0;
      REQUIRE(ad::gradient<12, 0>(PointTriangleFn{pt_type(x)}, x.data(), nullptr, e, g.data()));
      return g;
    };
    const auto ee_gradient = [](const Config& x) {
      Eigen::VectorXd g(12);
      double e = 0.0;
      REQUIRE(ad::gradient<12, 0>(EdgeEdgeFn{ee_type(x)}, x.data(), nullptr, e, g.data()));
      return g;
    };
    for (int k = 0; k < 40; ++k) {
      const double delta = r.index(2) ? 3e-7 : -3e-7;
      // Point-triangle: the foot a hair from an edge's line, or p a hair from the plane that
      // is normal to an edge through one of its end points.
      const V3 t0 = r.point(), t1 = r.point(), t2 = r.point();
      const V3 e = (t1 - t0).normalized(), n = (t1 - t0).cross(t2 - t0).normalized();
      const V3 out = e.cross(n);  // in the plane, normal to edge 0, away from t2
      const V3 p = k % 2 ? V3(t0 + r.uniform(0.2, 0.8) * (t1 - t0) + delta * out + 0.3 * n)
                         : V3(t0 + delta * e + r.uniform(0.1, 0.5) * out + 0.2 * n);
      const Config x = pack(p, t0, t1, t2);
      INFO("point-triangle type " << static_cast<int>(pt_type(x)));
      check_c1([](const Config& z) { return pt(z); }, pt_gradient, x, 12);
      // Edge-edge: the closest point on edge A a hair from its end point ea0.
      const V3 a0 = r.point(), u = r.unit(), m = r.perpendicular(u), w = m.cross(u);
      const V3 v = r.uniform(0.3, 1.0) * u + r.uniform(0.5, 1.0) * w;  // normal to m
      const V3 c = a0 + delta * u + 0.3 * m;
      const double t = r.uniform(0.2, 0.8);
      const Config y = pack(a0, a0 + u, c - t * v, c + (1 - t) * v);
      INFO("edge-edge type " << static_cast<int>(ee_type(y)));
      check_c1([](const Config& z) { return ee(z); }, ee_gradient, y, 12);
    }
  }
}

}  // namespace softgrad::test
