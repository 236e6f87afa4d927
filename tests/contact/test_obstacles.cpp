// Obstacle geometry: distances, normals (the distance gradient, by AD and differences) and
// times of impact; a capsule's regions and its validation.
#include <doctest/doctest.h>

#include "softgrad/errors.hpp"
#include "softgrad/shapes.hpp"
#include "support/finite_difference.hpp"

namespace softgrad::test {
namespace {

std::vector<std::shared_ptr<const Obstacle>> shapes() {
  HeightField::Grid grid;
  grid.x0 = -1.0;
  grid.z0 = -1.0;
  grid.spacing = 0.5;
  grid.nx = 5;
  grid.nz = 5;
  for (int i = 0; i < 25; ++i) grid.heights.push_back(-0.6 + 0.05 * std::sin(1.3 * i));
  return {
      std::make_shared<HalfSpace>("tilted plane", Eigen::Vector3d(0.1, -0.2, 0.0),
                                  Eigen::Vector3d(0.3, 1.0, -0.2).normalized()),
      std::make_shared<Sphere>("sphere", Eigen::Vector3d(0.2, 0.1, -0.1), 0.3),
      std::make_shared<Box>("box", Eigen::Vector3d(0.0, -0.5, 0.0), Eigen::Vector3d(0.4, 0.2, 0.3)),
      std::make_shared<HeightField>("terrain", grid),
      std::make_shared<Capsule>("capsule", Eigen::Vector3d(0.25, -0.3, 0.1), 0.4, 0.15),
      // The points below fall beyond its rims, beside it, and (2D) inside nearer the side.
      std::make_shared<Cylinder>("cylinder", Eigen::Vector3d(0.1, 0.0, 0.1), 0.5, 0.3),
      // Over a face, inside nearer a face, and beyond a rim.
      std::make_shared<Cylinder>("wide cylinder", Eigen::Vector3d(0.5, 0.0, 0.4), 0.4, 0.5)};
}

bool is_terrain(const Obstacle& o) { return dynamic_cast<const HeightField*>(&o) != nullptr; }

}  // namespace

TEST_CASE("obstacles: the normal is the distance gradient, and AD agrees with differences") {
  const Eigen::Vector3d points[] = {{0.55, 0.3, 0.4}, {-0.7, 0.9, 0.13}, {0.31, -0.12, 0.52}};
  for (const auto& shape : shapes())
    for (const Eigen::Vector3d& x : points)
      for (int dim : {2, 3}) {
        const Obstacle& o = *shape;
        INFO(o.name() << " at " << x.transpose() << " in " << dim << "D");
        const auto* plane = dynamic_cast<const HalfSpace*>(&o);
        if (dim == 2 && (is_terrain(o) || (plane && plane->unit_normal()[2] != 0.0))) continue;
        const auto dist = [&](const Eigen::VectorXd& y) { return o.distance(y.data(), dim); };
        const Eigen::VectorXd y = x.head(dim);
        const Eigen::VectorXd fd = fd_gradient(dist, y);
        Eigen::VectorXd n(dim);
        o.normal(y.data(), dim, n.data());
        if (!is_terrain(o)) {
          CHECK(close(n, fd, 1e-7));  // exact signed distances: |grad d| = 1
        } else {
          // The terrain's normal is that of the surface y = h(x, z): grad (y - h), normalised.
          const auto above = [&](const Eigen::VectorXd& q) {
            double h = 0, hx = 0, hz = 0;
            static_cast<const HeightField&>(o).height(q[0], q[2], 3, h, hx, hz);
            return q[1] - h;
          };
          CHECK(close(n, fd_gradient(above, y).normalized(), 1e-7));
        }
        CHECK(n.norm() == doctest::Approx(1.0));
        // The distance's derivatives (closed forms; AD for the terrain) against differences.
        Eigen::VectorXd g(dim);
        Eigen::MatrixXd H(dim, dim);
        o.distance_derivatives(y.data(), dim, g.data(), H.data());
        CHECK(close(g, fd, 1e-7));
        for (int i = 0; i < dim; ++i) {
          const auto gi = [&](const Eigen::VectorXd& q) {
            Eigen::VectorXd gq(dim);
            Eigen::MatrixXd Hq(dim, dim);
            o.distance_derivatives(q.data(), dim, gq.data(), Hq.data());
            return gq[i];
          };
          CHECK(close(H.row(i).transpose(), fd_gradient(gi, y), 1e-6, 1e-7));
        }
        // The normal's Jacobian against differences of the normal.
        Eigen::VectorXd n0(dim);
        Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> J(dim, dim);
        o.normal(y.data(), dim, n0.data(), J.data());
        for (int i = 0; i < dim; ++i) {
          const auto ni = [&](const Eigen::VectorXd& q) {
            Eigen::VectorXd nq(dim);
            o.normal(q.data(), dim, nq.data());
            return nq[i];
          };
          CHECK(close(J.row(i).transpose(), fd_gradient(ni, y), 1e-6, 1e-7));
        }
      }
}

TEST_CASE("obstacles: known distances") {
  const auto s = shapes();
  const Eigen::Vector3d above(0.2, 0.6, -0.1);  // 0.5 above the sphere's centre
  CHECK(s[1]->distance(above.data(), 3) == doctest::Approx(0.2));
  const Eigen::Vector3d inside_box(0.1, -0.45, 0.0);  // 0.15 below the top face
  CHECK(s[2]->distance(inside_box.data(), 3) == doctest::Approx(-0.15));
  const Eigen::Vector3d corner(0.7, -0.1, 0.0);  // 0.3 right of and 0.2 above the corner edge
  CHECK(s[2]->distance(corner.data(), 3) == doctest::Approx(std::sqrt(0.13)));
}

TEST_CASE("obstacles: the time of impact is where the segment first touches") {
  for (const auto& shape : shapes()) {
    const Obstacle& o = *shape;
    INFO(o.name());
    // From a point outside, move straight through the obstacle's interior.
    const Eigen::Vector3d start = dynamic_cast<const Box*>(&o)      ? Eigen::Vector3d(0, 0.5, 0)
                                  : dynamic_cast<const Sphere*>(&o) ? Eigen::Vector3d(0.2, 1, -0.1)
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

TEST_CASE("obstacles: a capsule's distance is to its segment, and motions enter it exactly") {
  // Axis along y through (0.1, 0.2, -0.1), end-sphere centres at y = 0 and y = 0.4, radius 0.1.
  const Capsule c("capsule", Eigen::Vector3d(0.1, 0.2, -0.1), 0.4, 0.1);
  const Eigen::Vector3d beside(0.4, 0.35, -0.1), above(0.1, 0.75, 0.2), on_axis(0.1, 0.3, -0.1);
  CHECK(c.distance(beside.data(), 3) == doctest::Approx(0.2));
  CHECK(c.distance(above.data(), 3) == doctest::Approx(std::sqrt(0.35 * 0.35 + 0.09) - 0.1));
  CHECK(c.distance(on_axis.data(), 3) == doctest::Approx(-0.1));
  CHECK(c.distance(beside.data(), 2) == doctest::Approx(0.2));  // a stadium in 2D
  // Beside the segment the distance does not curve along the axis; beyond it, it does.
  double g[3], H[9];
  c.distance_derivatives(beside.data(), 3, g, H);
  CHECK(H[4] == 0.0);
  c.distance_derivatives(above.data(), 3, g, H);
  CHECK(H[4] > 0.0);
  // On the axis every direction is as near: a unit normal all the same.
  double n[3];
  c.normal(on_axis.data(), 3, n);
  CHECK(Eigen::Vector3d(n[0], n[1], n[2]).norm() == doctest::Approx(1.0));
  // Sideways into the cylinder (t = 0.2 / 0.5), down onto a cap (t = 0.35 / 0.5).
  const Eigen::Vector3d left(-0.5, 0.3, -0.1), sideways(0.5, 0.0, 0.0), down(0.0, -0.5, 0.0);
  const Eigen::Vector3d top(0.1, 0.85, -0.1);
  CHECK(c.time_of_impact(left.data(), sideways.data(), 3) == doctest::Approx(1.0));
  const Eigen::Vector3d near(-0.2, 0.3, -0.1);
  CHECK(c.time_of_impact(near.data(), sideways.data(), 3) == doctest::Approx(0.4));
  CHECK(c.time_of_impact(top.data(), down.data(), 3) == doctest::Approx(0.7));
  CHECK(c.time_of_impact(on_axis.data(), down.data(), 3) == 0.0);  // already inside
  // Aimed at the upper cap's centre from beyond the end: the infinite cylinder would be met at
  // t = 0.5 (y = 0.5, past the segment), the cap at t = 1 - sqrt(1/8).
  const Eigen::Vector3d past(-0.1, 0.6, -0.1), slant(0.2, -0.2, 0.0);
  const double t = c.time_of_impact(past.data(), slant.data(), 3);
  const Eigen::Vector3d hit = past + t * slant;
  CHECK(t == doctest::Approx(1.0 - std::sqrt(0.125)));
  CHECK(std::abs(c.distance(hit.data(), 3)) < 1e-12);
  CHECK_THROWS_WITH_AS(Capsule("bad", Eigen::Vector3d::Zero(), 0.3, 0.0).validate(3),
                       doctest::Contains("capsule 'bad': radius 0 m must be positive and finite"),
                       InputError);
  CHECK_THROWS_WITH_AS(Capsule("bad", Eigen::Vector3d::Zero(), -1.0, 0.1).validate(3),
                       doctest::Contains("capsule 'bad': length -1 m must be finite and >= 0"),
                       InputError);
}

TEST_CASE("obstacles: a cylinder's distance, regions and times of impact") {
  // Axis along y through (0.1, 0.2, -0.1), faces at y = 0 and y = 0.4, radius 0.1.
  const Cylinder c("cylinder", Eigen::Vector3d(0.1, 0.2, -0.1), 0.4, 0.1);
  const Eigen::Vector3d beside(0.4, 0.35, -0.1), above(0.12, 0.75, -0.05), past_rim(0.5, 0.7, -0.1),
      on_axis(0.1, 0.3, -0.1);
  CHECK(c.distance(beside.data(), 3) == doctest::Approx(0.2));
  CHECK(c.distance(above.data(), 3) == doctest::Approx(0.35));
  CHECK(c.distance(past_rim.data(), 3) == doctest::Approx(std::hypot(0.3, 0.3)));
  CHECK(c.distance(on_axis.data(), 3) == doctest::Approx(-0.1));  // the side is nearer
  CHECK(c.distance(beside.data(), 2) == doctest::Approx(0.2));    // a rectangle in 2D
  double g[3], H[9];
  // Beside it the distance curves around the axis (1 / rho) and not along it; over a face it
  // does not curve at all.
  c.distance_derivatives(beside.data(), 3, g, H);
  CHECK(H[4] == 0.0);
  CHECK(H[8] == doctest::Approx(1.0 / 0.3));
  c.distance_derivatives(above.data(), 3, g, H);
  CHECK(Eigen::Map<Eigen::Matrix3d>(H).norm() == 0.0);
  CHECK(Eigen::Vector3d(g[0], g[1], g[2]) == Eigen::Vector3d::UnitY());
  double n[3];
  c.normal(on_axis.data(), 3, n);
  CHECK(Eigen::Vector3d(n[0], n[1], n[2]).norm() == doctest::Approx(1.0));
  // Sideways into the side (t = 0.2 / 0.5), down onto a face (t = 0.35 / 0.5), and slanting
  // past the rim: the infinite cylinder is met at t = 0.625 (above the top face), the slab at
  // t = 0.75, on the top face.
  const Eigen::Vector3d sideways(-0.5, 0.0, 0.0), down(0.0, -0.5, 0.0), slant(-0.4, -0.4, 0.0);
  CHECK(c.time_of_impact(beside.data(), sideways.data(), 3) == doctest::Approx(0.4));
  CHECK(c.time_of_impact(above.data(), down.data(), 3) == doctest::Approx(0.7));
  const Eigen::Vector3d near_rim(0.45, 0.7, -0.1);
  const double t = c.time_of_impact(near_rim.data(), slant.data(), 3);
  const Eigen::Vector3d hit = near_rim + t * slant;
  CHECK(t == doctest::Approx(0.75));
  CHECK(std::abs(c.distance(hit.data(), 3)) < 1e-12);
  CHECK(c.time_of_impact(on_axis.data(), down.data(), 3) == 0.0);  // already inside
  CHECK(c.time_of_impact(beside.data(), (-sideways).eval().data(), 3) == 1.0);
  CHECK_THROWS_WITH_AS(Cylinder("bad", Eigen::Vector3d::Zero(), 0.0, 0.1).validate(3),
                       doctest::Contains("cylinder 'bad': length 0 m must be positive"),
                       InputError);
}

}  // namespace softgrad::test
