#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "io/io_test_support.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/io.hpp"
#include "softgrad/mesh_generators.hpp"

using namespace softgrad;
using test::contains;
using test::input_error_of;
using test::write_text;

namespace {

// Sparse node tags, so that the reader must renumber.
int tag_of(int v) { return 3 * v + 5; }

// The nodes of `m` (z = 0 in 2D) as "tag x y z" or, for 4.1, as a tag list then coordinates.
void write_coords(std::ostream& os, const Mesh& m, int v) {
  os << m.X(v, 0) << " " << m.X(v, 1) << " " << (m.dim == 3 ? m.X(v, 2) : 0.0) << "\n";
}

// MSH 2.2 text of `m`, with an ignored physical-names section and ignored line elements.
std::string msh22(const Mesh& m) {
  std::ostringstream os;
  os.precision(17);
  os << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n1\n3 1 \"body\"\n"
        "$EndPhysicalNames\n$Nodes\n"
     << m.n_verts() << "\n";
  for (int v = 0; v < m.n_verts(); ++v) {
    os << tag_of(v) << " ";
    write_coords(os, m, v);
  }
  os << "$EndNodes\n$Elements\n" << m.n_elems() + 2 << "\n";
  os << "1 15 2 0 1 " << tag_of(0) << "\n2 1 2 0 1 " << tag_of(0) << " " << tag_of(1) << "\n";
  const int type = m.dim == 3 ? 4 : 2;
  for (int e = 0; e < m.n_elems(); ++e) {
    os << e + 3 << " " << type << " 2 1 1";
    for (int k = 0; k <= m.dim; ++k) os << " " << tag_of(m.elems(e, k));
    os << "\n";
  }
  os << "$EndElements\n";
  return os.str();
}

// MSH 4.1 text of `m`: nodes in two blocks, an ignored block of lines, then the simplices.
std::string msh41(const Mesh& m) {
  std::ostringstream os;
  os.precision(17);
  const int n = m.n_verts(), half = n / 2;
  os << "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Entities\n0 0 0 1\n1 0 0 0 1 1 1 0 0\n"
        "$EndEntities\n$Nodes\n2 "
     << n << " " << tag_of(0) << " " << tag_of(n - 1) << "\n";
  for (auto [begin, end] : {std::pair{0, half}, std::pair{half, n}}) {
    os << m.dim << " 1 0 " << end - begin << "\n";
    for (int v = begin; v < end; ++v) os << tag_of(v) << "\n";
    for (int v = begin; v < end; ++v) write_coords(os, m, v);
  }
  os << "$EndNodes\n$Elements\n2 " << m.n_elems() + 1 << " 1 " << m.n_elems() + 1 << "\n";
  os << "1 1 1 1\n1 " << tag_of(0) << " " << tag_of(1) << "\n";
  os << m.dim << " 1 " << (m.dim == 3 ? 4 : 2) << " " << m.n_elems() << "\n";
  for (int e = 0; e < m.n_elems(); ++e) {
    os << e + 2;
    for (int k = 0; k <= m.dim; ++k) os << " " << tag_of(m.elems(e, k));
    os << "\n";
  }
  os << "$EndElements\n";
  return os.str();
}

// A one-tetrahedron MSH 2.2 file whose element line is `elem`.
std::string one_tet_msh(const std::string& elem) {
  return "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n"
         "4 0 0 1\n$EndNodes\n$Elements\n1\n" +
         elem + "\n$EndElements\n";
}

}  // namespace

TEST_CASE("io/gmsh_reader: a generated box round-trips through MSH 2.2 and 4.1") {
  test::TempDir dir;
  const Mesh box = box_tet_mesh(3, 2, 2, Eigen::Vector3d(1.5, 1, 0.7), Eigen::Vector3d(0.1, 0, 0));
  for (int version : {2, 4}) {
    CAPTURE(version);
    const std::string path = dir.file("box.msh");
    write_text(path, version == 2 ? msh22(box) : msh41(box));
    const Mesh m = read_gmsh(path);
    CHECK(m.dim == 3);
    CHECK(m.source == path);
    CHECK(m.X == box.X);
    CHECK(m.elems == box.elems);
  }
}

