// The batched PSD projection of batched_projection.hpp, one kernel per instruction set.
//
// Each kernel is one function with GCC's `flatten`: every call inside it, down to the header
// templates on Lanes, is inlined and compiled for that kernel's instruction set. Nothing is left
// as a separate instantiation that another translation unit could share (an AVX-512 copy of an
// inline template chosen by the linker for generic code would fault on other CPUs). (Clang 14's
// flatten inlines only the direct calls and keeps the rest as ordinary generic copies: slower,
// but they run on any CPU; Release builds use GCC.) The file is
// compiled with -ffp-contract=off (CMakeLists.txt): fused multiply-adds would round differently
// from the SSE2 kernel and the one-element path.
#include "softgrad/detail/ad/batched_projection.hpp"

#include <cstring>

#include "softgrad/detail/ad/isotropic_projection.hpp"
#include "softgrad/errors.hpp"

namespace softgrad::ad {
namespace {

template <int W>
SOFTGRAD_FORCE_INLINE Lanes<W> load(const double* lanes) {
  Lanes<W> x;
  std::memcpy(&x.v, lanes, sizeof(x.v));
  return x;
}

// Elements first .. first + W - 1: their frame on Lanes<W>, then their modes removed.
template <int W>
SOFTGRAD_FORCE_INLINE void project_group(const ProjectionBatch& b, int first) {
  Mat<Lanes<W>, 3, 3> F, C;
  Lanes<W> dpsi[3], d2psi[9];
  for (int k = 0; k < 9; ++k) {
    F.a[k] = load<W>(&b.F[k][first]);
    C.a[k] = load<W>(&b.C[k][first]);
    d2psi[k] = load<W>(&b.d2psi[k][first]);
  }
  for (int k = 0; k < 3; ++k) dpsi[k] = load<W>(&b.dpsi[k][first]);
  const Lanes<W> J = load<W>(&b.J[first]);
  remove_negative_modes<ProjectedEntries::ChainBlocks>(invariant_frame(F, C, J, dpsi, d2psi),
                                                       b.A + first);
}

template <int W>
SOFTGRAD_FORCE_INLINE void project_groups(const ProjectionBatch& b) {
  static_assert(kProjectionBatch % W == 0);
  for (int first = 0; first < kProjectionBatch; first += W) project_group<W>(b, first);
}

__attribute__((flatten)) void project_sse2(const ProjectionBatch& b) { project_groups<2>(b); }

#if defined(__x86_64__) && defined(__GNUC__)
#define SOFTGRAD_WIDE_PROJECTION 1
__attribute__((target("avx2"), flatten)) void project_avx2(const ProjectionBatch& b) {
  project_groups<4>(b);
}
__attribute__((target("avx512f"), flatten)) void project_avx512(const ProjectionBatch& b) {
  project_groups<8>(b);
}
#else
#define SOFTGRAD_WIDE_PROJECTION 0
#endif

}  // namespace

const char* projection_kernel_name(ProjectionKernel kernel) {
  switch (kernel) {
    case ProjectionKernel::Avx512:
      return "avx512";
    case ProjectionKernel::Avx2:
      return "avx2";
    default:
      return "sse2";
  }
}

bool projection_kernel_available(ProjectionKernel kernel) {
#if SOFTGRAD_WIDE_PROJECTION
  // libgcc's checks include the operating system's support for the wider registers.
  static const bool avx2 = __builtin_cpu_supports("avx2");
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  if (kernel == ProjectionKernel::Avx512) return avx512;
  if (kernel == ProjectionKernel::Avx2) return avx2;
#else
  if (kernel != ProjectionKernel::Sse2) return false;
#endif
  return true;
}

ProjectionKernel best_projection_kernel() {
  static const ProjectionKernel best =
      projection_kernel_available(ProjectionKernel::Avx512) ? ProjectionKernel::Avx512
      : projection_kernel_available(ProjectionKernel::Avx2) ? ProjectionKernel::Avx2
                                                            : ProjectionKernel::Sse2;
  return best;
}

namespace {
using KernelFunction = void (*)(const ProjectionBatch&);

KernelFunction kernel_function(ProjectionKernel kernel) {
#if SOFTGRAD_WIDE_PROJECTION
  if (kernel == ProjectionKernel::Avx512) return project_avx512;
  if (kernel == ProjectionKernel::Avx2) return project_avx2;
#endif
  return project_sse2;
}
}  // namespace

void project_invariant_batch(ProjectionKernel kernel, const ProjectionBatch& batch) {
  SOFTGRAD_CHECK(projection_kernel_available(kernel), "projection kernel "
                                                          << projection_kernel_name(kernel)
                                                          << " is not available on this CPU");
  kernel_function(kernel)(batch);
}

void project_invariant_batch(const ProjectionBatch& batch) {
  static const KernelFunction best = kernel_function(best_projection_kernel());
  best(batch);
}

}  // namespace softgrad::ad
