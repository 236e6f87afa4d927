// Scene bodies: meshes from files and generators, materials by youngs/poisson or by their own
// parameters, densities; each error with its location.
#include <doctest/doctest.h>

#include <cmath>

#include "io/io_test_support.hpp"
#include "scenes/scene_test_support.hpp"
#include "softgrad/io.hpp"
#include "softgrad/material_model.hpp"
#include "softgrad/mesh_generators.hpp"

using namespace softgrad;
using test::error_of;
using test::scene_with_material;

namespace {

// The parameters of the first element (each element stores its own copy).
std::vector<double> params_of(const std::string& material) {
  const Scene scene = test::parse(scene_with_material(material));
  const Body& body = scene.model->bodies.at(0);
  const auto n = static_cast<std::ptrdiff_t>(body.material->params().size());
  REQUIRE(body.params.size() == n * body.n_elems());
  return {body.params.begin(), body.params.begin() + n};
}

}  // namespace

TEST_CASE("scenes/bodies: a generated box gets the defaults") {
  const Scene scene = test::parse(test::scene_json());
  const Model& model = *scene.model;
  REQUIRE(model.bodies.size() == 1);
  const Body& body = model.bodies[0];
  CHECK(body.name == "body0");
  CHECK(body.material->name() == "neo_hookean");
  CHECK(body.density == 1000.0);
  CHECK(std::vector<double>(body.params.begin(), body.params.begin() + 2) ==
        std::vector<double>{kYoungsParam.default_value, kPoissonParam.default_value});
  CHECK(model.n_verts == 12);
  CHECK(body.n_elems() == 12);
  CHECK(model.mass.sum() == doctest::Approx(3 * 1000.0 * 2.0));  // 3 dofs per vertex
}

TEST_CASE("scenes/bodies: youngs and poisson are mapped to the model's parameters") {
  CHECK(params_of(R"({"model": "neo_hookean", "youngs": 2e6, "poisson": 0.4})") ==
        std::vector<double>{2e6, 0.4});
  // A missing one takes its default.
  CHECK(params_of(R"({"model": "stvk", "youngs": 2e6})") == std::vector<double>{2e6, 0.3});
  const auto mooney = find_material("mooney_rivlin");
  CHECK(params_of(R"({"model": "mooney_rivlin", "youngs": 2e6, "poisson": 0.45})") ==
        params_from_youngs_poisson(*mooney, 2e6, 0.45));
}

TEST_CASE("scenes/bodies: a model's own parameters take their table defaults") {
  CHECK(params_of(R"({"model": "mooney_rivlin", "c10": 1e4, "c01": 2e3})") ==
        std::vector<double>{1e4, 2e3, 1e6});
  CHECK(params_of(R"({"model": "mooney_rivlin"})") == std::vector<double>{1e4, 1e4, 1e6});
  CHECK(params_of(R"({"model": "mass_spring", "youngs": 3e4})") == std::vector<double>{3e4});
}

TEST_CASE("scenes/bodies: every registered material can be named with its defaults") {
  for (const auto& m : all_materials()) {
    CAPTURE(m->name());
    CHECK(params_of("{\"model\": \"" + m->name() + "\"}").size() == m->params().size());
  }
}

TEST_CASE("scenes/bodies: mixing youngs/poisson with a model's own keys is an error") {
  CHECK(error_of(scene_with_material(R"({"model": "mooney_rivlin", "youngs": 1e5, "c10": 1})")) ==
        "inline.json: /bodies/0/material/c10: give either youngs and poisson or the parameters "
        "of 'mooney_rivlin' (c10, c01, kappa), not both");
}

TEST_CASE("scenes/bodies: a Poisson's ratio that a model ignores gives a warning") {
  test::LogCapture log;
  CHECK(params_of(R"({"model": "mass_spring", "youngs": 3e4, "poisson": 0.3})") ==
        std::vector<double>{3e4});
  REQUIRE(log.messages.size() == 1);
  CHECK(log.messages[0] ==
        "inline.json: /bodies/0/material/poisson: material 'mass_spring' does not use Poisson's "
        "ratio; it is ignored");
}

