#include "softgrad/loss.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "softgrad/errors.hpp"

namespace softgrad {
namespace {

bool at(int step, int n, int T) { return step == n || (step == kFinalStep && n == T); }

void check_vertex(const Model& model, int v, const char* who) {
  if (v < 0 || v >= model.n_verts) {
    std::ostringstream os;
    os << who << ": vertex " << v << " is not in the model (" << model.n_verts << " vertices)";
    throw InputError(os.str());
  }
}

void check_vector(const Eigen::VectorXd& v, int size, const char* who, const char* what) {
  if (v.size() != size) {
    std::ostringstream os;
    os << who << ": " << what << " has " << v.size() << " entries, expected " << size;
    throw InputError(os.str());
  }
  if (!v.allFinite()) throw InputError(std::string(who) + ": " + what + " is not finite");
}

std::vector<int> all_vertices_if_empty(const Model& model, std::vector<int> vertices,
                                       const char* who) {
  if (vertices.empty())
    for (int v = 0; v < model.n_verts; ++v) vertices.push_back(v);
  for (int v : vertices) check_vertex(model, v, who);
  return vertices;
}

}  // namespace

PositionLoss::PositionLoss(const Model& model, std::vector<PositionTarget> targets)
    : dim_(model.dim), targets_(std::move(targets)) {
  for (const auto& t : targets_) {
    check_vertex(model, t.vertex, "position loss");
    check_vector(t.target, dim_, "position loss", "a target");
  }
}

double PositionLoss::evaluate(int n, int T, const State& s, Eigen::VectorXd* xbar,
                              Eigen::VectorXd*) const {
  double l = 0.0;
  for (const auto& t : targets_) {
    if (!at(t.step, n, T)) continue;
    const Eigen::VectorXd r = s.x.segment(t.vertex * dim_, dim_) - t.target;
    l += 0.5 * t.weight * r.squaredNorm();
    if (xbar) xbar->segment(t.vertex * dim_, dim_) += t.weight * r;
  }
  return l;
}

CenterOfMassLoss::CenterOfMassLoss(const Model& model, std::vector<int> vertices,
                                   std::vector<CenterOfMassTarget> targets)
    : dim_(model.dim),
      vertices_(all_vertices_if_empty(model, std::move(vertices), "centre-of-mass loss")),
      targets_(std::move(targets)) {
  // Rigid bodies' axis vertices weigh nothing: a body's centre of mass is its p.
  const Eigen::VectorXd mass = model.translational_mass();
  double total = 0.0;
  for (int v : vertices_) total += mass[v * dim_];
  if (!(total > 0.0)) throw InputError("centre-of-mass loss: the vertices have no mass");
  for (int v : vertices_) weight_.push_back(mass[v * dim_] / total);
  for (const auto& t : targets_) {
    if (t.position.size() > 0) check_vector(t.position, dim_, "centre-of-mass loss", "a position");
    if (t.velocity.size() > 0) check_vector(t.velocity, dim_, "centre-of-mass loss", "a velocity");
  }
}

Eigen::VectorXd CenterOfMassLoss::center(const Eigen::VectorXd& x) const {
  Eigen::VectorXd c = Eigen::VectorXd::Zero(dim_);
  for (size_t i = 0; i < vertices_.size(); ++i)
    c += weight_[i] * x.segment(vertices_[i] * dim_, dim_);
  return c;
}

void CenterOfMassLoss::add_center_transpose(const Eigen::VectorXd& r, Eigen::VectorXd& bar) const {
  for (size_t i = 0; i < vertices_.size(); ++i)
    bar.segment(vertices_[i] * dim_, dim_) += weight_[i] * r;
}

double CenterOfMassLoss::evaluate(int n, int T, const State& s, Eigen::VectorXd* xbar,
                                  Eigen::VectorXd* vbar) const {
  double l = 0.0;
  for (const auto& t : targets_) {
    if (!at(t.step, n, T)) continue;
    const auto add = [&](const Eigen::VectorXd& q, const Eigen::VectorXd& target,
                         Eigen::VectorXd* bar) {
      const Eigen::VectorXd r = center(q) - target;
      l += 0.5 * t.weight * r.squaredNorm();
      if (bar)
        for (size_t i = 0; i < vertices_.size(); ++i)
          bar->segment(vertices_[i] * dim_, dim_) += t.weight * weight_[i] * r;
    };
    if (t.position.size() > 0) add(s.x, t.position, xbar);
    if (t.velocity.size() > 0) add(s.v, t.velocity, vbar);
  }
  return l;
}

TrajectoryLoss::TrajectoryLoss(const Model& model, std::vector<int> vertices,
                               std::vector<Eigen::VectorXd> reference, std::vector<double> weights)
    : dim_(model.dim),
      vertices_(all_vertices_if_empty(model, std::move(vertices), "trajectory loss")),
      reference_(std::move(reference)),
      weights_(std::move(weights)) {
  if (!weights_.empty() && weights_.size() != reference_.size())
    throw InputError("trajectory loss: " + std::to_string(weights_.size()) + " weights for " +
                     std::to_string(reference_.size()) + " reference states");
  const int size = static_cast<int>(vertices_.size()) * dim_;
  for (const auto& r : reference_)
    if (r.size() > 0) check_vector(r, size, "trajectory loss", "a reference state");
}

double TrajectoryLoss::evaluate(int n, int, const State& s, Eigen::VectorXd* xbar,
                                Eigen::VectorXd*) const {
  if (n >= static_cast<int>(reference_.size()) || reference_[n].size() == 0) return 0.0;
  const double w = weights_.empty() ? 1.0 : weights_[n];
  double l = 0.0;
  for (size_t i = 0; i < vertices_.size(); ++i) {
    const Eigen::VectorXd r =
        s.x.segment(vertices_[i] * dim_, dim_) - reference_[n].segment(i * dim_, dim_);
    l += 0.5 * w * r.squaredNorm();
    if (xbar) xbar->segment(vertices_[i] * dim_, dim_) += w * r;
  }
  return l;
}

LinearLoss::LinearLoss(const Model& model, std::vector<Eigen::VectorXd> dx,
                       std::vector<Eigen::VectorXd> dv)
    : dx_(std::move(dx)), dv_(std::move(dv)) {
  for (const auto* list : {&dx_, &dv_})
    for (size_t n = 0; n < list->size(); ++n)
      if ((*list)[n].size() != 0 && (*list)[n].size() != model.n_dofs())
        throw InputError(std::string("linear loss: the ") +
                         (list == &dx_ ? "position" : "velocity") + " cotangent of state " +
                         std::to_string(n) + " has " + std::to_string((*list)[n].size()) +
                         " values, the model " + std::to_string(model.n_dofs()) + " dofs");
}

double LinearLoss::evaluate(int n, int, const State& s, Eigen::VectorXd* xbar,
                            Eigen::VectorXd* vbar) const {
  double l = 0.0;
  if (n < static_cast<int>(dx_.size()) && dx_[n].size() != 0) {
    l += dx_[n].dot(s.x);
    if (xbar) *xbar += dx_[n];
  }
  if (n < static_cast<int>(dv_.size()) && dv_[n].size() != 0) {
    l += dv_[n].dot(s.v);
    if (vbar) *vbar += dv_[n];
  }
  return l;
}

DisplacementLoss::DisplacementLoss(const Model& model, std::vector<int> vertices,
                                   Eigen::VectorXd direction, double weight)
    : com_(model, std::move(vertices), {}), direction_(std::move(direction)), weight_(weight) {
  check_vector(direction_, model.dim, "displacement loss", "the direction");
  if (!(direction_.norm() > 0.0)) throw InputError("displacement loss: the direction is zero");
  direction_.normalize();
}

double DisplacementLoss::evaluate(int n, int T, const State& s, Eigen::VectorXd* xbar,
                                  Eigen::VectorXd*) const {
  if ((n != 0 && n != T) || T == 0) return 0.0;
  const double sign = n == T ? -weight_ : weight_;  // - d.c(x_T) + d.c(x_0)
  if (xbar) com_.add_center_transpose(sign * direction_, *xbar);
  return sign * direction_.dot(com_.center(s.x));
}

BodyPointLoss::BodyPointLoss(const Model& model, std::vector<BodyPointTarget> targets)
    : targets_(std::move(targets)) {
  const int n_bodies = static_cast<int>(model.rigid_bodies.size());
  for (size_t k = 0; k < targets_.size(); ++k) {
    const BodyPointTarget& t = targets_[k];
    const std::string who = "body point loss, target " + std::to_string(k);
    if (t.body < 0 || t.body >= n_bodies)
      throw InputError(who + ": rigid body " + std::to_string(t.body) + " is not in the model (" +
                       std::to_string(n_bodies) + " rigid bodies)");
    if (t.point && !t.point->allFinite()) throw InputError(who + ": the point is not finite");
    check_vector(t.position, 3, who.c_str(), "the position");
    if (t.velocity.size() > 0) check_vector(t.velocity, 3, who.c_str(), "the velocity");
    const RigidBody& body = model.rigid_bodies[t.body];
    node_.push_back(body.node);
    body_.push_back(t.point ? body.body_point(model.X, *t.point) : Eigen::Vector3d::Zero());
  }
}

double BodyPointLoss::evaluate(int n, int T, const State& s, Eigen::VectorXd* xbar,
                               Eigen::VectorXd* vbar) const {
  double l = 0.0;
  for (size_t k = 0; k < targets_.size(); ++k) {
    const BodyPointTarget& t = targets_[k];
    if (!at(t.step, n, T)) continue;
    const int p = 3 * node_[k];
    const Eigen::Vector3d& X = body_[k];
    // y = p + A X is linear in the body's dofs: dy/dp = I, dy/da_j = X_j I (and so for v).
    const auto add = [&](const Eigen::VectorXd& q, const Eigen::Vector3d& target, double w,
                         Eigen::VectorXd* bar) {
      Eigen::Vector3d r = q.segment<3>(p) - target;
      for (int j = 0; j < 3; ++j) r += X[j] * q.segment<3>(p + 3 + 3 * j);
      l += 0.5 * w * r.squaredNorm();
      if (!bar) return;
      bar->segment<3>(p) += w * r;
      for (int j = 0; j < 3; ++j) bar->segment<3>(p + 3 + 3 * j) += w * X[j] * r;
    };
    add(s.x, t.position, t.weight, xbar);
    if (t.velocity.size() > 0) add(s.v, t.velocity, t.velocity_weight, vbar);
  }
  return l;
}

double SumLoss::evaluate(int n, int T, const State& s, Eigen::VectorXd* xbar,
                         Eigen::VectorXd* vbar) const {
  double l = 0.0;
  for (const auto& t : terms_) l += t->evaluate(n, T, s, xbar, vbar);
  return l;
}

StateLoss::StateLoss(const Model& model, std::vector<int> vertices, Function fn, int tape_capacity)
    : dim_(model.dim),
      vertices_(all_vertices_if_empty(model, std::move(vertices), "state loss")),
      fn_(std::move(fn)),
      capacity_(tape_capacity) {
  if (!fn_) throw InputError("state loss: no function");
  if (capacity_ < 1) throw InputError("state loss: the tape capacity must be >= 1");
}

double StateLoss::evaluate(int n, int T, const State& s, Eigen::VectorXd* xbar,
                           Eigen::VectorXd* vbar) const {
  const int m = static_cast<int>(vertices_.size()) * dim_;
  // A tape per thread: one loss may be evaluated by several rollouts at once (gradient_batch).
  thread_local std::vector<ad::Node<double>> nodes;
  if (nodes.size() < static_cast<size_t>(capacity_)) nodes.resize(capacity_);
  ad::Tape<double> tape(nodes.data(), capacity_);
  std::vector<Scalar> x(m), v(m);
  for (size_t i = 0; i < vertices_.size(); ++i)
    for (int k = 0; k < dim_; ++k) x[i * dim_ + k] = tape.input(s.x[vertices_[i] * dim_ + k]);
  for (size_t i = 0; i < vertices_.size(); ++i)
    for (int k = 0; k < dim_; ++k) v[i * dim_ + k] = tape.input(s.v[vertices_[i] * dim_ + k]);
  const Scalar l = fn_(n, T, s.t, x.data(), v.data());
  if (tape.overflowed())
    throw InputError("state loss: the function needs more than " + std::to_string(capacity_) +
                     " AD nodes; pass a larger tape_capacity");
  if (!std::isfinite(l.val))
    throw InputError("state loss: the loss is not finite at step " + std::to_string(n));
  if (!l.tape) return l.val;  // constant at this step
  tape.reverse(l.idx);
  for (size_t i = 0; i < vertices_.size(); ++i)
    for (int k = 0; k < dim_; ++k) {
      if (xbar) (*xbar)[vertices_[i] * dim_ + k] += tape.adjoint(x[i * dim_ + k].idx);
      if (vbar) (*vbar)[vertices_[i] * dim_ + k] += tape.adjoint(v[i * dim_ + k].idx);
    }
  return l.val;
}

SensorLoss::SensorLoss(const Model& model, std::vector<Sensor> sensors, Eigen::VectorXd target,
                       Eigen::VectorXd weights, double from)
    : sensors_(model, std::move(sensors)),
      target_(std::move(target)),
      weights_(std::move(weights)),
      from_(from) {
  const int n = sensors_.size();
  std::ostringstream os;
  if (target_.size() != n || weights_.size() != n)
    os << "sensor loss: " << n << " sensor values, but " << target_.size() << " targets and "
       << weights_.size() << " weights";
  else if (!target_.allFinite())
    os << "sensor loss: a target is not finite";
  else if (!(weights_.array() >= 0.0).all() || !weights_.allFinite())
    os << "sensor loss: weights must be finite and >= 0";
  else if (!(from_ >= 0.0 && from_ <= 1.0))
    os << "sensor loss: 'from' must lie in [0, 1], got " << from_;
  if (!os.str().empty()) throw InputError(os.str());
}

int SensorLoss::first_state(int T) const {
  return std::max(1, std::min(T, static_cast<int>(std::ceil(from_ * T - 1e-9))));
}

double SensorLoss::evaluate(int n, int T, const State& s, Eigen::VectorXd* xbar,
                            Eigen::VectorXd* vbar) const {
  const int first = first_state(T);
  if (n < first || n > T) return 0.0;
  const double share = 1.0 / (T - first + 1);
  Eigen::VectorXd r(sensors_.size());
  sensors_.read(s, r.data());
  r -= target_;
  if (xbar || vbar) {
    const Eigen::VectorXd r_bar = share * weights_.cwiseProduct(r);
    Eigen::VectorXd xb = Eigen::VectorXd::Zero(s.x.size()), vb = Eigen::VectorXd::Zero(s.v.size());
    sensors_.backprop(s, r_bar.data(), xb, vb);
    if (xbar) *xbar += xb;
    if (vbar) *vbar += vb;
  }
  return 0.5 * share * r.dot(weights_.cwiseProduct(r));
}

}  // namespace softgrad
