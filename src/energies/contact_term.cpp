#include "contact_term.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <limits>
#include <sstream>

#include "softgrad/ad/derivatives.hpp"
#include "softgrad/assembly.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/parallel.hpp"

namespace softgrad {
namespace {

constexpr int kTape = 1024;  // AD nodes per vertex evaluation (several obstacles)

/// IPC barrier b(d) = -(d - dhat)^2 log(d / dhat) on (0, dhat), and its derivative.
template <class T>
T barrier(const T& d, double dhat) {
  using std::log;
  return -(d - dhat) * (d - dhat) * log(d / dhat);
}
template <class T>
T barrier_derivative(const T& d, double dhat) {
  using std::log;
  return -2.0 * (d - dhat) * log(d / dhat) - (d - dhat) * (d - dhat) / d;
}

/// The penalty k/2 d^2 for d <= -delta, made C2 by a cubic band up to d = +delta (Newton
/// converges quadratically through contact changes instead of cycling at the kink):
///   W = k/2 d^2 + k delta^2 / 6  (d <= -delta),   k (delta - d)^3 / (12 delta)  (|d| < delta).
template <class T>
T penalty(const T& d, double delta) {
  if (ad::value_of(d) <= -delta) return 0.5 * d * d + delta * delta / 6.0;
  const T r = delta - d;
  return r * r * r / (12.0 * delta);
}
/// -dW/dd / k: the normal force per unit stiffness.
template <class T>
T penalty_force(const T& d, double delta) {
  if (ad::value_of(d) <= -delta) return -d;
  const T r = delta - d;
  return r * r / (4.0 * delta);
}

/// Lagged friction's normal force at distance dn (from x^n): the contact force magnitude there.
template <class P>
P lagged_normal_force(const P& k, const P& dn, double dhat, bool is_barrier) {
  return is_barrier ? P(-(k * barrier_derivative(dn, dhat))) : P(k * penalty_force(dn, dhat));
}

/// IPC's smoothed |u| as a function of s = |u|^2: y for y >= eps, a cubic with matching value
/// and slope below (zero slope at 0: sticking).
template <class T>
T smoothed_norm(const T& s, double eps) {
  using std::sqrt;
  if (ad::value_of(s) <= 0.0) return eps / 3.0 + s / eps;  // the cubic's y^3 term vanishes
  const T y = sqrt(s);
  if (ad::value_of(y) >= eps) return y;
  return -(s * y) / (3.0 * eps * eps) + s / eps + eps / 3.0;
}

}  // namespace

struct ContactTerm::VertexEnergy {
  const ContactOptions* o;
  int dim;
  /// Friction smoothing eps_v dt; 0: no friction.
  double eps;
  /// The model, compared once here rather than in every vertex evaluation.
  bool is_barrier = o->model == "barrier";

  template <class T, class P>
  T operator()(const T* x, const P* p) const {
    const double dhat = o->activation_distance;
    const P& k = p[dim];
    const P& mu = p[dim + 1];
    T e = T(0.0);
    for (const Obstacle& ob : o->obstacles) {
      const T d = ob.distance(x, dim);
      if (ad::value_of(d) < dhat) e = e + k * (is_barrier ? barrier(d, dhat) : penalty(d, dhat));
      if (eps <= 0.0) continue;
      // Lagged friction: normal force and tangent plane from the step's start x^n = p[0..dim).
      const P dn = ob.distance(p, dim);
      if (!(ad::value_of(dn) < dhat)) continue;
      const P lambda = lagged_normal_force(k, dn, dhat, is_barrier);
      P n[3];
      ob.unit_normal(p, dim, n);
      T r[3];
      T rn = T(0.0);
      for (int i = 0; i < dim; ++i) {
        r[i] = x[i] - p[i];
        rn = rn + r[i] * n[i];
      }
      T s = T(0.0);
      for (int i = 0; i < dim; ++i) {
        const T u = r[i] - rn * n[i];
        s = s + u * u;
      }
      e = e + mu * lambda * smoothed_norm(s, eps);
    }
    return e;
  }