TEST_CASE("io/gmsh_reader: a mesh without tetrahedra is read as 2D triangles") {
  test::TempDir dir;
  const Mesh rect = rectangle_tri_mesh(3, 2, Eigen::Vector2d(2, 1));
  for (int version : {2, 4}) {
    CAPTURE(version);
    const std::string path = dir.file("rect.msh");
    write_text(path, version == 2 ? msh22(rect) : msh41(rect));
    const Mesh m = read_gmsh(path);
    CHECK(m.dim == 2);
    CHECK(m.X == rect.X);
    CHECK(m.elems == rect.elems);
  }
  const std::string path = dir.file("bent.msh");
  std::string text = msh22(rect);
  text.replace(text.find("0 0 0\n"), 6, "0 0 0.5\n");  // first node leaves the plane
  write_text(path, text);
  CHECK(contains(input_error_of([&] { read_gmsh(path); }), path + ":10: node 5 has z = 0.5"));
}

TEST_CASE("io/gmsh_reader: an inverted tetrahedron is reoriented, a flat one is rejected") {
  test::TempDir dir;
  const std::string path = dir.file("t.msh");
  write_text(path, one_tet_msh("1 4 0 2 1 3 4"));
  const Mesh m = read_gmsh(path);
  CHECK(signed_measure(m, 0) == doctest::Approx(1.0 / 6.0));

  write_text(path, one_tet_msh("9 4 0 1 2 3 3"));
  CHECK(contains(input_error_of([&] { read_gmsh(path); }),
                 path + ":13: element 9 is degenerate (signed volume 0"));
}

TEST_CASE("io/gmsh_reader: a repeated tetrahedron is an error naming both lines") {
  test::TempDir dir;
  const std::string path = dir.file("t.msh");
  write_text(path,
             "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n"
             "3 0 1 0\n4 0 0 1\n$EndNodes\n$Elements\n2\n1 4 0 1 2 3 4\n"
             "2 4 0 4 3 2 1\n$EndElements\n");
  CHECK(contains(input_error_of([&] { read_gmsh(path); }),
                 path + ":14: element 2 has the same vertices as element 1 (line 13)"));
}

TEST_CASE("io/gmsh_reader: malformed files are errors with file and line") {
  test::TempDir dir;
  const std::string path = dir.file("mesh.msh");
  const auto error = [&](const std::string& text) {
    write_text(path, text);
    return input_error_of([&] { read_gmsh(path); });
  };
  CHECK(contains(error(one_tet_msh("1 4 0 1 2 3")),
                 path + ":13: expected 4 node indices for a tetrahedron (element type 4), got 3"));
  CHECK(contains(error(one_tet_msh("1 4 0 1 2 3 8")),
                 path + ":13: element 1 refers to node 8, which $Nodes does not define"));
  CHECK(contains(error(one_tet_msh("1 4 0 1 2 3 4 5")),
                 path + ":13: expected 4 node indices for a tetrahedron (element type 4), got 5"));
  CHECK(contains(error(one_tet_msh("1 4 zero 1 2 3 4")),
                 path + ":13: expected tag count (an integer), got 'zero'"));
  CHECK(contains(error(one_tet_msh("1 15 0 1")), path + ":11: $Elements has no tetrahedra"));

  std::string text = one_tet_msh("1 4 0 1 2 3 4");
  CHECK(contains(error(text.substr(0, text.find("$Elements"))),
                 path + ":10: unexpected end of file: no $Elements section"));
  CHECK(contains(error(text.substr(0, text.find("4 0 0 1"))),
                 path + ":8: unexpected end of file, expected a node line"));
  CHECK(contains(error("$MeshFormat\n2.2 1 8\n\x01\x02\n$EndMeshFormat\n"),
                 path + ":2: binary MSH 2.2 files are not supported"));
  CHECK(contains(error("$MeshFormat\n4 0 8\n$EndMeshFormat\n"),
                 path + ":2: unsupported MSH version '4'"));
  CHECK(contains(error("$Nodes\n1\n1 0 0 0\n$EndNodes\n"), path + ":1: $Nodes before $MeshFormat"));
  text.replace(text.find("3 0 1 0"), 7, "3 0 1.0.0 0");
  CHECK(contains(error(text), path + ":8: expected a node coordinate (a number), got '1.0.0'"));
  std::string short_count = one_tet_msh("1 4 0 1 2 3 4");
  short_count.replace(short_count.find("$Nodes\n4"), 8, "$Nodes\n3");
  CHECK(contains(error(short_count), path + ":9: expected $EndNodes, got '4'"));
  CHECK(contains(input_error_of([&] { read_gmsh(dir.file("none.msh")); }),
                 dir.file("none.msh") + ": cannot open file"));
}

