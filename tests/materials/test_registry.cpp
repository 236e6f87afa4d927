#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include "softgrad/errors.hpp"
#include "softgrad/material_model.hpp"

using namespace softgrad;

TEST_CASE("materials/registry: every built-in model is registered once by name") {
  std::set<std::string> names;
  for (const auto& m : all_materials()) names.insert(m->name());
  for (const char* n : {"linear", "corotated", "stvk", "neo_hookean", "stable_neo_hookean",
                        "mooney_rivlin", "fixed_corotated", "mass_spring"})
    CHECK(names.count(n) == 1);
  CHECK(names.size() == all_materials().size());
}

TEST_CASE("materials/registry: an unknown name lists the known ones") {
  CHECK_THROWS_WITH_AS(find_material("neo_hooken"),
                       doctest::Contains("unknown material 'neo_hooken'"), InputError);
  CHECK_THROWS_WITH_AS(find_material("neo_hooken"), doctest::Contains("stable_neo_hookean"),
                       InputError);
}

TEST_CASE("materials/registry: parameters out of range are named with their range") {
  const auto m = find_material("neo_hookean");
  CHECK_NOTHROW(validate_params(*m, std::vector<double>{1e5, 0.3}, "scene.json:/bodies/0"));
  CHECK_THROWS_WITH_AS(validate_params(*m, std::vector<double>{1e5, 0.5}, "scene.json:/bodies/0"),
                       "scene.json:/bodies/0: material 'neo_hookean' parameter 'poisson' = 0.5 1 "
                       "is outside its valid range (-1, 0.5)",
                       InputError);
  CHECK_THROWS_WITH_AS(validate_params(*m, std::vector<double>{-2, 0.3}, "here"),
                       doctest::Contains("parameter 'youngs' = -2 Pa"), InputError);
  CHECK_THROWS_WITH_AS(validate_params(*m, std::vector<double>{NAN, 0.3}, "here"),
                       doctest::Contains("'youngs' = nan"), InputError);
  CHECK_THROWS_WITH_AS(validate_params(*m, std::vector<double>{1e5}, "here"),
                       doctest::Contains("takes 2 parameters, got 1"), InputError);
}

TEST_CASE("materials/registry: Mooney-Rivlin from youngs/poisson has the right moduli") {
  const auto p = params_from_youngs_poisson(*find_material("mooney_rivlin"), 1e5, 0.25);
  const double mu = 1e5 / 2.5;
  CHECK(2 * (p[0] + p[1]) == doctest::Approx(mu));
  CHECK(p[2] == doctest::Approx(1e5 / (3 * 0.5)));
}