TEST_CASE("scenes/bodies: material errors name the key") {
  CHECK(error_of(scene_with_material(R"({"model": "neo_hookean", "poisson": 0.7})")) ==
        "inline.json: /bodies/0/material/poisson: 0.7 is outside (-1, 0.5)");
  CHECK(error_of(scene_with_material(R"({"model": "mooney_rivlin", "poisson": 0.5})")) ==
        "inline.json: /bodies/0/material/poisson: 0.5 is outside (-1, 0.5)");
  CHECK(error_of(scene_with_material(R"({"model": "neo_hookean", "youngs": -1})")) ==
        "inline.json: /bodies/0/material/youngs: -1 Pa is outside (0, inf)");
  CHECK(error_of(scene_with_material(R"({"model": "mooney_rivlin", "kappa": 0})")) ==
        "inline.json: /bodies/0/material/kappa: 0 Pa is outside (0, inf)");
  CHECK(error_of(scene_with_material(R"({"model": "neo_hookean", "possion": 0.3})")) ==
        "inline.json: /bodies/0/material/possion: unknown key 'possion'; did you mean 'poisson'? "
        "valid keys: model, youngs, poisson, fields");
  CHECK(error_of(scene_with_material(R"({"model": "mass_spring", "c10": 1})")) ==
        "inline.json: /bodies/0/material/c10: unknown key 'c10'; valid keys: model, youngs, "
        "poisson, fields");
  CHECK(error_of(scene_with_material(R"({"youngs": 1e5})")) ==
        "inline.json: /bodies/0/material/model: missing required key 'model' (a registered "
        "material name)");
  CHECK(error_of(scene_with_material(R"({"model": 3})")) ==
        "inline.json: /bodies/0/material/model: expected a material name, got the number 3");
  const std::string unknown = error_of(scene_with_material(R"({"model": "neo_hooken"})"));
  CHECK(unknown.rfind("inline.json: /bodies/0/material/model: unknown material 'neo_hooken'; "
                      "did you mean 'neo_hookean'? known materials: linear corotated stvk",
                      0) == 0);
}

TEST_CASE("scenes/bodies: density must be positive") {
  const std::string mesh =
      R"("mesh": {"generator": "box", "resolution": [1, 1, 1], "size": [1, 1, 1]})";
  const std::string material = R"("material": {"model": "neo_hookean"})";
  CHECK(error_of(test::scene_json("", "{" + mesh + ", " + material + ", \"density\": -5}")) ==
        "inline.json: /bodies/0/density: -5 kg/m^3 is outside (0, inf)");
  CHECK(error_of(test::scene_json("", "{" + mesh + ", " + material + ", \"density\": 0}")) ==
        "inline.json: /bodies/0/density: 0 kg/m^3 is outside (0, inf)");
}

TEST_CASE("scenes/bodies: generator errors name the key") {
  const auto with_mesh = [](const std::string& mesh) {
    return error_of(test::scene_json(
        "", "{\"mesh\": " + mesh + ", \"material\": {\"model\": \"neo_hookean\"}}"));
  };
  CHECK(with_mesh(R"({"generator": "box", "resolution": [2, 1], "size": [1, 1, 1]})") ==
        "inline.json: /bodies/0/mesh/resolution: expected 3 integers, got 2");
  CHECK(with_mesh(R"({"generator": "box", "resolution": [0, 1, 1], "size": [1, 1, 1]})") ==
        "inline.json: /bodies/0/mesh/resolution/0: 0 is outside [1, inf)");
  CHECK(with_mesh(R"({"generator": "box", "resolution": [1, 1, 1], "size": [1, 0, 1]})") ==
        "inline.json: /bodies/0/mesh/size/1: 0 m is outside (0, inf)");
  CHECK(with_mesh(R"({"generator": "box", "size": [1, 1, 1]})") ==
        "inline.json: /bodies/0/mesh/resolution: missing key 'resolution', required with "
        "'generator'");
  CHECK(with_mesh(R"({"generator": "rectangle", "resolution": [1, 1], "size": [1, 1]})") ==
        "inline.json: /bodies/0/mesh/generator: 'rectangle' makes a 2D mesh but the scene has "
        "\"dim\": 3; use 'box' or 'ball'");
  CHECK(with_mesh(R"({"resolution": [1, 1, 1]})") ==
        "inline.json: /bodies/0/mesh: give exactly one of 'file' (a mesh file), 'generator' "
        "(box, ball, rectangle or disk) or 'vertices' with 'elements' (an inline mesh)");
  CHECK(with_mesh(R"({"generator": "cube"})") ==
        "inline.json: /bodies/0/mesh/generator: unknown value 'cube'; valid values: box, "
        "ball, rectangle, disk");
}

TEST_CASE("scenes/bodies: scale and translate move the rest positions") {
  const Scene scene = test::parse(test::scene_json(
      "", R"({"mesh": {"generator": "box", "resolution": [1, 1, 1], "size": [1, 1, 1],
                       "origin": [0, 0, -1], "scale": 2, "translate": [1, 0, 0]},
              "material": {"model": "neo_hookean"}})"));
  const Eigen::Map<const Eigen::Matrix<double, 3, Eigen::Dynamic>> X(scene.model->X.data(), 3, 8);
  CHECK(X.rowwise().minCoeff() == Eigen::Vector3d(1, 0, -2));
  CHECK(X.rowwise().maxCoeff() == Eigen::Vector3d(3, 2, 0));
}

