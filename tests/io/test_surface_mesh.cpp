#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

#include "io/io_test_support.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/io.hpp"

using namespace softgrad;

namespace {

// The unit cube [0, 1]^3 with outward faces, as 6 quads (1-based for OBJ).
const int kQuads[6][4] = {{1, 4, 3, 2}, {5, 6, 7, 8}, {1, 2, 6, 5},
                          {2, 3, 7, 6}, {3, 4, 8, 7}, {4, 1, 5, 8}};
const double kCorners[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                               {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

std::string cube_obj(int faces = 6) {
  std::ostringstream os;
  os << "# a cube\no cube\n";
  for (const auto& c : kCorners) os << "v " << c[0] << " " << c[1] << " " << c[2] << "\n";
  os << "vn 0 0 1\n";
  for (int f = 0; f < faces; ++f)
    os << "f " << kQuads[f][0] << "//1 " << kQuads[f][1] << "//1 " << kQuads[f][2] << "//1 "
       << kQuads[f][3] << "//1\n";
  return os.str();
}

std::string cube_off() {
  std::ostringstream os;
  os << "OFF\n8 6 12\n";
  for (const auto& c : kCorners) os << c[0] << " " << c[1] << " " << c[2] << "\n";
  for (const auto& q : kQuads)
    os << "4 " << q[0] - 1 << " " << q[1] - 1 << " " << q[2] - 1 << " " << q[3] - 1 << "\n";
  return os.str();
}

// Triangles of the cube: each quad split along its first diagonal.
std::vector<std::array<int, 3>> cube_triangles() {
  std::vector<std::array<int, 3>> t;
  for (const auto& q : kQuads) {
    t.push_back({q[0] - 1, q[1] - 1, q[2] - 1});
    t.push_back({q[0] - 1, q[2] - 1, q[3] - 1});
  }
  return t;
}

std::string cube_stl_ascii() {
  std::ostringstream os;
  os << "solid cube\n";
  for (const auto& t : cube_triangles()) {
    os << " facet normal 0 0 0\n  outer loop\n";
    for (const int v : t)
      os << "   vertex " << kCorners[v][0] << " " << kCorners[v][1] << " " << kCorners[v][2]
         << "\n";
    os << "  endloop\n endfacet\n";
  }
  os << "endsolid cube\n";
  return os.str();
}

std::string cube_stl_binary() {
  std::string out(80, ' ');
  out.replace(0, 5, "solid");  // binary files may start like ASCII ones
  const auto tris = cube_triangles();
  const std::uint32_t n = static_cast<std::uint32_t>(tris.size());
  out.append(reinterpret_cast<const char*>(&n), 4);
  for (const auto& t : tris) {
    float record[12] = {};
    for (int v = 0; v < 3; ++v)
      for (int k = 0; k < 3; ++k) record[3 + 3 * v + k] = static_cast<float>(kCorners[t[v]][k]);
    out.append(reinterpret_cast<const char*>(record), sizeof record);
    out.append(2, '\0');
  }
  return out;
}

double total_volume(const Mesh& m) {
  double v = 0.0;
  for (int e = 0; e < m.n_elems(); ++e) {
    Eigen::Matrix3d D;
    for (int k = 0; k < 3; ++k)
      D.col(k) = (m.X.row(m.elems(e, k + 1)) - m.X.row(m.elems(e, 0))).transpose();
    CHECK(D.determinant() > 0.0);  // positively oriented
    v += D.determinant() / 6.0;
  }
  return v;
}

}  // namespace

TEST_CASE("io/surface_mesh: OBJ, OFF and STL (ASCII, binary) cubes read alike") {
  test::TempDir dir;
  const std::pair<const char*, std::string> files[] = {{"cube.obj", cube_obj()},
                                                       {"cube.off", cube_off()},
                                                       {"cube_ascii.stl", cube_stl_ascii()},
                                                       {"cube_binary.stl", cube_stl_binary()}};
  for (const auto& [name, text] : files) {
    const std::string file_name = name;  // (clang 14 lambdas cannot capture a binding)
    CAPTURE(file_name);
    const std::string path = dir.file(name);
    std::ofstream(path, std::ios::binary) << text;
    const SurfaceMesh s = read_surface_mesh(path);
    CHECK(s.X.rows() == 8);  // STL's 36 corners welded to 8
    CHECK(s.triangles.rows() == 12);
    CHECK(s.X.minCoeff() == 0.0);
    CHECK(s.X.maxCoeff() == 1.0);
  }
}

TEST_CASE("io/surface_mesh: TetGen fills the cube exactly, within the volume bound") {
  if (!has_tetgen()) {
    MESSAGE("this build has no TetGen: only the refusal is checked");
    test::TempDir dir;
    std::ofstream(dir.file("cube.obj")) << cube_obj();
    CHECK(test::input_error_of([&] {
            read_mesh(dir.file("cube.obj"));
          }).find("cannot fill surfaces with tetrahedra") != std::string::npos);
    return;
  }
  test::TempDir dir;
  std::ofstream(dir.file("cube.obj")) << cube_obj();
  const Mesh coarse = read_mesh(dir.file("cube.obj"));
  CHECK(coarse.dim == 3);
  CHECK(total_volume(coarse) == doctest::Approx(1.0).epsilon(1e-12));
  CHECK_NOTHROW(validate_mesh(coarse));
  const Mesh fine = read_mesh(dir.file("cube.obj"), {1.4, 1e-3});
  CHECK(total_volume(fine) == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(fine.n_elems() >= 1000);  // at most 1e-3 m^3 each
  double largest = 0.0;
  for (int e = 0; e < fine.n_elems(); ++e) {
    Eigen::Matrix3d D;
    for (int k = 0; k < 3; ++k)
      D.col(k) = (fine.X.row(fine.elems(e, k + 1)) - fine.X.row(fine.elems(e, 0))).transpose();
    largest = std::max(largest, D.determinant() / 6.0);
  }
  CHECK(largest <= 1e-3);
  MESSAGE("cube: " << coarse.n_elems() << " tets by default, " << fine.n_elems()
                   << " with max_volume 1e-3");
}

TEST_CASE("io/surface_mesh: bad surfaces are input errors naming the file and line") {
  test::TempDir dir;
  const auto error = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir.file(name), std::ios::binary) << text;
    return test::input_error_of([&] { read_mesh(dir.file(name)); });
  };
  CHECK(error("a.obj", "v 0 0 0\nv 1 0 0\nf 1 2 9\n") ==
        dir.file("a.obj") + ":3: vertex index 9 is out of range (2 vertices so far)");
  CHECK(error("b.obj", "v 0 0 nan\n") ==
        dir.file("b.obj") + ":1: a coordinate is not a finite number");
  CHECK(error("c.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n") ==
        dir.file("c.obj") + ":4: a face needs at least 3 vertices");
  CHECK(error("d.obj", cube_obj() + "f 1 1 2\n").find(":18: a triangle repeats a vertex") !=
        std::string::npos);
  CHECK(error("e.off", "OFF\n2000000000 1 0\n0 0 0\n")
            .find("the vertex count 2000000000 is out of range") != std::string::npos);
  CHECK(error("f.stl", "solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n  endloop\n")
            .find(":5: a facet needs 3 vertices, this one has 1") != std::string::npos);
  CHECK(error("g.obj", "v 0 0 0\n").find("at least 4 vertices and 4 triangles") !=
        std::string::npos);
  CHECK(error("h.ply", "ply\n").find("unknown extension '.ply'") != std::string::npos);
  if (has_tetgen()) {
    // A cube without its top: not closed.
    const std::string open = error("open.obj", cube_obj(5));
    CHECK(open.find(dir.file("open.obj") + ": ") == 0);
    CHECK(open.find("the surface is not closed") != std::string::npos);
  }
}

TEST_CASE("io/surface_mesh: surfaces TetGen cannot fill are refused saying what and where") {
  // TetGen trusts its input: on two cubes that intersect, a repeated face or a flat surface it
  // died of a segmentation fault or a failed assertion. The surface is checked first; TetGen's
  // own exact self-intersection check (-d) and the fill run in a child process, so whatever
  // gets through still ends as an error naming the file while this process goes on.
  if (!has_tetgen()) return;
  test::TempDir dir;
  const auto error = [&](const std::string& name, const std::string& text,
                         const TetrahedraliseOptions& options = {}) {
    std::ofstream(dir.file(name), std::ios::binary) << text;
    return test::input_error_of([&] { read_mesh(dir.file(name), options); });
  };
  const auto says = [&](const std::string& name, const std::string& text, const std::string& what) {
    const std::string message = error(name, text);
    CAPTURE(name);
    CAPTURE(message);
    CHECK(message.find(dir.file(name) + ": ") == 0);
    CHECK(message.find(what) != std::string::npos);
  };
  const std::string square = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n";
  says("open.obj", cube_obj(5), "the surface is not closed: the edge (");
  says("dangling.obj", cube_obj() + "v 2 2 2\nf 2 3 9\n",
       "the surface is not a manifold: the edge (1, 0, 0) - (1, 1, 0) is on 3 triangles");
  says("repeated.obj", cube_obj() + "f 1 4 3 2\n",
       "the triangle (0, 0, 0) (1, 1, 0) (1, 0, 0) is given twice");
  says("flipped.obj", cube_obj(5) + "f 4 1 8\nf 8 5 1\n",
       "the triangles are not consistently oriented");
  says("lonely.obj", cube_obj() + "v 0.5 0.5 0.5\n",
       "the vertex (0.5, 0.5, 0.5) is on no triangle");
  says("twin.obj", cube_obj() + "v 1e-12 0 0\nf 9 4 3\n",
       "the vertices (0, 0, 0) and (1e-12, 0, 0) coincide");
  says("needle.obj",
       "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 0.5 0.5 0\n"
       "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 5 4\nf 5 3 4\nf 2 3 5\n",
       "the triangle (1, 0, 0) (0, 1, 0) (0.5, 0.5, 0) has no area");
  // Two tetrahedra touching at one vertex: every edge is fine, the vertex is not.
  says("bowtie.obj",
       "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv -1 0 0\nv 0 -1 0\nv 0 0 -1\n"
       "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\nf 1 5 6\nf 1 7 5\nf 1 6 7\nf 5 7 6\n",
       "the surface is not a manifold at the vertex (0, 0, 0)");
  // Closed and oriented but crossing itself: found by TetGen's exact check in the child.
  std::ostringstream two;
  two << cube_obj();
  for (const auto& c : kCorners)
    two << "v " << c[0] + 0.5 << " " << c[1] + 0.5 << " " << c[2] + 0.5 << "\n";
  for (const auto& q : kQuads)
    two << "f " << q[0] + 8 << " " << q[1] + 8 << " " << q[2] + 8 << " " << q[3] + 8 << "\n";
  says("two_cubes.obj", two.str(),
       "cannot fill the surface with tetrahedra: the surface intersects itself");
  // Closed, oriented, a manifold, and flat: TetGen's predicates assert and the child dies.
  // (Under the sanitizers the child may stop with an error report instead of the signal.)
  says("flat.obj", square + "f 1 2 3\nf 1 3 4\nf 2 1 4\nf 2 4 3\n", "TetGen");
  // Refused before TetGen runs: coordinates past its predicates' range, a refinement without
  // end, more tetrahedra than the limit.
  std::string huge = cube_obj();
  for (const std::string c : {" 1 ", " 1\n"})
    for (size_t at = huge.find("v "); at != std::string::npos; at = huge.find("v ", at + 1))
      if (const size_t k = huge.find(c, at); k != std::string::npos && k < huge.find('\n', at))
        huge.replace(k, c.size(), c.front() + std::string("1e150") + c.back());
  CHECK(error("huge.obj", huge).find("coordinates of magnitude 1e+150") != std::string::npos);
  CHECK(error("q.obj", cube_obj(), {1.05, 0.0}).find("must be a number >= 1.1") !=
        std::string::npos);
  CHECK(error("fine.obj", cube_obj(), {1.5, 1e-9})
            .find("max_volume 1e-09 would make about 1e+09 tetrahedra in the enclosed volume 1") !=
        std::string::npos);
}
