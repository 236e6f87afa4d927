// Runs a fuzz target on files instead of under libFuzzer: every file named on the command line
// and every file in the folders named (recursively). What CI replays the corpora with, in a
// build with the sanitizers. An input whose name starts with "refused_" must be refused (an
// InputError): those are inputs a reader once accepted silently.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path p(argv[i]);
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(p))
        if (e.is_regular_file()) files.push_back(e.path());
    } else if (std::filesystem::is_regular_file(p)) {
      files.push_back(p);
    } else {
      std::fprintf(stderr, "replay: no such file or folder '%s'\n", argv[i]);
      return 1;
    }
  }
  int wrongly_accepted = 0;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const int accepted = softgrad::fuzz::accepted_inputs();
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    if (f.filename().string().starts_with("refused_") &&
        softgrad::fuzz::accepted_inputs() != accepted) {
      std::fprintf(stderr, "replay: '%s' was accepted; it must be refused\n", f.c_str());
      ++wrongly_accepted;
    }
  }
  std::printf("replay: %zu inputs, none crashed, %d accepted that must be refused\n", files.size(),
              wrongly_accepted);
  return files.empty() || wrongly_accepted > 0 ? 1 : 0;
}
