// Fuzz target: the Gmsh reader (MSH 2.2 and 4.1). The input is the .msh file.
#include "fuzz_support.hpp"
#include "softgrad/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = softgrad::fuzz::write_input(
      "mesh.msh", std::string_view(reinterpret_cast<const char*>(data), size));
  return softgrad::fuzz::expect_input_errors_only([&] { softgrad::read_gmsh(path); });
}
