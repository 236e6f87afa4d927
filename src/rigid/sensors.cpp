// Sensors of joints and rigid bodies: readings and their reverse mode. Joint coordinates are
// differentiated by the element AD over the joint's 24 stencil dofs (the same function the
// joint term's limits and the motors use); the body sensors are linear or bilinear in the
// affine dofs and are differentiated by hand.
#include "softgrad/sensors.hpp"

#include <Eigen/Geometry>
#include <sstream>

#include "joint_energy.hpp"
#include "joint_term.hpp"
#include "softgrad/detail/ad/derivatives.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {
namespace {

using Kind = Sensor::Kind;

/// Tape nodes for one joint coordinate (it records about 60).
constexpr int kTape = 256;

bool is_joint_kind(Kind kind) { return kind == Kind::JointPosition || kind == Kind::JointVelocity; }

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::JointPosition:
      return "joint position";
    case Kind::JointVelocity:
      return "joint velocity";
    case Kind::BodyPosition:
      return "body position";
    case Kind::BodyVelocity:
      return "body velocity";
    case Kind::BodyAxes:
      return "body axes";
    case Kind::BodyAngularVelocity:
      return "body angular velocity";
    case Kind::BodyPoint:
      return "body point";
  }
  return "unknown";
}

/// @throws InputError naming the sensor (`who`) if it does not fit the model.
void check_sensor(const Model& model, const Sensor& s, const std::string& who) {
  std::ostringstream os;
  if (is_joint_kind(s.kind)) {
    const int n = static_cast<int>(model.joints.size());
    if (s.index < 0 || s.index >= n) {
      os << who << ": joint " << s.index << " is not in the model (" << n << " joints)";
      throw InputError(os.str());
    }
    const Joint& j = model.joints[s.index];
    if (!j.has_coordinate()) {
      os << who << ": joint '" << j.name << "' is a " << to_string(j.type)
         << " joint, which has no coordinate (only hinges and sliders do)";
      throw InputError(os.str());
    }
    return;
  }
  const int n = static_cast<int>(model.rigid_bodies.size());
  if (s.index < 0 || s.index >= n) {
    os << who << ": rigid body " << s.index << " is not in the model (" << n << " rigid bodies)";
    throw InputError(os.str());
  }
  if (s.kind == Kind::BodyPoint && !s.point.allFinite())
    throw InputError(who + ": the point is not finite");
}

/// The joint coordinate over the stencil's 24 dofs, for the element AD.
struct Coordinate {
  const detail::JointGeometry* g;
  template <class T, class P>
  T operator()(const T* x, const P*) const {
    return detail::joint_coordinate(*g, x);
  }
};

void gather(const std::vector<int>& stencil, const Eigen::VectorXd& x, double* out) {
  for (int v = 0; v < 8; ++v)
    for (int i = 0; i < 3; ++i) out[3 * v + i] = x[3 * stencil[v] + i];
}

/// bar[stencil] += scale g. A world parent's slots repeat the child's vertices: accumulate.
void scatter_add(const std::vector<int>& stencil, const double* g, double scale,
                 Eigen::VectorXd& bar) {
  for (int v = 0; v < 8; ++v)
    for (int i = 0; i < 3; ++i) bar[3 * stencil[v] + i] += scale * g[3 * v + i];
}

/// grad q at the stencil dofs xs (24 values), into g.
void coordinate_gradient(const detail::JointGeometry& g, const double* xs, double* grad) {
  const double unused = 0.0;
  double value = 0.0;
  const bool ok = ad::gradient<24, 1, kTape>(Coordinate{&g}, xs, &unused, value, grad);
  SOFTGRAD_CHECK(ok, "joint coordinate: the AD tape overflowed");
}

/// A joint sensor's reading: q, or q' = grad q . v.
double read_joint(const Joint& joint, const std::vector<int>& stencil, Kind kind, const State& s) {
  const detail::JointGeometry g = detail::joint_geometry(joint);
  double xs[24], vs[24], grad[24];
  gather(stencil, s.x, xs);
  if (kind == Kind::JointPosition) return detail::joint_coordinate(g, xs);
  gather(stencil, s.v, vs);
  coordinate_gradient(g, xs, grad);
  double q_dot = 0.0;
  for (int i = 0; i < 24; ++i) q_dot += grad[i] * vs[i];
  return q_dot;
}

