/// @file psd_projection.hpp
/// Projection of a symmetric element Hessian onto the positive semi-definite cone by clamping
/// negative eigenvalues to zero, so that Newton's assembled matrix is PSD (TinyAD, Teran et al.).
/// Defined once in src/ad/psd_projection.cpp for the element sizes softgrad uses, so that the
/// eigen-solver is compiled once rather than in every material's translation unit.
#pragma once

namespace softgrad::ad {

/// Projects the row-major symmetric N x N matrix H in place, for N in {4, 6, 9, 12} (2D and 3D
/// F-space, triangles, tetrahedra). Returns true if it changed.
/// Shortcut: a matrix with non-negative diagonal that is diagonally dominant is already PSD
/// (Gershgorin), which skips the eigen-decomposition for most elements near rest.
template <int N>
bool project_psd(double* H);

extern template bool project_psd<4>(double*);
extern template bool project_psd<6>(double*);
extern template bool project_psd<9>(double*);
extern template bool project_psd<12>(double*);

}  // namespace softgrad::ad
