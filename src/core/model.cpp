#include "softgrad/model.hpp"

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <sstream>

#include "../energies/inertia_term.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {

ElementBatch Body::batch() const {
  ElementBatch b;
  b.dim = mesh.dim;
  b.n_elems = n_elems();
  b.elems = elems.data();
  b.Dm_inv = Dm_inv.data();
  b.volume = volume.data();
  b.params = params.data();
  return b;
}

namespace {

// Element e's rest edge matrix Dm (columns X_a - X_0): writes Dm^-1 row-major to `inv` and
// returns det Dm. A degenerate element gives non-finite entries (validate_mesh refuses those).
template <int d>
double rest_shape_inverse(const Mesh& mesh, int e, double* inv) {
  Eigen::Matrix<double, d, d> Dm;
  for (int a = 0; a < d; ++a)
    for (int i = 0; i < d; ++i)
      Dm(i, a) = mesh.X(mesh.elems(e, a + 1), i) - mesh.X(mesh.elems(e, 0), i);
  const Eigen::Matrix<double, d, d> Dm_inv = Dm.inverse();
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) inv[i * d + j] = Dm_inv(i, j);
  return Dm.determinant();
}

}  // namespace

void add_body(Model& model, std::string name, Mesh mesh,
              std::shared_ptr<const MaterialModel> material, const std::vector<double>& params,
              double density) {
  const std::string where = "body '" + name + "'";
  if (!model.rigid_bodies.empty())
    throw InputError(where + ": add deformable bodies before the rigid bodies");
  if (!material) throw InputError(where + ": no material");
  if (!(density > 0.0) || !std::isfinite(density))
    throw InputError(where + ": density must be positive and finite");
  validate_mesh(mesh);
  validate_params(*material, params, where);
  if (model.bodies.empty() && model.n_verts == 0) model.dim = mesh.dim;
  if (mesh.dim != model.dim) {
    std::ostringstream os;
    os << where << ": a " << mesh.dim << "D mesh in a " << model.dim << "D model";
    throw InputError(os.str());
  }
  const int d = mesh.dim;
  Body body;
  body.name = std::move(name);
  body.material = std::move(material);
  body.density = density;
  body.vertex_offset = model.n_verts;
  const int n_elems = mesh.n_elems();
  body.elems.resize(static_cast<size_t>(n_elems) * (d + 1));
  body.Dm_inv.resize(static_cast<size_t>(n_elems) * d * d);
  body.volume.resize(n_elems);
  body.params.reserve(static_cast<size_t>(n_elems) * params.size());

  // Grow the model's flat arrays.
  const int n_new = mesh.n_verts();
  model.X.conservativeResize((model.n_verts + n_new) * d);
  model.mass.conservativeResize((model.n_verts + n_new) * d);
  for (int v = 0; v < n_new; ++v)
    for (int i = 0; i < d; ++i) {
      model.X[(model.n_verts + v) * d + i] = mesh.X(v, i);
      model.mass[(model.n_verts + v) * d + i] = 0.0;
    }

  for (int e = 0; e < n_elems; ++e) {
    // Fixed-size d x d: closed-form determinant and inverse, no allocation (a dynamic matrix's
    // LU per element took most of the load time of a 331,776-tet mesh).
    double inv[9];
    const double measure = d == 2 ? rest_shape_inverse<2>(mesh, e, inv) / 2.0
                                  : rest_shape_inverse<3>(mesh, e, inv) / 6.0;
    for (int k = 0; k < d * d; ++k) body.Dm_inv[static_cast<size_t>(e) * d * d + k] = inv[k];
    body.volume[e] = measure;
    body.params.insert(body.params.end(), params.begin(), params.end());
    // Lumped mass: the element's mass split equally among its vertices.
    const double m = density * measure / (d + 1);
    for (int a = 0; a <= d; ++a) {
      const int v = model.n_verts + mesh.elems(e, a);
      body.elems[static_cast<size_t>(e) * (d + 1) + a] = v;
      for (int i = 0; i < d; ++i) model.mass[v * d + i] += m;
    }
  }
  body.mesh = std::move(mesh);
  model.n_verts += n_new;
  model.bodies.push_back(std::move(body));
  ensure_inertia_term(model);
}

std::vector<int> Model::kinematic_dofs() const {
  std::vector<int> dofs;
  for (const auto& k : kinematic)
    for (int v : k.verts)
      for (int i = 0; i < dim; ++i)
        if (k.axes[i]) dofs.push_back(v * dim + i);
  std::sort(dofs.begin(), dofs.end());
  dofs.erase(std::unique(dofs.begin(), dofs.end()), dofs.end());
  return dofs;
}

