/// @file tape.hpp
/// Reverse-mode AD on a fixed-capacity tape that lives on the caller's stack.
///
/// `Var<R>` is the scalar a user's energy is evaluated with. Every operation appends one node
/// holding the indices of its (at most two) operands and the local partial derivatives; the
/// reverse sweep then accumulates adjoints from the output back to the inputs. `R` is the
/// tape's number type: `double` gives gradients; `Dual<L>` (dual.hpp) gives, in the same sweep,
/// L Hessian-vector products (forward-over-reverse), which is how element Hessians, Hessian-vector
/// products and mixed parameter derivatives are produced (derivatives.hpp).
///
/// No heap, no exceptions, no virtual calls: the code compiles for CUDA devices. Node 0 is a
/// sink: leaves and unary operations point their unused operand slots at it with a zero partial,
/// which keeps the reverse sweep branch-free. A tape that runs out of nodes keeps computing
/// correct values, marks itself `overflowed()`, and callers return NaN derivatives.
#pragma once

#include <cmath>

#include "softgrad/detail/ad/dual.hpp"

namespace softgrad::ad {

template <class R>
struct Node {
  R adj;      ///< adjoint, filled by the reverse sweep
  R da;       ///< d(this)/d(operand a) (nonlinear nodes)
  R db;       ///< d(this)/d(operand b) (nonlinear nodes)
  double ca;  ///< constant d(this)/d(operand a) (linear nodes)
  double cb;  ///< constant d(this)/d(operand b) (linear nodes)
  int a;
  int b;
  bool linear;  ///< partials are constants ca, cb: their tangents vanish
};

template <class R>
struct Var;

/// A tape over caller-provided node storage.
template <class R>
class Tape {
 public:
  SOFTGRAD_HD Tape(Node<R>* nodes, int capacity) : nodes_(nodes), capacity_(capacity) {
    nodes_[0] = Node<R>{R(0.0), R(0.0), R(0.0), 0.0, 0.0, 0, 0, true};
  }

  /// Appends a node; returns its index (0, the sink, when the tape is full).
  SOFTGRAD_HD SOFTGRAD_AD_INLINE int push(int a, const R& da, int b, const R& db) {
    if (size_ >= capacity_) {
      overflowed_ = true;
      return 0;
    }
    Node<R>& n = nodes_[size_];
    n.adj = R(0.0);
    n.da = da;
    n.db = db;
    n.a = a;
    n.b = b;
    n.linear = false;
    return size_++;
  }

  /// Appends a node whose partials are the constants ca, cb (sums, differences, scalings).
  SOFTGRAD_HD SOFTGRAD_AD_INLINE int push_linear(int a, double ca, int b, double cb) {
    if (size_ >= capacity_) {
      overflowed_ = true;
      return 0;
    }
    Node<R>& n = nodes_[size_];
    n.adj = R(0.0);
    n.ca = ca;
    n.cb = cb;
    n.a = a;
    n.b = b;
    n.linear = true;
    return size_++;
  }

  /// A new independent variable with the given value (and, for duals, tangent seeds).
  SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> input(const R& value);

  /// Sets d(output)/d(output) = 1 and propagates adjoints to every node after `stop` (pass the
  /// number of leading inputs: leaves have nothing to propagate).
  SOFTGRAD_HD SOFTGRAD_AD_INLINE void reverse(int output, int stop = 0) {
    nodes_[output].adj = R(1.0);
    for (int i = output; i > stop; --i) {
      const R adj = nodes_[i].adj;
      const int a = nodes_[i].a;
      const int b = nodes_[i].b;
      if (nodes_[i].linear) {
        const double ca = nodes_[i].ca;
        const double cb = nodes_[i].cb;
        R& adj_a = nodes_[a].adj;
        adj_a = adj_a + ca * adj;
        if (b != 0) {
          R& adj_b = nodes_[b].adj;
          adj_b = adj_b + cb * adj;
        }
      } else {
        const R da = nodes_[i].da;
        accumulate(nodes_[a].adj, da, adj);
        if (b != 0) {
          const R db = nodes_[i].db;
          accumulate(nodes_[b].adj, db, adj);
        }
      }
    }
  }

  /// d(output)/d(node idx) after reverse(); includes the tangent part for duals.
  SOFTGRAD_HD SOFTGRAD_AD_INLINE const R& adjoint(int idx) const { return nodes_[idx].adj; }
  SOFTGRAD_HD SOFTGRAD_AD_INLINE bool overflowed() const { return overflowed_; }
  SOFTGRAD_HD SOFTGRAD_AD_INLINE int size() const { return size_; }

 private:
  Node<R>* nodes_;
  int capacity_;
  int size_ = 1;
  bool overflowed_ = false;
};

/// An AD scalar. A Var built from a double is a constant: it belongs to no tape.
template <class R>
struct Var {
  R val;
  int idx = 0;
  Tape<R>* tape = nullptr;

