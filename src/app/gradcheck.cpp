#include "app/gradcheck.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include "softgrad/errors.hpp"

namespace softgrad::app {
namespace {

// A planned check: the direction in theta (one entry: its scale; a random direction) and how
// the row reads.
struct Check {
  GradcheckRow row;
  Eigen::VectorXd direction;  ///< theta +- step * direction
  double unit = 1.0;          ///< the FD along direction, divided by this, compares to adjoint
  double zero = 0.0;          ///< below this, the adjoint and FD count as zero
};

// The scale of block b's entries: max(max_block |theta|, floor). One scale per block: a field's
// entries (velocities, positions, per-element moduli) share their physical magnitude, and a zero
// entry gets a step that its effect on the loss can be told from round-off with.
double block_scale(const Eigen::VectorXd& theta, const ParameterSet::Block& b, double floor) {
  return std::max(theta.segment(b.offset, b.size).cwiseAbs().maxCoeff(), floor);
}

// The block entries to check: all of a small block; else the largest gradient and others spread
// evenly over the entries whose gradient is at least a tenth of it. (Smaller entries are
// checked by the random direction: on their own, their differences drown in the round-off of
// the loss that the larger ones set.)
std::vector<int> sample_entries(const Eigen::VectorXd& gradient, int n) {
  const int size = static_cast<int>(gradient.size());
  std::vector<int> picks;
  if (n <= 0) return picks;
  if (size <= n) {
    for (int i = 0; i < size; ++i) picks.push_back(i);
    return picks;
  }
  Eigen::Index best = 0;
  const double max = gradient.cwiseAbs().maxCoeff(&best);
  picks.push_back(static_cast<int>(best));
  std::vector<int> candidates;
  for (int i = 0; i < size; ++i)
    if (std::abs(gradient[i]) >= 0.1 * max) candidates.push_back(i);
  const size_t m = candidates.size();
  for (int k = 0; k < n && static_cast<int>(picks.size()) < n; ++k) {
    const int c = candidates[static_cast<size_t>((k + 0.5) * static_cast<double>(m) / n)];
    if (std::find(picks.begin(), picks.end(), c) == picks.end()) picks.push_back(c);
  }
  std::sort(picks.begin(), picks.end());
  return picks;
}

std::vector<Check> plan(const GradientProblem& p, const Eigen::VectorXd& g, double loss,
                        const GradcheckOptions& o) {
  std::vector<Check> checks;
  const int n = p.params.size();
  int block_index = 0;
  for (const ParameterSet::Block& b : p.params.blocks()) {
    const double s = block_scale(p.theta, b, o.floor);
    // A scalar is always checked; a block of more values by its sample (and a direction).
    const int entries = b.size == 1 ? 1 : o.entries;
    for (const int k : sample_entries(g.segment(b.offset, b.size), entries)) {
      Check c;
      const int i = b.offset + k;
      c.row.what = p.params.label(i);
      c.row.value = p.theta[i];
      c.row.h = o.step * s;
      c.row.adjoint = g[i];
      c.direction = Eigen::VectorXd::Zero(n);
      c.direction[i] = s;
      c.unit = s;
      c.zero = 1e-6 * std::abs(loss) / s;
      checks.push_back(std::move(c));
    }
    if (b.size > 1) {
      std::mt19937_64 rng(o.seed + block_index);
      std::uniform_real_distribution<double> u(-1.0, 1.0);
      Check c;
      std::string name = b.name;
      if (name.ends_with("[]")) name.resize(name.size() - 2);
      c.row.what = name + " along random d";
      c.row.h = o.step;
      c.direction = Eigen::VectorXd::Zero(n);
      for (int k = 0; k < b.size; ++k) c.direction[b.offset + k] = u(rng) * s;
      c.row.adjoint = g.dot(c.direction);
      c.zero = 1e-6 * std::abs(loss);
      checks.push_back(std::move(c));
    }
    ++block_index;
  }
  return checks;
}

// The loss re-simulated at theta. @throws InputError for invalid parameter values.
double loss_at(GradientProblem& p, const Eigen::VectorXd& theta) {
  Rollout r = p.rollout;
  p.params.set(*p.sim, r, theta);
  const Trajectory traj = simulate(*p.sim, r);
  return evaluate_loss(*p.sim, traj, *p.scene.loss);
}

// dL/d(step along d) by central differences, or second-order one-sided ones where one side is
// invalid (a parameter at the edge of its range). `runs` counts the simulations.
double difference(GradientProblem& p, double loss, const Eigen::VectorXd& d, double step,
                  std::string& method, int& runs) {
  const Eigen::VectorXd& theta = p.theta;
  double plus = 0.0;
  try {
    plus = loss_at(p, theta + step * d);
  } catch (const InputError&) {
    method = "backward";
    const double minus = loss_at(p, theta - step * d);
    const double minus2 = loss_at(p, theta - 2 * step * d);
    runs += 2;
    return (3 * loss - 4 * minus + minus2) / (2 * step);
  }
  ++runs;
  try {
    const double minus = loss_at(p, theta - step * d);
    ++runs;
    method = "central";
    return (plus - minus) / (2 * step);
  } catch (const InputError&) {
    method = "forward";
    const double plus2 = loss_at(p, theta + 2 * step * d);
    ++runs;
    return (-3 * loss + 4 * plus - plus2) / (2 * step);
  }
}

std::string number(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

GradcheckResult gradcheck(GradientProblem& p, const GradientResult& run, const GradcheckOptions& o,
                          const RunProgress& progress) {
  if (!(o.step > 0) || !(o.floor > 0) || o.entries < 0 || !(o.tolerance > 0))
    throw InputError("gradcheck: the step, floor and tolerance must be positive");
  const auto start = std::chrono::steady_clock::now();
  GradcheckResult result;
  result.loss = run.loss;
  std::vector<Check> checks = plan(p, run.gradient, run.loss, o);
  const int total = 2 * static_cast<int>(checks.size());
  for (Check& c : checks) {
    GradcheckRow& r = c.row;
    // The direction is in units of the scale, so the step along it is the relative step.
    try {
      r.fd = difference(p, run.loss, c.direction, o.step, r.method, result.simulations) / c.unit;
    } catch (const InputError& e) {
      throw InputError("gradcheck: " + r.what + ": no difference could be taken: " + e.what());
    } catch (const ConvergenceError& e) {
      throw ConvergenceError("gradcheck: " + r.what + ": a perturbed run failed: " + e.what());
    }
    const double denom = std::max({std::abs(r.adjoint), std::abs(r.fd), c.zero});
    r.error = denom > 0 ? std::abs(r.adjoint - r.fd) / denom : 0.0;
    if (result.worst.empty() || r.error > result.max_error) {
      result.max_error = r.error;
      result.worst = r.what;
    }
    if (!(r.error <= o.tolerance)) result.passed = false;
    result.rows.push_back(r);
    if (progress) progress(std::min(result.simulations, total), total);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::string gradcheck_table(const GradcheckResult& result) {
  std::vector<std::vector<std::string>> rows{
      {"check", "value", "h", "adjoint", "finite difference", "rel. error"}};
  for (const GradcheckRow& r : result.rows) {
    rows.push_back(
        {r.what, std::isnan(r.value) ? "-" : number("%.6g", r.value), number("%.3g", r.h),
         number("% .9e", r.adjoint), number("% .9e", r.fd),
         number("%.2e", r.error) + (r.method == "central" ? "" : " (" + r.method + ")")});
  }
  return aligned_table(rows);
}

}  // namespace softgrad::app
