#include "mesh_contact_term.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "ccd.hpp"
#include "contact_parameters.hpp"
#include "mesh_friction_energy.hpp"
#include "softgrad/detail/ad/derivatives.hpp"
#include "softgrad/detail/ad/psd_projection.hpp"
#include "softgrad/detail/assembly.hpp"
#include "softgrad/detail/parallel.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {

namespace {
constexpr int kTape = 1024;  // AD nodes per pair: the distance, mollifier and friction
}  // namespace

template <int d>
struct MeshContactTerm<d>::Data : TermData {
  mutable collision::BroadPhase broad;  // also max_step's (const) sweep
  mutable std::vector<collision::Candidate> candidates;
  Eigen::VectorXd x_key;  ///< the x of `pairs`
  bool valid = false;
  bool feasible = true;
  double kappa[1] = {0.0};     ///< this step's barrier stiffness: the parameter times the scale
  std::vector<Pair> pairs;     ///< the barrier's, at x_key
  std::vector<Pair> friction;  ///< lagged friction's, this step
  std::vector<double> xn;      ///< friction pairs' start-of-step positions (kN each)
  /// The stencils at x_key: pairs with only model vertices first, then those with rigid points.
  struct Stencil {
    const Pair* pair;
    int friction;  ///< index into `friction`, -1 for a barrier pair
  };
  std::vector<Stencil> stencils;
  int n_plain = 0;
  std::vector<double> H;          ///< per stencil Hessians by points (kN x kN), at x_key
  int H_state = -1;               ///< what H holds: -1 nothing, 0 exact, 1 projected
  std::vector<int> verts;         ///< per plain stencil its model vertices (assembly)
  std::vector<double> H_rigid;    ///< per stencil with rigid points: H on its model vertices
  std::vector<int> verts_rigid;   ///< and those vertices (kRigidNodes each)
  mutable Eigen::VectorXd y, dy;  ///< surface points and their displacements (with rigid ones)
  // The last line search's segment x0 -> x0 + dx and the candidates of its swept boxes, grown
  // by dhat: every point a line search tries on it needs only the narrow phase.
  mutable Eigen::VectorXd sweep_x0, sweep_dx;
  mutable std::vector<collision::Candidate> sweep_candidates;
  // A long sweep's piece: its start, motion and candidates.
  mutable Eigen::VectorXd piece_y, piece_dy;
  mutable std::vector<collision::Candidate> piece_candidates;
};

template <int d>
typename MeshContactTerm<d>::Data& MeshContactTerm<d>::own(TermData& data) {
  return static_cast<Data&>(data);
}

template <int d>
MeshContactTerm<d>::MeshContactTerm(const Model& model, CollisionSurface surface,
                                    MeshContactOptions options)
    : surface_(std::move(surface)), options_(std::move(options)) {
  Eigen::VectorXd rest;
  surface_points(surface_, model.X, rest);
  double lengths = 0.0;
  for (const auto& e : surface_.edges) {
    edge_rest_sq_.push_back((rest.segment(e[0] * d, d) - rest.segment(e[1] * d, d)).squaredNorm());
    lengths += std::sqrt(edge_rest_sq_.back());
  }
  if (!surface_.edges.empty())
    sweep_reach_ = kSweepEdges * lengths / static_cast<double>(surface_.edges.size()) +
                   options_.activation_distance;
}

template <int d>
std::unique_ptr<TermData> MeshContactTerm<d>::make_data() const {
  return std::make_unique<Data>();
}

template <int d>
double MeshContactTerm<d>::friction_eps(const TermData& data) const {
  return options_.friction_velocity * data.step.dt;
}

template <int d>
double MeshContactTerm<d>::stiffness_scale(const TermData& data) {
  return data.adaptive ? data.adaptive[0] : 1.0;
}

template <int d>
void MeshContactTerm<d>::friction_inputs(const Data& m, size_t k, double* q) const {
  q[0] = m.kappa[0];
  q[1] = m.parameters[1];
  std::copy_n(m.xn.data() + k * kN, kN, q + 2);
}

template <int d>
bool MeshContactTerm<d>::depends_on_previous_state(const TermData& data) const {
  return detail::contact_friction_active(data) && !static_cast<const Data&>(data).friction.empty();
}

template <int d>
void MeshContactTerm<d>::gather(const Pair& p, const double* global, double* local) const {
  int nodes[4];
  double w[4];
  for (int k = 0; k < kSize; ++k) {
    const int count = surface_.point_nodes(p.v[k], nodes, w);
    for (int i = 0; i < d; ++i) {
      double value = 0.0;
      for (int j = 0; j < count; ++j) value += w[j] * global[nodes[j] * d + i];
      local[k * d + i] = value;
    }
  }
}

