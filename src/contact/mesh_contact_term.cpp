#include "mesh_contact_term.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

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
