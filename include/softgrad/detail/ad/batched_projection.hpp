/// @file batched_projection.hpp
/// The PSD projection of eight 3D invariant-form density Hessians per call, on the widest vector
/// instructions the CPU has. The frame (closed-form SVD and singular-frame blocks, a chain of
/// square roots and divisions) runs on eight lanes with AVX-512, two groups of four with AVX2 or
/// four groups of two with SSE2 (isotropic_projection.hpp's invariant_frame on Lanes), then each
/// element's negative modes are removed. Compiled once (src/ad/batched_projection.cpp), for
/// every material, and chosen at run time, so the build stays generic x86-64. Every kernel does
/// the same operations on each element without fused multiply-adds, so all give the same bits,
/// which are those of the one-element path (project_invariant_hessian on double).
#pragma once

namespace softgrad::ad {

/// Elements per call.
inline constexpr int kProjectionBatch = 8;

/// The inputs of eight elements, element k in lane k of each array: F, C = F^T F, J = det F and
/// the invariant derivatives dpsi (3) and d2psi (3 x 3, row-major) of invariants.hpp. A[k] is
/// element k's d^2 psi / dF^2 (9 x 9, row-major), projected in place; a null A[k] marks a lane
/// whose inputs are a stand-in (any finite F with C, J and derivatives to match).
struct alignas(64) ProjectionBatch {
  double F[9][kProjectionBatch];
  double C[9][kProjectionBatch];
  double J[kProjectionBatch];
  double dpsi[3][kProjectionBatch];
  double d2psi[9][kProjectionBatch];
  double* A[kProjectionBatch];
};

/// The instruction sets a batch can be projected with.
enum class ProjectionKernel { Sse2, Avx2, Avx512 };

/// The kernel's name: "sse2", "avx2" or "avx512".
const char* projection_kernel_name(ProjectionKernel kernel);

/// True if this CPU (and its operating system) runs the kernel.
bool projection_kernel_available(ProjectionKernel kernel);

/// The widest available kernel: the one project_invariant_batch uses.
ProjectionKernel best_projection_kernel();

/// Each non-null A[k] <- its PSD projection, in the entries chain_hessian reads
/// (ProjectedEntries::ChainBlocks): a positive definite one is left as it is, bit for bit.
void project_invariant_batch(const ProjectionBatch& batch);

/// The same with the given kernel. @pre projection_kernel_available(kernel)
void project_invariant_batch(ProjectionKernel kernel, const ProjectionBatch& batch);

}  // namespace softgrad::ad
