// Fuzz target: the surface readers (OBJ, OFF, STL), then the surface checks and TetGen on what
// they read (TetGen runs in a child process: a crash there must come back as an input error).
// The input is read as each of the three.
#include "fuzz_support.hpp"
#include "softgrad/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const bool fill = softgrad::has_tetgen();
  for (const char* name : {"surface.obj", "surface.off", "surface.stl"}) {
    const std::string path = softgrad::fuzz::write_input(name, input);
    softgrad::fuzz::expect_input_errors_only([&] {
      const softgrad::SurfaceMesh surface = softgrad::read_surface_mesh(path);
      if (fill) softgrad::tetrahedralise(surface);
    });
  }
  return 0;
}
