// `softgrad scene-help`, `softgrad materials` and `softgrad params`: reference text.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <ostream>
#include <sstream>

#include "app/commands.hpp"
#include "app/gradient_problem.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/material_model.hpp"
#include "softgrad/parameters.hpp"
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
  const auto table = m.params();
  for (const auto& block : m.param_blocks()) {
    const ParamInfo& p = table[block.first];
    if (block.count == 1) {
      std::snprintf(row, sizeof row, "  %-10s %-8s %-22s %-10g %s\n", p.key, p.unit,
                    range_text(p).c_str(), p.default_value, p.description);
    } else {  // a group (a network's weights): one row
      const std::string key = block.name + "[" + std::to_string(block.count) + "]";
      std::snprintf(row, sizeof row, "  %-10s %-8s %-22s %-10s %d values, each %s\n", key.c_str(),
                    p.unit, range_text(p).c_str(), "its start", block.count, p.description);
    }
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

std::string params_text(const Scene& scene) {
  // Listing names needs a simulator but no factorisation: a matrix-free one is cheapest.
  SimulationOptions options = scene.options;
  options.linear.kind = "matfree";
  options.linear.preconditioner = "jacobi";
  const Simulator sim(scene.model, options);
  std::vector<std::vector<std::string>> rows{{"name", "description"}};
  for (const auto& [name, what] : ParameterSet::available(sim, scene.rollout(sim)))
    rows.push_back({name, what});
  std::ostringstream os;
  os << "Parameters of " << scene.name
     << " (for --params of grad and gradcheck, or the scene's \"parameters\"):\n"
     << aligned_table(rows)
     << "A group name alone (\"youngs\") selects it when only one term has it; \"[]\" after a "
        "per-element\ngroup (\"youngs[]\") makes it a field, one value per element.\n";
  if (scene.parameters.empty()) {
    os << "The scene selects none.\n";
  } else {
    os << "The scene selects:";
    for (const std::string& name : scene.parameters) os << " " << name;
    os << "\n";
  }
  return os.str();
}

Command add_params_command(CLI::App& program) {
  auto scene_file = std::make_shared<std::string>();
  CLI::App* cmd = program.add_subcommand(
      "params", "List the parameters a scene can be differentiated by, with descriptions");
  cmd->add_option("SCENE", *scene_file, "Scene file (.json)")->type_name("FILE")->required();
  return {cmd, [scene_file](const Console& c) {
            LogRedirect logs(c, Verbosity::Normal);
            c.out << params_text(load_scene(*scene_file)) << std::flush;
            return 0;
          }};
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
