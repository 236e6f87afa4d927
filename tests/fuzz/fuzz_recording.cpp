// Fuzz target: the recording (CSV) reader, against a 2 x 1 x 1 box with a marker "tip" and
// per-vertex markers. The input is the CSV file.
#include <memory>

#include "fuzz_support.hpp"
#include "softgrad/material_model.hpp"
#include "softgrad/mesh_generators.hpp"
#include "softgrad/model.hpp"
#include "softgrad/recording.hpp"

namespace {

struct Markers {
  softgrad::MarkerSet named, vertices;
};

const Markers& markers() {
  static const Markers m = [] {
    softgrad::Model model;
    const auto material = softgrad::find_material("neo_hookean");
    softgrad::add_body(model, "box",
                       softgrad::box_tet_mesh(2, 1, 1, Eigen::Vector3d(0.2, 0.1, 0.1)), material,
                       softgrad::params_from_youngs_poisson(*material, 1e5, 0.3), 1000.0);
    return Markers{softgrad::MarkerSet(model, {{"tip", Eigen::Vector3d(0.2, 0.05, 0.05)}}),
                   softgrad::MarkerSet::vertices(model)};
  }();
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = softgrad::fuzz::write_input(
      "recording.csv", std::string_view(reinterpret_cast<const char*>(data), size));
  softgrad::fuzz::expect_input_errors_only(
      [&] { softgrad::read_recording(path, markers().named); });
  return softgrad::fuzz::expect_input_errors_only(
      [&] { softgrad::read_recording(path, markers().vertices); });
}