  /// The energy, its gradient and (if H is given) its Hessian (row-major dim x dim) in closed
  /// form, for the penalty model against half-spaces only (the creatures' ground): the AD's
  /// numbers at a fraction of the cost. Tests compare the two.
  void derivatives(const double* x, const double* p, double& e, double* g, double* H) const {
    const double dhat = o->activation_distance;
    const double k = p[dim], mu = p[dim + 1];
    e = 0.0;
    for (int i = 0; i < dim; ++i) g[i] = 0.0;
    if (H)
      for (int i = 0; i < dim * dim; ++i) H[i] = 0.0;
    for (const Obstacle& ob : o->obstacles) {
      double n[3];
      ob.unit_normal(x, dim, n);  // constant for a half-space
      const double d = ob.distance(x, dim);
      if (d < dhat) {
        // W = k penalty(d); W' = -k penalty_force(d) and W'' along the normal.
        const double w1 = -penalty_force(d, dhat);
        const double w2 = d <= -dhat ? 1.0 : (dhat - d) / (2.0 * dhat);
        e += k * penalty(d, dhat);
        for (int i = 0; i < dim; ++i) g[i] += k * w1 * n[i];
        if (H)
          for (int i = 0; i < dim; ++i)
            for (int j = 0; j < dim; ++j) H[i * dim + j] += k * w2 * n[i] * n[j];
      }
      if (eps <= 0.0) continue;
      const double dn = ob.distance(p, dim);
      if (!(dn < dhat)) continue;
      const double lambda = k * penalty_force(dn, dhat);
      // Friction mu lambda f(s), s = |u|^2, u = the tangential part of x - x^n.
      double u[3], rn = 0.0;
      for (int i = 0; i < dim; ++i) rn += (x[i] - p[i]) * n[i];
      double s = 0.0;
      for (int i = 0; i < dim; ++i) {
        u[i] = x[i] - p[i] - rn * n[i];
        s += u[i] * u[i];
      }
      double f1 = 1.0 / eps, f2 = 0.0;  // df/ds and d2f/ds2 of f = smoothed_norm (s <= 0)
      if (s > 0.0) {
        const double y = std::sqrt(s);
        if (y >= eps) {
          f1 = 0.5 / y, f2 = -0.25 / (s * y);
        } else {
          f1 = -y / (2.0 * eps * eps) + 1.0 / eps, f2 = -0.25 / (eps * eps * y);
        }
      }
      const double c = mu * lambda;
      e += c * smoothed_norm(s, eps);
      for (int i = 0; i < dim; ++i) g[i] += c * f1 * 2.0 * u[i];
      if (H)  // ds/dx = 2u, d2s/dx2 = 2 (I - n n^T)
        for (int i = 0; i < dim; ++i)
          for (int j = 0; j < dim; ++j)
            H[i * dim + j] +=
                c * (4.0 * f2 * u[i] * u[j] + 2.0 * f1 * ((i == j ? 1.0 : 0.0) - n[i] * n[j]));
    }
  }
};

ContactTerm::ContactTerm(const Model& model, ContactOptions options)
    : dim_(model.dim), options_(std::move(options)), verts_(options_.vertices) {
  closed_form_ = options_.model == "penalty";
  for (const Obstacle& ob : options_.obstacles)
    if (ob.shape != Obstacle::Shape::HalfSpace) closed_form_ = false;
  if (verts_.empty())
    for (int v = 0; v < model.n_verts; ++v) verts_.push_back(v);
  x_prev_ = model.X;
  blocks_.assign(verts_.size() * dim_ * dim_, 0.0);
}

void ContactTerm::declare_sparsity(SparsityBuilder& builder) {
  stencil_set_ = builder.add_stencils(verts_.data(), static_cast<int>(verts_.size()), 1);
}

void ContactTerm::begin_step(const StepContext& ctx) {
  dt_ = ctx.dt;
  if (ctx.x_prev) x_prev_ = *ctx.x_prev;
  // Which vertices start the step within reach of an obstacle (fixed for the step).
  const double reach = options_.activation_distance;
  near_at_start_.assign(verts_.size(), 0);
  for (size_t k = 0; k < verts_.size(); ++k)
    for (const Obstacle& ob : options_.obstacles)
      if (ob.distance(x_prev_.data() + verts_[k] * dim_, dim_) < reach) near_at_start_[k] = 1;
}

void ContactTerm::vertex_params(int k, double* p) const {
  for (int i = 0; i < dim_; ++i) p[i] = x_prev_[verts_[k] * dim_ + i];
  p[dim_] = options_.stiffness;
  p[dim_ + 1] = options_.friction;
}

bool ContactTerm::active(int k, const Eigen::VectorXd& x) const {
  if (friction_active() && near_at_start_[k]) return true;
  const double reach = options_.activation_distance;
  const double* xi = x.data() + verts_[k] * dim_;
  for (const Obstacle& ob : options_.obstacles)
    if (ob.distance(xi, dim_) < reach) return true;
  return false;
}

template <class PerVertex>
double ContactTerm::sum_active(const Eigen::VectorXd& x, const PerVertex& per_vertex) const {
  const bool is_barrier = options_.model == "barrier";
  struct Sum {
    double total = 0.0;
    bool infeasible = false;
  };
  const Sum sum = parallel_reduce(
      static_cast<int>(verts_.size()), kParallelMinElements, Sum{},
      [&](int k, Sum& acc) {
        if (!active(k, x)) return;
        const double* xi = x.data() + verts_[k] * dim_;
        if (is_barrier)
          for (const Obstacle& ob : options_.obstacles)
            if (!(ob.distance(xi, dim_) > 0.0)) acc.infeasible = true;
        double p[5];
        vertex_params(k, p);
        acc.total += per_vertex(k, xi, p);
      },
      [](Sum& total, const Sum& part) {
        total.total += part.total;
        total.infeasible = total.infeasible || part.infeasible;
      });
  return sum.infeasible ? std::numeric_limits<double>::infinity() : sum.total;
}

double ContactTerm::value(const Eigen::VectorXd& x) const {
  const VertexEnergy f{&options_, dim_, friction_active() ? options_.friction_velocity * dt_ : 0.0};
  return sum_active(x, [&](int, const double* xi, const double* p) { return f(xi, p); });
}

void ContactTerm::add_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
  value_and_gradient(x, g);
}