TEST_CASE("scenes/bodies: a surface file is filled with tetrahedra within the scene's bounds") {
  test::TempDir dir;
  // The unit cube as OFF, scaled to 0.1 m: 1e-3 m^3, at most 1e-5 m^3 per tetrahedron.
  test::write_text(dir.file("cube.off"),
                   "OFF\n8 6 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n0 0 1\n1 0 1\n1 1 1\n0 1 1\n"
                   "4 0 3 2 1\n4 4 5 6 7\n4 0 1 5 4\n4 1 2 6 5\n4 2 3 7 6\n4 3 0 4 7\n");
  const auto body = [](const std::string& mesh) {
    return test::scene_json("", "{\"mesh\": " + mesh +
                                    ", \"material\": {\"model\": \"neo_hookean\"}, "
                                    "\"density\": 1000}");
  };
  const std::string origin = dir.file("scene.json");
  const auto error = [&](const std::string& mesh) {
    return test::input_error_of([&] { parse_scene(body(mesh), origin); });
  };
  if (!has_tetgen()) {
    CHECK(error(R"({"file": "cube.off"})").find("cannot fill surfaces") != std::string::npos);
    return;
  }
  const Scene scene = parse_scene(
      body(R"({"file": "cube.off", "scale": 0.1, "max_volume": 1e-5, "quality": 1.3})"), origin);
  const Model& m = *scene.model;
  CHECK(m.bodies[0].n_elems() >= 100);
  double volume = 0.0, largest = 0.0;
  for (const double v : m.bodies[0].volume) {
    volume += v;
    largest = std::max(largest, v);
  }
  CHECK(volume == doctest::Approx(1e-3).epsilon(1e-12));
  CHECK(largest <= 1e-5 * (1 + 1e-12));
  CHECK(m.mass.sum() == doctest::Approx(3 * 1000 * 1e-3).epsilon(1e-12));  // per dof
  test::write_tetgen(dir.file("cube"), box_tet_mesh(1, 1, 1, Eigen::Vector3d::Ones()), 1);
  CHECK(error(R"({"file": "cube.node", "max_volume": 1e-5})") ==
        origin +
            ": /bodies/0/mesh/max_volume: 'max_volume' goes with a surface mesh file (.obj, "
            ".off, .stl)");
  CHECK(error(R"({"file": "cube.off", "quality": 0.5})").find("/bodies/0/mesh/quality") !=
        std::string::npos);
}

TEST_CASE("scenes/bodies: mesh files resolve against the scene's folder") {
  test::TempDir dir;
  std::filesystem::create_directory(dir.file("meshes"));
  test::write_tetgen(dir.file("meshes/cube"), box_tet_mesh(1, 1, 1, Eigen::Vector3d::Ones()), 1);
  const auto body = [](const std::string& file) {
    return test::scene_json(
        "", "{\"mesh\": {\"file\": \"" + file + "\"}, \"material\": {\"model\": \"neo_hookean\"}}");
  };
  const std::string origin = dir.file("scene.json");
  CHECK(parse_scene(body("meshes/cube.node"), origin).model->n_verts == 8);
  CHECK(parse_scene(body("meshes/cube.ele"), origin).model->n_verts == 8);
  CHECK(parse_scene(body("meshes/cube"), origin).model->n_verts == 8);
  CHECK(parse_scene(body(dir.file("meshes/cube.node")), "elsewhere/scene.json").model->n_verts ==
        8);
  CHECK(test::input_error_of([&] { parse_scene(body("meshes/missing.node"), origin); }) ==
        origin + ": /bodies/0/mesh/file: mesh file not found: " + dir.file("meshes/missing.node"));
  // The reader's own message keeps its file and line.
  test::write_text(dir.file("meshes/bad.node"), "3 3 0 0\n1 0 0 0\n");
  test::write_text(dir.file("meshes/bad.ele"), "0 4 0\n");
  CHECK(test::input_error_of([&] {
          parse_scene(body("meshes/bad.node"), origin);
        }).rfind(origin + ": /bodies/0/mesh/file: " + dir.file("meshes/bad.node") + ":", 0) == 0);
  CHECK(test::input_error_of([&] {
          parse_scene(test::scene_json("\"dim\": 2",
                                       "{\"mesh\": {\"file\": \"meshes/cube.node\"}, "
                                       "\"material\": {\"model\": \"neo_hookean\"}}"),
                      origin);
        }) == origin + ": /bodies/0/mesh/file: the mesh is 3D but the scene has \"dim\": 2");
  CHECK(test::input_error_of([&] {
          parse_scene(
              test::scene_json("", R"({"mesh": {"file": "meshes/cube.node", "size": [1, 1, 1]},
                                               "material": {"model": "neo_hookean"}})"),
              origin);
        }) == origin + ": /bodies/0/mesh/size: 'size' goes with 'generator', not 'file'");
}