template <int d>
void MeshContactTerm<d>::scatter(const Pair& p, const double* local, double* global) const {
  int nodes[4];
  double w[4];
  for (int k = 0; k < kSize; ++k) {
    const int count = surface_.point_nodes(p.v[k], nodes, w);
    for (int j = 0; j < count; ++j)
      for (int i = 0; i < d; ++i) global[nodes[j] * d + i] += w[j] * local[k * d + i];
  }
}

template <int d>
bool MeshContactTerm<d>::has_rigid_points(const Pair& p) const {
  for (int v : p.v)
    if (v >= surface_.first_rigid_point) return true;
  return false;
}

template <int d>
void MeshContactTerm<d>::expand_hessian(const Pair& p, const double* h, int* nodes,
                                        double* H) const {
  constexpr int kM = kRigidNodes * d;
  // W[k][n]: the weight of node n in point k (points are linear in the nodes).
  double W[kSize][kRigidNodes] = {};
  int n_nodes = 0;
  const auto slot = [&](int node) {
    for (int n = 0; n < n_nodes; ++n)
      if (nodes[n] == node) return n;
    nodes[n_nodes] = node;
    return n_nodes++;
  };
  for (int k = 0; k < kSize; ++k) {
    int point_nodes[4];
    double w[4];
    const int count = surface_.point_nodes(p.v[k], point_nodes, w);
    for (int j = 0; j < count; ++j) W[k][slot(point_nodes[j])] += w[j];
  }
  for (int n = n_nodes; n < kRigidNodes; ++n) nodes[n] = nodes[0];  // zero blocks
  std::fill(H, H + kM * kM, 0.0);
  for (int k = 0; k < kSize; ++k)
    for (int l = 0; l < kSize; ++l)
      for (int n = 0; n < n_nodes; ++n) {
        if (W[k][n] == 0.0) continue;
        for (int o = 0; o < n_nodes; ++o) {
          const double w = W[k][n] * W[l][o];
          if (w == 0.0) continue;
          for (int i = 0; i < d; ++i)
            for (int j = 0; j < d; ++j)
              H[(n * d + i) * kM + o * d + j] += w * h[(k * d + i) * kN + l * d + j];
        }
      }
}

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
double MeshContactTerm<d>::value(TermData& data, const Eigen::VectorXd& x) const {
  Data& m = own(data);
  if (!update_pairs(m, x)) return std::numeric_limits<double>::infinity();
  const double* p = m.kappa;
  const double dhat = options_.activation_distance;
  double e = 0.0;
  for (const Pair& pair : m.pairs) {
    double xs[kN];
    gather(pair, x.data(), xs);
    e += detail::PairBarrier<d>{pair.geometry, dhat}(static_cast<const double*>(xs), p);
  }
  for (size_t k = 0; k < m.friction.size(); ++k) {
    double xs[kN], q[kN + 2];
    gather(m.friction[k], x.data(), xs);
    friction_inputs(m, k, q);
    const detail::PairFriction<kN> f{m.friction[k].geometry, dhat, friction_eps(data)};
    e += f(static_cast<const double*>(xs), static_cast<const double*>(q));
  }
  return e;
}

template <int d>
double MeshContactTerm<d>::value_and_gradient(TermData& data, const Eigen::VectorXd& x,
                                              Eigen::VectorXd& g) const {
  Data& m = own(data);
  if (!update_pairs(m, x)) return std::numeric_limits<double>::infinity();
  const double* p = m.kappa;
  const double dhat = options_.activation_distance;
  double e = 0.0;
  for (const Pair& pair : m.pairs) {
    double xs[kN], gs[kN], es = 0.0;
    gather(pair, x.data(), xs);
    ad::gradient<kN, 1, kTape>(detail::PairBarrier<d>{pair.geometry, dhat}, xs, p, es, gs);
    e += es;
    scatter(pair, gs, g.data());
  }
  for (size_t k = 0; k < m.friction.size(); ++k) {
    double xs[kN], gs[kN], es = 0.0, q[kN + 2];
    gather(m.friction[k], x.data(), xs);
    friction_inputs(m, k, q);
    const detail::PairFriction<kN> f{m.friction[k].geometry, dhat, friction_eps(data)};
    ad::gradient<kN, kN + 2, kTape>(f, xs, q, es, gs);
    e += es;
    scatter(m.friction[k], gs, g.data());
  }
  return e;
}