double ContactTerm::value_and_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
  const VertexEnergy f{&options_, dim_, friction_active() ? options_.friction_velocity * dt_ : 0.0};
  return sum_active(x, [&](int k, const double* xi, const double* p) {
    double gi[3], e = 0.0;
    if (closed_form_) {
      f.derivatives(xi, p, e, gi, nullptr);
    } else {
      const bool ok = dim_ == 2 ? ad::gradient<2, 4, kTape>(f, xi, p, e, gi)
                                : ad::gradient<3, 5, kTape>(f, xi, p, e, gi);
      SOFTGRAD_CHECK(ok, "contact: AD tape overflow (too many obstacles)");
    }
    for (int i = 0; i < dim_; ++i) g[verts_[k] * dim_ + i] += gi[i];
    return e;
  });
}

void ContactTerm::add_hessian(const Eigen::VectorXd& x, bool project, HessianAssembler& H) const {
  const VertexEnergy f{&options_, dim_, friction_active() ? options_.friction_velocity * dt_ : 0.0};
  const int n = static_cast<int>(verts_.size());
  const int b = dim_ * dim_;
  parallel_for(n, kParallelMinElements, [&](int k) {
    double* Hk = blocks_.data() + static_cast<size_t>(k) * b;
    for (int i = 0; i < b; ++i) Hk[i] = 0.0;
    if (!active(k, x)) return;
    double p[5], gi[3], e = 0.0;
    vertex_params(k, p);
    const double* xi = x.data() + verts_[k] * dim_;
    if (closed_form_) {
      f.derivatives(xi, p, e, gi, Hk);
    } else {
      const bool ok = dim_ == 2 ? ad::hessian<2, 4, kTape>(f, xi, p, e, gi, Hk)
                                : ad::hessian<3, 5, kTape>(f, xi, p, e, gi, Hk);
      SOFTGRAD_CHECK(ok, "contact: AD tape overflow (too many obstacles)");
    }
    if (project) {
      Eigen::Map<Eigen::MatrixXd> M(Hk, dim_, dim_);
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(M);
      if (eig.eigenvalues().minCoeff() < 0.0)
        M = eig.eigenvectors() * eig.eigenvalues().cwiseMax(0.0).asDiagonal() *
            eig.eigenvectors().transpose();
    }
  });
  H.add_stencils(stencil_set_, blocks_.data());
}

