#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "io/io_test_support.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/io.hpp"
#include "softgrad/mesh_generators.hpp"
#include "support/vtu_reader.hpp"

using namespace softgrad;
using test::contains;

namespace {

// The whitespace-separated numbers between the <DataArray ... Name="name" ...> tag and its end.
std::vector<double> data_array(const std::string& xml, const std::string& name) {
  const size_t tag = xml.find("Name=\"" + name + "\"");
  REQUIRE(tag != std::string::npos);
  const size_t begin = xml.find('>', tag) + 1;
  const size_t end = xml.find("</DataArray>", begin);
  std::istringstream in(xml.substr(begin, end - begin));
  std::vector<double> values;
  for (double v; in >> v;) values.push_back(v);
  return values;
}

}  // namespace

TEST_CASE("io/vtu_writer: a deformed tet mesh with fields parses back") {
  test::TempDir dir;
  const Mesh m = box_tet_mesh(2, 2, 1, Eigen::Vector3d(1, 1, 0.5));
  const Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(m.X.data(), m.n_dofs()) * 1.1 +
                            Eigen::VectorXd::Constant(m.n_dofs(), 0.123456789012);
  const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(m.n_dofs(), -1, 1);
  const Eigen::VectorXd J = Eigen::VectorXd::Constant(m.n_elems(), 0.75);
  const std::string path = dir.file("frame_0000.vtu");
  write_vtu(path, m, x, {{"velocity", 3, v}}, {{"J", 1, J}}, VtuEncoding::ascii);

  const std::string xml = test::read_text(path);
  CHECK(xml.starts_with("<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\""));
  CHECK(contains(xml, "<Piece NumberOfPoints=\"18\" NumberOfCells=\"24\">"));
  CHECK(contains(xml, "Name=\"velocity\" NumberOfComponents=\"3\""));
  CHECK(xml.ends_with("</VTKFile>\n"));

  const std::vector<double> points = data_array(xml, "Points");
  REQUIRE(points.size() == static_cast<size_t>(m.n_dofs()));
  for (int i = 0; i < m.n_dofs(); ++i) CHECK(points[i] == doctest::Approx(x[i]).epsilon(1e-8));
  CHECK(data_array(xml, "velocity").back() == 1.0);
  CHECK(data_array(xml, "J") == std::vector<double>(24, 0.75));

  const std::vector<double> conn = data_array(xml, "connectivity");
  REQUIRE(conn.size() == 4u * 24u);
  for (int k = 0; k < 4; ++k) CHECK(conn[4 * 23 + k] == m.elems(23, k));
  const std::vector<double> offsets = data_array(xml, "offsets");
  REQUIRE(offsets.size() == 24u);
  CHECK(offsets.front() == 4);
  CHECK(offsets.back() == 96);
  CHECK(data_array(xml, "types") == std::vector<double>(24, 10));
}

TEST_CASE("io/vtu_writer: 2D meshes are triangles at z = 0 with 3-component vectors") {
  test::TempDir dir;
  const Mesh m = rectangle_tri_mesh(2, 1, Eigen::Vector2d(2, 1));
  const Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(m.X.data(), m.n_dofs());
  const std::string path = dir.file("tri.vtu");
  write_vtu(path, m, x, {{"v", 2, Eigen::VectorXd::Ones(m.n_dofs())}}, {}, VtuEncoding::ascii);
  const std::string xml = test::read_text(path);
  CHECK(contains(xml, "NumberOfPoints=\"6\" NumberOfCells=\"4\""));
  const std::vector<double> points = data_array(xml, "Points");
  REQUIRE(points.size() == 18u);
  CHECK(points[3 * 5 + 0] == 2.0);
  CHECK(points[3 * 5 + 1] == 1.0);
  CHECK(points[3 * 5 + 2] == 0.0);
  CHECK(data_array(xml, "v") ==
        std::vector<double>{1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0});
  CHECK(data_array(xml, "types") == std::vector<double>(4, 5));
}

