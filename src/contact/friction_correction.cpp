// Lagged friction's direction correction (ContactTerm::correct_direction).
#include <cmath>

#include "contact_term.hpp"

namespace softgrad {
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

template <int d>
bool ContactTerm<d>::correct_direction(const TermData& data, const Eigen::VectorXd& x,
                                       const Eigen::VectorXd& g, Eigen::VectorXd& dx) const {
  if (!friction_active(data)) return false;
  const double eps = options_.friction_velocity * data.step.dt;
  const double dhat = options_.activation_distance;
  const double stiffness_k = data.parameters[0], mu = data.parameters[1];
  const Eigen::VectorXd& x_prev = *data.step.x_prev;
  const std::vector<char>& near_at_start = static_cast<const ContactData&>(data).near_at_start;
  const std::vector<int>& verts = this->stencil_vertices();
  bool changed = false;
  for (size_t k = 0; k < verts.size(); ++k) {
    if (!near_at_start[k]) continue;
    const int v = verts[k] * d;
    for (const auto& obstacle : options_.obstacles) {
      const Obstacle& ob = *obstacle;
      // The friction's own tangent plane and normal force: from x^n (VertexEnergy).
      const double dn = ob.distance(x_prev.data() + v, d);
      if (!(dn < dhat)) continue;
      double n[3], rn = 0.0, dxn = 0.0;
      ob.normal(x_prev.data() + v, d, n);
      for (int i = 0; i < d; ++i) {
        rn += (x[v + i] - x_prev[v + i]) * n[i];
        dxn += dx[v + i] * n[i];
      }
      double u[3], du[3];  // the tangential parts of x - x^n and dx
      for (int i = 0; i < d; ++i) {
        u[i] = x[v + i] - x_prev[v + i] - rn * n[i];
        du[i] = dx[v + i] - dxn * n[i];
      }
      if (d == 2) {
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
        const double F = mu * detail::lagged_normal_force(stiffness_k, dn, dhat, is_barrier_);
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
      for (int i = 0; i < d; ++i) {
        uu += u[i] * u[i];
        u_next += (u[i] + du[i]) * (u[i] + du[i]);
        u_dot_next += u[i] * (u[i] + du[i]);
      }
      if (uu >= eps * eps && u_dot_next < 0.0 && u_next > eps * eps) {
        for (int i = 0; i < d; ++i) dx[v + i] -= du[i] + u[i];
        changed = true;
      }
    }
  }
  return changed;
}

template bool ContactTerm<2>::correct_direction(const TermData&, const Eigen::VectorXd&,
                                                const Eigen::VectorXd&, Eigen::VectorXd&) const;
template bool ContactTerm<3>::correct_direction(const TermData&, const Eigen::VectorXd&,
                                                const Eigen::VectorXd&, Eigen::VectorXd&) const;

}  // namespace softgrad