void Model::apply_kinematics(double t, Eigen::VectorXd& x) const {
  for (const auto& k : kinematic) {
    const double tau = std::clamp(t, k.start, k.stop) - k.start;
    Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
    if (k.motion == KinematicGroup::Motion::Rotate)
      R = Eigen::AngleAxisd(k.angular_velocity * tau, k.axis.normalized()).toRotationMatrix();
    for (size_t j = 0; j < k.verts.size(); ++j) {
      const int v = k.verts[j];
      Eigen::Vector3d p = Eigen::Vector3d::Zero();
      for (int i = 0; i < dim; ++i) p[i] = X[v * dim + i];
      if (k.affine && j > 0) {
        // A rigid body's axis: a direction.
        if (k.motion == KinematicGroup::Motion::Rotate) p = R * p;
      } else {
        if (k.motion == KinematicGroup::Motion::Translate) p += tau * k.velocity;
        if (k.motion == KinematicGroup::Motion::Rotate) p = k.center + R * (p - k.center);
      }
      for (int i = 0; i < dim; ++i)
        if (k.axes[i]) x[v * dim + i] = p[i];
    }
  }
}

TermParameters Model::default_parameters() const {
  TermParameters p;
  p.reserve(terms.size());
  for (const auto& t : terms) p.push_back(t->default_parameters());
  return p;
}

Eigen::VectorXd Model::initial_adaptive() const {
  int n = 0;
  for (const auto& t : terms) n += t->n_adaptive();
  Eigen::VectorXd a(n);
  int offset = 0;
  for (const auto& t : terms) {
    if (t->n_adaptive() == 0) continue;
    t->initial_adaptive(a.data() + offset);
    offset += t->n_adaptive();
  }
  return a;
}

State Model::rest_state() const {
  State s;
  s.x = X;
  s.v = Eigen::VectorXd::Zero(n_dofs());
  s.t = 0.0;
  s.adaptive = initial_adaptive();
  apply_kinematics(0.0, s.x);
  return s;
}

int Model::find_term(const std::string& name) const {
  for (size_t k = 0; k < terms.size(); ++k)
    if (terms[k]->name() == name) return static_cast<int>(k);
  std::string known;
  for (const auto& t : terms) known += (known.empty() ? "" : ", ") + t->name();
  throw InputError("no energy term named '" + name + "' (the model has: " + known + ")");
}

double Model::length_scale() const {
  const int n_mesh = n_mesh_verts();
  int n_surface = 0;
  for (const RigidBody& b : rigid_bodies) n_surface += static_cast<int>(b.surface.rows());
  if (n_mesh + n_surface == 0) return 1.0;
  Eigen::MatrixXd P(n_mesh + n_surface, dim);
  for (int v = 0; v < n_mesh; ++v)
    for (int i = 0; i < dim; ++i) P(v, i) = X[v * dim + i];
  int row = n_mesh;
  for (const RigidBody& b : rigid_bodies)
    for (int v = 0; v < b.surface.rows(); ++v)
      P.row(row++) = b.point(X, b.surface.row(v).transpose()).transpose();
  return (P.colwise().maxCoeff() - P.colwise().minCoeff()).norm();
}

Eigen::VectorXd Model::translational_mass() const {
  Eigen::VectorXd m = mass;
  for (const RigidBody& b : rigid_bodies) m.segment(3 * b.node + 3, 9).setZero();
  return m;
}

ModelBuilder::ModelBuilder(int dim) : model_(std::make_shared<Model>()) {
  if (dim != 2 && dim != 3)
    throw InputError("a model is 2D or 3D, not " + std::to_string(dim) + "D");
  model_->dim = dim;
}

Model& ModelBuilder::model() {
  if (!model_) throw InputError("the model builder has already finalized its model");
  return *model_;
}

std::shared_ptr<const Model> ModelBuilder::finalize() {
  const Model& m = model();
  if (m.n_verts == 0) throw InputError("the model has no body and no rigid body");
  // What the add_* functions keep true; a break is softgrad's bug, not the caller's.
  SOFTGRAD_CHECK(m.X.size() == m.n_dofs() && m.mass.size() == m.n_dofs(),
                 "the model's rest positions or masses do not match its vertices");
  SOFTGRAD_CHECK(!m.terms.empty() && inertia_term(m) != nullptr,
                 "a model with bodies has the inertia term first");
  return std::shared_ptr<const Model>(std::move(model_));
}

int count_inverted_elements(const Model& model, const Eigen::VectorXd& x) {
  int count = 0;
  const int d = model.dim;
  for (const Body& b : model.bodies)
    for (int e = 0; e < b.n_elems(); ++e) {
      // det F = det(Ds) det(Dm^-1), and det(Dm^-1) > 0 for the oriented rest elements.
      Eigen::Matrix3d Ds = Eigen::Matrix3d::Identity();
      const int* v = &b.elems[static_cast<size_t>(e) * (d + 1)];
      for (int a = 0; a < d; ++a)
        for (int i = 0; i < d; ++i) Ds(i, a) = x[d * v[a + 1] + i] - x[d * v[0] + i];
      if (!(Ds.determinant() > 0.0)) ++count;
    }
  return count;
}

}  // namespace softgrad
