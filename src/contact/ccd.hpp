/// @file ccd.hpp
/// Internal: continuous collision detection between mesh primitives moving on linear trajectories
/// x(t) = x0 + t dx, t in [0, 1], by additive CCD (ACCD: Li, Kaufman, Kim, Sheffer, Teran 2021,
/// "Codimensional Incremental Potential Contact", the additive CCD section).
///
/// ACCD subtracts the primitives' mean displacement (distances do not change under a common
/// translation) and bounds how fast their distance can shrink by l_p = max_i |dx_i - mean| over
/// one primitive's vertices plus the same over the other's. From a configuration at distance d
/// the distance stays above thickness + (1 - s) (d - thickness) for a time step
/// s (d - thickness) / l_p (s = conservative_rescaling), so the search advances by such steps
/// and stops before the step at whose end the distance would be below the gap
/// g = (1 - s) (d0 - thickness).
///
/// Every function returns toi in [0, 1] such that
///  - the primitives do not touch (their distance stays > thickness) along x0 + t dx, t in
///    [0, toi];
///  - the distance at x0 + toi dx is >= thickness + (1 - s) (d0 - thickness), d0 the initial
///    distance (up to the rounding of the double-precision distances; the first step, whose bound
///    the Lipschitz argument gives without a check, may land a rounding below it);
///  - toi = 1 when the primitives stay that far apart over the whole step (no contact);
///  - toi = 0 when the initial distance is <= thickness already (or within 1e-13 of the largest
///    coordinate of it, where the double-precision distance is rounding), or an input is not
///    finite;
///  - when max_iterations steps did not reach a decision, the time reached so far (conservative:
///    the first two points still hold). This happens only for primitives that slide past each
///    other at a distance small against their relative motion (about l_p / (s d) steps).
/// A call costs one distance per step (25 ns in 2D, 45 ns point-triangle, 70 ns edge-edge): a
/// head-on approach decides in a few steps (random unit-size trajectories average about 250 ns
/// a call), the default cap bounds a call to a few ms.
///
/// Arguments are pointers to 3 doubles (2 for the 2D functions): positions at t = 0 and their
/// displacements over the step.
#pragma once

namespace softgrad::collision {

/// Defaults: ACCD's s = 0.9 (the distance at toi is at least 10% of the initial gap) and an
/// iteration cap that only sliding (grazing) primitives reach.
inline constexpr double kDefaultCcdRescaling = 0.9;
inline constexpr int kDefaultCcdMaxIterations = 100'000;

/// Point p against the closed triangle (t0, t1, t2), 3D.
/// @throws InputError for thickness < 0 or not finite, conservative_rescaling outside (0, 1), or
/// max_iterations < 1 (the same for every function here).
double point_triangle_ccd(const double* p, const double* t0, const double* t1, const double* t2,
                          const double* dp, const double* dt0, const double* dt1, const double* dt2,
                          double thickness = 0.0,
                          double conservative_rescaling = kDefaultCcdRescaling,
                          int max_iterations = kDefaultCcdMaxIterations);

/// Segment (ea0, ea1) against segment (eb0, eb1), 3D (parallel segments included).
double edge_edge_ccd(const double* ea0, const double* ea1, const double* eb0, const double* eb1,
                     const double* dea0, const double* dea1, const double* deb0, const double* deb1,
                     double thickness = 0.0, double conservative_rescaling = kDefaultCcdRescaling,
                     int max_iterations = kDefaultCcdMaxIterations);

/// Point p against segment (e0, e1), 2D.
double point_edge_ccd_2d(const double* p, const double* e0, const double* e1, const double* dp,
                         const double* de0, const double* de1, double thickness = 0.0,
                         double conservative_rescaling = kDefaultCcdRescaling,
                         int max_iterations = kDefaultCcdMaxIterations);

/// Point p against segment (e0, e1), 3D.
double point_edge_ccd(const double* p, const double* e0, const double* e1, const double* dp,
                      const double* de0, const double* de1, double thickness = 0.0,
                      double conservative_rescaling = kDefaultCcdRescaling,
                      int max_iterations = kDefaultCcdMaxIterations);

/// Point p against point q in dimension dim (2 or 3).
double point_point_ccd(const double* p, const double* q, const double* dp, const double* dq,
                       int dim, double thickness = 0.0,
                       double conservative_rescaling = kDefaultCcdRescaling,
                       int max_iterations = kDefaultCcdMaxIterations);

/// The unsigned distances the CCD uses (closest-point projection in double; exposed for tests):
/// within a few 1e-16 of the largest coordinate of the exact distance, nearly parallel segments
/// and sliver triangles included (the tests compare them with exact rational ones).
double point_triangle_distance(const double* p, const double* t0, const double* t1,
                               const double* t2);
double segment_segment_distance(const double* ea0, const double* ea1, const double* eb0,
                                const double* eb1);
/// Point p to segment (e0, e1) in dimension dim (2 or 3).
double point_segment_distance(const double* p, const double* e0, const double* e1, int dim);

}  // namespace softgrad::collision
