/// @file lanes.hpp
/// Lanes<L>: L doubles that take part in every operation together, one per element, so that the
/// same code runs on one element (T = double) or on L elements at once (T = Lanes<L>).
///
/// Why: the PSD projection of an element Hessian is a chain of square roots, divisions and
/// trigonometric calls, each waiting for the one before. One element at a time, the CPU mostly
/// waits; L independent chains side by side fill the wait (and let the compiler use vector
/// instructions). Branches become select(mask, a, b), which computes both sides; code written
/// this way works for both scalar types because double has the same free functions below.
#pragma once

#include <cmath>

#include "softgrad/errors.hpp"

/// Forces inlining where a call would pass Lanes through memory (closed_form_svd.hpp's helpers):
/// GCC's own limits leave some out, and the element kernels then run ~30% slower.
#if defined(__CUDACC__)
#define SOFTGRAD_FORCE_INLINE __forceinline__
#elif defined(__GNUC__)
#define SOFTGRAD_FORCE_INLINE __attribute__((always_inline)) inline
#else
#define SOFTGRAD_FORCE_INLINE inline
#endif

namespace softgrad {

/// Lanes, their masks and their functions live in a namespace of their own: argument-dependent
/// lookup finds sqrt(Lanes) and the rest, while code in namespace softgrad that calls
/// sqrt(double) unqualified keeps finding the standard one.
namespace lanes {

#if defined(__CUDACC__)
// Device code runs one element per thread and never instantiates Lanes; declared only, so that
// host templates that mention them still parse.
template <int L>
struct Lanes;
template <int L>
struct LaneMask;
#else
// GCC's vector extension (also Clang's): arithmetic, comparisons and a ? b : c on L doubles
// compile to packed instructions, and a comparison gives a mask without a branch.

/// The vector type of L doubles (GCC drops a vector_size that depends on a template parameter).
template <int L>
struct LaneVector;
template <>
struct LaneVector<2> {
  using type = double __attribute__((vector_size(16)));
};
template <>
struct LaneVector<4> {
  using type = double __attribute__((vector_size(32)));
};
template <>
struct LaneVector<8> {
  using type = double __attribute__((vector_size(64)));
};

template <int L>
struct Lanes {
  using Vector = typename LaneVector<L>::type;
  Vector v;

