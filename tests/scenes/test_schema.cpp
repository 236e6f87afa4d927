// The schema reader's errors, through inline scenes: each message is checked with its location.
#include <doctest/doctest.h>

#include "scenes/scene_test_support.hpp"
#include "solvers/cuda_backend.hpp"

using namespace softgrad;
using test::error_of;
using test::scene_json;

TEST_CASE("scenes/schema: malformed JSON reports line and column") {
  const std::string text = "{\n  \"dim\": 3,\n  \"bodies\": [}\n}";
  CHECK(error_of(text) ==
        "inline.json:3:14: malformed JSON: syntax error while parsing value - unexpected '}'; "
        "expected '[', '{', or a literal");
  CHECK(error_of("") ==
        "inline.json:1:1: malformed JSON: syntax error while parsing value - unexpected end of "
        "input; expected '[', '{', or a literal");
  CHECK(error_of("{\"dim\": 3,}") ==
        "inline.json:1:11: malformed JSON: syntax error while parsing object key - unexpected "
        "'}'; expected string literal");
}

TEST_CASE("scenes/schema: the top level must be an object") {
  CHECK(error_of("[1, 2]") == "inline.json: top level: expected an object {...}, got a list [1,2]");
}

TEST_CASE("scenes/schema: an unknown key lists the valid keys and suggests the closest") {
  CHECK(error_of(scene_json("\"gravty\": [0, 0, 0]")) ==
        "inline.json: /gravty: unknown key 'gravty'; did you mean 'gravity'? valid keys: name, "
        "description, plugins, dim, mode, time, gravity, damping, solver, bodies, rigid_bodies, "
        "joints, motors, attachments, boundary, forces, "
        "initial, "
        "loss, parameters, output, contact, markers, sysid, creature, controller, task, train, "
        "compare");
  CHECK(error_of(R"({"bodies": [{"mesh": {}, "materal": {}}]})") ==
        "inline.json: /bodies/0/materal: unknown key 'materal'; did you mean 'material'? valid "
        "keys: name, mesh, material, density, vertex_masses");
  // No suggestion when nothing is close.
  CHECK(error_of(scene_json("\"time\": {\"colour\": 1}")) ==
        "inline.json: /time/colour: unknown key 'colour'; valid keys: dt, duration");
  // Keys with '/' or '~' are escaped in the JSON pointer.
  CHECK(error_of(scene_json("\"a/b~\": 1")).rfind("inline.json: /a~1b~0: unknown key 'a/b~'", 0) ==
        0);
}

TEST_CASE("scenes/schema: a missing required key is named with its purpose") {
  CHECK(error_of("{\"dim\": 3}") ==
        "inline.json: /bodies: the scene needs at least one body, rigid body or a 'creature'");
  CHECK(error_of(R"({"bodies": [{"mesh": {"generator": "box"}}]})") ==
        "inline.json: /bodies/0/material: missing required key 'material' (the material, see "
        "/bodies/*/material)");
  CHECK(error_of(R"({"bodies": []})") ==
        "inline.json: /bodies: the scene needs at least one body, rigid body or a 'creature'");
}

TEST_CASE("scenes/schema: a wrong type says what was expected and what was found") {
  CHECK(error_of(scene_json(R"("time": {"dt": "0.01"})")) ==
        "inline.json: /time/dt: expected a number, got the string \"0.01\"");
  CHECK(error_of(scene_json(R"("time": 5)")) ==
        "inline.json: /time: expected an object {...}, got the number 5");
  CHECK(error_of(scene_json(R"("output": {"every": 2.5})")) ==
        "inline.json: /output/every: expected an integer, got the number 2.5");
  CHECK(error_of(scene_json(R"("output": {"vtu": "yes"})")) ==
        "inline.json: /output/vtu: expected true or false, got the string \"yes\"");
  CHECK(error_of(scene_json(R"("name": 7)")) ==
        "inline.json: /name: expected a string, got the number 7");
  CHECK(error_of(R"({"bodies": {}})") ==
        "inline.json: /bodies: expected a list [...], got an object {}");
  CHECK(error_of(scene_json(R"("gravity": [0, "down", 0])")) ==
        "inline.json: /gravity/1: expected a number, got the string \"down\"");
  CHECK(error_of(scene_json(R"("gravity": -9.81)")) ==
        "inline.json: /gravity: expected a list of 3 numbers (one per dimension; dim is 3), got "
        "the number -9.81");
  // An integral float is an integer.
  CHECK(test::parse(scene_json(R"("output": {"every": 2.0})")).output.every == 2);
}