template <int d>
void MeshContactTerm<d>::pair_hessians(Data& m, const Eigen::VectorXd& x, bool project) const {
  // CG's products come back to the same x: keep the Hessians of the pairs found there.
  if (m.H_state == static_cast<int>(project)) return;
  m.H_state = static_cast<int>(project);
  m.stencils.clear();
  for (const bool rigid : {false, true}) {
    for (const Pair& pair : m.pairs)
      if (has_rigid_points(pair) == rigid) m.stencils.push_back({&pair, -1});
    for (size_t k = 0; k < m.friction.size(); ++k)
      if (has_rigid_points(m.friction[k]) == rigid)
        m.stencils.push_back({&m.friction[k], static_cast<int>(k)});
    if (!rigid) m.n_plain = static_cast<int>(m.stencils.size());
  }
  const double* p = m.kappa;
  const double dhat = options_.activation_distance;
  const int n = static_cast<int>(m.stencils.size());
  const int n_rigid = n - m.n_plain;
  constexpr int kM = kRigidNodes * d;
  m.H.resize(static_cast<size_t>(n) * kN * kN);
  m.verts.resize(static_cast<size_t>(m.n_plain) * kSize);
  m.H_rigid.resize(static_cast<size_t>(n_rigid) * kM * kM);
  m.verts_rigid.resize(static_cast<size_t>(n_rigid) * kRigidNodes);
  const double eps = friction_eps(m);
  parallel_for(n, kParallelMinElements, [&](int s) {
    const auto [pair, friction] = m.stencils[s];
    double xs[kN], gs[kN], es = 0.0;
    double* h = m.H.data() + static_cast<size_t>(s) * kN * kN;
    gather(*pair, x.data(), xs);
    if (friction < 0) {
      ad::hessian<kN, 1, kTape>(detail::PairBarrier<d>{pair->geometry, dhat}, xs, p, es, gs, h);
    } else {
      double q[kN + 2];
      friction_inputs(m, static_cast<size_t>(friction), q);
      ad::hessian<kN, kN + 2, kTape>(detail::PairFriction<kN>{pair->geometry, dhat, eps}, xs, q, es,
                                     gs, h);
    }
    if (project) ad::project_psd<kN>(h);  // W^T h W is then PSD too
    if (s < m.n_plain) {
      std::copy(pair->v.begin(), pair->v.end(), m.verts.begin() + static_cast<size_t>(s) * kSize);
    } else {
      const size_t r = static_cast<size_t>(s - m.n_plain);
      expand_hessian(*pair, h, m.verts_rigid.data() + r * kRigidNodes,
                     m.H_rigid.data() + r * kM * kM);
    }
  });
}

template <int d>
void MeshContactTerm<d>::add_hessian(TermData& data, const Eigen::VectorXd& x, bool project,
                                     HessianAssembler& H) const {
  Data& m = own(data);
  update_pairs(m, x);
  pair_hessians(m, x, project);
  if (m.n_plain > 0) H.add_dynamic_stencils(m.verts.data(), m.n_plain, kSize, m.H.data());
  const int n_rigid = static_cast<int>(m.stencils.size()) - m.n_plain;
  if (n_rigid > 0)
    H.add_dynamic_stencils(m.verts_rigid.data(), n_rigid, kRigidNodes, m.H_rigid.data());
}

template <int d>
template <class PerStencil>
void MeshContactTerm<d>::for_each_hessian(Data& m, const Eigen::VectorXd& x, bool project,
                                          const PerStencil& f) const {
  update_pairs(m, x);
  pair_hessians(m, x, project);
  for (size_t s = 0; s < m.stencils.size(); ++s)
    f(static_cast<int>(s), *m.stencils[s].pair, m.H.data() + s * kN * kN);
}

template <int d>
void MeshContactTerm<d>::add_hessian_vector_product(TermData& data, const Eigen::VectorXd& x,
                                                    const Eigen::VectorXd& u,
                                                    Eigen::VectorXd& out) const {
  for_each_hessian(own(data), x, false, [&](int, const Pair& pair, const double* h) {
    double us[kN], hu[kN] = {};
    gather(pair, u.data(), us);
    for (int i = 0; i < kN; ++i)
      for (int j = 0; j < kN; ++j) hu[i] += h[i * kN + j] * us[j];
    scatter(pair, hu, out.data());
  });
}

