// One writer per output folder: two runs into one --out mixed their files and one died with a
// misleading message. The lock is an flock, so it is tested in this process: a second open
// file description conflicts with the first as another process's would.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include "app/output_lock.hpp"
#include "app_test_support.hpp"
#include "cli_test_support.hpp"
#include "softgrad/errors.hpp"

using namespace softgrad;
using namespace softgrad::test;

TEST_CASE("app/output_lock: a second writer into a folder is refused while the first holds it") {
  TempDir dir;
  const std::string out = dir.file("out");
  std::optional<app::OutputLock> first(std::in_place, out);
  const std::string busy = input_error_of([&] { app::OutputLock second(out); });
  CHECK(busy == "the output directory '" + out + "' is in use by another softgrad process " +
                    "(process " + std::to_string(getpid()) + "): two commands writing into " +
                    "one folder would mix their files; wait for it to end, or choose another " +
                    "folder with --out");
  write_text(dir.file("tiny.json"), tiny_scene_json());
  const Outcome run = cli({"run", dir.file("tiny.json"), "--out", out, "--quiet"});
  CHECK(run.code == app::kExitInputError);
  CHECK(run.err.find("is in use by another softgrad process") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out + "/summary.json"));
  first.reset();  // the first writer ends: the folder is free again
  CHECK(cli({"run", dir.file("tiny.json"), "--out", out, "--quiet"}).code == 0);
  CHECK(std::filesystem::exists(out + "/summary.json"));
}

TEST_CASE("app/output_lock: a link planted at the lock file is refused and its target kept") {
  TempDir dir;
  write_text(dir.file("target.txt"), "keep me");
  std::filesystem::create_directories(dir.file("out"));
  std::filesystem::create_symlink(dir.file("target.txt"), dir.file("out/.softgrad-lock"));
  CHECK(input_error_of([&] {
          app::OutputLock lock(dir.file("out"));
        }).find("out/.softgrad-lock: it is a symbolic link") != std::string::npos);
  CHECK(read_text(dir.file("target.txt")) == "keep me");
}

TEST_CASE("app/output_lock: a hard link planted at the lock file is refused and its file kept") {
  TempDir dir;
  write_text(dir.file("target.txt"), "keep me");
  std::filesystem::create_directories(dir.file("out"));
  std::filesystem::create_hard_link(dir.file("target.txt"), dir.file("out/.softgrad-lock"));
  CHECK(input_error_of([&] {
          app::OutputLock lock(dir.file("out"));
        }).find("is not a plain file of yours") != std::string::npos);
  CHECK(read_text(dir.file("target.txt")) == "keep me");
}
