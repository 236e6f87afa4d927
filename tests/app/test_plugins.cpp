#include <doctest/doctest.h>
#include <sys/stat.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "app_test_support.hpp"
#include "cli_test_support.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/plugin.hpp"
#include "softgrad/scene.hpp"
#include "softgrad/static_solve.hpp"

using namespace softgrad;
using namespace softgrad::test;

namespace {

// The example's density, written out here: psi = C1 i1 + C2 i1^2 + C3 i1^3 + kappa/2 (J-1)^2.
double yeoh_psi(const Eigen::Matrix3d& F, const double* p) {
  const double J = F.determinant();
  const double i1 = std::pow(J, -2.0 / 3.0) * F.squaredNorm() - 3.0;
  return p[0] * i1 + p[1] * i1 * i1 + p[2] * i1 * i1 * i1 + 0.5 * p[3] * (J - 1) * (J - 1);
}

std::string block_scene(const std::string& plugins) {
  return R"({"name": "block", "mode": "static", "plugins": )" + plugins + R"(,
    "bodies": [{"mesh": {"generator": "box", "resolution": [2, 2, 2], "size": [0.1, 0.1, 0.1]},
                "material": {"model": "yeoh", "c1": 2e4, "c2": 2e3, "c3": 2e2, "kappa": 1e6}}],
    "boundary": [{"region": {"plane": {"point": [0, 0, 0], "normal": [0, -1, 0]}}}]})";
}

}  // namespace

TEST_CASE("app/plugins: the example plugin registers its Yeoh material, as written, once") {
  const std::vector<std::string> added = load_plugin(SOFTGRAD_TEST_PLUGIN);
  // A second load (this test may run after another that loaded it) registers nothing new.
  CHECK(load_plugin(SOFTGRAD_TEST_PLUGIN).empty());
  if (!added.empty()) CHECK(added == std::vector<std::string>{"yeoh"});
  const auto yeoh = find_material("yeoh");
  REQUIRE(yeoh->n_params() == 4);
  const double p[4] = {1e5, 1e4, 1e3, 1e7};
  Eigen::Matrix<double, 3, 3, Eigen::RowMajor> F;
  F << 1.1, 0.05, -0.02, 0.03, 0.95, 0.04, -0.01, 0.02, 1.02;
  double psi = 0.0;
  REQUIRE(yeoh->density(3, F.data(), p, psi));
  CHECK(psi == doctest::Approx(yeoh_psi(F, p)).epsilon(1e-13));
  // Its AD stress against central differences of that density.
  double P[9];
  REQUIRE(yeoh->stress(3, F.data(), p, P));
  const double h = 1e-6;
  for (int i = 0; i < 9; ++i) {
    Eigen::Matrix<double, 3, 3, Eigen::RowMajor> Fp = F, Fm = F;
    Fp.data()[i] += h;
    Fm.data()[i] -= h;
    CHECK(P[i] == doctest::Approx((yeoh_psi(Fp, p) - yeoh_psi(Fm, p)) / (2 * h)).epsilon(1e-6));
  }
}

TEST_CASE("app/plugins: a scene's plugins key runs no code unless the user allows it") {
  TempDir dir;
  const std::string marker = dir.file("marker.txt");
  REQUIRE(setenv("SOFTGRAD_TEST_PLUGIN_MARKER", marker.c_str(), 1) == 0);
  const std::string plugin = SOFTGRAD_TEST_MARKER_PLUGIN;
  const std::string scene = block_scene("[\"" + plugin + "\"]");
  // By default the library must already be loaded: nothing is opened, no constructor runs.
  const std::string refused = input_error_of([&] { parse_scene(scene, dir.file("block.json")); });
  CHECK(refused.find("/plugins") != std::string::npos);
  CHECK(refused.find("the scene names the plugin '" + plugin + "'") != std::string::npos);
  CHECK(refused.find("--allow-scene-plugins") != std::string::npos);
  CHECK_FALSE(plugin_loaded(plugin));
  CHECK_FALSE(std::filesystem::exists(marker));
  // So does the command line without --allow-scene-plugins (`params` only reads the scene).
  write_text(dir.file("block.json"), scene);
  const Outcome params = cli({"params", dir.file("block.json")});
  CHECK(params.code == app::kExitInputError);
  CHECK(params.err.find("A scene file runs no code by itself") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(marker));
  unsetenv("SOFTGRAD_TEST_PLUGIN_MARKER");
}

