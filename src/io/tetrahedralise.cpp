// Filling a closed surface with tetrahedra: TetGen (Debian's libtet1.5-dev), in a module of its
// own (libsoftgrad_tetgen.so, AGPL-3) opened on the first surface, else a clear error.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "orient_elements.hpp"
#include "softgrad/config.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/io.hpp"
#include "solvers/loadable_module.hpp"
#include "tetgen_module.hpp"

namespace softgrad {
namespace {

constexpr const char* kTetgenModule = "libsoftgrad_tetgen.so";

std::string tetgen_failure(int code) {
  switch (code) {
    case 1:
      return "out of memory";
    case 3:
      return "the surface intersects itself";
    case 4:
      return "a feature of the surface is too small for TetGen's tolerance";
    case 5:
      return "two facets of the surface are too close to each other";
    case 10:
      return "TetGen refused the input (is the surface closed?)";
    default:
      return "TetGen failed (code " + std::to_string(code) + ")";
  }
}

// The module's two functions; throws InputError naming `where` when it cannot be had.
std::pair<SoftgradTetgenFill, SoftgradTetgenFree> tetgen_functions(const std::string& where) {
  std::string why;
  void* module = SOFTGRAD_HAS_TETGEN ? detail::open_module(kTetgenModule, why) : nullptr;
  void* fill = module ? detail::module_symbol(module, "softgrad_tetgen_fill", why) : nullptr;
  void* release = fill ? detail::module_symbol(module, "softgrad_tetgen_free", why) : nullptr;
  if (!release) {
    throw InputError(where + ": this build of softgrad cannot fill surfaces with tetrahedra (" +
                     (SOFTGRAD_HAS_TETGEN ? why : std::string("built without TetGen")) +
                     "): install Debian's libtet1.5-dev (TetGen, AGPL-3) and rebuild with "
                     "-DSOFTGRAD_WITH_TETGEN=ON, or give a tetrahedral mesh (.msh, .node/.ele)");
  }
  return {reinterpret_cast<SoftgradTetgenFill>(fill),
          reinterpret_cast<SoftgradTetgenFree>(release)};
}

}  // namespace

bool has_tetgen() {
  std::string why;
  return SOFTGRAD_HAS_TETGEN && detail::open_module(kTetgenModule, why) != nullptr;
}

Mesh tetrahedralise(const SurfaceMesh& surface, const TetrahedraliseOptions& options) {
  const std::string& where = surface.source.empty() ? std::string("surface") : surface.source;
  if (!(options.max_radius_edge >= 1.0) || !std::isfinite(options.max_radius_edge))
    throw InputError(where + ": quality (the radius-edge bound) must be a number >= 1, got " +
                     std::to_string(options.max_radius_edge));
  if (!(options.max_volume >= 0.0) || !std::isfinite(options.max_volume))
    throw InputError(where + ": max_volume must be >= 0 (0: no bound)");
  const auto [fill, release] = tetgen_functions(where);
  // Row-major copies for the C interface (Eigen's matrices here are column-major).
  std::vector<double> points(static_cast<size_t>(surface.X.rows()) * 3);
  for (Eigen::Index i = 0; i < surface.X.rows(); ++i)
    for (int k = 0; k < 3; ++k) points[3 * i + k] = surface.X(i, k);
  std::vector<int> triangles(static_cast<size_t>(surface.triangles.rows()) * 3);
  for (Eigen::Index t = 0; t < surface.triangles.rows(); ++t)
    for (int k = 0; k < 3; ++k) triangles[3 * t + k] = surface.triangles(t, k);
  // p: a piecewise linear complex; q: radius-edge ratio bound; a: volume bound; z: 0-based;
  // Q: quiet.
  char switches[96];
  if (options.max_volume > 0.0) {
    std::snprintf(switches, sizeof switches, "pq%.6ga%.6gzQ", options.max_radius_edge,
                  options.max_volume);
  } else {
    std::snprintf(switches, sizeof switches, "pq%.6gzQ", options.max_radius_edge);
  }
  SoftgradTetgenResult out{};
  fill(switches, points.data(), static_cast<int>(surface.X.rows()), triangles.data(),
       static_cast<int>(surface.triangles.rows()), &out);
  std::unique_ptr<SoftgradTetgenResult, SoftgradTetgenFree> owned(&out, release);
  if (out.code != 0)
    throw InputError(where +
                     ": cannot fill the surface with tetrahedra: " + tetgen_failure(out.code));
  if (out.n_tets <= 0)
    throw InputError(where + ": TetGen made no tetrahedra (is the surface closed?)");
  Mesh mesh;
  mesh.dim = 3;
  mesh.source = where + " (tetrahedralised)";
  mesh.X.resize(out.n_points, 3);
  for (int i = 0; i < out.n_points; ++i)
    for (int k = 0; k < 3; ++k) mesh.X(i, k) = out.points[3 * i + k];
  mesh.elems.resize(out.n_tets, 4);
  std::vector<detail::ElementOrigin> origins(out.n_tets);
  for (int e = 0; e < out.n_tets; ++e) {
    for (int k = 0; k < 4; ++k) mesh.elems(e, k) = out.tets[4 * e + k];
    origins[e] = {0, e};
  }
  detail::orient_elements(mesh, origins, mesh.source);
  return mesh;
}

}  // namespace softgrad
