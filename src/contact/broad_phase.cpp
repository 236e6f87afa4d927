#include "broad_phase.hpp"

#include <algorithm>
#include <cmath>

namespace softgrad::collision {

namespace {

// Cells are hashed: distinct cells may share a key, which only adds candidates that the exact
// box test removes.
long long cell_key(long long i, long long j, long long k) {
  return (i * 73856093LL) ^ (j * 19349663LL) ^ (k * 83492791LL);
}

bool overlap(const Eigen::Vector3d& alo, const Eigen::Vector3d& ahi, const Eigen::Vector3d& blo,
             const Eigen::Vector3d& bhi) {
  return (alo.array() <= bhi.array()).all() && (blo.array() <= ahi.array()).all();
}

bool share_vertex(const int* a, int na, const int* b, int nb) {
  for (int i = 0; i < na; ++i)
    for (int j = 0; j < nb; ++j)
      if (a[i] == b[j]) return true;
  return false;
}

}  // namespace

void BroadPhase::vertex_boxes(const CollisionSurface& s, const Eigen::VectorXd& x,
                              const Eigen::VectorXd* dx, double inflation) {
  const int d = s.dim;
  const int n_model = static_cast<int>(x.size()) / d;
  if (static_cast<int>(vertex_slot_.size()) != n_model) vertex_slot_.assign(n_model, -1);
  vertex_box_.resize(s.vertices.size());
  for (size_t i = 0; i < s.vertices.size(); ++i) {
    const int v = s.vertices[i];
    vertex_slot_[v] = static_cast<int>(i);
    Eigen::Vector3d p = Eigen::Vector3d::Zero(), q;
    p.head(d) = x.segment(v * d, d);
    q = p;
    if (dx) q.head(d) += dx->segment(v * d, d);
    // Half the inflation on each box: boxes of two primitives closer than `inflation` overlap.
    vertex_box_[i].lo = p.cwiseMin(q).array() - 0.5 * inflation;
    vertex_box_[i].hi = p.cwiseMax(q).array() + 0.5 * inflation;
  }
}

BroadPhase::Box BroadPhase::span(const int* verts, int n) const {
  Box b = vertex_box_[vertex_slot_[verts[0]]];
  for (int k = 1; k < n; ++k) {
    const Box& o = vertex_box_[vertex_slot_[verts[k]]];
    b.lo = b.lo.cwiseMin(o.lo);
    b.hi = b.hi.cwiseMax(o.hi);
  }
  return b;
}

bool BroadPhase::cells(const Box& box, Eigen::Array3d& lo, Eigen::Array3d& hi) const {
  lo = (box.lo / cell_).array().floor();
  hi = (box.hi / cell_).array().floor();
  if (!lo.allFinite() || !hi.allFinite()) return false;
  return ((hi - lo + 1.0).prod() <= kMaxCellsPerBox);
}

void BroadPhase::build_grid(const std::vector<Box>& boxes) {
  // Cells about the size of a box: each box lands in a few cells.
  double extent = 0.0;
  for (const Box& b : boxes) extent += (b.hi - b.lo).maxCoeff();
  cell_ = boxes.empty() || !std::isfinite(extent)
              ? 1.0
              : std::max(extent / static_cast<double>(boxes.size()), 1e-12);
  entries_.clear();
  big_.clear();
  for (size_t p = 0; p < boxes.size(); ++p) {
    Eigen::Array3d lo, hi;
    if (!cells(boxes[p], lo, hi)) {  // a long sweep (or a non-finite box): met by every query
      big_.push_back(static_cast<int>(p));
      continue;
    }
    for (long long i = static_cast<long long>(lo.x()); i <= static_cast<long long>(hi.x()); ++i)
      for (long long j = static_cast<long long>(lo.y()); j <= static_cast<long long>(hi.y()); ++j)
        for (long long k = static_cast<long long>(lo.z()); k <= static_cast<long long>(hi.z()); ++k)
          entries_.emplace_back(cell_key(i, j, k), static_cast<int>(p));
  }
  // Buckets by a counting sort over the keys' hashes (twice as many buckets as entries).
  std::size_t buckets = 1;
  while (buckets < 2 * entries_.size()) buckets *= 2;
  mask_ = buckets - 1;
  start_.assign(buckets + 1, 0);
  for (const auto& e : entries_) ++start_[bucket(e.first) + 1];
  for (std::size_t b = 0; b < buckets; ++b) start_[b + 1] += start_[b];
  grid_.resize(entries_.size());
  for (const auto& e : entries_) grid_[start_[bucket(e.first)]++] = e;
  for (std::size_t b = buckets; b > 0; --b) start_[b] = start_[b - 1];  // undo the fill's shift
  start_[0] = 0;
  seen_.assign(boxes.size(), -1);
  query_id_ = 0;
}

template <class Visit>
void BroadPhase::query(const Box& box, const Visit& visit) {
  ++query_id_;
  const auto once = [&](int primitive) {
    if (seen_[primitive] == query_id_) return;
    seen_[primitive] = query_id_;
    visit(primitive);
  };
  Eigen::Array3d lo, hi;
  if (!cells(box, lo, hi)) {  // a long sweep: every primitive (the box test decides)
    for (size_t p = 0; p < seen_.size(); ++p) once(static_cast<int>(p));
    return;
  }
  for (int p : big_) once(p);
  for (long long i = static_cast<long long>(lo.x()); i <= static_cast<long long>(hi.x()); ++i)
    for (long long j = static_cast<long long>(lo.y()); j <= static_cast<long long>(hi.y()); ++j)
      for (long long k = static_cast<long long>(lo.z()); k <= static_cast<long long>(hi.z()); ++k) {
        const long long key = cell_key(i, j, k);
        const std::size_t b = bucket(key);
        for (int e = start_[b]; e < start_[b + 1]; ++e)
          if (grid_[e].first == key) once(grid_[e].second);
      }
}

void BroadPhase::find(const CollisionSurface& s, bool self_contact, const Eigen::VectorXd& x,
                      const Eigen::VectorXd* dx, double inflation, std::vector<Candidate>& out) {
  out.clear();
  vertex_boxes(s, x, dx, inflation);
  edge_box_.resize(s.edges.size());
  for (size_t e = 0; e < s.edges.size(); ++e) edge_box_[e] = span(s.edges[e].data(), 2);
  const auto allowed = [&](int body_a, int body_b) {
    return s.may_meet(body_a, body_b, self_contact);
  };

  if (s.dim == 3) {
    face_box_.resize(s.faces.size());
    for (size_t f = 0; f < s.faces.size(); ++f) face_box_[f] = span(s.faces[f].data(), 3);
    build_grid(face_box_);
    for (size_t i = 0; i < s.vertices.size(); ++i) {
      const Box& vb = vertex_box_[i];
      query(vb, [&](int f) {
        if (!allowed(s.vertex_body[i], s.face_body[f])) return;
        if (share_vertex(&s.vertices[i], 1, s.faces[f].data(), 3)) return;
        if (!overlap(vb.lo, vb.hi, face_box_[f].lo, face_box_[f].hi)) return;
        out.push_back({Candidate::Kind::PointTriangle, static_cast<int>(i), f});
      });
    }
  }
  build_grid(edge_box_);
  if (s.dim == 3) {
    for (size_t e = 0; e < s.edges.size(); ++e) {
      const Box& eb = edge_box_[e];
      query(eb, [&](int o) {
        if (o <= static_cast<int>(e) || !allowed(s.edge_body[e], s.edge_body[o])) return;
        if (share_vertex(s.edges[e].data(), 2, s.edges[o].data(), 2)) return;
        if (!overlap(eb.lo, eb.hi, edge_box_[o].lo, edge_box_[o].hi)) return;
        out.push_back({Candidate::Kind::EdgeEdge, static_cast<int>(e), o});
      });
    }
  } else {
    for (size_t i = 0; i < s.vertices.size(); ++i) {
      const Box& vb = vertex_box_[i];
      query(vb, [&](int e) {
        if (!allowed(s.vertex_body[i], s.edge_body[e])) return;
        if (share_vertex(&s.vertices[i], 1, s.edges[e].data(), 2)) return;
        if (!overlap(vb.lo, vb.hi, edge_box_[e].lo, edge_box_[e].hi)) return;
        out.push_back({Candidate::Kind::PointEdge, static_cast<int>(i), e});
      });
    }
  }
  std::sort(out.begin(), out.end());
}

}  // namespace softgrad::collision