void ContactTerm::add_hessian_vector_product(const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                                             Eigen::VectorXd& out) const {
  const VertexEnergy f{&options_, dim_, friction_active() ? options_.friction_velocity * dt_ : 0.0};
  const int n = static_cast<int>(verts_.size());
  parallel_for(n, kParallelMinElements, [&](int k) {
    if (!active(k, x)) return;
    double p[5], hu[3];
    vertex_params(k, p);
    const double* xi = x.data() + verts_[k] * dim_;
    const double* ui = u.data() + verts_[k] * dim_;
    const bool ok = dim_ == 2 ? ad::hessian_vector_product<2, 4, kTape>(f, xi, p, ui, hu)
                              : ad::hessian_vector_product<3, 5, kTape>(f, xi, p, ui, hu);
    SOFTGRAD_CHECK(ok, "contact: AD tape overflow (too many obstacles)");
    for (int i = 0; i < dim_; ++i) out[verts_[k] * dim_ + i] += hu[i];
  });
}

void ContactTerm::add_hessian_diagonal(const Eigen::VectorXd& x, Eigen::VectorXd& d) const {
  const VertexEnergy f{&options_, dim_, friction_active() ? options_.friction_velocity * dt_ : 0.0};
  for (int k = 0; k < static_cast<int>(verts_.size()); ++k) {
    if (!active(k, x)) continue;
    double p[5], gi[3], Hk[9], e = 0.0;
    vertex_params(k, p);
    const double* xi = x.data() + verts_[k] * dim_;
    const bool ok = dim_ == 2 ? ad::hessian<2, 4, kTape>(f, xi, p, e, gi, Hk)
                              : ad::hessian<3, 5, kTape>(f, xi, p, e, gi, Hk);
    SOFTGRAD_CHECK(ok, "contact: AD tape overflow (too many obstacles)");
    for (int i = 0; i < dim_; ++i) d[verts_[k] * dim_ + i] += Hk[i * dim_ + i];
  }
}

double ContactTerm::max_step(const Eigen::VectorXd& x, const Eigen::VectorXd& dx) const {
  if (options_.model != "barrier") return 1.0;
  double t = 1.0;
  for (int v : verts_)
    for (const Obstacle& ob : options_.obstacles)
      t = std::min(t, ob.time_of_impact(x.data() + v * dim_, dx.data() + v * dim_, dim_));
  return t;
}

namespace {

/// The minimiser w of r (w - u) + k/2 (w - u)^2 + F f(|w|) over w (k > 0, F >= 0, f the
/// smoothed norm with band eps): one vertex's tangential slip in 1D, its other forces
/// linearised. Sliding candidates first, else the root of the stationarity condition's
/// quadratic inside the band (which it has: the condition is increasing in w).
double friction_minimiser_1d(double u, double r, double k, double F, double eps) {
  const double forward = u - (r + F) / k, backward = u - (r - F) / k;
  if (forward >= eps) return forward;
  if (backward <= -eps) return backward;
  // Inside the band, for w >= 0: k (w - u) + r + F (2 w / eps - w^2 / eps^2) = 0.
  const auto root = [&](double c) {  // c = r - k u <= 0: the root in [0, eps)
    const double b = k + 2.0 * F / eps;
    return -2.0 * c / (b + std::sqrt(std::max(0.0, b * b + 4.0 * F * c / (eps * eps))));
  };
  const double c = r - k * u;
  return c <= 0.0 ? root(c) : -root(-c);
}

}  // namespace

