// Uses an installed softgrad through its headers and library: a registered material, then (given
// a static scene and an output folder) the static solve the CLI's `softgrad static` runs, with
// its frame and summary.json, and frames written with FrameWriter.
#include <cstdio>
#include <filesystem>

#include "softgrad/frame_writer.hpp"
#include "softgrad/material_model.hpp"
#include "softgrad/scene.hpp"
#include "softgrad/simulator.hpp"
#include "softgrad/static_solve.hpp"

int main(int argc, char** argv) {
  const auto model = softgrad::find_material("neo_hookean");
  const double F[9] = {1.1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double p[2] = {1e5, 0.3};
  double P[9];
  if (!model->stress(3, F, p, P) || !(P[0] > 0)) return 1;
  std::printf("installed softgrad: %s P_11 = %.6g Pa\n", model->name().c_str(), P[0]);
  if (argc < 3) return 0;

  softgrad::Scene scene = softgrad::load_scene(argv[1]);
  scene.output.directory = argv[2];
  const softgrad::StaticResult r = softgrad::static_solve(scene);
  std::printf("static solve of %s: %s in %d Newton iterations, max displacement %.6g m, %s\n",
              scene.name.c_str(), r.converged() ? "converged" : "failed", r.report.iterations,
              r.max_displacement, r.pvd_path.c_str());
  softgrad::FrameWriter frames(*scene.model, std::filesystem::path(argv[2]) / "rest", "rest");
  frames.write(softgrad::Simulator(scene.model, scene.options).rest_state(), 0);
  std::printf("rest frame: %s\n", frames.pvd_path().c_str());
  return r.converged() && frames.frames_written() == 1 && std::filesystem::exists(r.summary_path)
             ? 0
             : 1;
}
