// `softgrad scene-help` and `softgrad materials`: reference text.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <ostream>
#include <sstream>

#include "app/commands.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/material_model.hpp"
#include "softgrad/scene.hpp"

namespace softgrad::app {
namespace {

// "(0, inf)", "[-1, 0.5)".
std::string range_text(const ParamInfo& p) {
  std::ostringstream os;
  os << (p.min_inclusive ? "[" : "(") << p.min << ", " << p.max << (p.max_inclusive ? "]" : ")");
  return os.str();
}

// Whether the scene may give the model by "youngs" and "poisson".
bool takes_youngs_poisson(const MaterialModel& m) {
  try {
    params_from_youngs_poisson(m, 1e5, 0.3);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

void append_model(std::ostringstream& os, const MaterialModel& m) {
  os << m.name() << "\n  inversion " << (m.allows_inversion() ? "allowed" : "forbidden")
     << (m.frame_indifferent() ? "" : "; not frame indifferent")
     << (takes_youngs_poisson(m) ? "; accepts youngs/poisson" : "") << "\n";
  char row[160];
  std::snprintf(row, sizeof row, "  %-10s %-8s %-22s %-10s %s\n", "key", "unit", "range", "default",
                "description");
  os << row;
  for (const ParamInfo& p : m.params()) {
    std::snprintf(row, sizeof row, "  %-10s %-8s %-22s %-10g %s\n", p.key, p.unit,
                  range_text(p).c_str(), p.default_value, p.description);
    os << row;
  }
}

}  // namespace

std::string materials_text() {
  std::ostringstream os;
  os << "Material models (the scene's bodies[i].material.model):\n";
  for (const auto& m : all_materials()) {
    os << "\n";
    append_model(os, *m);
  }
  return os.str();
}

Command add_scene_help_command(CLI::App& program) {
  CLI::App* cmd = program.add_subcommand(
      "scene-help", "Print the scene file reference: every key with its type, unit and default");
  return {cmd, [](const Console& c) {
            c.out << scene_reference() << std::flush;
            return 0;
          }};
}

Command add_materials_command(CLI::App& program) {
  CLI::App* cmd = program.add_subcommand(
      "materials", "List the material models with their parameters (key, unit, range, default)");
  return {cmd, [](const Console& c) {
            c.out << materials_text() << std::flush;
            return 0;
          }};
}

}  // namespace softgrad::app
