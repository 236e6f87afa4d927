#include "app/sysid_scene.hpp"

#include <cmath>
#include <cstdio>
#include <random>
#include <regex>

#include "io/text_output.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/parameters.hpp"

namespace softgrad::app {
namespace {

[[noreturn]] void bad_setting(const std::string& setting, const std::string& what) {
  throw InputError("--set '" + setting + "': " + what);
}

double parse_value(const std::string& setting, const std::string& text) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  bad_setting(setting, "'" + text + "' is not a finite number");
}

// Rest centroid coordinate `axis` of element e of a body.
double centroid(const Model& model, const Body& body, int e, int axis) {
  const int n = model.dim + 1;
  double c = 0.0;
  for (int a = 0; a < n; ++a)
    c += model.X[body.elems[static_cast<size_t>(e) * n + a] * model.dim + axis];
  return c / n;
}

}  // namespace

MarkerScene load_marker_scene(const std::string& file) {
  return marker_scene(load_scene(file), file);
}

MarkerScene marker_scene(Scene scene, const std::string& what) {
  MarkerScene p;
  p.scene = std::move(scene);
  if (p.scene.static_solve)
    throw InputError(what +
                     ": system identification needs a dynamic scene (\"mode\": \"dynamic\")");
  if (p.scene.markers.empty())
    throw InputError(what + ": the scene declares no \"markers\" (see softgrad scene-help)");
  p.sim = std::make_unique<Simulator>(p.scene.model, p.scene.options);
  p.rollout = p.scene.rollout(*p.sim);
  std::vector<std::pair<std::string, Eigen::VectorXd>> points;
  for (const SceneMarker& m : p.scene.markers) points.emplace_back(m.name, m.position);
  p.markers = MarkerSet(*p.scene.model, points);
  return p;
}

namespace {
MarkerScene listed_scene(const MarkerScene& p, int k, bool held_out) {
  const auto& list = held_out ? p.scene.sysid.validation : p.scene.sysid.experiments;
  const std::string key = held_out ? "validation" : "experiments";
  const std::string what = held_out ? "sysid validation " : "sysid experiment ";
  const std::string file = p.scene.file.string();
  if (k < 0 || k >= static_cast<int>(list.size()))
    throw InputError(file + ": no " + what + std::to_string(k) + " (the scene lists " +
                     std::to_string(list.size()) + " in /sysid/" + key + ")");
  Scene scene = *list[k].scene;
  scene.file = p.scene.file;
  return marker_scene(std::move(scene), file + " (" + what + std::to_string(k) + ")");
}
}  // namespace

MarkerScene experiment_scene(const MarkerScene& p, int k) { return listed_scene(p, k, false); }

MarkerScene validation_scene(const MarkerScene& p, int k) { return listed_scene(p, k, true); }

void apply_setting(const std::string& setting, MarkerScene& p) {
  static const std::regex kForm(R"(^([^=\[]+(\[\])?)(\[([xyz])([<>])([^\]]+)\])?=(.+)$)");
  std::smatch m;
  if (!std::regex_match(setting, m, kForm))
    bad_setting(setting, "expected NAME=VALUE or NAME[AXIS<C]=VALUE (AXIS x, y or z)");
  std::string name = m[1];
  const bool conditional = m[3].matched;
  if (conditional && !name.ends_with("[]")) name += "[]";
  const double value = parse_value(setting, m[7]);
  ParameterSet params;
  try {
    params = ParameterSet(*p.sim, p.rollout, {name});
  } catch (const InputError& e) {
    bad_setting(setting, e.what());
  }
  Eigen::VectorXd theta = Eigen::VectorXd::Constant(params.size(), value);
  if (conditional) {
    theta = params.get(*p.sim, p.rollout);
    const ParameterSet::Block& b = params.blocks().front();
    if (b.source != ParameterSet::Source::Term || b.tied || !b.group.body ||
        b.group.layout != ParameterGroup::Layout::PerElement || b.group.width != 1)
      bad_setting(setting, "a condition on the position needs a per-element field of one value");
    const int axis = std::string(m[4]) == "x" ? 0 : std::string(m[4]) == "y" ? 1 : 2;
    if (axis >= p.scene.model->dim) bad_setting(setting, "the scene is 2D: use x or y");
    const double c = parse_value(setting, m[6]);
    const bool below = m[5] == "<";
    int hits = 0;
    for (int e = 0; e < b.size; ++e) {
      const double x = centroid(*p.scene.model, *b.group.body, e, axis);
      if (below ? x < c : x > c) {
        theta[e] = value;
        ++hits;
      }
    }
    if (hits == 0) bad_setting(setting, "no element centroid satisfies the condition");
  }
  try {
    params.set(*p.sim, p.rollout, theta);
  } catch (const InputError& e) {
    bad_setting(setting, e.what());
  }
}

