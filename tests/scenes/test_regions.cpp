// Vertex selection by region: box, plane and indices on rest positions, in model numbering.
// The test body is kBox: 2 x 1 x 1 m, vertex (i, j, k) = i + 3 (j + 2 k) at (i, j, k) metres.
#include <doctest/doctest.h>

#include "scenes/scene_test_support.hpp"

using namespace softgrad;
using test::error_of;

namespace {

// The vertices of the first boundary group of a scene with the given region.
std::vector<int> selected(const std::string& region, const std::string& body = test::kBox) {
  const Scene scene =
      test::parse(test::scene_json("\"boundary\": [{\"region\": " + region + "}]", body));
  REQUIRE(scene.model->kinematic.size() == 1);
  return scene.model->kinematic[0].verts;
}

std::string region_error(const std::string& region) {
  return error_of(test::scene_json("\"boundary\": [{\"region\": " + region + "}]"));
}

const std::string kTwoBodies = test::kBox + R"(, {"name": "right",
    "mesh": {"generator": "box", "resolution": [1, 1, 1], "size": [1, 1, 1], "origin": [2, 0, 0]},
    "material": {"model": "neo_hookean"}})";

}  // namespace

TEST_CASE("scenes/regions: a box selects the vertices inside it, boundaries included") {
  CHECK(selected(R"({"box": {"min": [-0.1, -0.1, -0.1], "max": [0.5, 2, 2]}})") ==
        std::vector<int>{0, 3, 6, 9});
  // Faces exactly on the vertices (within the relative tolerance).
  CHECK(selected(R"({"box": {"min": [1, 0, 0], "max": [1, 1, 1]}})") ==
        std::vector<int>{1, 4, 7, 10});
  CHECK(selected(R"({"box": {"min": [0.9999999, 0, 0], "max": [1.0000001, 0, 0]}})") ==
        std::vector<int>{1});
}

TEST_CASE("scenes/regions: a plane selects the vertices on its normal's side") {
  CHECK(selected(R"({"plane": {"point": [2, 0, 0], "normal": [1, 0, 0]}})") ==
        std::vector<int>{2, 5, 8, 11});
  CHECK(selected(R"({"plane": {"point": [0, 0, 0], "normal": [0, 0, -5]}})") ==
        std::vector<int>{0, 1, 2, 3, 4, 5});
  // A tilted plane, x + 2 z >= 2: x = 2 at the bottom, and the whole top.
  CHECK(selected(R"({"plane": {"point": [2, 0, 0], "normal": [1, 0, 2]}})") ==
        std::vector<int>{2, 5, 6, 7, 8, 9, 10, 11});
}

TEST_CASE("scenes/regions: indices are sorted and deduplicated") {
  CHECK(selected(R"({"indices": [5, 1, 5]})") == std::vector<int>{1, 5});
}

TEST_CASE("scenes/regions: a body restricts the selection and numbers its indices") {
  const std::string body = kTwoBodies;
  CHECK(selected(R"({"indices": [0, 7], "body": "right"})", body) == std::vector<int>{12, 19});
  CHECK(selected(R"({"indices": [0], "body": 1})", body) == std::vector<int>{12});
  // The plane x >= 2 touches both bodies; restricted to body 0 it keeps only that body's.
  CHECK(selected(R"({"plane": {"point": [2, 0, 0], "normal": [1, 0, 0]}})", body).size() == 12);
  CHECK(selected(R"({"plane": {"point": [2, 0, 0], "normal": [1, 0, 0]}, "body": "body0"})",
                 body) == std::vector<int>{2, 5, 8, 11});
}

TEST_CASE("scenes/regions: a 2D region uses 2D vectors") {
  const Scene scene = test::parse(test::scene_json_2d(
      R"("boundary": [{"region": {"box": {"min": [0, 0.9], "max": [1, 1]}}}])"));
  CHECK(scene.model->kinematic.at(0).verts == std::vector<int>{6, 7, 8});
  CHECK(error_of(test::scene_json_2d(
            R"("boundary": [{"region": {"plane": {"point": [0, 0, 0], "normal": [0, 1]}}}])")) ==
        "inline.json: /boundary/0/region/plane/point: expected 2 numbers (one per dimension; dim "
        "is 2), got 3");
}

