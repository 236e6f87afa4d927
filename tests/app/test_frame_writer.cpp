#include <doctest/doctest.h>

#include "app_test_support.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/frame_writer.hpp"

using softgrad::combined_mesh;
using softgrad::FrameWriter;
using namespace softgrad;
using namespace softgrad::test;

namespace {

// Two boxes side by side; the second of `second_material`.
std::shared_ptr<Model> two_bodies(const std::string& second_material) {
  auto model = std::make_shared<Model>();
  const auto left = find_material("neo_hookean");
  const auto right = find_material(second_material);
  add_body(*model, "left", box_tet_mesh(1, 1, 1, {1, 1, 1}), left,
           params_from_youngs_poisson(*left, 1e5, 0.3), 1000.0);
  add_body(*model, "right", box_tet_mesh(1, 1, 1, {1, 1, 1}, {2, 0, 0}), right,
           params_from_youngs_poisson(*right, 1e5, 0.3), 1000.0);
  add_elastic_terms(*model);  // after the bodies: the terms refer to them
  return model;
}

}  // namespace

TEST_CASE("app/frame_writer: the combined mesh lists every body in model numbering") {
  const auto model = two_bodies("neo_hookean");
  const Mesh mesh = combined_mesh(*model);
  CHECK(mesh.n_verts() == 16);
  REQUIRE(mesh.n_elems() == 12);
  CHECK(mesh.elems.row(6).minCoeff() >= 8);  // the second body's vertices come after the first's
  CHECK(Eigen::Map<const Eigen::VectorXd>(mesh.X.data(), mesh.X.size()) == model->X);
  CHECK_NOTHROW(validate_mesh(mesh));
}

TEST_CASE("app/frame_writer: frames and the collection name the steps and carry the fields") {
  TempDir dir;
  const auto model = two_bodies("stvk");
  FrameWriter writer(*model, dir.file("out/nested"), "two", VtuEncoding::ascii);
  CHECK(std::filesystem::exists(dir.file("out/nested/two.pvd")));
  CHECK(writer.frames_written() == 0);
  CHECK_FALSE(writer.last_step().has_value());

  State s{model->X, Eigen::VectorXd::Zero(model->n_dofs()), 0.0};
  writer.write(s, 0);
  s.x.array() += 0.5;
  s.v.setConstant(2.0);
  s.t = 0.25;
  writer.write(s, 25);
  CHECK(writer.frames_written() == 2);
  CHECK(writer.last_step() == 25);
  CHECK(writer.frame_file(25) == "two_000025.vtu");

  const std::string pvd = read_text(dir.file("out/nested/two.pvd"));
  CHECK(pvd.find("timestep=\"0\" group=\"\" part=\"0\" file=\"two_000000.vtu\"") !=
        std::string::npos);
  CHECK(pvd.find("timestep=\"0.25\" group=\"\" part=\"0\" file=\"two_000025.vtu\"") !=
        std::string::npos);
  const std::string vtu = read_text(dir.file("out/nested/two_000025.vtu"));
  CHECK(vtu.find("NumberOfPoints=\"16\" NumberOfCells=\"12\"") != std::string::npos);
  for (const char* name : {"displacement", "velocity", "body", "material"})
    CHECK(vtu.find(std::string("Name=\"") + name + "\"") != std::string::npos);
  CHECK(count_of(data_array(vtu, "displacement"), " 0.5 0.5 0.5\n") == 16);  // x - X
  CHECK(count_of(data_array(vtu, "velocity"), " 2 2 2\n") == 16);
}

TEST_CASE("app/frame_writer: body and material ids per element") {
  TempDir dir;
  for (const char* second : {"neo_hookean", "stvk"}) {
    const auto model = two_bodies(second);
    FrameWriter writer(*model, dir.file(second), "f", VtuEncoding::ascii);
    writer.write({model->X, Eigen::VectorXd::Zero(model->n_dofs()), 0.0}, 0);
    const std::string vtu = read_text(dir.file(std::string(second) + "/f_000000.vtu"));
    // Six elements per body; the material index is 1 only where the model differs.
    const std::string body = data_array(vtu, "body");
    CHECK(count_of(body, " 0\n") == 6);
    CHECK(count_of(body, " 1\n") == 6);
    const std::string material = data_array(vtu, "material");
    CHECK(count_of(material, " 1\n") == (std::string(second) == "stvk" ? 6 : 0));
  }
}

TEST_CASE("app/frame_writer: 2D frames write vectors with a zero z") {
  TempDir dir;
  const auto model = rectangle_model("neo_hookean", 1e5, 0.3, 1000.0, {1, 1}, {1, 1});
  FrameWriter writer(*model, dir.file("o"), "sheet", VtuEncoding::ascii);
  writer.write({model->X, Eigen::VectorXd::Constant(model->n_dofs(), 3.0), 0.0}, 0);
  const std::string vtu = read_text(dir.file("o/sheet_000000.vtu"));
  CHECK(vtu.find("Name=\"velocity\" NumberOfComponents=\"3\"") != std::string::npos);
  CHECK(count_of(data_array(vtu, "velocity"), " 3 3 0\n") == 4);
}

TEST_CASE("app/frame_writer: a bad name or an unusable folder is an InputError naming it") {
  TempDir dir;
  const auto model = box_model("neo_hookean", 1e5, 0.3, 1000.0, {1, 1, 1}, {1, 1, 1});
  CHECK_THROWS_AS(FrameWriter(*model, dir.file("o"), ""), InputError);
  CHECK_THROWS_AS(FrameWriter(*model, dir.file("o"), "a/b"), InputError);
  write_text(dir.file("file"), "x");
  const std::string msg = input_error_of([&] { FrameWriter(*model, dir.file("file"), "f"); });
  CHECK(msg.find("cannot create the output directory '" + dir.file("file") + "'") !=
        std::string::npos);
}
