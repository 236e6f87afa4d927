// scene_reference(): every schema key and every registered material is documented.
#include <doctest/doctest.h>

#include "softgrad/material_model.hpp"
#include "softgrad/scene.hpp"

using namespace softgrad;

TEST_CASE("scenes/scene_reference: lists every section, key and material") {
  const std::string text = scene_reference();
  for (const char* section :
       {"\n/ - the scene", "\n/time - ", "\n/damping - ", "\n/solver - ", "\n/output - ",
        "\n/bodies/* - ", "\n/bodies/*/mesh - ", "\n/bodies/*/material - ", "\n/boundary/* - ",
        "\n/boundary/*/motion - ", "\nmotion/translate - ", "\nmotion/rotate - ", "\nregion - ",
        "\nregion/box - ", "\nregion/plane - ", "\n/forces/* - ", "\n/initial - ",
        "\n/loss/* - "}) {
    CAPTURE(section);
    CHECK(text.find(section) != std::string::npos);
  }
  for (const char* row :
       {"  dt ", "  duration ", "  newton_tolerance ", "  angular_velocity ", "  acceleration ",
        "  generator ", "  parameters ", "  offset ", "  weight "}) {
    CAPTURE(row);
    CHECK(text.find(row) != std::string::npos);
  }
  for (const auto& m : all_materials()) {
    CAPTURE(m->name());
    CHECK(text.find("\n" + m->name()) != std::string::npos);
  }
  CHECK(text.find("\nneo_hookean\n") != std::string::npos);
  CHECK(text.find("\nmooney_rivlin (or youngs and poisson)\n") != std::string::npos);
  // A row shows type, unit, range, default and description.
  CHECK(text.find("number  s     (0, inf)  0.01") != std::string::npos);
  CHECK(text.find("kappa  Pa    (0, inf)  1e+06    bulk modulus") != std::string::npos);
}
