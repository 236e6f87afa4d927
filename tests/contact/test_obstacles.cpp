// Obstacle geometry: distances, normals (the distance gradient, by AD and differences) and
// times of impact.
#include <doctest/doctest.h>

#include "softgrad/ad/derivatives.hpp"
#include "softgrad/obstacles.hpp"
#include "support/finite_difference.hpp"

namespace softgrad::test {
namespace {

std::vector<Obstacle> shapes() {
  std::vector<Obstacle> out;
  Obstacle plane;
  plane.name = "tilted plane";
  plane.normal = Eigen::Vector3d(0.3, 1.0, -0.2).normalized();
  plane.point = Eigen::Vector3d(0.1, -0.2, 0.0);
  out.push_back(plane);
  Obstacle sphere;
  sphere.shape = Obstacle::Shape::Sphere;
  sphere.name = "sphere";
  sphere.center = Eigen::Vector3d(0.2, 0.1, -0.1);
  sphere.radius = 0.3;
  out.push_back(sphere);
  Obstacle box;
  box.shape = Obstacle::Shape::Box;
  box.name = "box";
  box.center = Eigen::Vector3d(0.0, -0.5, 0.0);
  box.half_extents = Eigen::Vector3d(0.4, 0.2, 0.3);
  out.push_back(box);
  Obstacle terrain;
  terrain.shape = Obstacle::Shape::HeightField;
  terrain.name = "terrain";
  terrain.x0 = -1.0;
  terrain.z0 = -1.0;
  terrain.spacing = 0.5;
  terrain.nx = 5;
  terrain.nz = 5;
  for (int i = 0; i < 25; ++i) terrain.heights.push_back(-0.6 + 0.05 * std::sin(1.3 * i));
  out.push_back(terrain);
  return out;
}

}  // namespace

TEST_CASE("obstacles: the normal is the distance gradient, and AD agrees with differences") {
  const Eigen::Vector3d points[] = {{0.55, 0.3, 0.4}, {-0.7, 0.9, 0.13}, {0.31, -0.12, 0.52}};
  for (const Obstacle& o : shapes())
    for (const Eigen::Vector3d& x : points)
      for (int dim : {2, 3}) {
        INFO(o.name << " at " << x.transpose() << " in " << dim << "D");
        if (dim == 2 && (o.shape == Obstacle::Shape::HeightField || o.normal[2] != 0.0)) continue;
        const auto dist = [&](const Eigen::VectorXd& y) { return o.distance(y.data(), dim); };
        const Eigen::VectorXd y = x.head(dim);
        const Eigen::VectorXd fd = fd_gradient(dist, y);
        Eigen::VectorXd n(dim);
        o.unit_normal(y.data(), dim, n.data());
        if (o.shape != Obstacle::Shape::HeightField) {
          CHECK(close(n, fd, 1e-7));  // exact signed distances: |grad d| = 1
        } else {
          // The terrain's normal is that of the surface y = h(x, z): grad (y - h), normalised.
          const auto above = [&](const Eigen::VectorXd& q) {
            double h = 0, hx = 0, hz = 0;
            detail::height_field(o, q[0], q[2], 3, h, hx, hz);
            return q[1] - h;
          };
          CHECK(close(n, fd_gradient(above, y).normalized(), 1e-7));
        }
        CHECK(n.norm() == doctest::Approx(1.0));
        // AD through the templated distance.
        const auto f = [&](const auto* q, const auto*) { return o.distance(q, dim); };
        Eigen::VectorXd g(dim);
        double v = 0.0;
        const double none = 0.0;
        const bool ok = dim == 2 ? ad::gradient<2, 1>(f, y.data(), &none, v, g.data())
                                 : ad::gradient<3, 1>(f, y.data(), &none, v, g.data());
        REQUIRE(ok);
        CHECK(close(g, fd, 1e-7));
      }
}

TEST_CASE("obstacles: known distances") {
  const auto s = shapes();
  const Eigen::Vector3d above(0.2, 0.6, -0.1);  // 0.5 above the sphere's centre
  CHECK(s[1].distance(above.data(), 3) == doctest::Approx(0.2));
  const Eigen::Vector3d inside_box(0.1, -0.45, 0.0);  // 0.15 below the top face
  CHECK(s[2].distance(inside_box.data(), 3) == doctest::Approx(-0.15));
  const Eigen::Vector3d corner(0.7, -0.1, 0.0);  // 0.3 right of and 0.2 above the corner edge
  CHECK(s[2].distance(corner.data(), 3) == doctest::Approx(std::sqrt(0.13)));
}

TEST_CASE("obstacles: the time of impact is where the segment first touches") {
  for (const Obstacle& o : shapes()) {
    INFO(o.name);
    // From a point outside, move straight through the obstacle's interior.
    const Eigen::Vector3d start = o.shape == Obstacle::Shape::Box ? Eigen::Vector3d(0, 0.5, 0)
                                  : o.shape == Obstacle::Shape::Sphere
                                      ? Eigen::Vector3d(0.2, 1, -0.1)
                                      : Eigen::Vector3d(0.2, 1, 0.1);
    const Eigen::Vector3d dx(0.05, -2.0, 0.02);
    REQUIRE(o.distance(start.data(), 3) > 0.0);
    const double t = o.time_of_impact(start.data(), dx.data(), 3);
    REQUIRE(t < 1.0);
    const Eigen::Vector3d hit = start + t * dx;
    CHECK(std::abs(o.distance(hit.data(), 3)) < 1e-7);
    for (double s : {0.25, 0.5, 0.99}) {
      const Eigen::Vector3d before = start + s * t * dx;
      CHECK(o.distance(before.data(), 3) > 0.0);
    }
    // Moving away never hits.
    const Eigen::Vector3d away = -dx;
    CHECK(o.time_of_impact(start.data(), away.data(), 3) == 1.0);
  }
}

}  // namespace softgrad::test