/// Reverse mode of read_joint for the reading's adjoint r: xbar += r grad q (position);
/// xbar += r H v and vbar += r grad q (velocity: d(grad q . v)/dx = H v).
void backprop_joint(const Joint& joint, const std::vector<int>& stencil, Kind kind, const State& s,
                    double r, Eigen::VectorXd& xbar, Eigen::VectorXd& vbar) {
  const detail::JointGeometry g = detail::joint_geometry(joint);
  double xs[24], vs[24], grad[24], hv[24];
  gather(stencil, s.x, xs);
  if (kind == Kind::JointPosition) {
    coordinate_gradient(g, xs, grad);
    scatter_add(stencil, grad, r, xbar);
    return;
  }
  gather(stencil, s.v, vs);
  const double unused = 0.0;
  const bool ok =
      ad::hessian_vector_product<24, 1, kTape>(Coordinate{&g}, xs, &unused, vs, hv, grad);
  SOFTGRAD_CHECK(ok, "joint velocity: the AD tape overflowed");
  scatter_add(stencil, hv, r, xbar);
  scatter_add(stencil, grad, r, vbar);
}

Eigen::Vector3d column(const Eigen::VectorXd& x, int node, int j) {
  return x.segment<3>(3 * node + 3 * j);
}

/// omega = 1/2 sum_i a_i x a_i' (the axial vector of the skew part of A' A^T).
Eigen::Vector3d angular_velocity(const State& s, int node) {
  Eigen::Vector3d omega = Eigen::Vector3d::Zero();
  for (int j = 1; j <= 3; ++j) omega += column(s.x, node, j).cross(column(s.v, node, j));
  return 0.5 * omega;
}

}  // namespace

int sensor_size(Sensor::Kind kind) {
  switch (kind) {
    case Kind::JointPosition:
    case Kind::JointVelocity:
      return 1;
    case Kind::BodyPosition:
    case Kind::BodyVelocity:
    case Kind::BodyAngularVelocity:
    case Kind::BodyPoint:
      return 3;
    case Kind::BodyAxes:
      return 9;
  }
  throw InputError("sensor: unknown kind " + std::to_string(static_cast<int>(kind)));
}

SensorSet::SensorSet(const Model& model, std::vector<Sensor> sensors)
    : sensors_(std::move(sensors)) {
  for (size_t k = 0; k < sensors_.size(); ++k) {
    const Sensor& s = sensors_[k];
    const std::string who = "sensor " + std::to_string(k) + " (" + kind_name(s.kind) + ")";
    check_sensor(model, s, who);
    Channel c;
    c.offset = size_;
    if (is_joint_kind(s.kind)) {
      c.joint = model.joints[s.index];
      c.stencil = joint_stencil(model, c.joint);
    } else {
      const RigidBody& body = model.rigid_bodies[s.index];
      c.node = body.node;
      if (s.kind == Kind::BodyPoint) c.X = body.body_point(model.X, s.point);
    }
    size_ += sensor_size(s.kind);
    channels_.push_back(std::move(c));
  }
}

void SensorSet::read(const State& s, double* out) const {
  for (size_t k = 0; k < sensors_.size(); ++k) {
    const Channel& c = channels_[k];
    const Kind kind = sensors_[k].kind;
    double* o = out + c.offset;
    if (is_joint_kind(kind)) {
      o[0] = read_joint(c.joint, c.stencil, kind, s);
      continue;
    }
    const auto put = [&](const Eigen::Vector3d& y, int at) {
      for (int i = 0; i < 3; ++i) o[at + i] = y[i];
    };
    switch (kind) {
      case Kind::BodyVelocity:
        put(column(s.v, c.node, 0), 0);
        break;
      case Kind::BodyAxes:
        for (int j = 0; j < 3; ++j) put(column(s.x, c.node, 1 + j), 3 * j);
        break;
      case Kind::BodyAngularVelocity:
        put(angular_velocity(s, c.node), 0);
        break;
      case Kind::BodyPoint: {
        Eigen::Vector3d y = column(s.x, c.node, 0);
        for (int j = 0; j < 3; ++j) y += c.X[j] * column(s.x, c.node, 1 + j);
        put(y, 0);
        break;
      }
      case Kind::BodyPosition:
        put(column(s.x, c.node, 0), 0);
        break;
      case Kind::JointPosition:
      case Kind::JointVelocity:
        break;  // read above
    }
  }
}

