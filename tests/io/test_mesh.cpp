#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "io/io_test_support.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/mesh.hpp"

using namespace softgrad;

namespace {

// The unit tetrahedron (volume 1/6) plus `extra` unreferenced vertices.
Mesh unit_tet(int extra = 0) {
  Mesh m;
  m.dim = 3;
  m.source = "unit";
  m.X.resize(4 + extra, 3);
  m.X.setZero();
  m.X.topRows(4) << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1;
  for (int i = 0; i < extra; ++i) m.X.row(4 + i).setConstant(0.25);
  m.elems.resize(1, 4);
  m.elems << 0, 1, 2, 3;
  return m;
}

std::string message_of(const Mesh& m) {
  try {
    validate_mesh(m);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("io/mesh: signed_measure gives volume and area with the orientation sign") {
  Mesh m = unit_tet();
  CHECK(signed_measure(m, 0) == doctest::Approx(1.0 / 6.0));
  m.elems.row(0) << 1, 0, 2, 3;
  CHECK(signed_measure(m, 0) == doctest::Approx(-1.0 / 6.0));

  Mesh t;
  t.dim = 2;
  t.X.resize(3, 2);
  t.X << 0, 0, 2, 0, 0, 3;
  t.elems.resize(1, 3);
  t.elems << 0, 1, 2;
  CHECK(signed_measure(t, 0) == doctest::Approx(3.0));
  t.elems.row(0) << 0, 2, 1;
  CHECK(signed_measure(t, 0) == doctest::Approx(-3.0));
}

TEST_CASE("io/mesh: validate_mesh accepts a good mesh silently") {
  test::LogCapture log;
  CHECK_NOTHROW(validate_mesh(unit_tet()));
  CHECK(log.messages.empty());
}

TEST_CASE("io/mesh: validate_mesh rejects bad shapes, indices and coordinates") {
  Mesh m = unit_tet();
  m.dim = 4;
  CHECK(message_of(m).find("mesh 'unit': dim must be 2") != std::string::npos);

  m = unit_tet();
  m.elems.resize(0, 4);
  CHECK(message_of(m).find("no elements") != std::string::npos);

  m = unit_tet();
  m.elems(0, 2) = 7;
  CHECK(message_of(m).find("element 0 refers to vertex 7, outside [0, 4)") != std::string::npos);

  m = unit_tet();
  m.X(2, 1) = std::numeric_limits<double>::quiet_NaN();
  CHECK(message_of(m).find("vertex 2 has a non-finite coordinate") != std::string::npos);
}

TEST_CASE("io/mesh: validate_mesh rejects inverted and degenerate elements by index") {
  Mesh m = unit_tet();
  m.X.conservativeResize(5, 3);
  m.X.row(4) << 1, 1, 1;
  m.elems.resize(2, 4);
  m.elems << 0, 1, 2, 3, 1, 0, 2, 3;  // element 1 inverted
  const std::string inverted = message_of(m);
  CHECK(inverted.find("mesh 'unit': element 1 is degenerate or inverted") != std::string::npos);
  CHECK(inverted.find("signed volume -0.166667") != std::string::npos);

  m.X.row(3) << 0.5, 0.5, 0;  // both elements flat
  CHECK(message_of(m).find("element 0 is degenerate") != std::string::npos);
}

TEST_CASE("io/mesh: validate_mesh's tolerance is relative to the mesh size") {
  // A tiny but well-shaped tetrahedron is fine at any scale.
  Mesh m = unit_tet();
  m.X *= 1e-5;
  CHECK_NOTHROW(validate_mesh(m));
  // A sliver of relative height 1e-14 is not.
  m = unit_tet();
  m.X(3, 2) = 1e-14;
  CHECK(message_of(m).find("element 0 is degenerate") != std::string::npos);
}

TEST_CASE("io/mesh: validate_mesh warns about unreferenced vertices") {
  test::LogCapture log;
  CHECK_NOTHROW(validate_mesh(unit_tet(2)));
  REQUIRE(log.messages.size() == 1);
  CHECK(log.messages[0].find("mesh 'unit': 2 of 6 vertices are not referenced") !=
        std::string::npos);
}
