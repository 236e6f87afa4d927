// scene_reference(): the schema tables and the material registry as plain text.
#include <algorithm>
#include <sstream>

#include "schema.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/locomotion.hpp"
#include "softgrad/material_model.hpp"
#include "softgrad/scene.hpp"

namespace softgrad {

namespace {

using detail::KeySpec;
using detail::KeyType;
using detail::Range;

std::string type_text(const KeySpec& k) {
  switch (k.type) {
    case KeyType::Number:
      return "number";
    case KeyType::Integer:
      return "integer";
    case KeyType::Boolean:
      return "boolean";
    case KeyType::String:
      return "string";
    case KeyType::Choice:
      return k.choices;
    case KeyType::Vector:
      return "[dim numbers]";
    case KeyType::Integers:
      return "[integers]";
    case KeyType::Object:
      return "object";
    case KeyType::List:
      return "[objects]";
    case KeyType::Motion:
      return "\"fixed\"|object";
    case KeyType::BodyRef:
      return "name|index";
    case KeyType::Time:
      return "number|\"final\"";
    case KeyType::Strings:
      return "[strings]";
    case KeyType::Numbers:
      return "[numbers]";
  }
  return "";
}

std::string range_text(const KeySpec& k) {
  const bool numeric = k.type == KeyType::Number || k.type == KeyType::Integer ||
                       k.type == KeyType::Vector || k.type == KeyType::Integers ||
                       k.type == KeyType::Time || k.type == KeyType::Numbers;
  return numeric && k.range.text() != "any" ? k.range.text() : "";
}

std::string default_text(const KeySpec& k) {
  if (k.required()) return "required";
  return k.default_text[0] ? k.default_text : "optional";
}

// Rows of cells printed as aligned columns, indented by two spaces; the last column is free.
void print_table(std::ostringstream& os, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()), 0);
    for (size_t c = 0; c + 1 < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line = "  ";
    for (size_t c = 0; c < row.size(); ++c) {
      line += (c ? "  " : "") + row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size(), ' ');
    }
    os << line << "\n";
  }
}

// True if the model's parameters can be given as youngs and poisson instead of its own keys.
bool maps_youngs_poisson(const MaterialModel& model) {
  const auto table = model.params();
  const bool native = std::any_of(table.begin(), table.end(), [](const ParamInfo& p) {
    return std::string(p.key) == "poisson";
  });
  if (native) return false;
  try {
    const double youngs = kYoungsParam.default_value;
    return params_from_youngs_poisson(model, youngs, 0.1) !=
           params_from_youngs_poisson(model, youngs, 0.2);
  } catch (const InputError&) {
    return false;
  }
}

// The keys each value of "type" takes, for a section whose keys depend on it.
void print_variants(std::ostream& os, const detail::Section& section) {
  if (section.variants.empty()) return;
  os << "keys by type (the others apply to every type):\n";
  for (const detail::Variant& v : section.variants) {
    std::string keys;
    const auto add = [&](const char* list, const char* note) {
      std::istringstream in(list);
      for (std::string key; std::getline(in, key, '|');)
        if (!key.empty()) keys += (keys.empty() ? "" : ", ") + key + note;
    };
    add(v.required, " (required)");
    add(v.optional, "");
    os << "  " << v.type << ": " << (keys.empty() ? "none" : keys) << "\n";
  }
}

}  // namespace

std::string scene_reference() {
  std::ostringstream os;
  os << "softgrad scene reference\n"
        "A scene is one JSON object. Sections are named by JSON pointer (* is a list index);\n"
        "'region' sections appear under /boundary/*, /forces/*, /initial and /loss/*. Units are\n"
        "SI; unknown keys are errors; relative paths resolve against the scene file's folder.\n";
  for (const detail::Section* section : detail::schema::all()) {
    os << "\n" << (section->path[0] ? section->path : "/") << " - " << section->title << "\n";
    std::vector<std::vector<std::string>> rows{
        {"key", "type", "unit", "range", "default", "description"}};
    for (const KeySpec& k : section->keys) {
      rows.push_back({k.key, type_text(k), k.unit, range_text(k), default_text(k), k.description});
    }
    print_table(os, rows);
    print_variants(os, *section);
  }
  os << "\nMaterials (the value of /bodies/*/material/model) and their own parameter keys:\n";
  for (const auto& model : all_materials()) {
    os << "\n"
       << model->name() << (maps_youngs_poisson(*model) ? " (or youngs and poisson)" : "") << "\n";
    std::vector<std::vector<std::string>> rows{{"key", "unit", "range", "default", "description"}};
    const auto table = model->params();
    for (const auto& block : model->param_blocks()) {
      const ParamInfo& p = table[block.first];
      const Range range{p.min, p.max, p.min_inclusive, p.max_inclusive};
      std::ostringstream def;
      def << p.default_value;
      if (block.count == 1) {
        rows.push_back({p.key, p.unit, range.text(), def.str(), p.description});
      } else {  // a group (a network's weights): one row
        rows.push_back({block.name + "[0.." + std::to_string(block.count - 1) + "]", p.unit,
                        range.text(), "its start",
                        std::to_string(block.count) + " values, each " + p.description});
      }
    }
    print_table(os, rows);
  }
  os << "\nCreatures (the value of /creature/generator):\n";
  std::vector<std::vector<std::string>> creatures{{"generator", "dim", "description"}};
  for (const CreatureGenerator& g : creature_generators())
    creatures.push_back({g.name, std::to_string(g.dim), g.description});
  print_table(os, creatures);
  return os.str();
}

}  // namespace softgrad
