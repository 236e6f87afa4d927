#include "softgrad/sensor_loss.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "softgrad/errors.hpp"

namespace softgrad {

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
