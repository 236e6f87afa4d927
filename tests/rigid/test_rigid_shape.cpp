// Rigid body shapes: closed-form mass properties against meshes and independent quadrature,
// the mesh path against decompositions and moved copies, drawing surfaces, contact spheres
// and the input errors.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <numbers>
#include <utility>

#include "softgrad/errors.hpp"
#include "softgrad/shapes.hpp"
#include "support/random.hpp"

namespace softgrad::test {
namespace {

constexpr double kPi = std::numbers::pi;
// A shape described field by field, as scenes give it; each call below builds its Shape.
struct RigidShape {
  enum class Kind { Box, Sphere, Capsule, Cylinder, Mesh };
  Kind kind = Kind::Box;
  Eigen::Vector3d size = Eigen::Vector3d::Ones();
  double radius = 0.5;
  double length = 1.0;
  Eigen::MatrixXd V;
  Eigen::MatrixXi F;
};
using Kind = RigidShape::Kind;

std::shared_ptr<const Shape> build(const RigidShape& s) {
  const Eigen::Vector3d zero = Eigen::Vector3d::Zero();
  switch (s.kind) {
    case Kind::Box:
      return std::make_shared<Box>("", zero, 0.5 * s.size);
    case Kind::Sphere:
      return std::make_shared<Sphere>("", zero, s.radius);
    case Kind::Capsule:
      return std::make_shared<Capsule>("", zero, s.length, s.radius);
    case Kind::Cylinder:
      return std::make_shared<Cylinder>("", zero, s.length, s.radius);
    case Kind::Mesh:
      break;
  }
  return std::make_shared<TriangleMesh>("", s.V, s.F);
}

RigidShape make(Kind kind) {
  RigidShape s;
  s.kind = kind;
  return s;
}

std::string to_string(Kind kind) { return build(make(kind))->type(); }
void validate_shape(const RigidShape& s) { build(s)->validate(3); }
MassProperties mass_properties(const RigidShape& s, double density) {
  return build(s)->mass_properties(density);
}
void surface_mesh(const RigidShape& s, int resolution, Eigen::MatrixXd& V, Eigen::MatrixXi& F) {
  build(s)->surface_mesh(resolution, V, F);
}
void contact_spheres(const RigidShape& s, std::vector<Eigen::Vector3d>& centers,
                     std::vector<double>& radii) {
  build(s)->contact_spheres(centers, radii);
}
double bounding_radius(const RigidShape& s) { return build(s)->bounding_radius(); }

RigidShape mesh_shape(const Eigen::MatrixXd& V, const Eigen::MatrixXi& F) {
  RigidShape s = make(Kind::Mesh);
  s.V = V;
  s.F = F;
  return s;
}

RigidShape surface_of(const RigidShape& shape, int resolution) {
  Eigen::MatrixXd V;
  Eigen::MatrixXi F;
  surface_mesh(shape, resolution, V, F);
  return mesh_shape(V, F);
}

double rel(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) { return (a - b).norm() / b.norm(); }
double rel(double a, double b) { return std::abs(a - b) / std::abs(b); }

// The relative error of mass, centre (against `scale`) and second moment together.
double difference(const MassProperties& a, const MassProperties& b, double scale) {
  return std::max({rel(a.mass, b.mass), (a.center - b.center).norm() / scale,
                   rel(a.second_moment, b.second_moment)});
}

// A copy of a mesh moved by x -> R x + t.
RigidShape moved(const RigidShape& s, const Eigen::Matrix3d& R, const Eigen::Vector3d& t) {
  RigidShape m = s;
  m.V = (s.V * R.transpose()).rowwise() + t.transpose();
  return m;
}

// An icosahedron subdivided `levels` times, projected onto the sphere of radius r.
RigidShape icosphere(int levels, double r) {
  const double g = (1.0 + std::sqrt(5.0)) / 2.0;
  std::vector<Eigen::Vector3d> v = {{-1, g, 0}, {1, g, 0}, {-1, -g, 0}, {1, -g, 0},
                                    {0, -1, g}, {0, 1, g}, {0, -1, -g}, {0, 1, -g},
                                    {g, 0, -1}, {g, 0, 1}, {-g, 0, -1}, {-g, 0, 1}};
  std::vector<Eigen::Vector3i> f = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                    {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                    {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                    {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  for (int level = 0; level < levels; ++level) {
    std::map<std::pair<int, int>, int> midpoint;
    const auto mid = [&](int a, int b) {
      const auto key = std::minmax(a, b);
      const auto [it, added] = midpoint.try_emplace(key, static_cast<int>(v.size()));
      if (added) v.push_back(0.5 * (v[a] + v[b]));
      return it->second;
    };
    std::vector<Eigen::Vector3i> finer;
    for (const Eigen::Vector3i& t : f) {
      const int ab = mid(t[0], t[1]), bc = mid(t[1], t[2]), ca = mid(t[2], t[0]);
      finer.insert(finer.end(), {{t[0], ab, ca}, {t[1], bc, ab}, {t[2], ca, bc}, {ab, bc, ca}});
    }
    f = finer;
  }
  Eigen::MatrixXd V(v.size(), 3);
  Eigen::MatrixXi F(f.size(), 3);
  for (std::size_t i = 0; i < v.size(); ++i) V.row(i) = r * v[i].normalized();
  for (std::size_t i = 0; i < f.size(); ++i) F.row(i) = f[i];
  return mesh_shape(V, F);
}

// A non-convex L-shaped prism: the polygon (0,0) (2,0) (2,1) (1,1) (1,2) (0,2) extruded along z
// from 0 to h, i.e. the boxes [0,2]x[0,1]x[0,h] and [0,1]x[1,2]x[0,h].
RigidShape l_prism(double h) {
  const double xy[6][2] = {{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}};
  Eigen::MatrixXd V(12, 3);
  for (int i = 0; i < 6; ++i) {
    V.row(i) << xy[i][0], xy[i][1], 0.0;  // bottom i, top i + 6
    V.row(i + 6) << xy[i][0], xy[i][1], h;
  }
  Eigen::MatrixXi F(20, 3);
  const int cap[4][3] = {{0, 1, 2}, {0, 2, 3}, {0, 3, 4}, {0, 4, 5}};
  for (int k = 0; k < 4; ++k) {
    F.row(k) << cap[k][0], cap[k][2], cap[k][1];  // bottom, facing -z
    F.row(4 + k) << cap[k][0] + 6, cap[k][1] + 6, cap[k][2] + 6;
  }
  for (int i = 0; i < 6; ++i) {
    const int j = (i + 1) % 6;
    F.row(8 + 2 * i) << i, j, j + 6;
    F.row(9 + 2 * i) << i, j + 6, i + 6;
  }
  return mesh_shape(V, F);
}

// Independent of the library's surface integrals: signed tetrahedra from the vertex centroid,
// each integrated with the 4-point rule that is exact for quadratics.
MassProperties tet_quadrature(const RigidShape& s, double density) {
  const Eigen::Vector3d o = s.V.colwise().mean().transpose();
  const double a = 0.5854101966249685, b = 0.1381966011250105;
  double volume = 0.0;
  Eigen::Vector3d first = Eigen::Vector3d::Zero();
  Eigen::Matrix3d second = Eigen::Matrix3d::Zero();
  for (Eigen::Index t = 0; t < s.F.rows(); ++t) {
    Eigen::Matrix<double, 3, 4> P = Eigen::Matrix<double, 3, 4>::Zero();
    for (int k = 0; k < 3; ++k) P.col(k + 1) = s.V.row(s.F(t, k)).transpose() - o;
    const double w = P.col(1).dot(P.col(2).cross(P.col(3))) / 6.0 / 4.0;
    const Eigen::Vector3d sum = P.rowwise().sum();
    for (int k = 0; k < 4; ++k) {
      const Eigen::Vector3d q = (a - b) * P.col(k) + b * sum;
      volume += w;
      first += w * q;
      second += w * q * q.transpose();
    }
  }
  MassProperties mp;
  const Eigen::Vector3d c = first / volume;
  mp.volume = volume;
  mp.mass = density * volume;
  mp.center = o + c;
  mp.second_moment = density * (second - volume * c * c.transpose());
  return mp;
}

}  // namespace

TEST_CASE("rigid/rigid_shape: kinds have their scene names") {
  CHECK(std::string(to_string(Kind::Box)) == "box");
  CHECK(std::string(to_string(Kind::Sphere)) == "sphere");
  CHECK(std::string(to_string(Kind::Capsule)) == "capsule");
  CHECK(std::string(to_string(Kind::Mesh)) == "mesh");
}

TEST_CASE("rigid/rigid_shape: a box is the closed form, and so is its mesh, moved and rotated") {
  RigidShape box = make(Kind::Box);
  box.size = Eigen::Vector3d(0.3, 0.5, 0.7);
  const double rho = 1200.0;
  const MassProperties mp = mass_properties(box, rho);
  const double m = rho * 0.3 * 0.5 * 0.7;
  CHECK(mp.volume == doctest::Approx(0.105).epsilon(1e-14));
  CHECK(mp.mass == doctest::Approx(m).epsilon(1e-14));
  CHECK(mp.center.norm() == 0.0);
  const Eigen::Matrix3d S =
      m / 12.0 * Eigen::Vector3d(0.09, 0.25, 0.49).asDiagonal().toDenseMatrix();
  CHECK(rel(mp.second_moment, S) < 1e-14);
  // The inertia tensor about the x axis of a box is m (b^2 + c^2) / 12.
  const Eigen::Matrix3d inertia = mp.second_moment.trace() * Eigen::Matrix3d::Identity() - S;
  CHECK(inertia(0, 0) == doctest::Approx(m * (0.25 + 0.49) / 12.0));

  const RigidShape mesh = surface_of(box, 8);
  REQUIRE(mesh.F.rows() == 12);
  CHECK(difference(mass_properties(mesh, rho), mp, 1.0) < 1e-12);
  for (int trial = 0; trial < 3; ++trial) {
    const Eigen::Matrix3d R = random_rotation(3);
    const Eigen::Vector3d t(uniform(-5, 5), uniform(-5, 5), uniform(-5, 5));
    INFO("trial " << trial << ", t = " << t.transpose());
    const MassProperties on = mass_properties(moved(mesh, R, t), rho);
    CHECK(rel(on.mass, m) < 1e-12);
    CHECK((on.center - t).norm() < 1e-12 * t.norm());
    CHECK(rel(on.second_moment, R * S * R.transpose()) < 1e-12);
  }
}

TEST_CASE("rigid/rigid_shape: a sphere is the closed form, which finer icospheres approach") {
  RigidShape sphere = make(Kind::Sphere);
  sphere.radius = 0.4;
  const double rho = 900.0, m = rho * 4.0 / 3.0 * kPi * 0.064;
  const MassProperties mp = mass_properties(sphere, rho);
  CHECK(mp.mass == doctest::Approx(m).epsilon(1e-14));
  CHECK(mp.center.norm() == 0.0);
  CHECK(rel(mp.second_moment, m * 0.16 / 5.0 * Eigen::Matrix3d::Identity()) < 1e-14);
  double previous = 1.0;
  for (int levels = 0; levels <= 4; ++levels) {
    const MassProperties approx = mass_properties(icosphere(levels, 0.4), rho);
    const double error = difference(approx, mp, 0.4);
    INFO("levels " << levels << ": relative error " << error);
    CHECK(error < 0.6 * previous);
    // Second order once the mesh resolves the sphere: a wrong closed form would stall this.
    if (levels >= 3) CHECK(previous / error == doctest::Approx(4.0).epsilon(0.05));
    CHECK(approx.mass < mp.mass);  // inscribed
    previous = error;
  }
  CHECK(previous < 0.01);
}

TEST_CASE("rigid/rigid_shape: a capsule is the closed form, which its finer surfaces approach") {
  for (const auto& radius_length : {std::pair{0.2, 1.0}, std::pair{0.5, 0.3}}) {
    const double r = radius_length.first, L = radius_length.second;
    RigidShape capsule = make(Kind::Capsule);
    capsule.radius = r;
    capsule.length = L;
    const double rho = 500.0;
    const MassProperties mp = mass_properties(capsule, rho);
    CHECK(mp.mass == doctest::Approx(rho * kPi * r * r * (L + 4.0 / 3.0 * r)).epsilon(1e-14));
    CHECK(mp.center.norm() == 0.0);
    // Inscribed polyhedra converge at second order, (2 pi / n)^2 / 6 per direction: the error
    // drops about 4x as the resolution doubles, which a wrong closed form would not allow.
    double previous = 0.0;
    for (int resolution : {16, 32, 64, 128}) {
      const MassProperties approx = mass_properties(surface_of(capsule, resolution), rho);
      const double error = difference(approx, mp, r);
      INFO("r " << r << ", L " << L << ", resolution " << resolution << ": error " << error);
      CHECK(error < 30.0 / (resolution * resolution));
      if (previous > 0) CHECK(previous / error == doctest::Approx(4.0).epsilon(0.05));
      previous = error;
    }
  }
}

TEST_CASE("rigid/rigid_shape: a cylinder is the closed form, which its finer surfaces approach") {
  for (const auto& radius_length : {std::pair{0.2, 1.0}, std::pair{0.5, 0.3}}) {
    const double r = radius_length.first, L = radius_length.second, rho = 500.0;
    RigidShape cylinder = make(Kind::Cylinder);
    cylinder.radius = r;
    cylinder.length = L;
    const MassProperties mp = mass_properties(cylinder, rho);
    const double m = rho * kPi * r * r * L;
    CHECK(mp.mass == doctest::Approx(m).epsilon(1e-14));
    CHECK(mp.center.norm() == 0.0);
    // The inertia tensor: m r^2 / 2 about the axis, m (3 r^2 + L^2) / 12 across it.
    const Eigen::Matrix3d inertia =
        mp.second_moment.trace() * Eigen::Matrix3d::Identity() - mp.second_moment;
    CHECK(inertia(1, 1) == doctest::Approx(m * r * r / 2).epsilon(1e-14));
    CHECK(inertia(0, 0) == doctest::Approx(m * (3 * r * r + L * L) / 12).epsilon(1e-14));
    CHECK(inertia(2, 2) == doctest::Approx(inertia(0, 0)).epsilon(1e-14));
    // Inscribed prisms converge at second order: the error drops about 4x per doubling.
    double previous = 0.0;
    for (int resolution : {16, 32, 64, 128}) {
      const RigidShape mesh = surface_of(cylinder, resolution);
      CHECK_NOTHROW(validate_shape(mesh));
      for (Eigen::Index i = 0; i < mesh.V.rows(); ++i) {  // every vertex on the surface
        const Eigen::Vector3d x = mesh.V.row(i);
        const double rho_x = std::hypot(x[0], x[2]);
        CHECK(std::abs(std::abs(x[1]) - L / 2) < 1e-15);
        CHECK((rho_x < 1e-15 || std::abs(rho_x - r) < 1e-15));
      }
      const double error = difference(mass_properties(mesh, rho), mp, r);
      INFO("r " << r << ", L " << L << ", resolution " << resolution << ": error " << error);
      if (previous > 0) CHECK(previous / error == doctest::Approx(4.0).epsilon(0.05));
      previous = error;
    }
  }
}

TEST_CASE("rigid/rigid_shape: a cylinder rolls on axis spheres and stands on its rims") {
  RigidShape cylinder = make(Kind::Cylinder);
  cylinder.radius = 0.1;
  cylinder.length = 0.5;
  std::vector<Eigen::Vector3d> centers;
  std::vector<double> radii;
  contact_spheres(cylinder, centers, radii);
  // Spheres of the radius from y = -0.15 to 0.15, at most 0.2 apart (0.15 here), then 16 rim
  // points on each face.
  REQUIRE(centers.size() == 3 + 32);
  for (int k = 0; k < 3; ++k) {
    CHECK((centers[k] - Eigen::Vector3d(0.0, -0.15 + 0.15 * k, 0.0)).norm() < 1e-15);
    CHECK(radii[k] == 0.1);
  }
  for (std::size_t k = 3; k < centers.size(); ++k) {
    CHECK(std::abs(std::hypot(centers[k][0], centers[k][2]) - 0.1) < 1e-15);
    CHECK(std::abs(centers[k][1]) == 0.25);
    CHECK(radii[k] == 0.0);
  }
  CHECK(bounding_radius(cylinder) == doctest::Approx(std::hypot(0.25, 0.1)));
  // A disc shorter than it is wide has no axis spheres (they would stand out of its faces).
  cylinder.length = 0.1;
  contact_spheres(cylinder, centers, radii);
  CHECK(centers.size() == 32);
  cylinder.length = 0.0;
  CHECK_THROWS_WITH_AS(validate_shape(cylinder), "cylinder: length 0 m must be positive and finite",
                       InputError);
}

TEST_CASE("rigid/rigid_shape: a capsule of vanishing length tends to its sphere") {
  RigidShape sphere = make(Kind::Sphere), capsule = make(Kind::Capsule);
  sphere.radius = capsule.radius = 0.3;
  const MassProperties ball = mass_properties(sphere, 1000.0);
  double previous = 1.0;
  for (double L : {1e-2, 1e-4, 1e-6}) {
    capsule.length = L;
    const double error = difference(mass_properties(capsule, 1000.0), ball, 0.3);
    INFO("length " << L << ": " << error);
    CHECK(error < 10.0 * L);
    CHECK(error < previous);
    previous = error;
  }
}

TEST_CASE("rigid/rigid_shape: a mesh's properties match an independent tetrahedral quadrature") {
  // A random star-shaped mesh, stretched and off the origin.
  RigidShape star = icosphere(2, 1.0);
  for (Eigen::Index i = 0; i < star.V.rows(); ++i) star.V.row(i) *= uniform(0.6, 1.4);
  star.V = star.V * Eigen::Vector3d(1.0, 0.7, 1.3).asDiagonal();
  star.V.rowwise() += Eigen::RowVector3d(0.3, -0.2, 0.5);
  const MassProperties mp = mass_properties(star, 700.0);
  CHECK(difference(mp, tet_quadrature(star, 700.0), 1.0) < 1e-12);
  CHECK(rel(mp.second_moment, mp.second_moment.transpose()) == 0.0);
  CHECK(Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(mp.second_moment).eigenvalues().minCoeff() >
        0.0);
  // The non-convex L prism, also against the quadrature.
  const RigidShape l = l_prism(0.5);
  CHECK(difference(mass_properties(l, 3.0), tet_quadrature(l, 3.0), 1.0) < 1e-12);
}

TEST_CASE("rigid/rigid_shape: a non-convex mesh equals its two boxes, and moves with them") {
  const double h = 0.5, rho = 3.0;
  const MassProperties mp = mass_properties(l_prism(h), rho);
  // Boxes [0,2]x[0,1]x[0,h] and [0,1]x[1,2]x[0,h], combined with the parallel-axis theorem.
  RigidShape a = make(Kind::Box), b = make(Kind::Box);
  a.size = Eigen::Vector3d(2, 1, h);
  b.size = Eigen::Vector3d(1, 1, h);
  const MassProperties pa = mass_properties(a, rho), pb = mass_properties(b, rho);
  const Eigen::Vector3d ca(1.0, 0.5, h / 2), cb(0.5, 1.5, h / 2);
  const double m = pa.mass + pb.mass;
  const Eigen::Vector3d c = (pa.mass * ca + pb.mass * cb) / m;
  const Eigen::Matrix3d S = pa.second_moment + pa.mass * (ca - c) * (ca - c).transpose() +
                            pb.second_moment + pb.mass * (cb - c) * (cb - c).transpose();
  CHECK(rel(mp.mass, m) < 1e-14);
  CHECK((mp.center - c).norm() < 1e-14);
  CHECK(rel(mp.second_moment, S) < 1e-13);
  CHECK(mp.second_moment(0, 1) != 0.0);  // the L couples x and y
  const Eigen::Matrix3d R = random_rotation(3);
  const Eigen::Vector3d t(10.0, -20.0, 5.0);
  const MassProperties on = mass_properties(moved(l_prism(h), R, t), rho);
  CHECK((on.center - (R * c + t)).norm() < 1e-12 * t.norm());
  CHECK(rel(on.second_moment, R * S * R.transpose()) < 1e-12);
}

TEST_CASE("rigid/rigid_shape: every kind's surface is closed, outward and on the shape") {
  RigidShape box = make(Kind::Box), sphere = make(Kind::Sphere), capsule = make(Kind::Capsule);
  box.size = Eigen::Vector3d(0.2, 0.4, 0.6);
  sphere.radius = 0.3;
  capsule.radius = 0.2;
  capsule.length = 0.5;
  // Distance of a surface point from the shape's surface.
  const auto off_surface = [&](Kind kind, const Eigen::Vector3d& x) {
    if (kind == Kind::Sphere) return std::abs(x.norm() - 0.3);
    if (kind == Kind::Capsule) {
      const double y = std::clamp(x[1], -0.25, 0.25);
      return std::abs((x - Eigen::Vector3d(0, y, 0)).norm() - 0.2);
    }
    return (x.cwiseAbs() - 0.5 * box.size).cwiseAbs().maxCoeff();  // a corner
  };
  for (const RigidShape* shape : {&box, &sphere, &capsule})
    for (int resolution : {3, 4, 7, 16}) {
      INFO(to_string(shape->kind) << ", resolution " << resolution);
      const RigidShape mesh = surface_of(*shape, resolution);
      CHECK_NOTHROW(validate_shape(mesh));
      const MassProperties mp = mass_properties(mesh, 1.0);
      CHECK(mp.volume > 0.0);
      CHECK(mp.volume <= mass_properties(*shape, 1.0).volume * (1 + 1e-14));
      for (Eigen::Index i = 0; i < mesh.V.rows(); ++i)
        CHECK(off_surface(shape->kind, mesh.V.row(i)) < 1e-15);
      // Convex, around the origin: every triangle faces away from it.
      for (Eigen::Index t = 0; t < mesh.F.rows(); ++t) {
        const Eigen::Vector3d p = mesh.V.row(mesh.F(t, 0)), q = mesh.V.row(mesh.F(t, 1)),
                              s = mesh.V.row(mesh.F(t, 2));
        CHECK((q - p).cross(s - p).dot(p + q + s) > 0.0);
      }
    }
  Eigen::MatrixXd V;
  Eigen::MatrixXi F;
  surface_mesh(sphere, 16, V, F);
  CHECK(F.rows() == 16 * 2 * 7);  // 16 around, 8 steps from pole to pole
  const RigidShape l = l_prism(0.5);
  surface_mesh(l, 0, V, F);
  CHECK(V == l.V);
  CHECK(F == l.F);
}

TEST_CASE("rigid/rigid_shape: contact spheres and bounding radius of every kind") {
  std::vector<Eigen::Vector3d> centers;
  std::vector<double> radii;
  RigidShape sphere = make(Kind::Sphere);
  sphere.radius = 0.3;
  contact_spheres(sphere, centers, radii);
  REQUIRE(centers.size() == 1);
  CHECK(centers[0].norm() == 0.0);
  CHECK(radii == std::vector<double>{0.3});
  CHECK(bounding_radius(sphere) == 0.3);

  RigidShape capsule = make(Kind::Capsule);
  capsule.radius = 0.2;
  capsule.length = 1.0;
  contact_spheres(capsule, centers, radii);
  REQUIRE(centers.size() == 2);
  CHECK((centers[0] - Eigen::Vector3d(0, 0.5, 0)).norm() == 0.0);
  CHECK((centers[1] - Eigen::Vector3d(0, -0.5, 0)).norm() == 0.0);
  CHECK(radii == std::vector<double>{0.2, 0.2});
  CHECK(bounding_radius(capsule) == doctest::Approx(0.7));
  const RigidShape capsule_mesh = surface_of(capsule, 12);
  CHECK(capsule_mesh.V.rowwise().norm().maxCoeff() == doctest::Approx(0.7));

  RigidShape box = make(Kind::Box);
  box.size = Eigen::Vector3d(0.2, 0.4, 0.6);
  contact_spheres(box, centers, radii);
  REQUIRE(centers.size() == 8);
  const RigidShape box_mesh = surface_of(box, 3);
  for (std::size_t i = 0; i < 8; ++i) {
    CHECK((centers[i].cwiseAbs() - 0.5 * box.size).norm() == 0.0);
    CHECK(radii[i] == 0.0);
    int found = 0;  // each corner once, and every corner of the drawn box
    for (std::size_t j = 0; j < 8; ++j) found += centers[j] == centers[i] ? 1 : 0;
    CHECK(found == 1);
    CHECK(((box_mesh.V.rowwise() - centers[i].transpose()).rowwise().norm().minCoeff()) == 0.0);
  }
  CHECK(bounding_radius(box) == doctest::Approx(0.5 * std::sqrt(0.56)));

  const RigidShape l = l_prism(0.5);
  contact_spheres(l, centers, radii);
  REQUIRE(centers.size() == 12);
  for (std::size_t i = 0; i < 12; ++i) CHECK(centers[i] == l.V.row(i).transpose());
  CHECK(radii == std::vector<double>(12, 0.0));
  CHECK(bounding_radius(l) == doctest::Approx(std::sqrt(5.25)));  // corner (2, 1, 0.5)
}

TEST_CASE("rigid/rigid_shape: invalid shapes and densities throw InputError naming the problem") {
  RigidShape box = make(Kind::Box);
  box.size = Eigen::Vector3d(1, 0, 1);
  CHECK_THROWS_WITH_AS(validate_shape(box), doctest::Contains("box: size (1, 0, 1) m"), InputError);
  RigidShape sphere = make(Kind::Sphere);
  sphere.radius = -1.0;
  CHECK_THROWS_WITH_AS(mass_properties(sphere, 1.0),
                       "sphere: radius -1 m must be positive and finite", InputError);
  RigidShape capsule = make(Kind::Capsule);
  capsule.length = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH_AS(bounding_radius(capsule), doctest::Contains("length nan m"), InputError);
  capsule.length = 1.0;
  capsule.radius = 0.0;
  CHECK_THROWS_WITH_AS(validate_shape(capsule), doctest::Contains("radius 0 m"), InputError);
  sphere.radius = 1.0;
  CHECK_THROWS_WITH_AS(mass_properties(sphere, 0.0), doctest::Contains("density 0 kg/m^3"),
                       InputError);
  CHECK_THROWS_WITH_AS(mass_properties(sphere, std::nan("")), doctest::Contains("density nan"),
                       InputError);
  Eigen::MatrixXd V;
  Eigen::MatrixXi F;
  CHECK_THROWS_WITH_AS(surface_mesh(sphere, 2, V, F), doctest::Contains("resolution 2"),
                       InputError);

  box.size = Eigen::Vector3d(1, 2, 3);
  const RigidShape good = surface_of(box, 3);
  const auto throws = [](const RigidShape& s, const char* message) {
    INFO("expected: " << message);
    CHECK_THROWS_WITH_AS(validate_shape(s), doctest::Contains(message), InputError);
  };
  throws(make(Kind::Mesh), "the mesh is empty");
  throws(mesh_shape(good.V.leftCols(2), good.F), "3 columns");
  RigidShape bad = good;
  bad.V(3, 1) = std::nan("");
  throws(bad, "vertex 3 (0.5, nan, -1.5) is not finite");
  bad = good;
  bad.F(5, 2) = 8;
  throws(bad, "triangle 5 has vertex index 8 out of range [0, 8)");
  bad = good;
  bad.F(2, 1) = bad.F(2, 0);
  throws(bad, "triangle 2 (vertices 1, 1, 7) is degenerate (a repeated vertex)");
  bad = good;
  bad.V.row(6) = 0.5 * (bad.V.row(0) + bad.V.row(4));  // triangle 0 is (0, 4, 6)
  throws(bad, "triangle 0 (vertices 0, 4, 6) is degenerate (zero area)");
  throws(mesh_shape(good.V, good.F.topRows(11)), "the mesh is open");
  bad = good;
  bad.F.row(7) = good.F.row(7).reverse();
  throws(bad, "the mesh is inconsistently oriented");
  throws(mesh_shape(good.V, good.F.rowwise().reverse()), "the triangles face inward");
  // Two tetrahedra that share only the edge (0, 1).
  Eigen::MatrixXd W(6, 3);
  W << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, -1, 0, 0, 0, -1;
  Eigen::MatrixXi T(8, 3);
  T << 0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3, 0, 4, 1, 0, 1, 5, 0, 5, 4, 1, 4, 5;
  CHECK_NOTHROW(validate_shape(mesh_shape(W.topRows(4), T.topRows(4))));
  throws(mesh_shape(W, T), "edge (0, 1) is shared by 4 triangles: the mesh is non-manifold");
}

}  // namespace softgrad::test
