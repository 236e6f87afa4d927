#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "io/io_test_support.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/io.hpp"
#include "softgrad/mesh_generators.hpp"

using namespace softgrad;

TEST_CASE("io/read_mesh: dispatches on the extension") {
  test::TempDir dir;
  const Mesh box = box_tet_mesh(1, 1, 1, Eigen::Vector3d::Ones());
  test::write_tetgen(dir.file("box"), box, 1);
  CHECK(read_mesh(dir.file("box")).elems == box.elems);
  CHECK(read_mesh(dir.file("box.ele")).elems == box.elems);
  test::write_text(dir.file("box.1.node"), test::read_text(dir.file("box.node")));
  test::write_text(dir.file("box.1.ele"), test::read_text(dir.file("box.ele")));
  CHECK(read_mesh(dir.file("box.1")).elems == box.elems);

  test::write_text(dir.file("tri.msh"),
                   "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 0 1 0\n"
                   "$EndNodes\n$Elements\n1\n1 2 0 1 2 3\n$EndElements\n");
  CHECK(read_mesh(dir.file("tri.msh")).dim == 2);

  CHECK_THROWS_WITH_AS(read_mesh(dir.file("box.vtk")),
                       (dir.file("box.vtk") +
                        ": has the unknown extension '.vtk'; supported are .msh (Gmsh 2.2 or 4.1 "
                        "ASCII), .node/.ele (TetGen) and the surfaces .obj, .off, .stl (filled "
                        "with tetrahedra)")
                           .c_str(),
                       InputError);
  CHECK(test::input_error_of([&] {
          read_mesh(dir.file("nothing"));
        }).find("has no extension and") != std::string::npos);
}

TEST_CASE("io/read_mesh: loads the armadillo with positive elements") {
  const std::string path = std::string(SOFTGRAD_SOURCE_DIR) + "/scenes/meshes/armadillo_10k";
  const auto start = std::chrono::steady_clock::now();
  const Mesh m = read_mesh(path + ".node");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("armadillo loaded in " << seconds << " s");
  CHECK(m.dim == 3);
  CHECK(m.n_verts() == 14779);
  CHECK(m.n_elems() == 54855);
  CHECK(test::all_positive(m));
  // The scan's extent, about 127 x 151 x 115 (y up).
  const Eigen::Vector3d extent = m.X.colwise().maxCoeff() - m.X.colwise().minCoeff();
  CHECK(extent.x() == doctest::Approx(127).epsilon(0.02));
  CHECK(extent.y() == doctest::Approx(151).epsilon(0.02));
  CHECK(extent.z() == doctest::Approx(115).epsilon(0.02));
}
