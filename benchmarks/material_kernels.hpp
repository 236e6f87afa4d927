/// @file material_kernels.hpp
/// What material_throughput times: four modes of a batched element kernel, the AD and
/// closed-form kernels, best-of-N timing, and the closed form's check against AD.
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "material_problem.hpp"
#include "softgrad/material_model.hpp"

namespace softgrad::bench {

/// What a kernel computes: the energy; and its gradient; and its Hessian; the same projected
/// to be positive semi-definite.
enum class Mode { Value, Gradient, Hessian, HessianProjected };
inline constexpr Mode kModes[] = {Mode::Value, Mode::Gradient, Mode::Hessian,
                                  Mode::HessianProjected};
/// The modes' names in the table and the JSON, in the order of kModes.
inline constexpr const char* kModeNames[] = {"value", "gradient", "hessian", "hessian_projected"};

/// Preallocated outputs of n elements, so that allocation is not timed.
struct Outputs {
  std::vector<double> per_elem, grad, hess;
  explicit Outputs(int n) : per_elem(n), grad(12 * size_t(n)), hess(144 * size_t(n)) {}
};

/// A batched kernel in one of the modes, writing into Outputs.
using Kernel = std::function<BatchReport(Mode, const ElementBatch&, const double*, Outputs&)>;

/// The registered model's own (AD) kernels; `m` must outlive the kernel.
Kernel model_kernel(const MaterialModel& m);

/// The closed-form Neo-Hookean kernels (closed_form_neo_hookean.hpp).
Kernel closed_form_kernel();

/// A measurement: the best time of its timed runs [s], and how many there were.
struct Timing {
  double seconds = std::numeric_limits<double>::infinity();
  int runs = 0;
};

/// Seconds after which a measurement stops repeating once it has kMinRuns runs: the PSD-projected
/// modes take about a second per 100k-element run, and the whole program should stay near a
/// minute on one core.
inline constexpr double kBudget = 3.0;
inline constexpr int kMinRuns = 3;

/// A kernel under a name, for the table and for error messages.
struct Subject {
  std::string name;
  Kernel kernel;
};

/// Best time of up to `reps` runs of each subject, after a warm-up run over the first tenth
/// of the batch (the outputs are already paged in). The subjects' runs are interleaved, so that a
/// change in the machine's load affects them alike. Timed by the thread's CPU time with
/// cpu_time, else by wall time.
/// @throws std::runtime_error if any element fails to evaluate.
std::vector<Timing> best_times(const std::vector<Subject>& subjects, Mode mode,
                               const ElementBatch& b, const double* x, Outputs& o, int reps,
                               bool cpu_time);

/// Checks that the closed form computes what AD does (`ad_model`, Neo-Hookean, with `params`) on
/// the first elements of `pr`, in every mode, and prints that it does.
/// @throws std::runtime_error if they differ or fail to evaluate.
void check_closed_form(const MaterialModel& ad_model, const Problem& pr,
                       const std::vector<double>& params);

}  // namespace softgrad::bench