void SensorSet::backprop(const State& s, const double* out_bar, Eigen::VectorXd& xbar,
                         Eigen::VectorXd& vbar) const {
  for (size_t k = 0; k < sensors_.size(); ++k) {
    const Channel& c = channels_[k];
    const Kind kind = sensors_[k].kind;
    const double* b = out_bar + c.offset;
    if (is_joint_kind(kind)) {
      backprop_joint(c.joint, c.stencil, kind, s, b[0], xbar, vbar);
      continue;
    }
    // Every body sensor has at least three values.
    const Eigen::Vector3d w(b[0], b[1], b[2]);
    const auto add = [&](Eigen::VectorXd& bar, int j, const Eigen::Vector3d& y) {
      bar.segment<3>(3 * c.node + 3 * j) += y;
    };
    switch (kind) {
      case Kind::BodyVelocity:
        add(vbar, 0, w);
        break;
      case Kind::BodyAxes:
        for (int j = 0; j < 3; ++j)
          add(xbar, 1 + j, Eigen::Vector3d(b[3 * j], b[3 * j + 1], b[3 * j + 2]));
        break;
      case Kind::BodyAngularVelocity:
        // omega . w = 1/2 sum_i a_i . (a_i' x w) = 1/2 sum_i a_i' . (w x a_i)
        for (int j = 1; j <= 3; ++j) {
          add(xbar, j, 0.5 * column(s.v, c.node, j).cross(w));
          add(vbar, j, 0.5 * w.cross(column(s.x, c.node, j)));
        }
        break;
      case Kind::BodyPoint:
        add(xbar, 0, w);
        for (int j = 0; j < 3; ++j) add(xbar, 1 + j, c.X[j] * w);
        break;
      case Kind::BodyPosition:
        add(xbar, 0, w);
        break;
      case Kind::JointPosition:
      case Kind::JointVelocity:
        break;  // handled above
    }
  }
}

std::string to_string(const Model& model, const Sensor& sensor) {
  check_sensor(model, sensor, std::string("sensor (") + kind_name(sensor.kind) + ")");
  const std::string name = is_joint_kind(sensor.kind) ? model.joints[sensor.index].name
                                                      : model.rigid_bodies[sensor.index].name;
  const std::string of = "[" + name + "]";
  switch (sensor.kind) {
    case Kind::JointPosition:
      return "q" + of;
    case Kind::JointVelocity:
      return "qdot" + of;
    case Kind::BodyPosition:
      return "p" + of;
    case Kind::BodyVelocity:
      return "pdot" + of;
    case Kind::BodyAxes:
      return "A" + of;
    case Kind::BodyAngularVelocity:
      return "omega" + of;
    case Kind::BodyPoint: {
      std::ostringstream os;
      os << "point" << of << "(" << sensor.point[0] << ", " << sensor.point[1] << ", "
         << sensor.point[2] << ")";
      return os.str();
    }
  }
  return "sensor" + of;
}

std::vector<Sensor> default_robot_sensors(const Model& model) {
  std::vector<Sensor> out;
  for (const Kind kind : {Kind::JointPosition, Kind::JointVelocity})
    for (size_t j = 0; j < model.joints.size(); ++j)
      if (model.joints[j].has_coordinate()) out.push_back({kind, static_cast<int>(j)});
  // The root: the first free body (not kinematic, not jointed to the world or a kinematic
  // body, whose coordinates then say where it is).
  const auto anchored = [&](int b) {
    for (const Joint& j : model.joints)
      if (j.child == b && (j.parent < 0 || model.rigid_bodies[j.parent].kinematic)) return true;
    return false;
  };
  for (size_t b = 0; b < model.rigid_bodies.size(); ++b) {
    if (model.rigid_bodies[b].kinematic || anchored(static_cast<int>(b))) continue;
    for (const Kind kind :
         {Kind::BodyPosition, Kind::BodyAxes, Kind::BodyVelocity, Kind::BodyAngularVelocity})
      out.push_back({kind, static_cast<int>(b)});
    break;
  }
  return out;
}

}  // namespace softgrad