TEST_CASE("scenes/bodies: several bodies are numbered one after another") {
  const Scene scene = test::parse("{\"bodies\": [" + test::kBox + R"(, {"name": "second",
          "mesh": {"generator": "box", "resolution": [1, 1, 1], "size": [1, 1, 1]},
          "material": {"model": "stvk", "youngs": 1e6}, "density": 500}]})");
  const Model& model = *scene.model;
  REQUIRE(model.bodies.size() == 2);
  CHECK(model.bodies[1].name == "second");
  CHECK(model.bodies[1].vertex_offset == 12);
  CHECK(model.bodies[1].density == 500.0);
  CHECK(model.n_verts == 20);
  CHECK(error_of("{\"bodies\": [" + test::kBox + ", " + test::kBox + "]}") == "(no error)");
  CHECK(error_of(R"({"bodies": [{"name": "a", "mesh": {"generator": "box", "resolution": [1, 1, 1],
      "size": [1, 1, 1]}, "material": {"model": "stvk"}}, {"name": "a", "mesh": {"generator":
      "box", "resolution": [1, 1, 1], "size": [1, 1, 1]}, "material": {"model": "stvk"}}]})") ==
        "inline.json: /bodies/1/name: a body named 'a' already exists");
}

TEST_CASE("scenes/bodies: values far outside physical ranges are warnings naming the key") {
  const auto warnings_of = [](const std::string& body) {
    test::LogCapture log;
    const Scene scene = test::parse(test::scene_json("", body));
    CHECK(log.messages == scene.warnings);  // logged as they are recorded
    return scene.warnings;
  };
  const std::string box =
      R"("mesh": {"generator": "box", "resolution": [1, 1, 1], "size": [1, 1, 1]})";
  CHECK(
      warnings_of("{" + box + R"(, "material": {"model": "neo_hookean", "youngs": 1e6}})").empty());
  CHECK(warnings_of("{" + box + R"(, "material": {"model": "neo_hookean", "youngs": 5}})") ==
        std::vector<std::string>{
            "inline.json: /bodies/0/material/youngs: 5 Pa is far outside the moduli of solids "
            "(100 Pa for soft gels to 2e12 Pa); is the unit Pa? (--strict makes this an error)"});
  CHECK(warnings_of("{" + box + R"(, "material": {"model": "neo_hookean", "youngs": 5e15}})")
            .size() == 1);
  const std::vector<std::string> poisson = warnings_of(
      "{" + box + R"(, "material": {"model": "neo_hookean", "poisson": 0.49999999999999994}})");
  REQUIRE(poisson.size() == 1);
  CHECK(poisson[0].rfind("inline.json: /bodies/0/material/poisson: 0.49999999999999994 is all "
                         "but incompressible",
                         0) == 0);
  // A model's own moduli (in Pa) are checked as well.
  CHECK(
      warnings_of("{" + box + R"(, "material": {"model": "mooney_rivlin", "c10": 1, "c01": 1e4}})")
          .size() == 1);
  CHECK(warnings_of("{" + box + R"(, "material": {"model": "neo_hookean"}, "density": 1e-308})")
            .at(0)
            .rfind("inline.json: /bodies/0/density: 1e-308 kg/m^3 is far outside", 0) == 0);
  CHECK(warnings_of(R"({"mesh": {"generator": "box", "resolution": [1, 1, 1],
                                 "size": [1000, 10, 10]}, "material": {"model": "neo_hookean"}})")
            .at(0)
            .rfind("inline.json: /bodies/0/mesh: the body is 1000.1 m across", 0) == 0);
}

