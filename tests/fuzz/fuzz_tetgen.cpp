// Fuzz target: the TetGen reader. The input is the .node file, a line "---", then the .ele
// file (the seeds in corpus/tetgen show it).
#include "fuzz_support.hpp"
#include "softgrad/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t split = input.find("\n---\n");
  const std::string_view node = input.substr(0, split);
  const std::string_view ele = split == std::string_view::npos ? "" : input.substr(split + 5);
  softgrad::fuzz::write_input("mesh.node", node);
  const std::string path = softgrad::fuzz::write_input("mesh.ele", ele);
  return softgrad::fuzz::expect_input_errors_only([&] { softgrad::read_tetgen(path); });
}
