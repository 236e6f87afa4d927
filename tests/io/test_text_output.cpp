// Output files are written whole or not at all: under a file-size limit (a full disk as the
// writer sees it) the write fails with the system's reason, and the previous file survives.
#include <doctest/doctest.h>
#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <string>

#include "../../src/io/text_output.hpp"
#include "io/io_test_support.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/frame_writer.hpp"
#include "softgrad/training.hpp"

using namespace softgrad;

namespace {

std::string read_all(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  REQUIRE(f);
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  std::fclose(f);
  return out;
}

// While alive, files of this process cannot grow past `bytes` (writes fail with EFBIG).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    previous_signal_ = std::signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &previous_);
    rlimit limit = previous_;
    limit.rlim_cur = bytes;
    REQUIRE(setrlimit(RLIMIT_FSIZE, &limit) == 0);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &previous_);
    std::signal(SIGXFSZ, previous_signal_);
  }

 private:
  rlimit previous_{};
  void (*previous_signal_)(int) = nullptr;
};

}  // namespace

TEST_CASE("io/text_output: a write that does not fit leaves the previous file whole") {
  test::TempDir dir;
  const std::string path = dir.file("report.json");
  detail::write_file_atomically(path, "the previous report\n");
  {
    FileSizeLimit limit(4096);
    const std::string message =
        test::input_error_of([&] { detail::write_file_atomically(path, std::string(65536, 'x')); });
    CHECK(message == "cannot write '" + path + "': File too large");
  }
  CHECK(read_all(path) == "the previous report\n");
  CHECK(dir.hidden_files() == 0);  // no temporary file left
}

TEST_CASE("io/text_output: links planted where softgrad writes are never written through") {
  test::TempDir dir;
  const std::string victim = dir.file("victim.txt");
  detail::write_file_atomically(victim, "precious\n");
  std::filesystem::create_directory(dir.file("out"));
  const std::string report = dir.file("out/report.json");
  // At the file itself, and at the fixed temporary names of earlier versions.
  for (const std::string& link : {report, report + ".tmp", dir.file("out/.report.json.tmp"),
                                  dir.file("out/.softgrad-write-check.tmp")})
    std::filesystem::create_symlink(victim, link);
  detail::write_file_atomically(report, "the report\n");
  create_output_directory(dir.file("out"));  // its write probe
  CHECK(read_all(victim) == "precious\n");
  CHECK(read_all(report) == "the report\n");
  CHECK_FALSE(std::filesystem::is_symlink(report));  // the link itself was replaced
  CHECK(std::filesystem::is_symlink(report + ".tmp"));
  // The new file gets the permissions a plain open would give (not mkstemp's 0600).
  const auto perms = std::filesystem::status(report).permissions();
  CHECK((perms & std::filesystem::perms::owner_read) != std::filesystem::perms::none);
  CHECK((perms & std::filesystem::perms::owner_write) != std::filesystem::perms::none);
}

TEST_CASE("io/text_output: a checkpoint that does not fit keeps the last good one") {
  // `softgrad train --resume` on a full disk used to truncate best_parameters.txt to nothing.
  test::TempDir dir;
  const std::string path = dir.file("best_parameters.txt");
  const Eigen::VectorXd good = Eigen::VectorXd::LinSpaced(5, -1.0, 1.0);
  save_parameters(path, good);
  {
    FileSizeLimit limit(1024);
    CHECK_THROWS_AS(save_parameters(path, Eigen::VectorXd::Ones(1000)), InputError);
  }
  CHECK(load_parameters(path) == good);
}
