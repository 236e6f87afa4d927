// Vertices of deformable bodies bound to rigid bodies: the term and add_attachment.
#include "attachment_term.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>

#include "softgrad/errors.hpp"
#include "softgrad/rigid_coupling.hpp"

namespace softgrad {
namespace {

std::vector<int> bound_vertices(const Model& model, int body, const std::vector<int>& vertices) {
  std::vector<int> verts;
  const int node = model.rigid_bodies[body].node;
  for (int v : vertices) {
    verts.push_back(v);
    for (int j = 0; j < 4; ++j) verts.push_back(node + j);
  }
  return verts;
}

}  // namespace

AttachmentTerm::AttachmentTerm(const Model& model, std::string name, int body,
                               const std::vector<int>& vertices, double k)
    : AdStencilTerm(3, model.n_verts, bound_vertices(model, body, vertices), 5),
      name_(std::move(name)),
      k_(k) {
  // X_v = A_0^-1 (X_rest_v - p_0): the body point under the vertex at rest.
  const RigidBody& b = model.rigid_bodies[body];
  for (int v : vertices) {
    const Eigen::Vector3d X = b.body_point(model.X, model.X.segment<3>(3 * v));
    points_.insert(points_.end(), X.data(), X.data() + 3);
  }
}

bool AttachmentTerm::closed_form(const Data&, int s, const double* y, const double* q, double& e,
                                 double* g, double* H) const {
  const double* X = &points_[3 * s];
  const double c[5] = {1.0, -1.0, -X[0], -X[1], -X[2]};
  // r = sum_i c_i y_i; E = k/2 |r|^2.
  double r[3] = {0.0, 0.0, 0.0};
  for (int i = 0; i < 5; ++i)
    for (int k = 0; k < 3; ++k) r[k] += c[i] * y[3 * i + k];
  const double k = q[0];
  e = 0.5 * k * (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
  for (int i = 0; i < 5; ++i)
    for (int a = 0; a < 3; ++a) g[3 * i + a] = k * c[i] * r[a];
  if (H) {
    std::fill(H, H + 15 * 15, 0.0);
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j)
        for (int a = 0; a < 3; ++a) H[(3 * i + a) * 15 + 3 * j + a] = k * c[i] * c[j];
  }
  return true;
}

std::vector<ParameterGroup> AttachmentTerm::parameter_groups() const {
  return {{"stiffness", "N/m", 0, 1, ParameterGroup::Layout::Scalar, 0.0, 1e300}};
}

void AttachmentTerm::validate_parameters(const double* p) const {
  if (!(p[0] > 0.0) || !std::isfinite(p[0]))
    throw InputError("attachment '" + name_ + "': the stiffness must be positive and finite, got " +
                     std::to_string(p[0]));
}

void AttachmentTerm::scatter_parameter_products(const Data&, const double* P,
                                                double* parameters_bar) const {
  for (int s = 0; s < n_stencils(); ++s) parameters_bar[0] += P[s];
}

void AttachmentTerm::gather_parameter_directions(const Data&, const double* direction,
                                                 double* dP) const {
  for (int s = 0; s < n_stencils(); ++s) dP[s] = direction[0];
}

void add_attachment(Model& model, std::string name, int rigid_body, std::vector<int> vertices,
                    double stiffness) {
  const std::string where = "attachment '" + name + "': ";
  const int n_bodies = static_cast<int>(model.rigid_bodies.size());
  if (rigid_body < 0 || rigid_body >= n_bodies)
    throw InputError(where + "rigid body " + std::to_string(rigid_body) +
                     " is not in the model (it has " + std::to_string(n_bodies) + ")");
  if (vertices.empty()) throw InputError(where + "no vertices to attach");
  const int n_mesh = model.n_mesh_verts();
  for (int v : vertices)
    if (v < 0 || v >= n_mesh)
      throw InputError(where + "vertex " + std::to_string(v) +
                       " is not a vertex of the model's deformable bodies (0 .. " +
                       std::to_string(n_mesh - 1) + ")");
  std::vector<int> sorted = vertices;
  std::sort(sorted.begin(), sorted.end());
  const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
  if (twice != sorted.end())
    throw InputError(where + "vertex " + std::to_string(*twice) + " is listed twice");
  if (!(stiffness > 0.0) || !std::isfinite(stiffness)) {
    std::ostringstream os;
    os << where << "the stiffness " << stiffness << " N/m must be positive and finite";
    throw InputError(os.str());
  }
  for (const auto& term : model.terms)
    if (term->name() == "attachment:" + name)
      throw InputError(where + "another attachment has this name");
  model.terms.push_back(
      std::make_unique<AttachmentTerm>(model, std::move(name), rigid_body, vertices, stiffness));
}

}  // namespace softgrad
