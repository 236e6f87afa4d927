#include <doctest/doctest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "softgrad/errors.hpp"
#include "softgrad/mesh.hpp"
#include "softgrad/mesh_generators.hpp"

using namespace softgrad;

namespace {

// Sum of signed measures; checks every element is positive on the way.
double total_positive_measure(const Mesh& m) {
  double sum = 0;
  for (int e = 0; e < m.n_elems(); ++e) {
    const double v = signed_measure(m, e);
    CHECK(v > 0);
    sum += v;
  }
  return sum;
}

// Counts how many elements share each facet (sorted vertex tuple). Conforming: 1 or 2.
template <int d>
std::map<std::array<int, d>, int> facet_counts(const Mesh& m) {
  std::map<std::array<int, d>, int> counts;
  for (int e = 0; e < m.n_elems(); ++e)
    for (int skip = 0; skip <= d; ++skip) {
      std::array<int, d> f;
      for (int k = 0, j = 0; k <= d; ++k)
        if (k != skip) f[j++] = m.elems(e, k);
      std::sort(f.begin(), f.end());
      ++counts[f];
    }
  return counts;
}

}  // namespace

TEST_CASE("io/generators: box_tet_mesh has the right counts, volume and orientation") {
  const Eigen::Vector3d size(2.0, 0.5, 1.25), origin(-1.0, 3.0, 0.5);
  const Mesh m = box_tet_mesh(4, 3, 2, size, origin);
  CHECK(m.dim == 3);
  CHECK(m.n_verts() == 5 * 4 * 3);
  CHECK(m.n_elems() == 6 * 4 * 3 * 2);
  CHECK(total_positive_measure(m) == doctest::Approx(size.prod()).epsilon(1e-14));
  CHECK((m.X.colwise().minCoeff().transpose() - origin).norm() == 0.0);
  CHECK((m.X.colwise().maxCoeff().transpose() - (origin + size)).norm() == 0.0);
  CHECK_NOTHROW(validate_mesh(m));
}

TEST_CASE("io/generators: box_tet_mesh is conforming, its boundary is the box surface") {
  const Mesh m = box_tet_mesh(3, 2, 2, Eigen::Vector3d(3, 2, 2));
  double boundary_area = 0;
  for (const auto& [f, count] : facet_counts<3>(m)) {
    REQUIRE(count <= 2);
    if (count == 1) {
      const Eigen::Vector3d a = m.X.row(f[1]) - m.X.row(f[0]);
      const Eigen::Vector3d b = m.X.row(f[2]) - m.X.row(f[0]);
      boundary_area += 0.5 * a.cross(b).norm();
    }
  }
  CHECK(boundary_area == doctest::Approx(2 * (3 * 2 + 2 * 2 + 3 * 2)));
}

TEST_CASE("io/generators: rectangle_tri_mesh has the right counts, area and orientation") {
  const Eigen::Vector2d size(3.0, 1.5);
  const Mesh m = rectangle_tri_mesh(5, 4, size, Eigen::Vector2d(1, -1));
  CHECK(m.dim == 2);
  CHECK(m.n_verts() == 6 * 5);
  CHECK(m.n_elems() == 2 * 5 * 4);
  CHECK(total_positive_measure(m) == doctest::Approx(size.prod()).epsilon(1e-14));
  double perimeter = 0;
  for (const auto& [f, count] : facet_counts<2>(m)) {
    REQUIRE(count <= 2);
    if (count == 1) perimeter += (m.X.row(f[1]) - m.X.row(f[0])).norm();
  }
  CHECK(perimeter == doctest::Approx(2 * (3.0 + 1.5)));
  CHECK_NOTHROW(validate_mesh(m));
}

TEST_CASE("io/generators: disk_tri_mesh fills the inscribed polygon, conforming and oriented") {
  for (const auto& [rings, sectors] : {std::pair{1, 3}, std::pair{3, 6}, std::pair{5, 8}}) {
    const int n_rings = rings, n_sectors = sectors;  // (clang 14 lambdas cannot capture a binding)
    CAPTURE(n_rings);
    CAPTURE(n_sectors);
    const double r = 0.05;
    const Mesh m =
        disk_tri_mesh(rings, sectors, Eigen::Vector2d(2 * r, 2 * r), Eigen::Vector2d(-1.0, 0.5));
    CHECK(m.n_verts() == 1 + sectors * rings * (rings + 1) / 2);
    CHECK(m.n_elems() == sectors * rings * rings);
    CHECK_NOTHROW(validate_mesh(m));
    // The boundary is the regular polygon of sectors * rings corners on the circle.
    const int corners = sectors * rings;
    const double polygon = 0.5 * corners * r * r * std::sin(2 * M_PI / corners);
    CHECK(total_positive_measure(m) == doctest::Approx(polygon).epsilon(1e-13));
    int boundary_edges = 0;
    for (const auto& [f, count] : facet_counts<2>(m)) {
      REQUIRE(count <= 2);
      if (count == 2) continue;
      ++boundary_edges;
      for (int v : f)
        CHECK((m.X.row(v) - Eigen::RowVector2d(-1.0 + r, 0.5 + r)).norm() ==
              doctest::Approx(r).epsilon(1e-14));
    }
    CHECK(boundary_edges == corners);
  }
  CHECK_THROWS_WITH_AS(disk_tri_mesh(2, 2, Eigen::Vector2d(1, 1)),
                       "disk_tri_mesh: sectors must be >= 3, got 2", InputError);
  CHECK_THROWS_WITH_AS(disk_tri_mesh(0, 6, Eigen::Vector2d(1, 1)),
                       "disk_tri_mesh: rings must be >= 1, got 0", InputError);
}

TEST_CASE("io/generators: invalid resolutions and sizes are input errors naming the argument") {
  const Eigen::Vector3d one = Eigen::Vector3d::Ones();
  CHECK_THROWS_WITH_AS(box_tet_mesh(0, 1, 1, one), "box_tet_mesh: nx must be >= 1, got 0",
                       InputError);
  CHECK_THROWS_WITH_AS(box_tet_mesh(1, 1, 1, Eigen::Vector3d(1, -1, 1)),
                       "box_tet_mesh: size[1] must be finite and positive, got -1", InputError);
  CHECK_THROWS_AS(box_tet_mesh(1, 1, 1, Eigen::Vector3d(1, 1, NAN)), InputError);
  CHECK_THROWS_AS(box_tet_mesh(2000, 2000, 2000, one), InputError);
  // Within an int, but about 1.8e9 tetrahedra: refused before any allocation.
  CHECK_THROWS_WITH_AS(box_tet_mesh(1000, 1000, 300, one),
                       "box_tet_mesh: resolution too large: the mesh would have more than "
                       "100000000 vertices or elements (tens of GB before the first step)",
                       InputError);
  CHECK_THROWS_WITH_AS(rectangle_tri_mesh(3, -2, Eigen::Vector2d(1, 1)),
                       "rectangle_tri_mesh: ny must be >= 1, got -2", InputError);
}