TEST_CASE("scenes/schema: numbers out of range name the range") {
  CHECK(error_of(scene_json(R"("time": {"dt": 0})")) ==
        "inline.json: /time/dt: 0 s is outside (0, inf)");
  CHECK(error_of(scene_json(R"("time": {"dt": -0.01})")) ==
        "inline.json: /time/dt: -0.01 s is outside (0, inf)");
  CHECK(error_of(scene_json(R"("dim": 4)")) == "inline.json: /dim: 4 is outside [2, 3]");
  CHECK(error_of(scene_json(R"("damping": {"alpha": -1})")) ==
        "inline.json: /damping/alpha: -1 1/s is outside [0, inf)");
  CHECK(error_of(scene_json(R"("solver": {"cg_tolerance": 1})")) ==
        "inline.json: /solver/cg_tolerance: 1 is outside (0, 1)");
  CHECK(error_of(scene_json(R"("solver": {"newton_max_iterations": 0})")) ==
        "inline.json: /solver/newton_max_iterations: 0 is outside [1, inf)");
}

TEST_CASE("scenes/schema: numbers that overflow to infinity are rejected where they are") {
  CHECK(error_of(R"({"time": {"dt": 1e999}})") ==
        "inline.json:1:17: the number 1e999 is not finite in double precision");
  CHECK(error_of("{\n\"gravity\": [0, -1e400, 0]}") ==
        "inline.json:2:16: the number -1e400 is not finite in double precision");
}

TEST_CASE("scenes/schema: vectors need one number per dimension") {
  CHECK(error_of(scene_json(R"("gravity": [0, -9.81])")) ==
        "inline.json: /gravity: expected 3 numbers (one per dimension; dim is 3), got 2");
  CHECK(error_of(test::scene_json_2d(R"("gravity": [0, -9.81, 0])")) ==
        "inline.json: /gravity: expected 2 numbers (one per dimension; dim is 2), got 3");
}

TEST_CASE("scenes/schema: choices suggest the closest valid value") {
  CHECK(error_of(scene_json(R"("mode": "dinamic")")) ==
        "inline.json: /mode: unknown value 'dinamic'; did you mean 'dynamic'? valid values: "
        "dynamic, static");
  CHECK(error_of(scene_json(R"("solver": {"linear": "cholmd"})")) ==
        "inline.json: /solver/linear: unknown value 'cholmd'; did you mean 'cholmod'? valid "
        "values: cholmod, pcg, amg, matfree, cuda");
  CHECK(error_of(scene_json(R"("solver": {"on_failure": "retry"})")) ==
        "inline.json: /solver/on_failure: unknown value 'retry'; valid values: stop, continue");
}

TEST_CASE("scenes/schema: solver combinations are checked by the solver factory") {
  CHECK(error_of(scene_json(R"("solver": {"linear": "matfree", "preconditioner": "ichol"})")) ==
        "inline.json: /solver/preconditioner: linear solver: preconditioner 'ichol' needs an "
        "assembled matrix; kind 'matfree' supports only 'jacobi' (use kind 'pcg' for 'ichol')");
  if (!softgrad::detail::cuda_backend_built()) {
    CHECK(error_of(scene_json(R"("solver": {"linear": "cuda"})")) ==
          "inline.json: /solver/linear: backend 'cuda' needs -DSOFTGRAD_WITH_CUDA=ON");
  }
  CHECK_NOTHROW(
      test::parse(scene_json(R"("solver": {"linear": "pcg", "preconditioner": "ichol"})")));
}
