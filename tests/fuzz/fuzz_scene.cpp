// Fuzz target: the scene loader, from JSON text to a built Model (meshes named by the scene
// resolve against an empty folder, so generated meshes are what gets built).
#include "fuzz_support.hpp"
#include "softgrad/scene.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  return softgrad::fuzz::expect_input_errors_only(
      [&] { softgrad::parse_scene(text, softgrad::fuzz::work_dir() + "/scene.json"); });
}
