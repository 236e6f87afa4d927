// libsoftgrad_tetgen.so: TetGen (Debian's libtet1.5-dev, AGPL-3) behind a C interface
// (tetgen_module.hpp). It links nothing of softgrad's.
#include "tetgen_module.hpp"

#include <algorithm>
#include <cstring>
#include <new>

#define TETLIBRARY  // TetGen throws its exit code instead of calling exit()
#include <tetgen.h>

extern "C" __attribute__((visibility("default"))) void softgrad_tetgen_fill(
    const char* switches, const double* points, int n_points, const int* triangles, int n_triangles,
    SoftgradTetgenResult* result) {
  *result = SoftgradTetgenResult{nullptr, 0, nullptr, 0, 0};
  try {
    tetgenio in, out;
    in.firstnumber = 0;
    in.numberofpoints = n_points;
    in.pointlist = new REAL[static_cast<size_t>(n_points) * 3];
    std::copy(points, points + static_cast<size_t>(n_points) * 3, in.pointlist);
    in.numberoffacets = n_triangles;
    in.facetlist = new tetgenio::facet[n_triangles];
    for (int t = 0; t < n_triangles; ++t) {
      tetgenio::facet& f = in.facetlist[t];
      tetgenio::init(&f);
      f.numberofpolygons = 1;
      f.polygonlist = new tetgenio::polygon[1];
      tetgenio::init(&f.polygonlist[0]);
      f.polygonlist[0].numberofvertices = 3;
      f.polygonlist[0].vertexlist = new int[3];
      for (int k = 0; k < 3; ++k) f.polygonlist[0].vertexlist[k] = triangles[3 * t + k];
    }
    tetrahedralize(const_cast<char*>(switches), &in, &out);
    // -d (detection only): the facets found intersecting are the output's triangles.
    if (std::strchr(switches, 'd')) {
      result->code = out.numberoftrifaces > 0 ? 3 : 0;
      return;
    }
    if (out.numberoftetrahedra <= 0 || out.numberofcorners < 4) return;
    result->points = new double[static_cast<size_t>(out.numberofpoints) * 3];
    std::copy(out.pointlist, out.pointlist + static_cast<size_t>(out.numberofpoints) * 3,
              result->points);
    result->n_points = out.numberofpoints;
    result->tets = new int[static_cast<size_t>(out.numberoftetrahedra) * 4];
    for (int e = 0; e < out.numberoftetrahedra; ++e)
      for (int k = 0; k < 4; ++k)
        result->tets[4 * e + k] =
            out.tetrahedronlist[static_cast<size_t>(e) * out.numberofcorners + k];
    result->n_tets = out.numberoftetrahedra;
  } catch (int code) {
    result->code = code;
  } catch (const std::bad_alloc&) {
    result->code = 1;
  } catch (...) {
    result->code = -1;
  }
}

extern "C" __attribute__((visibility("default"))) void softgrad_tetgen_free(
    SoftgradTetgenResult* result) {
  delete[] result->points;
  delete[] result->tets;
  *result = SoftgradTetgenResult{nullptr, 0, nullptr, 0, 0};
}
