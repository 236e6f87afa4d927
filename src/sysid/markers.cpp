#include "softgrad/markers.hpp"

#include <limits>
#include <sstream>

#include "softgrad/errors.hpp"

namespace softgrad {
namespace {

/// Barycentric coordinates of p in element e of a body (rest configuration).
void barycentric(const Model& model, const Body& body, int e, const Eigen::VectorXd& p, double* w) {
  const int d = model.dim;
  const int* v = body.elems.data() + static_cast<size_t>(e) * (d + 1);
  const double* Dinv = body.Dm_inv.data() + static_cast<size_t>(e) * d * d;
  double sum = 0.0;
  for (int i = 0; i < d; ++i) {
    double s = 0.0;
    for (int j = 0; j < d; ++j) s += Dinv[i * d + j] * (p[j] - model.X[v[0] * d + j]);
    w[i + 1] = s;
    sum += s;
  }
  w[0] = 1.0 - sum;
}

}  // namespace

MarkerSet::MarkerSet(const Model& model,
                     const std::vector<std::pair<std::string, Eigen::VectorXd>>& points)
    : dim_(model.dim) {
  const double tol = 1e-9;
  for (const auto& [name, p] : points) {
    if (find(name) >= 0) throw InputError("marker '" + name + "' is defined twice");
    if (p.size() != dim_ || !p.allFinite()) {
      std::ostringstream os;
      os << "marker '" << name << "': the position needs " << dim_ << " finite coordinates";
      throw InputError(os.str());
    }
    // The element in which the point is deepest inside (largest smallest weight).
    double best = -std::numeric_limits<double>::infinity();
    Marker m;
    m.name = name;
    m.rest = p;
    m.n = dim_ + 1;
    for (const Body& body : model.bodies)
      for (int e = 0; e < body.n_elems(); ++e) {
        double w[4];
        barycentric(model, body, e, p, w);
        double lo = w[0];
        for (int a = 1; a <= dim_; ++a) lo = std::min(lo, w[a]);
        if (lo > best) {
          best = lo;
          for (int a = 0; a <= dim_; ++a) {
            m.verts[a] = body.elems[static_cast<size_t>(e) * (dim_ + 1) + a];
            m.weights[a] = w[a];
          }
        }
      }
    if (!(best >= -tol)) {
      std::ostringstream os;
      os << "marker '" << name << "' at (";
      for (int k = 0; k < dim_; ++k) os << (k ? ", " : "") << p[k];
      os << ") is outside the mesh: place it inside a body (in rest coordinates)";
      throw InputError(os.str());
    }
    markers_.push_back(std::move(m));
  }
}

MarkerSet MarkerSet::vertices(const Model& model, std::vector<int> verts) {
  MarkerSet s;
  s.dim_ = model.dim;
  if (verts.empty())
    for (int v = 0; v < model.n_mesh_verts(); ++v) verts.push_back(v);
  for (int v : verts) {
    if (v < 0 || v >= model.n_verts)
      throw InputError("vertex marker " + std::to_string(v) + " is not in the model (" +
                       std::to_string(model.n_verts) + " vertices)");
    Marker m;
    m.name = "v" + std::to_string(v);
    m.rest = model.X.segment(v * model.dim, model.dim);
    m.verts[0] = v;
    m.weights[0] = 1.0;
    m.n = 1;
    s.markers_.push_back(std::move(m));
  }
  return s;
}

int MarkerSet::find(const std::string& name) const {
  for (int i = 0; i < size(); ++i)
    if (markers_[i].name == name) return i;
  return -1;
}

Eigen::VectorXd MarkerSet::position(int i, const Eigen::VectorXd& x) const {
  const Marker& m = markers_[i];
  Eigen::VectorXd p = Eigen::VectorXd::Zero(dim_);
  for (int a = 0; a < m.n; ++a) p += m.weights[a] * x.segment(m.verts[a] * dim_, dim_);
  return p;
}

void MarkerSet::add_transpose(int i, const Eigen::VectorXd& r, double scale,
                              Eigen::VectorXd& bar) const {
  const Marker& m = markers_[i];
  for (int a = 0; a < m.n; ++a) bar.segment(m.verts[a] * dim_, dim_) += scale * m.weights[a] * r;
}

}  // namespace softgrad
