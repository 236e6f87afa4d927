#include <doctest/doctest.h>

#include "app/commands.hpp"
#include "softgrad/material_model.hpp"

using softgrad::app::materials_text;

TEST_CASE("app/info_commands: materials lists every model with its parameter table") {
  const std::string text = materials_text();
  for (const auto& m : softgrad::all_materials()) {
    CHECK(text.find("\n" + m->name() + "\n") != std::string::npos);
    // Each parameter by its key; a group of several (a network's weights) as one row.
    for (const auto& block : m->param_blocks()) {
      const std::string key =
          block.count == 1 ? block.name : block.name + "[" + std::to_string(block.count) + "]";
      CHECK(text.find("  " + key + " ") != std::string::npos);
    }
  }
  CHECK(text.find("  key        unit     range                  default    description\n") !=
        std::string::npos);
  CHECK(text.find("  youngs     Pa       (0, inf)               100000     Young's modulus\n") !=
        std::string::npos);
  CHECK(text.find("  poisson    1        (-1, 0.5)              0.3        Poisson's ratio\n") !=
        std::string::npos);
  CHECK(text.find("inversion forbidden") != std::string::npos);
  CHECK(text.find("accepts youngs/poisson") != std::string::npos);
}