bool ContactTerm::correct_direction(const Eigen::VectorXd& x, const Eigen::VectorXd& g,
                                    Eigen::VectorXd& dx) const {
  if (!friction_active()) return false;
  const double eps = options_.friction_velocity * dt_;
  const double dhat = options_.activation_distance;
  const bool is_barrier = options_.model == "barrier";
  bool changed = false;
  for (size_t k = 0; k < verts_.size(); ++k) {
    if (!near_at_start_[k]) continue;
    const int v = verts_[k] * dim_;
    for (const Obstacle& ob : options_.obstacles) {
      // The friction's own tangent plane and normal force: from x^n (VertexEnergy).
      const double dn = ob.distance(x_prev_.data() + v, dim_);
      if (!(dn < dhat)) continue;
      double n[3], rn = 0.0, dxn = 0.0;
      ob.unit_normal(x_prev_.data() + v, dim_, n);
      for (int i = 0; i < dim_; ++i) {
        rn += (x[v + i] - x_prev_[v + i]) * n[i];
        dxn += dx[v + i] * n[i];
      }
      double u[3], du[3];  // the tangential parts of x - x^n and dx
      for (int i = 0; i < dim_; ++i) {
        u[i] = x[v + i] - x_prev_[v + i] - rn * n[i];
        du[i] = dx[v + i] - dxn * n[i];
      }
      if (dim_ == 2) {
        // One tangential dof t: replace Newton's tangential step by the exact minimiser of the
        // friction plus the other forces linearised along t, with the stiffness k that Newton's
        // own step implies (g_t = -(k + F f'') du_t). Newton's quadratic model of f is poor
        // across the knee at |u| = eps (curvature 2F/eps inside, 0 outside): a vertex whose
        // solution lies just past it was approached in halving steps, and a sliding vertex
        // overshot its slip reversal to slide the other way. Sliding on, the two steps agree;
        // inside the band they differ by at most |du| / (2 (eps - |u|)) of the step (k > 0
        // bounds |g_t| from below), which vanishes near a solution off the knee.
        const double t[2] = {-n[1], n[0]};
        const double ut = u[0] * t[0] + u[1] * t[1], dut = du[0] * t[0] + du[1] * t[1];
        if (dut == 0.0) continue;
        const double F =
            options_.friction * lagged_normal_force(options_.stiffness, dn, dhat, is_barrier);
        const double y = std::abs(ut);
        const double f1 = y >= eps ? 1.0 : y * (2.0 - y / eps) / eps;  // f'(|u|)
        const double f2 = y >= eps ? 0.0 : 2.0 * (1.0 - y / eps) / eps;
        const double gt = g[v] * t[0] + g[v + 1] * t[1];
        const double stiffness = -gt / dut - F * f2;
        if (!(stiffness > 0.0) || !(F > 0.0)) continue;
        const double r = gt - F * f1 * (ut < 0.0 ? -1.0 : 1.0);
        const double step = friction_minimiser_1d(ut, r, stiffness, F, eps) - ut;
        if (!std::isfinite(step) || step == dut) continue;
        for (int i = 0; i < 2; ++i) dx[v + i] += (step - dut) * t[i];
        changed = true;
        continue;
      }
      // 3D: a slip reversal across the band lands at zero slip (the normal part kept).
      double uu = 0.0, u_next = 0.0, u_dot_next = 0.0;
      for (int i = 0; i < dim_; ++i) {
        uu += u[i] * u[i];
        u_next += (u[i] + du[i]) * (u[i] + du[i]);
        u_dot_next += u[i] * (u[i] + du[i]);
      }
      if (uu >= eps * eps && u_dot_next < 0.0 && u_next > eps * eps) {
        for (int i = 0; i < dim_; ++i) dx[v + i] -= du[i] + u[i];
        changed = true;
      }
    }
  }
  return changed;
}

std::vector<ParameterGroup> ContactTerm::parameter_groups() const {
  return {{"stiffness", "N/m", 0, 1, ParameterGroup::Layout::Scalar, 0.0, 1e300},
          {"friction", "1", 1, 1, ParameterGroup::Layout::Scalar, 0.0, 1e300}};
}

void ContactTerm::get_parameters(double* p) const {
  p[0] = options_.stiffness;
  p[1] = options_.friction;
}

void ContactTerm::set_parameters(const double* p) {
  if (!(p[0] > 0.0) || !std::isfinite(p[0]))
    throw InputError("contact stiffness must be positive and finite, got " + std::to_string(p[0]));
  if (!(p[1] >= 0.0) || !std::isfinite(p[1]))
    throw InputError("friction coefficient must be finite and >= 0, got " + std::to_string(p[1]));
  options_.stiffness = p[0];
  options_.friction = p[1];
}