TEST_CASE("scenes/regions: a region that selects nothing is an error") {
  CHECK(region_error(R"({"box": {"min": [5, 5, 5], "max": [6, 6, 6]}})") ==
        "inline.json: /boundary/0/region: the region selects no vertex; the rest positions span "
        "[0, 0, 0] to [2, 1, 1]");
  CHECK(region_error(R"({"indices": []})") ==
        "inline.json: /boundary/0/region: the region selects no vertex; the rest positions span "
        "[0, 0, 0] to [2, 1, 1]");
  CHECK(error_of(test::scene_json(
            R"("boundary": [{"region": {"plane": {"point": [5, 0, 0], "normal": [1, 0, 0]},
                                       "body": "right"}}])",
            kTwoBodies)) ==
        "inline.json: /boundary/0/region: the region selects no vertex; the rest positions of "
        "body 'right' span [2, 0, 0] to [3, 1, 1]");
}

TEST_CASE("scenes/regions: malformed regions name the key") {
  CHECK(region_error(R"({})") ==
        "inline.json: /boundary/0/region: a region needs exactly one of 'box', 'plane' or "
        "'indices', got 0");
  CHECK(region_error(R"({"indices": [0], "box": {"min": [0, 0, 0], "max": [1, 1, 1]}})") ==
        "inline.json: /boundary/0/region: a region needs exactly one of 'box', 'plane' or "
        "'indices', got 2");
  CHECK(region_error(R"({"box": {"min": [0, 0, 0], "max": [-1, 1, 1]}})") ==
        "inline.json: /boundary/0/region/box/max/0: max[0] = -1 is below min[0] = 0");
  CHECK(region_error(R"({"box": {"min": [0, 0, 0]}})") ==
        "inline.json: /boundary/0/region/box/max: missing required key 'max' (highest corner (>= "
        "min))");
  CHECK(region_error(R"({"plane": {"point": [0, 0, 0], "normal": [0, 0, 0]}})") ==
        "inline.json: /boundary/0/region/plane/normal: the normal must be non-zero");
  CHECK(region_error(R"({"indices": [0, 12]})") ==
        "inline.json: /boundary/0/region/indices/1: vertex index 12 is out of range [0, 12)");
  CHECK(region_error(R"({"indices": [-1]})") ==
        "inline.json: /boundary/0/region/indices/0: -1 is outside [0, inf)");
  CHECK(region_error(R"({"indices": [0.5]})") ==
        "inline.json: /boundary/0/region/indices/0: expected an integer, got the number 0.5");
  CHECK(region_error(R"({"indices": [0], "body": "nobody"})") ==
        "inline.json: /boundary/0/region/body: no body named 'nobody'; bodies: body0");
  CHECK(region_error(R"({"indices": [0], "body": 1})") ==
        "inline.json: /boundary/0/region/body: body index 1 is out of range [0, 1)");
  CHECK(region_error(R"({"indices": [0], "body": [0]})") ==
        "inline.json: /boundary/0/region/body: expected a body name or index, got a list [0]");
  CHECK(region_error(R"({"sphere": {}})") ==
        "inline.json: /boundary/0/region/sphere: unknown key 'sphere'; valid keys: box, plane, "
        "indices, body");
  CHECK(error_of(test::scene_json(R"("boundary": [{"region": {"indices": [8, 9]}, "motion":
      "fixed"}, {"region": {"indices": [0, 13]}, "name": "late"}])")) ==
        "inline.json: /boundary/1/region/indices/1: vertex index 13 is out of range [0, 12)");
  CHECK(error_of(test::scene_json(R"("boundary": [{"region": {"indices": [0], "body": "right"}}])",
                                  kTwoBodies)) == "(no error)");
  CHECK(error_of(test::scene_json(R"("boundary": [{"region": {"indices": [8], "body": "right"}}])",
                                  kTwoBodies)) ==
        "inline.json: /boundary/0/region/indices/0: vertex index 8 is out of range [0, 8) of body "
        "'right'");
}
