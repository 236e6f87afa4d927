/// @file machine_info.hpp
/// What a benchmark records about the machine and the build it ran on (issue 49, item 6): the
/// CPU, its hardware threads, the compiler and the BLAS library the process loaded.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

namespace softgrad::bench {

/// The CPU model name from /proc/cpuinfo.
inline std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

/// The compiler and its version.
inline std::string compiler() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("gcc ") + __VERSION__;
#else
  return "unknown";
#endif
}

/// The BLAS libraries mapped into this process (Debian's alternatives resolved: the real
/// files, e.g. "openblas-pthread/libblas.so.3"), comma-separated; "none loaded" if none.
inline std::string blas_libraries() {
  std::ifstream in("/proc/self/maps");
  std::set<std::string> found;
  for (std::string line; std::getline(in, line);) {
    const auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    const auto name = path.find_last_of('/');
    const std::string file = path.substr(name + 1);
    if (file.find("blas") == std::string::npos && file.find("mkl") == std::string::npos) continue;
    const auto folder = path.find_last_of('/', name - 1);
    found.insert(path.substr(folder + 1));
  }
  std::string out;
  for (const std::string& f : found) out += (out.empty() ? "" : ", ") + f;
  return out.empty() ? "none loaded" : out;
}

/// {cpu, hardware_threads, compiler, blas}: call after the solvers' libraries are loaded.
/// Json: nlohmann::json or nlohmann::ordered_json, the caller's document type.
template <class Json = nlohmann::ordered_json>
Json machine_info() {
  return {{"cpu", cpu_model()},
          {"hardware_threads", std::thread::hardware_concurrency()},
          {"compiler", compiler()},
          {"blas", blas_libraries()}};
}

}  // namespace softgrad::bench
