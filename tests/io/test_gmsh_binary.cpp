// Binary MSH 4.1: files written by Gmsh itself (tests/io/data/gmsh) against their ASCII twins,
// and malformed binary files refused with the byte they fail at.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "io/io_test_support.hpp"
#include "softgrad/io.hpp"
#include "softgrad/mesh.hpp"

using namespace softgrad;
using test::contains;
using test::input_error_of;
using test::read_text;
using test::write_text;

namespace {

const std::string data_dir = std::string(SOFTGRAD_SOURCE_DIR) + "/tests/io/data/gmsh/";

double total_measure(const Mesh& m) {
  double sum = 0;
  for (int e = 0; e < m.n_elems(); ++e) sum += signed_measure(m, e);
  return sum;
}

template <class T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// A binary MSH 4.1 file of one tetrahedron (nodes 1-4 at the origin and the unit points), an
// element block of one point (type 15) before it. `size_t` fields are 8 bytes.
std::string one_tet_binary(std::int32_t tet_type = 4, std::uint64_t n_nodes = 4) {
  std::string f = "$MeshFormat\n4.1 1 8\n";
  put<std::int32_t>(f, 1);
  f += "\n$EndMeshFormat\n$Nodes\n";
  for (std::uint64_t v : {std::uint64_t{1}, n_nodes, std::uint64_t{1}, std::uint64_t{4}}) put(f, v);
  for (std::int32_t v : {3, 1, 0}) put(f, v);
  put<std::uint64_t>(f, 4);
  for (std::uint64_t tag = 1; tag <= 4; ++tag) put(f, tag);
  const double xyz[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (const auto& p : xyz)
    for (double c : p) put(f, c);
  f += "\n$EndNodes\n$Elements\n";
  for (std::uint64_t v : {2, 2, 1, 2}) put<std::uint64_t>(f, v);
  for (std::int32_t v : {0, 1, 15}) put(f, v);
  for (std::uint64_t v : {1, 1, 1}) put<std::uint64_t>(f, v);  // one point: id 1, node 1
  for (std::int32_t v : {3, 1, tet_type}) put(f, v);
  for (std::uint64_t v : {1, 2, 1, 2, 3, 4}) put<std::uint64_t>(f, v);  // n, id, nodes
  f += "\n$EndElements\n";
  return f;
}

}  // namespace

TEST_CASE("io/gmsh_binary: Gmsh's binary MSH 4.1 files read as their ASCII twins") {
  for (const auto& [ascii, binary, dim, measure] :
       {std::tuple{"beam_ascii.msh", "beam_binary.msh", 3, 0.2 * 0.1 * 0.1},
        std::tuple{"beam_ascii.msh", "beam_binary_all.msh", 3, 0.2 * 0.1 * 0.1},
        std::tuple{"square_ascii.msh", "square_binary.msh", 2, 0.1 * 0.1}}) {
    const std::string file = binary;  // (clang 14 lambdas cannot capture a binding)
    CAPTURE(file);
    const Mesh a = read_gmsh(data_dir + ascii), b = read_gmsh(data_dir + binary);
    CHECK(b.dim == dim);
    CHECK(b.source == data_dir + binary);
    REQUIRE(b.n_verts() == a.n_verts());
    REQUIRE(b.n_elems() == a.n_elems());
    CHECK(b.n_elems() > 20);
    CHECK(b.elems == a.elems);
    // Gmsh writes ASCII coordinates with 16 significant digits, binary ones exactly.
    CHECK((b.X - a.X).cwiseAbs().maxCoeff() <= 1e-16);
    // The elements fill the body: their measures add up to its volume (area).
    CHECK(total_measure(b) == doctest::Approx(measure).epsilon(1e-12));
  }
}

TEST_CASE("io/gmsh_binary: a generated one-tetrahedron file skips the blocks it does not read") {
  test::TempDir dir;
  const std::string path = dir.file("tet.msh");
  write_text(path, one_tet_binary());
  const Mesh m = read_gmsh(path);
  CHECK(m.dim == 3);
  REQUIRE(m.n_elems() == 1);
  CHECK(signed_measure(m, 0) == doctest::Approx(1.0 / 6));
}

TEST_CASE("io/gmsh_binary: malformed binary files name the byte they fail at") {
  test::TempDir dir;
  const std::string path = dir.file("bad.msh");
  const auto error = [&](const std::string& bytes) {
    write_text(path, bytes);
    return input_error_of([&] { read_gmsh(path); });
  };
  const std::string good = one_tet_binary();
  const size_t nodes_at = good.find("$Nodes\n") + 7;
  CHECK(contains(error(one_tet_binary(4, 1'000'000'000'000)),
                 path + ": byte " + std::to_string(nodes_at + 8) +
                     ": node count 1000000000000 is impossible: more than 2147483647"));
  CHECK(contains(error(one_tet_binary(4, 100'000'000)),
                 "node count 100000000 is impossible: the file ends before"));
  CHECK(contains(error(one_tet_binary(99)), "element type 99 is not known"));
  std::string swapped = good;
  swapped.replace(swapped.find("8\n") + 2, 4, std::string("\0\0\0\1", 4));
  CHECK(contains(error(swapped), "written on a machine of the other byte order"));
  std::string size4 = good;
  size4.replace(size4.find("4.1 1 8"), 7, "4.1 1 4");
  CHECK(contains(error(size4), path + ": byte 12: data size 4"));
  std::string no_end = good;
  no_end.replace(no_end.find("$EndNodes"), 9, "$EndNodez");
  CHECK(contains(error(no_end), "expected $EndNodes"));
  // Every truncation of the file is refused (never a crash, never a mesh).
  for (size_t n = 0; n + 1 < good.size(); ++n) {
    CAPTURE(n);
    CHECK_FALSE(error(good.substr(0, n)).empty());
  }
  // A Gmsh file cut in the middle of its element data: the block's count no longer fits.
  const std::string beam = read_text(data_dir + "beam_binary.msh");
  CHECK(contains(error(beam.substr(0, beam.find("$EndElements") - 100)),
                 "elements in block 145 is impossible: the file ends before"));
}
