// Mesh contact's pairs: the narrow phase over the broad phase's candidates, the lagged
// friction pairs of a step, adaptive stiffness, and the step limit (continuous collision
// detection along the line search's segment, swept in pieces when long).
#include <algorithm>
#include <cmath>
#include <limits>

#include "ccd.hpp"
#include "contact_parameters.hpp"
#include "mesh_contact_term.hpp"

namespace softgrad {

template <int d>
const Eigen::VectorXd& MeshContactTerm<d>::points(Eigen::VectorXd& buffer,
                                                  const Eigen::VectorXd& x) const {
  if (surface_.rigid_points.empty()) return x;
  surface_points(surface_, x, buffer);
  return buffer;
}

template <int d>
bool MeshContactTerm<d>::narrow_phase(const collision::Candidate& c, const Eigen::VectorXd& x,
                                      Pair& pair, bool& touching) const {
  using Kind = collision::Candidate::Kind;
  using GeometryKind = detail::PairGeometry::Kind;
  const CollisionSurface& s = surface_;
  pair.geometry = {};
  if constexpr (d == 3) {
    if (c.kind == Kind::PointTriangle) {
      pair.v = {s.vertices[c.a], s.faces[c.b][0], s.faces[c.b][1], s.faces[c.b][2]};
      pair.geometry.kind = GeometryKind::PointTriangle;
    } else {
      pair.v = {s.edges[c.a][0], s.edges[c.a][1], s.edges[c.b][0], s.edges[c.b][1]};
      pair.geometry.kind = GeometryKind::EdgeEdge;
      pair.geometry.eps_x = 1e-3 * edge_rest_sq_[c.a] * edge_rest_sq_[c.b];
    }
  } else {
    pair.v[0] = s.vertices[c.a];
    pair.v[1] = s.edges[c.b][0];
    pair.v[2] = s.edges[c.b][1];
    pair.geometry.kind = GeometryKind::PointEdge;
  }
  double xs[kN];
  gather(pair, x.data(), xs);
  if constexpr (d == 3) {
    if (c.kind == Kind::PointTriangle)
      pair.geometry.type =
          static_cast<int>(collision::point_triangle_type(xs, xs + 3, xs + 6, xs + 9));
    else
      pair.geometry.type = static_cast<int>(collision::edge_edge_type(xs, xs + 3, xs + 6, xs + 9));
  } else {
    pair.geometry.type = static_cast<int>(collision::point_edge_type(xs, xs + 2, xs + 4, 2));
  }
  const double dsq = detail::pair_distance_sq<d>(pair.geometry, static_cast<const double*>(xs));
  touching = !(dsq > 0.0);
  const double dhat = options_.activation_distance;
  return dsq < dhat * dhat;
}

namespace {

// Whether x = x0 + alpha dx for some alpha in [0, 1], up to the rounding of forming it.
bool on_segment(const Eigen::VectorXd& x0, const Eigen::VectorXd& dx, const Eigen::VectorXd& x) {
  if (x0.size() != x.size() || dx.size() != x.size()) return false;
  const double dd = dx.squaredNorm();
  if (!(dd > 0.0)) return false;
  const double alpha = (x - x0).dot(dx) / dd;
  if (!(alpha >= -1e-12 && alpha <= 1.0 + 1e-12)) return false;
  constexpr double eps = std::numeric_limits<double>::epsilon();
  for (Eigen::Index i = 0; i < x.size(); ++i)
    if (std::abs(x[i] - x0[i] - alpha * dx[i]) >
        8.0 * eps * (std::abs(x0[i]) + std::abs(alpha * dx[i])) + 1e-300)
      return false;
  return true;
}

}  // namespace

template <int d>
bool MeshContactTerm<d>::update_pairs(Data& data, const Eigen::VectorXd& x) const {
  if (data.valid && data.x_key.size() == x.size() && data.x_key == x) return data.feasible;
  const bool swept = on_segment(data.sweep_x0, data.sweep_dx, x);
  if (!swept)
    data.broad.find(surface_, options_.self_contact, points(data.y, x), nullptr,
                    options_.activation_distance, data.candidates);
  data.pairs.clear();
  data.feasible = true;
  for (const auto& c : swept ? data.sweep_candidates : data.candidates) {
    Pair pair;
    bool touching = false;
    if (narrow_phase(c, x, pair, touching)) data.pairs.push_back(pair);
    if (touching) data.feasible = false;
  }
  data.x_key = x;
  data.valid = true;
  data.H_state = -1;
  return data.feasible;
}

template <int d>
std::vector<typename MeshContactTerm<d>::PairReport> MeshContactTerm<d>::pairs(
    TermData& data, const Eigen::VectorXd& x) const {
  Data& m = own(data);
  update_pairs(m, x);
  std::vector<PairReport> out;
  for (const Pair& p : m.pairs) out.push_back({p.v, distance(p, x)});
  return out;
}

template <int d>
double MeshContactTerm<d>::distance(const Pair& p, const Eigen::VectorXd& x) const {
  double xs[kN];
  gather(p, x.data(), xs);
  const double dsq = detail::pair_distance_sq<d>(p.geometry, static_cast<const double*>(xs));
  return std::sqrt(std::max(dsq, 0.0));
}

template <int d>
void MeshContactTerm<d>::begin_step(TermData& data) const {
  Data& m = own(data);
  m.valid = false;  // new parameters
  m.H_state = -1;
  m.kappa[0] = data.parameters[0] * stiffness_scale(data);
  m.friction.clear();
  m.xn.clear();
  if (!detail::contact_friction_active(data) || data.step.x_prev == nullptr) return;
  const Eigen::VectorXd& xn = *data.step.x_prev;
  m.broad.find(surface_, options_.self_contact, points(m.y, xn), nullptr,
               options_.activation_distance, m.candidates);
  for (const auto& c : m.candidates) {
    Pair pair;
    bool touching = false;
    if (!narrow_phase(c, xn, pair, touching) || touching) continue;
    m.friction.push_back(pair);
    m.xn.resize(m.xn.size() + kN);
    gather(pair, xn.data(), m.xn.data() + m.xn.size() - kN);
  }
}

template <int d>
void MeshContactTerm<d>::initial_adaptive(double* a) const {
  a[0] = 1.0;
  a[1] = options_.activation_distance;  // no pair closer
}

template <int d>
void MeshContactTerm<d>::update_adaptive(TermData& data, const Eigen::VectorXd& x,
                                         double* a) const {
  Data& m = own(data);
  update_pairs(m, x);
  double gap = options_.activation_distance;
  for (const Pair& pair : m.pairs) gap = std::min(gap, distance(pair, x));
  // IPC: the barrier struggles to hold the bodies apart when the closest gap stays below
  // min_gap and keeps closing; a stiffer barrier holds them at a wider gap.
  const double min_gap =
      options_.min_gap > 0.0 ? options_.min_gap : 1e-3 * options_.activation_distance;
  if (gap < min_gap && a[1] < min_gap && gap < a[1])
    a[0] = std::min(2.0 * a[0], options_.max_stiffness_scale);
  a[1] = gap;
}

template <int d>
double MeshContactTerm<d>::first_impact(const Eigen::VectorXd& y, const Eigen::VectorXd& dy,
                                        const std::vector<collision::Candidate>& candidates) const {
  using Kind = collision::Candidate::Kind;
  const CollisionSurface& s = surface_;
  double t = 1.0;
  for (const auto& c : candidates) {
    const auto p = [&](int v) { return y.data() + v * d; };
    const auto dp = [&](int v) { return dy.data() + v * d; };
    if (c.kind == Kind::PointTriangle) {
      const int v = s.vertices[c.a];
      const auto& f = s.faces[c.b];
      t = std::min(t, collision::point_triangle_ccd(p(v), p(f[0]), p(f[1]), p(f[2]), dp(v),
                                                    dp(f[0]), dp(f[1]), dp(f[2])));
    } else if (c.kind == Kind::EdgeEdge) {
      const auto& a = s.edges[c.a];
      const auto& b = s.edges[c.b];
      t = std::min(t, collision::edge_edge_ccd(p(a[0]), p(a[1]), p(b[0]), p(b[1]), dp(a[0]),
                                               dp(a[1]), dp(b[0]), dp(b[1])));
    } else {
      const int v = s.vertices[c.a];
      const auto& e = s.edges[c.b];
      t = std::min(t,
                   collision::point_edge_ccd_2d(p(v), p(e[0]), p(e[1]), dp(v), dp(e[0]), dp(e[1])));
    }
  }
  return t;
}

template <int d>
double MeshContactTerm<d>::max_step(const TermData& data, const Eigen::VectorXd& x,
                                    const Eigen::VectorXd& dx) const {
  const Data& m = static_cast<const Data&>(data);
  m.sweep_x0.resize(0);  // no segment until this one's candidates are complete
  const Eigen::VectorXd& y = points(m.y, x);
  const Eigen::VectorXd& dy = points(m.dy, dx);
  // A sweep's boxes grow with the motion: one that crosses many cells meets most of the
  // surface (a throw at 200 m/s took 68 s for 2 steps). A long motion is swept in pieces of at
  // most sweep_reach_, in order, up to the first impact; beyond kMaxSweepPieces pieces the
  // step is bounded where the last one ends (the line search then takes a shorter step).
  double reach_sq = 0.0;  // the longest motion of a surface point
  for (Eigen::Index i = 0; i + d <= dy.size(); i += d)
    reach_sq = std::max(reach_sq, dy.template segment<d>(i).squaredNorm());
  const double reach = std::sqrt(reach_sq);
  const int pieces = !(reach > sweep_reach_) ? 1
                     : reach > kMaxSweepPieces * sweep_reach_
                         ? kMaxSweepPieces
                         : static_cast<int>(std::ceil(reach / sweep_reach_));
  const double piece = pieces == 1 ? 1.0 : std::min(sweep_reach_ / reach, 1.0 / pieces);
  if (pieces == 1) {
    m.broad.find(surface_, options_.self_contact, y, &dy, options_.activation_distance,
                 m.sweep_candidates);
    m.sweep_x0 = x;
    m.sweep_dx = dx;
    return first_impact(y, dy, m.sweep_candidates);
  }
  // The line search tries points up to the returned bound only: the swept candidates of the
  // pieces up to it cover them.
  m.sweep_candidates.clear();
  m.piece_y.resize(y.size());
  m.piece_dy = piece * dy;
  double t = 1.0, end = 0.0;
  for (int k = 0; k < pieces; ++k) {
    m.piece_y = y + (k * piece) * dy;
    m.broad.find(surface_, options_.self_contact, m.piece_y, &m.piece_dy,
                 options_.activation_distance, m.piece_candidates);
    m.sweep_candidates.insert(m.sweep_candidates.end(), m.piece_candidates.begin(),
                              m.piece_candidates.end());
    const bool last = k + 1 == pieces;
    end =
        last && pieces * piece >= 1.0 - 1e-12 ? 1.0 : (k + 1) * piece;  // (no round-off short of 1)
    const double hit = first_impact(m.piece_y, m.piece_dy, m.piece_candidates);
    if (hit < 1.0) {
      t = (k + hit) * piece;
      break;
    }
    t = end;
  }
  std::sort(m.sweep_candidates.begin(), m.sweep_candidates.end());
  m.sweep_candidates.erase(std::unique(m.sweep_candidates.begin(), m.sweep_candidates.end()),
                           m.sweep_candidates.end());
  m.sweep_x0 = x;
  m.sweep_dx = end * dx;
  return std::min(t, 1.0);
}

// The members defined here, for both dimensions (the class is instantiated whole in
// mesh_contact_term.cpp, which defines the rest).
#define SOFTGRAD_MESH_CONTACT_PAIRS(d)                                                             \
  template const Eigen::VectorXd& MeshContactTerm<d>::points(Eigen::VectorXd&,                     \
                                                             const Eigen::VectorXd&) const;        \
  template bool MeshContactTerm<d>::narrow_phase(const collision::Candidate&,                      \
                                                 const Eigen::VectorXd&, Pair&, bool&) const;      \
  template bool MeshContactTerm<d>::update_pairs(Data&, const Eigen::VectorXd&) const;             \
  template std::vector<MeshContactTerm<d>::PairReport> MeshContactTerm<d>::pairs(                  \
      TermData&, const Eigen::VectorXd&) const;                                                    \
  template double MeshContactTerm<d>::distance(const Pair&, const Eigen::VectorXd&) const;         \
  template void MeshContactTerm<d>::begin_step(TermData&) const;                                   \
  template void MeshContactTerm<d>::initial_adaptive(double*) const;                               \
  template void MeshContactTerm<d>::update_adaptive(TermData&, const Eigen::VectorXd&, double*)    \
      const;                                                                                       \
  template double MeshContactTerm<d>::first_impact(const Eigen::VectorXd&, const Eigen::VectorXd&, \
                                                   const std::vector<collision::Candidate>&)       \
      const;                                                                                       \
  template double MeshContactTerm<d>::max_step(const TermData&, const Eigen::VectorXd&,            \
                                               const Eigen::VectorXd&) const;
SOFTGRAD_MESH_CONTACT_PAIRS(2)
SOFTGRAD_MESH_CONTACT_PAIRS(3)
#undef SOFTGRAD_MESH_CONTACT_PAIRS

}  // namespace softgrad