  Lanes() = default;
  /// Every lane equal to x (implicit, so that constants mix with lanes as with doubles).
  Lanes(double x) : v(Vector{} + x) {}  // NOLINT(google-explicit-constructor)
  static Lanes of(const Vector& x) {
    Lanes r;
    r.v = x;
    return r;
  }
};

/// One truth value per lane (all bits set or clear): the result of comparing Lanes.
template <int L>
struct LaneMask {
  using Vector = decltype(typename Lanes<L>::Vector{} < typename Lanes<L>::Vector{});
  Vector v;
};

// Arithmetic, lane by lane.
#define SOFTGRAD_LANES_BINARY(op)                                                    \
  template <int L>                                                                   \
  SOFTGRAD_FORCE_INLINE Lanes<L> operator op(const Lanes<L>& x, const Lanes<L>& y) { \
    return Lanes<L>::of(x.v op y.v);                                                 \
  }                                                                                  \
  template <int L>                                                                   \
  SOFTGRAD_FORCE_INLINE Lanes<L> operator op(double x, const Lanes<L>& y) {          \
    return Lanes<L>::of(x op y.v);                                                   \
  }                                                                                  \
  template <int L>                                                                   \
  SOFTGRAD_FORCE_INLINE Lanes<L> operator op(const Lanes<L>& x, double y) {          \
    return Lanes<L>::of(x.v op y);                                                   \
  }
SOFTGRAD_LANES_BINARY(+)
SOFTGRAD_LANES_BINARY(-)
SOFTGRAD_LANES_BINARY(*)
SOFTGRAD_LANES_BINARY(/)
#undef SOFTGRAD_LANES_BINARY

template <int L>
SOFTGRAD_FORCE_INLINE Lanes<L> operator-(const Lanes<L>& x) {
  return Lanes<L>::of(-x.v);
}

// Comparisons give masks.
#define SOFTGRAD_LANES_COMPARE(op)                                                      \
  template <int L>                                                                      \
  SOFTGRAD_FORCE_INLINE LaneMask<L> operator op(const Lanes<L>& x, const Lanes<L>& y) { \
    return LaneMask<L>{x.v op y.v};                                                     \
  }                                                                                     \
  template <int L>                                                                      \
  SOFTGRAD_FORCE_INLINE LaneMask<L> operator op(const Lanes<L>& x, double y) {          \
    return LaneMask<L>{x.v op(typename Lanes<L>::Vector{} + y)};                        \
  }
SOFTGRAD_LANES_COMPARE(<)
SOFTGRAD_LANES_COMPARE(<=)
SOFTGRAD_LANES_COMPARE(>)
SOFTGRAD_LANES_COMPARE(>=)
#undef SOFTGRAD_LANES_COMPARE

// Masks are all bits set or clear, so the logical operations are bitwise.
template <int L>
SOFTGRAD_FORCE_INLINE LaneMask<L> operator!(const LaneMask<L>& m) {
  return LaneMask<L>{~m.v};
}
template <int L>
SOFTGRAD_FORCE_INLINE LaneMask<L> operator&&(const LaneMask<L>& a, const LaneMask<L>& b) {
  return LaneMask<L>{a.v & b.v};
}
template <int L>
SOFTGRAD_FORCE_INLINE LaneMask<L> operator||(const LaneMask<L>& a, const LaneMask<L>& b) {
  return LaneMask<L>{a.v | b.v};
}

/// m ? a : b, lane by lane (both sides are computed).
template <int L>
SOFTGRAD_FORCE_INLINE Lanes<L> select(const LaneMask<L>& m, const Lanes<L>& a, const Lanes<L>& b) {
  return Lanes<L>::of(m.v ? a.v : b.v);
}

/// Lane l of x, and of a mask.
template <int L>
SOFTGRAD_FORCE_INLINE double lane(const Lanes<L>& x, int l) {
  return x.v[l];
}
template <int L>
SOFTGRAD_FORCE_INLINE bool lane(const LaneMask<L>& m, int l) {
  return m.v[l] != 0;
}
/// Sets lane l of x.
template <int L>
SOFTGRAD_FORCE_INLINE void set_lane(Lanes<L>& x, int l, double value) {
  x.v[l] = value;
}

// Elementary functions, lane by lane.
#define SOFTGRAD_LANES_UNARY(fn)                          \
  template <int L>                                        \
  SOFTGRAD_FORCE_INLINE Lanes<L> fn(const Lanes<L>& x) {  \
    Lanes<L> z;                                           \
    for (int l = 0; l < L; ++l) z.v[l] = std::fn(x.v[l]); \
    return z;                                             \
  }
SOFTGRAD_LANES_UNARY(sqrt)
#undef SOFTGRAD_LANES_UNARY

template <int L>
SOFTGRAD_FORCE_INLINE Lanes<L> abs(const Lanes<L>& x) {
  return select(x < 0.0, -x, x);
}
template <int L>
SOFTGRAD_FORCE_INLINE Lanes<L> fmin(const Lanes<L>& x, const Lanes<L>& y) {
  return select(y < x, y, x);
}
#endif  // __CUDACC__

}  // namespace lanes

using lanes::LaneMask;
using lanes::Lanes;

/// How many elements a scalar type carries: L for Lanes<L>, 1 for double.
template <class T>
inline constexpr int kLaneCount = 1;
template <int L>
inline constexpr int kLaneCount<Lanes<L>> = L;

// The one-lane forms of select, lane and set_lane, so that generic code runs on double.
SOFTGRAD_HD inline double select(bool m, double a, double b) { return m ? a : b; }
SOFTGRAD_HD inline double lane(double x, int) { return x; }
SOFTGRAD_HD inline bool lane(bool m, int) { return m; }
SOFTGRAD_HD inline void set_lane(double& x, int, double value) { x = value; }

}  // namespace softgrad