TEST_CASE("io/gmsh_reader: duplicate node tags are rejected") {
  test::TempDir dir;
  const std::string path = dir.file("dup.msh");
  std::string text = one_tet_msh("1 4 0 1 2 3 4");
  text.replace(text.find("4 0 0 1"), 1, "2");
  write_text(path, text);
  CHECK(
      contains(input_error_of([&] { read_gmsh(path); }), path + ":9: node tag 2 is defined twice"));
}

TEST_CASE("io/gmsh_reader: MSH 4.1 parametric node blocks and very sparse tags") {
  test::TempDir dir;
  const std::string path = dir.file("param.msh");
  write_text(path,
             "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n2 4 1 100000000\n"
             "2 1 1 2\n1\n100000000\n0 0 0 0.1 0.2\n1 0 0 0.3 0.4\n"
             "3 1 0 2\n7\n9\n0 1 0\n0 0 1\n$EndNodes\n"
             "$Elements\n1 1 5 5\n3 1 4 1\n5 1 100000000 9 7\n$EndElements\n");
  const Mesh m = read_gmsh(path);
  REQUIRE(m.n_verts() == 4);
  CHECK(m.X.row(1) == Eigen::RowVector3d(1, 0, 0));
  CHECK(m.X.row(3) == Eigen::RowVector3d(0, 0, 1));
  CHECK(signed_measure(m, 0) == doctest::Approx(1.0 / 6.0));  // reoriented
}

TEST_CASE("io/gmsh_reader: hexahedra, prisms and quadrangles are refused, not dropped") {
  // A hexahedron beside the tetrahedron was silently left out of the body (and its mass).
  test::TempDir dir;
  const std::string path = dir.file("mixed.msh");
  const std::string nodes =
      "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n8\n1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n"
      "5 0 0 1\n6 1 0 1\n7 1 1 1\n8 0 1 1\n$EndNodes\n";
  write_text(path, nodes + "$Elements\n2\n1 4 0 1 2 4 5\n2 5 0 1 2 3 4 5 6 7 8\n$EndElements\n");
  CHECK(contains(input_error_of([&] { read_gmsh(path); }),
                 path + ":18: element type 5 (a hexahedron, prism, pyramid, higher-order "
                        "tetrahedron or unknown type) is not read"));
  write_text(path, nodes + "$Elements\n1\n1 6 0 1 2 3 5 6 7\n$EndElements\n");
  CHECK(contains(input_error_of([&] { read_gmsh(path); }), path + ":17: element type 6"));
  write_text(path, nodes + "$Elements\n2\n1 2 0 1 2 4\n2 3 0 1 2 3 4\n$EndElements\n");
  CHECK(contains(input_error_of([&] { read_gmsh(path); }),
                 path + ":18: element type 3 (a quadrangle or higher-order triangle) is not read"));
  // In a 3D mesh a quadrangle is a boundary face (not part of the volume); lines and points are
  // skipped in every mesh.
  write_text(path, nodes +
                       "$Elements\n4\n1 15 0 1\n2 1 0 1 2\n3 3 0 1 2 3 4\n4 4 0 1 2 4 5\n"
                       "$EndElements\n");
  CHECK(read_gmsh(path).n_elems() == 1);
}