void ContactTerm::add_parameter_mixed_product(const Eigen::VectorXd& x,
                                              const Eigen::VectorXd& lambda, double* out) const {
  const VertexEnergy f{&options_, dim_, friction_active() ? options_.friction_velocity * dt_ : 0.0};
  for (int k = 0; k < static_cast<int>(verts_.size()); ++k) {
    if (!active(k, x)) continue;
    double p[5], mixed[5];
    vertex_params(k, p);
    const double* xi = x.data() + verts_[k] * dim_;
    const double* li = lambda.data() + verts_[k] * dim_;
    const bool ok = dim_ == 2
                        ? ad::parameter_derivatives<2, 4, kTape>(f, xi, p, li, nullptr, mixed)
                        : ad::parameter_derivatives<3, 5, kTape>(f, xi, p, li, nullptr, mixed);
    SOFTGRAD_CHECK(ok, "contact: AD tape overflow (too many obstacles)");
    out[0] += mixed[dim_];
    out[1] += mixed[dim_ + 1];
  }
}

void ContactTerm::add_parameter_jvp(const Eigen::VectorXd& x, const double* dp,
                                    Eigen::VectorXd& out) const {
  const VertexEnergy f{&options_, dim_, friction_active() ? options_.friction_velocity * dt_ : 0.0};
  double dir[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
  dir[dim_] = dp[0];
  dir[dim_ + 1] = dp[1];
  for (int k = 0; k < static_cast<int>(verts_.size()); ++k) {
    if (!active(k, x)) continue;
    double p[5], jvp[3];
    vertex_params(k, p);
    const double* xi = x.data() + verts_[k] * dim_;
    const bool ok = dim_ == 2
                        ? ad::gradient_parameter_jvp<2, 4, kTape>(f, xi, p, dir, nullptr, jvp)
                        : ad::gradient_parameter_jvp<3, 5, kTape>(f, xi, p, dir, nullptr, jvp);
    SOFTGRAD_CHECK(ok, "contact: AD tape overflow (too many obstacles)");
    for (int i = 0; i < dim_; ++i) out[verts_[k] * dim_ + i] += jvp[i];
  }
}

void ContactTerm::add_previous_state_mixed_product(const Eigen::VectorXd& x,
                                                   const Eigen::VectorXd& lambda,
                                                   Eigen::VectorXd& x_prev_bar,
                                                   Eigen::VectorXd&) const {
  if (!friction_active()) return;
  const VertexEnergy f{&options_, dim_, options_.friction_velocity * dt_};
  for (int k = 0; k < static_cast<int>(verts_.size()); ++k) {
    if (!active(k, x)) continue;
    double p[5], mixed[5];
    vertex_params(k, p);
    const double* xi = x.data() + verts_[k] * dim_;
    const double* li = lambda.data() + verts_[k] * dim_;
    const bool ok = dim_ == 2
                        ? ad::parameter_derivatives<2, 4, kTape>(f, xi, p, li, nullptr, mixed)
                        : ad::parameter_derivatives<3, 5, kTape>(f, xi, p, li, nullptr, mixed);
    SOFTGRAD_CHECK(ok, "contact: AD tape overflow (too many obstacles)");
    for (int i = 0; i < dim_; ++i) x_prev_bar[verts_[k] * dim_ + i] += mixed[i];
  }
}

void ContactTerm::add_previous_state_jvp(const Eigen::VectorXd& x, const Eigen::VectorXd& dx_prev,
                                         const Eigen::VectorXd&, Eigen::VectorXd& out) const {
  if (!friction_active()) return;
  const VertexEnergy f{&options_, dim_, options_.friction_velocity * dt_};
  for (int k = 0; k < static_cast<int>(verts_.size()); ++k) {
    if (!active(k, x)) continue;
    double p[5], jvp[3];
    double dir[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
    for (int i = 0; i < dim_; ++i) dir[i] = dx_prev[verts_[k] * dim_ + i];
    vertex_params(k, p);
    const double* xi = x.data() + verts_[k] * dim_;
    const bool ok = dim_ == 2
                        ? ad::gradient_parameter_jvp<2, 4, kTape>(f, xi, p, dir, nullptr, jvp)
                        : ad::gradient_parameter_jvp<3, 5, kTape>(f, xi, p, dir, nullptr, jvp);
    SOFTGRAD_CHECK(ok, "contact: AD tape overflow (too many obstacles)");
    for (int i = 0; i < dim_; ++i) out[verts_[k] * dim_ + i] += jvp[i];
  }
}

}  // namespace softgrad
