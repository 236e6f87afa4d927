// Fuzz target: the surface readers (OBJ, OFF, STL). The input is read as each of the three.
#include "fuzz_support.hpp"
#include "softgrad/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  for (const char* name : {"surface.obj", "surface.off", "surface.stl"}) {
    const std::string path = softgrad::fuzz::write_input(name, input);
    softgrad::fuzz::expect_input_errors_only([&] { softgrad::read_surface_mesh(path); });
  }
  return 0;
}
