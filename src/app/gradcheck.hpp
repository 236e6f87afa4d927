/// @file gradcheck.hpp
/// `softgrad gradcheck` without the command line: the adjoint gradient of a scene's loss against
/// finite differences of the loss, re-simulated at perturbed parameters.
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "app/gradient_problem.hpp"

namespace softgrad::app {

struct GradcheckOptions {
  int entries = 3;     ///< entries checked per block of more values (besides one direction)
  double step = 1e-4;  ///< relative step H: h = H s, s the scale of the entry's block
  /// The smallest scale: s = max(max_block |theta|, floor), in the parameter's unit.
  double floor = 1e-2;
  double tolerance = 1e-4;  ///< a check fails when its relative error exceeds this
  unsigned seed = 1;        ///< of the random directions (std::mt19937_64)
};

/// One comparison: an entry of theta, or a random direction within a block.
struct GradcheckRow {
  std::string what;  ///< "youngs", "v0[37]", "v0 along random d"
  double value = std::numeric_limits<double>::quiet_NaN();  ///< theta_i (NaN for a direction)
  double h = 0.0;                                           ///< the step taken
  double adjoint = 0.0;                                     ///< dL/dtheta_i, or dL/dtheta . d
  double fd = 0.0;                                          ///< the finite difference
  /// |adjoint - fd| / max(|adjoint|, |fd|, z), z = 1e-6 |L| / s (1e-6 |L| for a direction,
  /// whose entries are already scaled): effects below a millionth of the loss per relative
  /// change count as zero.
  double error = 0.0;
  std::string method = "central";  ///< "forward" or "backward" where theta - h (theta + h) is
                                   ///< invalid (second-order one-sided differences)
};

struct GradcheckResult {
  double loss = 0.0;
  std::vector<GradcheckRow> rows;
  int simulations = 0;  ///< finite-difference runs
  double seconds = 0.0;
  double max_error = 0.0;
  std::string worst;  ///< the row with the largest error
  bool passed = true;
};

/// Called after each finite-difference simulation with the number done and the total.
using RunProgress = std::function<void(int done, int total)>;

/// Checks `run`'s gradient (computed on p at p.theta) against central differences: every entry
/// of blocks with at most options.entries values; for larger blocks, the entry of largest
/// gradient and others evenly spread over those with a gradient above a tenth of it; and one
/// random direction (d_i = u(-1, 1) s) per block of more than one value. Restores p.theta.
/// @throws ConvergenceError if a perturbed run fails; InputError if no difference is possible.
GradcheckResult gradcheck(GradientProblem& p, const GradientResult& run,
                          const GradcheckOptions& options, const RunProgress& progress = {});

/// The table of rows: check, value, h, adjoint, finite difference, relative error, method.
std::string gradcheck_table(const GradcheckResult& result);

}  // namespace softgrad::app
