// Whether a fit's estimate can be trusted: the checks behind identifiability_warnings.
#include <cmath>
#include <cstdio>

#include "softgrad/sysid.hpp"

namespace softgrad {
namespace {

std::string format(const char* f, double a, double b = 0.0, double c = 0.0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a, b, c);
  return buf;
}

}  // namespace

std::vector<std::string> identifiability_warnings(const SysIdReport& r, double max_relative_stddev,
                                                  double max_condition) {
  std::vector<std::string> out;
  if (r.method != SysIdMethod::LevenbergMarquardt) return out;
  const int P = static_cast<int>(r.estimate.size());
  if (r.residuals <= P)
    out.push_back(std::to_string(r.residuals) + " residuals for " + std::to_string(P) +
                  " parameters: the data cannot determine them (record more frames or markers)");
  bool any_stddev = false;
  for (int k = 0; k < P && k < r.stddev.size(); ++k) {
    if (!std::isfinite(r.stddev[k])) continue;
    any_stddev = true;
    const double magnitude = std::abs(r.estimate[k]);
    if (r.stddev[k] > max_relative_stddev * magnitude)
      out.push_back(r.labels.at(k) + ": not identifiable from these data" +
                    format(" (standard deviation %.3g, %.3g times the estimate %.6g)", r.stddev[k],
                           magnitude > 0 ? r.stddev[k] / magnitude : INFINITY, r.estimate[k]));
  }
  if (!any_stddev && P > 0 && r.residuals > P)
    out.push_back("no standard deviations: the covariance is unavailable (singular Jacobian)");
  if (std::isfinite(r.condition_number) ? r.condition_number > max_condition
                                        : r.condition_number > 0)
    out.push_back(
        format("the Jacobian is nearly singular (condition number %.3g): some "
               "combination of the parameters is not determined by the data",
               r.condition_number));
  return out;
}

}  // namespace softgrad