  Var() = default;
  SOFTGRAD_HD SOFTGRAD_AD_INLINE Var(double c)
      : val(c) {}  // NOLINT: implicit so that T(0.5) and 2.0 * x work
  SOFTGRAD_HD SOFTGRAD_AD_INLINE Var(const R& v, int i, Tape<R>* t) : val(v), idx(i), tape(t) {}
};

template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> Tape<R>::input(const R& value) {
  return Var<R>(value, push(0, R(0.0), 0, R(0.0)), this);
}

/// The plain double value of any scalar softgrad evaluates energies with.
SOFTGRAD_HD SOFTGRAD_AD_INLINE double value_of(double x) { return x; }
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE double value_of(const Var<R>& x) {
  return primal(x.val);
}

namespace detail {
/// Records a unary result; constants stay off the tape.
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> unary(const Var<R>& x, const R& val, const R& dx) {
  if (!x.tape) return Var<R>(val, 0, nullptr);
  return Var<R>(val, x.tape->push(x.idx, dx, 0, R(0.0)), x.tape);
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> binary(const Var<R>& x, const Var<R>& y, const R& val,
                                             const R& dx, const R& dy) {
  Tape<R>* t = x.tape ? x.tape : y.tape;
  if (!t) return Var<R>(val, 0, nullptr);
  return Var<R>(val, t->push(x.idx, dx, y.idx, dy), t);
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> unary_linear(const Var<R>& x, const R& val, double dx) {
  if (!x.tape) return Var<R>(val, 0, nullptr);
  return Var<R>(val, x.tape->push_linear(x.idx, dx, 0, 0.0), x.tape);
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> binary_linear(const Var<R>& x, const Var<R>& y, const R& val,
                                                    double dx, double dy) {
  Tape<R>* t = x.tape ? x.tape : y.tape;
  if (!t) return Var<R>(val, 0, nullptr);
  return Var<R>(val, t->push_linear(x.idx, dx, y.idx, dy), t);
}
}  // namespace detail

template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> operator+(const Var<R>& x, const Var<R>& y) {
  return detail::binary_linear(x, y, x.val + y.val, 1.0, 1.0);
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> operator-(const Var<R>& x, const Var<R>& y) {
  return detail::binary_linear(x, y, x.val - y.val, 1.0, -1.0);
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> operator*(const Var<R>& x, const Var<R>& y) {
  return detail::binary(x, y, x.val * y.val, y.val, x.val);
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> operator/(const Var<R>& x, const Var<R>& y) {
  const R inv = R(1.0) / y.val;
  const R q = x.val * inv;
  return detail::binary(x, y, q, inv, -(q * inv));
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> operator-(const Var<R>& x) {
  return detail::unary_linear(x, -x.val, -1.0);
}

// Mixed with plain doubles: the constant never becomes a node.
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> operator+(const Var<R>& x, double c) {
  return detail::unary_linear(x, x.val + R(c), 1.0);
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> operator+(double c, const Var<R>& x) {
  return x + c;
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> operator-(const Var<R>& x, double c) {
  return detail::unary_linear(x, x.val - R(c), 1.0);
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> operator-(double c, const Var<R>& x) {
  return detail::unary_linear(x, R(c) - x.val, -1.0);
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> operator*(const Var<R>& x, double c) {
  return detail::unary_linear(x, c * x.val, c);
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> operator*(double c, const Var<R>& x) {
  return x * c;
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> operator/(const Var<R>& x, double c) {
  return x * (1.0 / c);
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> operator/(double c, const Var<R>& y) {
  const R inv = R(1.0) / y.val;
  const R q = c * inv;
  return detail::unary(y, q, -(q * inv));
}

template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R>& operator+=(Var<R>& x, const Var<R>& y) {
  return x = x + y;
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R>& operator-=(Var<R>& x, const Var<R>& y) {
  return x = x - y;
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R>& operator*=(Var<R>& x, const Var<R>& y) {
  return x = x * y;
}

// Elementary functions. Call them unqualified after `using std::log;` etc. so that the same
// material code works for double and Var.
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> log(const Var<R>& x) {
  using std::log;
  return detail::unary(x, log(x.val), R(1.0) / x.val);
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> exp(const Var<R>& x) {
  using std::exp;
  const R e = exp(x.val);
  return detail::unary(x, e, e);
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> sqrt(const Var<R>& x) {
  using std::sqrt;
  const R s = sqrt(x.val);
  return detail::unary(x, s, R(0.5) / s);
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> sin(const Var<R>& x) {
  using std::cos;
  using std::sin;
  return detail::unary(x, sin(x.val), cos(x.val));
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> cos(const Var<R>& x) {
  using std::cos;
  using std::sin;
  return detail::unary(x, cos(x.val), -sin(x.val));
}
/// x^e for a constant exponent.
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> pow(const Var<R>& x, double e) {
  using std::pow;
  const R p = pow(x.val, e - 1.0);
  return detail::unary(x, p * x.val, e * p);
}

/// The angle of the point (x, y), in (-pi, pi].
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Var<R> atan2(const Var<R>& y, const Var<R>& x) {
  using std::atan2;
  const R inv = R(1.0) / (x.val * x.val + y.val * y.val);
  return detail::binary(y, x, atan2(y.val, x.val), x.val * inv, -(y.val * inv));
}

// Comparisons look at values only (for branches such as "if (J <= 0)").
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator<(const Var<R>& x, const Var<R>& y) {
  return value_of(x) < value_of(y);
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator>(const Var<R>& x, const Var<R>& y) {
  return value_of(x) > value_of(y);
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator<=(const Var<R>& x, const Var<R>& y) {
  return value_of(x) <= value_of(y);
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator>=(const Var<R>& x, const Var<R>& y) {
  return value_of(x) >= value_of(y);
}

template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator<(const Var<R>& x, double c) {
  return value_of(x) < c;
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator>(const Var<R>& x, double c) {
  return value_of(x) > c;
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator<=(const Var<R>& x, double c) {
  return value_of(x) <= c;
}
template <class R>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator>=(const Var<R>& x, double c) {
  return value_of(x) >= c;
}

}  // namespace softgrad::ad

namespace softgrad {
using ad::value_of;
}  // namespace softgrad
