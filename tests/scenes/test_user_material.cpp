// A material registered by the user can be named in a scene, with its own parameter keys.
#include <doctest/doctest.h>

#include <cmath>

#include "scenes/scene_test_support.hpp"
#include "softgrad/hyperelastic_model.hpp"

using namespace softgrad;

namespace {

// Neo-Hookean in Lamé parameters, under a name and keys no built-in model uses.
struct LameNeoHookean {
  static constexpr const char* kName = "test_lame_neo_hookean";
  static constexpr ParamInfo kParams[] = {
      {"mu", "Pa", 0.0, kInfinity, false, false, 2e4, "shear modulus"},
      {"lambda", "Pa", 0.0, kInfinity, true, false, 5e4, "Lamé's first parameter"}};
  static constexpr bool kAllowsInversion = false;

  template <class T, class P, int d>
  SOFTGRAD_HD static T psi(const Mat<T, d, d>& F, const P* p) {
    using std::log;
    const T log_J = log(det(F));
    return 0.5 * p[0] * (squared_norm(F) - double(d)) - p[0] * log_J + 0.5 * p[1] * log_J * log_J;
  }
};

}  // namespace

TEST_CASE("scenes/bodies: a user-registered material is named by its key") {
  register_material<LameNeoHookean>();
  const Scene scene =
      test::parse(test::scene_with_material(R"({"model": "test_lame_neo_hookean", "mu": 1e4})"));
  const Body& body = scene.model->bodies.at(0);
  CHECK(body.material->name() == "test_lame_neo_hookean");
  // Parameters are stored per element.
  CHECK(body.params.size() == 2 * body.n_elems());
  CHECK(std::vector<double>(body.params.begin(), body.params.begin() + 2) ==
        std::vector<double>{1e4, 5e4});
  // Its table drives the checks; youngs/poisson do not apply to it.
  CHECK(
      test::error_of(test::scene_with_material(R"({"model": "test_lame_neo_hookean", "mu": 0})")) ==
      "inline.json: /bodies/0/material/mu: 0 Pa is outside (0, inf)");
  CHECK(test::error_of(
            test::scene_with_material(R"({"model": "test_lame_neo_hookean", "youngs": 1e5})")) ==
        "inline.json: /bodies/0/material/youngs: unknown key 'youngs'; valid keys: model, mu, "
        "lambda, fields");
  CHECK(scene_reference().find("\ntest_lame_neo_hookean\n") != std::string::npos);
}
