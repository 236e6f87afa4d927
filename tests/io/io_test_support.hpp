/// @file io_test_support.hpp
/// Helpers for the io tests: a temporary folder, small file writers, log capture.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <string>
#include <vector>

#include "softgrad/errors.hpp"
#include "softgrad/log.hpp"
#include "softgrad/mesh.hpp"
#include "support/input_error.hpp"
#include "support/text.hpp"

namespace softgrad::test {

/// A fresh folder under the system temp directory, removed with its contents at scope exit.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "softgrad_io_XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// The path of `name` inside the folder.
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  /// How many files softgrad left behind under a hidden name (a temporary file).
  int hidden_files() const {
    int n = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(path_))
      n += e.path().filename().string().starts_with(".");
    return n;
  }

 private:
  std::filesystem::path path_;
};

/// Writes `text` to `path` (overwriting it).
inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// Reads a whole file as text.
inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Writes `mesh` as base.node and base.ele, ids starting at `index_base`, with 17 digits.
inline void write_tetgen(const std::string& base, const Mesh& mesh, int index_base) {
  std::ofstream node(base + ".node");
  node << std::setprecision(17) << "# written by the softgrad tests\n"
       << mesh.n_verts() << " " << mesh.dim << " 0 0\n";
  for (int v = 0; v < mesh.n_verts(); ++v) {
    node << v + index_base;
    for (int k = 0; k < mesh.dim; ++k) node << " " << mesh.X(v, k);
    node << "\n";
  }
  std::ofstream ele(base + ".ele");
  ele << mesh.n_elems() << " " << mesh.dim + 1 << " 0\n";
  for (int e = 0; e < mesh.n_elems(); ++e) {
    ele << e + index_base;
    for (int k = 0; k <= mesh.dim; ++k) ele << " " << mesh.elems(e, k) + index_base;
    ele << "\n";
  }
}

/// Collects log messages while alive, then restores the default sink.
class LogCapture {
 public:
  LogCapture() {
    set_log_sink([this](LogLevel, const std::string& m) { messages.push_back(m); });
  }
  ~LogCapture() { set_log_sink(nullptr); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  std::vector<std::string> messages;
};

}  // namespace softgrad::test

namespace softgrad::test {

/// True if every element has positive measure.
inline bool all_positive(const Mesh& m) {
  for (int e = 0; e < m.n_elems(); ++e)
    if (!(signed_measure(m, e) > 0)) return false;
  return true;
}

}  // namespace softgrad::test
