// Readers refuse what is not a regular file before they open it: a FIFO that no one writes to
// blocked `softgrad run` forever, and /dev/zero was read until memory ran out. Each case here
// would hang or exhaust memory if the check were missing.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <utility>

#include "app_test_support.hpp"
#include "cli_test_support.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/io.hpp"
#include "softgrad/markers.hpp"
#include "softgrad/recording.hpp"
#include "softgrad/training.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

std::string box_from_file(const std::string& mesh) {
  return R"({"name": "box", "time": {"dt": 0.01, "duration": 0.02},
    "bodies": [{"mesh": {"file": ")" +
         mesh + R"("},
                "material": {"model": "neo_hookean", "youngs": 1e5, "poisson": 0.3}}]})";
}

}  // namespace

TEST_CASE("app/special_files: a FIFO as a scene, mesh, recording or parameter file is refused") {
  TempDir dir;
  for (const char* name : {"scene.json", "mesh.msh", "mesh.node", "surface.stl", "surface.obj",
                           "recording.csv", "parameters.txt"})
    REQUIRE(mkfifo(dir.file(name).c_str(), 0600) == 0);
  const Outcome scene = cli({"run", dir.file("scene.json"), "--out", dir.file("out")});
  CHECK(scene.code == app::kExitInputError);
  CHECK(scene.err.find(dir.file("scene.json") + ": is a FIFO (named pipe), not a scene file") !=
        std::string::npos);
  for (const char* mesh : {"mesh.msh", "mesh.node", "surface.stl", "surface.obj"}) {
    write_text(dir.file("box.json"), box_from_file(mesh));
    const Outcome run = cli({"run", dir.file("box.json"), "--out", dir.file("out")});
    CHECK(run.code == app::kExitInputError);
    CHECK(run.err.find(dir.file(mesh) + ": is a FIFO (named pipe), not a mesh file") !=
          std::string::npos);
  }
  CHECK(input_error_of([&] { read_mesh(dir.file("mesh.msh")); }).find("is a FIFO") !=
        std::string::npos);
  CHECK(input_error_of([&] {
          read_recording(dir.file("recording.csv"), MarkerSet());
        }).find("is a FIFO (named pipe), not a recording (CSV)") != std::string::npos);
  CHECK(input_error_of([&] {
          load_parameters(dir.file("parameters.txt"));
        }).find("is a FIFO (named pipe), not a parameter file") != std::string::npos);
}

TEST_CASE("app/special_files: a device or a folder as a mesh is refused, not read") {
  TempDir dir;
  // Through links with the names the readers expect: the check looks at what the link names.
  for (const auto& [name, device] :
       {std::pair{"zero.msh", "/dev/zero"}, std::pair{"zero.node", "/dev/zero"},
        std::pair{"urandom.stl", "/dev/urandom"}, std::pair{"urandom.txt", "/dev/urandom"}})
    std::filesystem::create_symlink(device, dir.file(name));
  for (const char* mesh : {"zero.msh", "zero.node", "urandom.stl"})
    CHECK(input_error_of([&] {
            read_mesh(dir.file(mesh));
          }).find(dir.file(mesh) + ": is a device, not a mesh file") != std::string::npos);
  CHECK(input_error_of([&] {
          load_parameters(dir.file("urandom.txt"));
        }).find(": is a device, not a parameter file") != std::string::npos);
  std::filesystem::create_directory(dir.file("folder.msh"));
  CHECK(input_error_of([&] {
          read_mesh(dir.file("folder.msh"));
        }).find(dir.file("folder.msh") + ": is a folder, not a mesh file") != std::string::npos);
}

TEST_CASE("app/special_files: a path the system cannot look up is an input error with its reason") {
  // std::filesystem threw on these (exit 3, "internal error").
  TempDir dir;
  std::filesystem::create_symlink(dir.file("loop_b.msh"), dir.file("loop_a.msh"));
  std::filesystem::create_symlink(dir.file("loop_a.msh"), dir.file("loop_b.msh"));
  const std::string long_name = std::string(5000, 'm') + ".msh";
  for (const auto& [mesh, reason] :
       {std::pair{std::string("loop_a.msh"), "symbolic links"}, std::pair{long_name, "too long"}}) {
    write_text(dir.file("box.json"), box_from_file(mesh));
    const Outcome run = cli({"run", dir.file("box.json"), "--out", dir.file("out")});
    CHECK(run.code == app::kExitInputError);
    CHECK_MESSAGE(run.err.find(reason) != std::string::npos, run.err.substr(0, 300));
  }
  const Outcome scene = cli({"run", dir.file(long_name), "--out", dir.file("out")});
  CHECK(scene.code == app::kExitInputError);
  CHECK(scene.err.find("File name too long") != std::string::npos);
}