TEST_CASE("app/plugins: with the user's consent a scene loads its plugins before its bodies") {
  TempDir dir;
  const std::string plugin = SOFTGRAD_TEST_PLUGIN;
  Scene scene =
      parse_scene(block_scene("[\"" + plugin + "\"]"), dir.file("block.json"), ScenePlugins::Load);
  CHECK(plugin_loaded(plugin));
  CHECK(scene.model->bodies[0].material->name() == "yeoh");
  scene.output.directory = dir.file("out");
  const StaticResult r = static_solve(scene);
  CHECK(r.converged());
  CHECK(r.max_displacement > 0.0);
  // Once loaded (here, or by --plugin), a scene that names it needs no consent.
  CHECK_NOTHROW(parse_scene(block_scene("[\"" + plugin + "\"]"), dir.file("again.json")));

  const std::string missing = input_error_of([&] {
    parse_scene(block_scene("[\"no_such.so\"]"), dir.file("b.json"), ScenePlugins::Load);
  });
  CHECK(missing.find("/plugins") != std::string::npos);
  CHECK(missing.find("plugin '" + dir.file("no_such.so") + "': no such file") != std::string::npos);
}

TEST_CASE("app/plugins: a plugin file that others can have written is refused before it runs") {
  TempDir dir;
  const std::string marker = dir.file("marker.txt");
  REQUIRE(setenv("SOFTGRAD_TEST_PLUGIN_MARKER", marker.c_str(), 1) == 0);
  const std::string copy = dir.file("shared_marker_plugin.so");
  std::filesystem::copy_file(SOFTGRAD_TEST_MARKER_PLUGIN, copy);
  std::filesystem::permissions(copy, std::filesystem::perms::others_write,
                               std::filesystem::perm_options::add);
  CHECK(input_error_of([&] {
          load_plugin(copy);
        }).find("is writable by every user, so anyone may have replaced its code") !=
        std::string::npos);
  CHECK_FALSE(std::filesystem::exists(marker));
  CHECK_FALSE(plugin_loaded(copy));
  unsetenv("SOFTGRAD_TEST_PLUGIN_MARKER");
}

TEST_CASE("app/plugins: folders, FIFOs and files that are no library are refused at once") {
  TempDir dir;
  std::filesystem::create_directory(dir.file("folder.so"));
  CHECK(input_error_of([&] {
          load_plugin(dir.file("folder.so"));
        }).find("is a folder, not a shared library") != std::string::npos);
  // A FIFO that no one writes to: opening or reading it would block forever.
  REQUIRE(mkfifo(dir.file("fifo.so").c_str(), 0600) == 0);
  CHECK(input_error_of([&] { load_plugin(dir.file("fifo.so")); }).find("is not a regular file") !=
        std::string::npos);
  write_text(dir.file("text.so"), "not an ELF file");
  CHECK(input_error_of([&] {
          load_plugin(dir.file("text.so"));
        }).find("is not a shared library (not an ELF file)") != std::string::npos);
}

TEST_CASE("app/plugins: a file that is no plugin, of another version or clashing is refused") {
  const std::string not_plugin = input_error_of([] { load_plugin(SOFTGRAD_TEST_NOT_A_PLUGIN); });
  CHECK(not_plugin.find("is not a softgrad plugin: it defines no entry point") !=
        std::string::npos);
  // Another version is refused before any of its code runs (its constructor leaves a mark).
  TempDir dir;
  const std::string marker = dir.file("marker.txt");
  REQUIRE(setenv("SOFTGRAD_TEST_PLUGIN_MARKER", marker.c_str(), 1) == 0);
  const std::string version =
      input_error_of([] { load_plugin(SOFTGRAD_TEST_OTHER_VERSION_PLUGIN); });
  unsetenv("SOFTGRAD_TEST_PLUGIN_MARKER");
  CHECK(version.find("was built with softgrad 0.0.1, this is softgrad " +
                     std::string(SOFTGRAD_VERSION)) != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(marker));
  const auto built_in = find_material("neo_hookean");
  const std::string clash = input_error_of([] { load_plugin(SOFTGRAD_TEST_CLASHING_PLUGIN); });
  CHECK(clash.find("registers 'neo_hookean', a name already registered") != std::string::npos);
  CHECK(find_material("neo_hookean") == built_in);  // the built-in model stays
  CHECK(input_error_of([] { load_plugin("/no/such/plugin.so"); }) ==
        "plugin '/no/such/plugin.so': no such file");
}