Recording record_markers(MarkerScene& p, double frame_rate, double noise, std::uint64_t seed) {
  // 0 means one frame per step; NaN passed the option's range check and meant the default.
  if (!(frame_rate >= 0.0) || !std::isfinite(frame_rate))
    throw InputError(
        "record: the frame rate must be a positive number of frames per second, "
        "got " +
        detail::number_text(frame_rate, 6));
  if (!(noise >= 0.0) || !std::isfinite(noise))
    throw InputError("record: the noise must be a standard deviation >= 0 [m], got " +
                     detail::number_text(noise, 6));
  const double dt = p.sim->options().dt, t0 = p.rollout.initial.t;
  const int steps = p.rollout.steps;
  const double period = frame_rate > 0.0 ? 1.0 / frame_rate : dt;
  // Counted in floating point first: 1e12 frames per second overflowed the count to 0 frames.
  const double wanted = std::floor(steps * dt / period + 1e-9) + 1.0;
  constexpr double kMaxFrames = 1e7;
  if (!(wanted <= kMaxFrames))
    throw InputError("record: " + detail::number_text(frame_rate, 6) + " frames per second over " +
                     detail::number_text(steps * dt, 6) + " s would be " +
                     detail::number_text(wanted, 6) +
                     " frames, more than the limit of 10 million; choose a lower --frame-rate");
  const int frames = static_cast<int>(wanted);
  const Trajectory traj = simulate(*p.sim, p.rollout);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> gauss(0.0, noise > 0.0 ? noise : 1.0);
  Recording rec;
  for (int f = 0; f < frames; ++f) {
    // On a step when the frame falls on one (to round-off), else between steps.
    double t = t0 + f * period;
    const double on_step = t0 + std::round((t - t0) / dt) * dt;
    if (std::abs(t - on_step) < 1e-9 * dt) t = on_step;
    rec.times.push_back(t);
    const SampleAt at = sample_at(t, t0, dt, steps);
    const State& s = traj.state(at.state);
    for (int k = 0; k < p.markers.size(); ++k) {
      Eigen::VectorXd x = p.markers.position(k, s.x);
      if (at.back > 0.0) x -= at.back * p.markers.position(k, s.v);
      if (noise > 0.0)
        for (int i = 0; i < x.size(); ++i) x[i] += gauss(rng);
      rec.observations.push_back({f, k, x});
    }
  }
  return rec;
}

Recording read_scene_recording(const std::string& file, const MarkerScene& p) {
  Recording rec = read_recording(file, p.markers);
  const double t0 = p.rollout.initial.t;
  const double t_end = t0 + p.rollout.steps * p.sim->options().dt;
  const double eps = 1e-9 * p.sim->options().dt;
  char what[256];
  if (rec.times.front() < t0 - eps) {
    std::snprintf(what, sizeof what,
                  "%s: the recording starts at t = %g s, before the scene (%g s)", file.c_str(),
                  rec.times.front(), t0);
    throw InputError(what);
  }
  if (rec.times.back() > t_end + eps) {
    std::snprintf(what, sizeof what,
                  "%s: the recording ends at t = %g s, after the scene's %g s: lengthen "
                  "/time/duration",
                  file.c_str(), rec.times.back(), t_end);
    throw InputError(what);
  }
  return rec;
}

SysIdOptions sysid_options(MarkerScene& p, const std::vector<std::string>& names) {
  const SceneSysId& s = p.scene.sysid;
  SysIdOptions o;
  o.method = s.method;
  o.log_positive = s.log;
  o.robust = s.robust;
  o.robust_scale = s.robust_scale;
  o.max_iterations = s.max_iterations;
  o.smoothness = s.smoothness;
  o.starts = s.starts;
  o.start_spread = s.start_spread;
  if (!names.empty()) {
    o.parameters = names;
    return o;
  }
  if (s.parameters.empty()) {
    throw InputError(p.scene.file.string() +
                     ": no parameters to identify: add a \"sysid\" block to the scene or give "
                     "--params a,b");
  }
  // Initial guesses into the rollout; bounds per entry of theta.
  for (const SceneSysId::Parameter& q : s.parameters) {
    o.parameters.push_back(q.name);
    if (std::isnan(q.initial)) continue;
    const ParameterSet one(*p.sim, p.rollout, {q.name});
    one.set(*p.sim, p.rollout, Eigen::VectorXd::Constant(one.size(), q.initial));
  }
  const ParameterSet all(*p.sim, p.rollout, o.parameters);
  o.lower.resize(all.size());
  o.upper.resize(all.size());
  for (size_t i = 0; i < s.parameters.size(); ++i) {
    const ParameterSet::Block& b = all.blocks()[i];
    o.lower.segment(b.offset, b.size).setConstant(s.parameters[i].lower);
    o.upper.segment(b.offset, b.size).setConstant(s.parameters[i].upper);
  }
  return o;
}

}  // namespace softgrad::app
