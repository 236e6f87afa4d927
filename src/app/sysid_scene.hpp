/// @file sysid_scene.hpp
/// What `softgrad sysid` and `softgrad record` share: a scene with markers, its simulator and
/// rollout, the scene's sysid experiments, parameter settings from the command line (--set),
/// synthetic recordings, and the SysIdOptions of the scene's sysid block.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "softgrad/scene.hpp"
#include "softgrad/sysid.hpp"

namespace softgrad::app {

/// A scene ready to simulate and compare with recordings.
struct MarkerScene {
  Scene scene;
  std::unique_ptr<Simulator> sim;
  Rollout rollout;
  MarkerSet markers;
};

/// Loads the scene and embeds its markers.
/// @throws InputError if the scene is static or declares no markers.
MarkerScene load_marker_scene(const std::string& file);

/// The same for a loaded scene; `what` names it in messages (its file, or its experiment).
MarkerScene marker_scene(Scene scene, const std::string& what);

/// Sysid experiment k of a loaded scene (/sysid/experiments/k) with its markers.
/// @throws InputError if k is out of range or the experiment declares no markers.
MarkerScene experiment_scene(const MarkerScene& p, int k);
/// The same for held-out recording k of /sysid/validation.
MarkerScene validation_scene(const MarkerScene& p, int k);

/// Applies one --set: "NAME=VALUE" sets every entry of the ParameterSet block NAME (e.g.
/// "youngs", "damping.alpha", "contact.friction", "youngs[]"); "NAME[AXIS<C]=VALUE" or
/// "NAME[AXIS>C]=VALUE" (AXIS one of x, y, z) sets the entries of a per-element field NAME[]
/// whose element's rest centroid has its AXIS coordinate below (above) C.
/// @throws InputError naming the setting for bad syntax, an unknown name or an invalid value.
void apply_setting(const std::string& setting, MarkerScene& p);

/// Simulates the rollout and samples every marker at t0 + k / frame_rate, k = 0, 1, ... up to
/// the end (frame_rate <= 0: every step), adding Gaussian noise of standard deviation `noise`
/// [m] per coordinate from std::mt19937_64(seed).
Recording record_markers(MarkerScene& p, double frame_rate, double noise, std::uint64_t seed);

/// The recording `file` checked against the scene: marker names, and times inside the rollout.
/// @throws InputError "<file>:<line>: ..." (from read_recording) or "<file>: ..." for a time
///         after the end of the scene's rollout.
Recording read_scene_recording(const std::string& file, const MarkerScene& p);

/// SysIdOptions from the scene's "sysid" block (parameters, method, robust loss, ...), with the
/// initial guesses written into the rollout and the bounds expanded per entry.
/// @throws InputError if the scene has no "sysid" block and `names` is empty.
SysIdOptions sysid_options(MarkerScene& p, const std::vector<std::string>& names);

}  // namespace softgrad::app