TEST_CASE("io/vtu_writer: binary frames hold the exact doubles, zlib in several blocks") {
  test::TempDir dir;
  // 9,261 vertices: 222 kB of points, seven 32 KiB zlib blocks and a partial one.
  const Mesh m = box_tet_mesh(20, 20, 20, Eigen::Vector3d(1, 1, 1));
  Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(m.X.data(), m.n_dofs());
  for (int i = 0; i < x.size(); ++i) x[i] += 1e-3 * std::sin(0.7 * i) + 1.0 / 3.0;
  const Eigen::VectorXd J = Eigen::VectorXd::LinSpaced(m.n_elems(), 0.5, 1.5);
  std::vector<size_t> sizes;
  for (const VtuEncoding encoding : {VtuEncoding::raw, VtuEncoding::zlib, VtuEncoding::ascii}) {
    CAPTURE(to_string(encoding));
    const std::string path = dir.file(std::string(to_string(encoding)) + ".vtu");
    write_vtu(path, m, x, {{"velocity", 3, -x}}, {{"J", 1, J}}, encoding);
    const std::string xml = test::read_text(path);
    sizes.push_back(xml.size());
    CHECK(xml.ends_with("</VTKFile>\n"));
    const std::vector<double> points = test::vtu_array(xml, "Points");
    const std::vector<double> velocity = test::vtu_array(xml, "velocity");
    const std::vector<double> j = test::vtu_array(xml, "J");
    REQUIRE(points.size() == static_cast<size_t>(m.n_dofs()));
    REQUIRE(velocity.size() == static_cast<size_t>(m.n_dofs()));
    REQUIRE(j.size() == static_cast<size_t>(m.n_elems()));
    // Binary: bit for bit. ASCII: 9 significant digits.
    const double tol = encoding == VtuEncoding::ascii ? 1e-8 : 0.0;
    int wrong = 0;
    for (int i = 0; i < m.n_dofs(); ++i) {
      wrong += std::abs(points[i] - x[i]) > tol * std::abs(x[i]);
      wrong += std::abs(velocity[i] + x[i]) > tol * std::abs(x[i]);
    }
    for (int e = 0; e < m.n_elems(); ++e) wrong += std::abs(j[e] - J[e]) > tol * J[e];
    CHECK(wrong == 0);
    const std::vector<double> conn = test::vtu_array(xml, "connectivity");
    REQUIRE(conn.size() == 4u * m.n_elems());
    CHECK(conn[4 * (m.n_elems() - 1) + 3] == m.elems(m.n_elems() - 1, 3));
    CHECK(test::vtu_array(xml, "offsets").back() == 4.0 * m.n_elems());
    CHECK(test::vtu_array(xml, "types") == std::vector<double>(m.n_elems(), 10.0));
  }
  // raw < ascii, zlib < raw.
  CHECK(sizes[0] < sizes[2]);
  CHECK(sizes[1] < sizes[0]);
  CHECK(parse_vtu_encoding("zlib") == VtuEncoding::zlib);
  CHECK(contains(test::input_error_of([] { parse_vtu_encoding("binary"); }),
                 "unknown VTU encoding 'binary'; use zlib, raw or ascii"));
}

TEST_CASE("io/vtu_writer: bad arguments and unwritable paths are input errors") {
  test::TempDir dir;
  const Mesh m = box_tet_mesh(1, 1, 1, Eigen::Vector3d::Ones());
  const Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(m.X.data(), m.n_dofs());
  const std::string path = dir.file("a.vtu");
  CHECK(contains(test::input_error_of([&] { write_vtu(path, m, x.head(5)); }),
                 "write_vtu('" + path + "'): x has 5 entries, the mesh has n_dofs = 24"));
  CHECK(contains(test::input_error_of([&] {
                   write_vtu(path, m, x, {{"v", 3, x.head(3)}});
                 }),
                 "field 'v' has 3 values, expected 24 (3 per vertex)"));
  CHECK(contains(test::input_error_of([&] {
                   write_vtu(path, m, x, {{"a<b", 1, x}});
                 }),
                 "field name 'a<b' must be non-empty"));
  CHECK(contains(test::input_error_of([&] {
                   write_vtu(path, m, x, {}, {{"J", 0, x}});
                 }),
                 "field 'J' must have components >= 1"));
  const std::string bad = dir.file("missing_folder/a.vtu");
  CHECK(contains(test::input_error_of([&] { write_vtu(bad, m, x); }),
                 "cannot write '" + bad + "': No such file or directory"));
}
