/// @file tetgen_module.hpp
/// The C interface of libsoftgrad_tetgen.so, the module that fills a closed surface with TetGen
/// (AGPL-3). It is a module of its own so that libsoftgrad links no AGPL code: tetrahedralise()
/// opens it only when a surface mesh is read.
#pragma once

extern "C" {

/// What TetGen made: `n_points` points (x, y, z each) and `n_tets` tetrahedra (four 0-based
/// point indices each), owned by the module (free with softgrad_tetgen_free). `code` is 0 on
/// success, else TetGen's error code (1 out of memory, 3 self-intersection, 4 too small a
/// feature, 5 facets too close, 10 refused input) or -1 for an unexpected failure.
struct SoftgradTetgenResult {
  double* points;
  int n_points;
  int* tets;
  int n_tets;
  int code;
};

/// Runs TetGen's tetrahedralize() with `switches` on the triangles of a surface. With "d" among
/// the switches it only checks the surface: code 3 when facets intersect, else 0 and no result.
typedef void (*SoftgradTetgenFill)(const char* switches, const double* points, int n_points,
                                   const int* triangles, int n_triangles,
                                   SoftgradTetgenResult* result);
/// Frees a result's arrays.
typedef void (*SoftgradTetgenFree)(SoftgradTetgenResult* result);
}