TEST_CASE("scenes/bodies: the ball generator fills the inscribed sphere with positive tetrahedra") {
  const Mesh m = ball_tet_mesh(4, {0.2, 0.2, 0.2}, {1.0, 0.0, 0.0});
  validate_mesh(m);  // every element positively oriented
  double volume = 0.0, farthest = 0.0;
  for (int e = 0; e < m.n_elems(); ++e) volume += signed_measure(m, e);
  const Eigen::Vector3d centre(1.1, 0.1, 0.1);
  for (int v = 0; v < m.n_verts(); ++v)
    farthest = std::max(farthest, (m.X.row(v).transpose() - centre).norm());
  CHECK(farthest == doctest::Approx(0.1).epsilon(1e-12));  // the surface lies on the sphere
  // An inscribed polyhedron: a little less than 4/3 pi r^3 (4.19e-3 m^3), more than the cube
  // inscribed in the sphere.
  CHECK(volume < 4.0 / 3.0 * M_PI * 1e-3);
  CHECK(volume > 0.9 * 4.0 / 3.0 * M_PI * 1e-3);
  CHECK_THROWS_AS(ball_tet_mesh(0, {0.2, 0.2, 0.2}), InputError);
}

TEST_CASE("scenes/bodies: a body over another's space is a warning naming both") {
  // The same mesh given twice doubled the mass (500 kg for 250) without a word.
  const auto warnings_of = [](const std::string& origin) {
    const Scene scene = test::parse(R"({"bodies": [{"name": "a", "mesh": {"generator": "box",
        "resolution": [2, 2, 2], "size": [1, 1, 1]}, "material": {"model": "neo_hookean"}},
        {"name": "b", "mesh": {"generator": "box", "resolution": [2, 2, 2], "size": [1, 1, 1],
        "origin": )" + origin + R"(}, "material": {"model": "neo_hookean"}}]})");
    return scene.warnings;
  };
  CHECK(warnings_of("[0, 0, 0]") ==
        std::vector<std::string>{
            "inline.json: /bodies/1/mesh: the body overlaps body 'a': 48 of its 48 elements have "
            "their centres inside it, so that space counts twice (mass and stiffness add, and no "
            "contact acts between them); give each body a space of its own (--strict makes this "
            "an error)"});
  CHECK(warnings_of("[0.5, 0, 0]").size() == 1);  // half over it
  CHECK(warnings_of("[1, 0, 0]").empty());        // side by side, sharing a face
  CHECK(warnings_of("[1.01, 0, 0]").empty());
  // A small body listed first, inside a coarse one: none of the coarse one's element centres
  // need be in it, but its own are in the coarse one.
  const Scene nested = test::parse(R"({"bodies": [{"name": "small", "mesh": {"generator": "box",
      "resolution": [1, 1, 1], "size": [0.1, 0.1, 0.1], "origin": [0.41, 0.41, 0.41]},
      "material": {"model": "neo_hookean"}}, {"name": "coarse", "mesh": {"generator": "box",
      "resolution": [1, 1, 1], "size": [1, 1, 1]}, "material": {"model": "neo_hookean"}}]})");
  REQUIRE(nested.warnings.size() == 1);
  CHECK(nested.warnings[0].rfind("inline.json: /bodies/1/mesh: the body overlaps body 'small': ",
                                 0) == 0);
  CHECK(nested.warnings[0].find("of that body's") != std::string::npos);
}

TEST_CASE("scenes/bodies: an inline mesh is oriented and checked as a file's") {
  const auto with_mesh = [](const std::string& mesh) {
    return test::scene_json("",
                            "{\"mesh\": " + mesh + ", \"material\": {\"model\": \"neo_hookean\"}}");
  };
  // One tetrahedron given with negative orientation: it is flipped, as a file reader does.
  const Scene scene = test::parse(
      with_mesh(R"({"vertices": [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], "elements": [0, 2, 1, 3],
                    "scale": 2})"));
  REQUIRE(scene.model->n_verts == 4);
  CHECK(scene.model->X[3] == 2.0);  // scaled
  const std::vector<int>& e = scene.model->bodies[0].elems;
  CHECK(e == std::vector<int>{2, 0, 1, 3});  // its first two vertices swapped
  CHECK(error_of(with_mesh(R"({"vertices": [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1],
                               "elements": [0, 1, 2, 7]})")) ==
        "inline.json: /bodies/0/mesh/elements: element 0 names vertex 7, outside 0..3");
  CHECK(error_of(with_mesh(R"({"vertices": [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], "elements": [0]})"))
            .find("/mesh/vertices: 11 numbers, not a positive multiple of dim = 3") !=
        std::string::npos);
  CHECK(error_of(with_mesh(R"({"vertices": [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1],
                               "elements": [0, 1, 2, 3, 3, 2, 1, 0]})")) ==
        "inline.json: /bodies/0/mesh/elements: element 1 has the same vertices as element 0: a "
        "repeated element would double its mass and stiffness; remove one");
  CHECK(error_of(with_mesh(R"({"vertices": [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]})")) ==
        "inline.json: /bodies/0/mesh/vertices: an inline mesh needs 'elements' too");
}