template <int d>
void MeshContactTerm<d>::add_hessian_diagonal(TermData& data, const Eigen::VectorXd& x,
                                              Eigen::VectorXd& diag) const {
  Data& m = own(data);
  for_each_hessian(m, x, true, [&](int s, const Pair& pair, const double* h) {
    if (s < m.n_plain) {
      double hd[kN];
      for (int i = 0; i < kN; ++i) hd[i] = h[i * kN + i];
      scatter(pair, hd, diag.data());
      return;
    }
    constexpr int kM = kRigidNodes * d;
    const size_t r = static_cast<size_t>(s - m.n_plain);
    const int* nodes = m.verts_rigid.data() + r * kRigidNodes;
    const double* H = m.H_rigid.data() + r * kM * kM;
    for (int n = 0; n < kRigidNodes; ++n)
      for (int i = 0; i < d; ++i) diag[nodes[n] * d + i] += H[(n * d + i) * kM + n * d + i];
  });
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

template <int d>
std::vector<ParameterGroup> MeshContactTerm<d>::parameter_groups() const {
  return detail::contact_parameter_groups();
}

template <int d>
Eigen::VectorXd MeshContactTerm<d>::default_parameters() const {
  return Eigen::Vector2d(options_.stiffness, options_.friction);
}

template <int d>
void MeshContactTerm<d>::validate_parameters(const double* p) const {
  detail::validate_contact_parameters(p, "mesh contact");
}

template <int d>
void MeshContactTerm<d>::pull_back(TermData& data, const Eigen::VectorXd& x,
                                   const Eigen::VectorXd& lambda, const StepInputBars& bars) const {
  Data& m = own(data);
  update_pairs(m, x);
  const double* p = m.kappa;
  const double scale = stiffness_scale(data);  // d kappa / d stiffness
  const double dhat = options_.activation_distance;
  for (const Pair& pair : m.pairs) {
    double xs[kN], ls[kN], mixed[1] = {0.0};
    gather(pair, x.data(), xs);
    gather(pair, lambda.data(), ls);
    ad::parameter_derivatives<kN, 1, kTape>(detail::PairBarrier<d>{pair.geometry, dhat}, xs, p, ls,
                                            nullptr, mixed);
    if (bars.parameters) bars.parameters[0] += mixed[0] * scale;
  }
  for (size_t k = 0; k < m.friction.size(); ++k) {
    double xs[kN], ls[kN], mixed[kN + 2] = {}, q[kN + 2];
    gather(m.friction[k], x.data(), xs);
    gather(m.friction[k], lambda.data(), ls);
    friction_inputs(m, k, q);
    const detail::PairFriction<kN> f{m.friction[k].geometry, dhat, friction_eps(data)};
    ad::parameter_derivatives<kN, kN + 2, kTape>(f, xs, q, ls, nullptr, mixed);
    if (bars.parameters) {
      bars.parameters[0] += mixed[0] * scale;
      bars.parameters[1] += mixed[1];
    }
    if (bars.x_prev) scatter(m.friction[k], mixed + 2, bars.x_prev->data());
  }
}

template <int d>
void MeshContactTerm<d>::push_forward(TermData& data, const Eigen::VectorXd& x,
                                      const StepInputDirections& directions,
                                      Eigen::VectorXd& out) const {
  Data& m = own(data);
  update_pairs(m, x);
  const double* p = m.kappa;
  const double scale = stiffness_scale(data);  // d kappa / d stiffness
  const double dhat = options_.activation_distance;
  if (directions.parameters && directions.parameters[0] != 0.0)
    for (const Pair& pair : m.pairs) {
      double xs[kN], jvp[kN] = {};
      const double dkappa[1] = {directions.parameters[0] * scale};
      gather(pair, x.data(), xs);
      ad::gradient_parameter_jvp<kN, 1, kTape>(detail::PairBarrier<d>{pair.geometry, dhat}, xs, p,
                                               dkappa, nullptr, jvp);
      scatter(pair, jvp, out.data());
    }
  for (size_t k = 0; k < m.friction.size(); ++k) {
    double xs[kN], jvp[kN] = {}, q[kN + 2], dq[kN + 2] = {};
    if (directions.parameters) {
      dq[0] = directions.parameters[0] * scale;
      dq[1] = directions.parameters[1];
    }
    if (directions.x_prev) gather(m.friction[k], directions.x_prev->data(), dq + 2);
    gather(m.friction[k], x.data(), xs);
    friction_inputs(m, k, q);
    const detail::PairFriction<kN> f{m.friction[k].geometry, dhat, friction_eps(data)};
    ad::gradient_parameter_jvp<kN, kN + 2, kTape>(f, xs, q, dq, nullptr, jvp);
    scatter(m.friction[k], jvp, out.data());
  }
}

template class MeshContactTerm<2>;
template class MeshContactTerm<3>;

}  // namespace softgrad
