// Filling a closed surface with tetrahedra: TetGen (Debian's libtet1.5-dev) when the build has
// it, else a clear error.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "orient_elements.hpp"
#include "softgrad/config.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/io.hpp"

#if SOFTGRAD_HAS_TETGEN
#define TETLIBRARY  // TetGen throws its exit code instead of calling exit()
#include <tetgen.h>
#endif

namespace softgrad {

bool has_tetgen() { return SOFTGRAD_HAS_TETGEN != 0; }

#if SOFTGRAD_HAS_TETGEN
namespace {

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

}  // namespace

Mesh tetrahedralise(const SurfaceMesh& surface, const TetrahedraliseOptions& options) {
  const std::string& where = surface.source.empty() ? std::string("surface") : surface.source;
  if (!(options.max_radius_edge >= 1.0) || !std::isfinite(options.max_radius_edge))
    throw InputError(where + ": quality (the radius-edge bound) must be a number >= 1, got " +
                     std::to_string(options.max_radius_edge));
  if (!(options.max_volume >= 0.0) || !std::isfinite(options.max_volume))
    throw InputError(where + ": max_volume must be >= 0 (0: no bound)");
  tetgenio in, out;
  in.firstnumber = 0;
  in.numberofpoints = static_cast<int>(surface.X.rows());
  in.pointlist = new REAL[static_cast<size_t>(in.numberofpoints) * 3];
  for (int i = 0; i < in.numberofpoints; ++i)
    for (int k = 0; k < 3; ++k) in.pointlist[3 * i + k] = surface.X(i, k);
  in.numberoffacets = static_cast<int>(surface.triangles.rows());
  in.facetlist = new tetgenio::facet[in.numberoffacets];
  for (int t = 0; t < in.numberoffacets; ++t) {
    tetgenio::facet& f = in.facetlist[t];
    tetgenio::init(&f);
    f.numberofpolygons = 1;
    f.polygonlist = new tetgenio::polygon[1];
    tetgenio::init(&f.polygonlist[0]);
    f.polygonlist[0].numberofvertices = 3;
    f.polygonlist[0].vertexlist = new int[3];
    for (int k = 0; k < 3; ++k) f.polygonlist[0].vertexlist[k] = surface.triangles(t, k);
  }
  // p: a piecewise linear complex; q: radius-edge ratio bound; a: volume bound; z: 0-based;
  // Q: quiet.
  char switches[96];
  if (options.max_volume > 0.0) {
    std::snprintf(switches, sizeof switches, "pq%.6ga%.6gzQ", options.max_radius_edge,
                  options.max_volume);
  } else {
    std::snprintf(switches, sizeof switches, "pq%.6gzQ", options.max_radius_edge);
  }
  try {
    tetrahedralize(switches, &in, &out);
  } catch (int code) {
    throw InputError(where + ": cannot fill the surface with tetrahedra: " + tetgen_failure(code));
  }
  if (out.numberoftetrahedra <= 0 || out.numberofcorners < 4)
    throw InputError(where + ": TetGen made no tetrahedra (is the surface closed?)");
  Mesh mesh;
  mesh.dim = 3;
  mesh.source = where + " (tetrahedralised)";
  mesh.X.resize(out.numberofpoints, 3);
  for (int i = 0; i < out.numberofpoints; ++i)
    for (int k = 0; k < 3; ++k) mesh.X(i, k) = out.pointlist[3 * i + k];
  mesh.elems.resize(out.numberoftetrahedra, 4);
  std::vector<detail::ElementOrigin> origins(out.numberoftetrahedra);
  for (int e = 0; e < out.numberoftetrahedra; ++e) {
    for (int k = 0; k < 4; ++k)
      mesh.elems(e, k) = out.tetrahedronlist[static_cast<size_t>(e) * out.numberofcorners + k];
    origins[e] = {0, e};
  }
  detail::orient_elements(mesh, origins, mesh.source);
  return mesh;
}
#else
Mesh tetrahedralise(const SurfaceMesh& surface, const TetrahedraliseOptions&) {
  throw InputError((surface.source.empty() ? std::string("surface") : surface.source) +
                   ": this build of softgrad cannot fill surfaces with tetrahedra: install "
                   "Debian's libtet1.5-dev (TetGen) and rebuild, or give a tetrahedral mesh "
                   "(.msh, .node/.ele)");
}
#endif

}  // namespace softgrad
