// material_throughput's kernels and their timing: the AD and closed-form kernels in four modes,
// best-of-N timing on a CPU or wall clock, and the closed form's check against AD.
#include "material_kernels.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <stdexcept>

#include "closed_form_neo_hookean.hpp"

namespace softgrad::bench {

Kernel model_kernel(const MaterialModel& m) {
  return [&m](Mode mode, const ElementBatch& b, const double* x, Outputs& o) {
    if (mode == Mode::Value) {
      BatchReport r;
      m.energy(b, x, o.per_elem.data(), &r);
      return r;
    }
    if (mode == Mode::Gradient) return m.gradient(b, x, o.per_elem.data(), o.grad.data());
    return m.hessian(b, x, mode == Mode::HessianProjected, o.per_elem.data(), o.grad.data(),
                     o.hess.data());
  };
}

Kernel closed_form_kernel() {
  using CF = ClosedFormNeoHookean;
  return [](Mode mode, const ElementBatch& b, const double* x, Outputs& o) {
    if (mode == Mode::Value) {
      BatchReport r;
      CF::energy(b, x, o.per_elem.data(), &r);
      return r;
    }
    if (mode == Mode::Gradient) return CF::gradient(b, x, o.per_elem.data(), o.grad.data());
    return CF::hessian(b, x, mode == Mode::HessianProjected, o.per_elem.data(), o.grad.data(),
                       o.hess.data());
  };
}

namespace {

/// Seconds on a clock: the calling thread's CPU time when the kernels run on one thread (immune
/// to being descheduled on a shared machine), else wall time.
double now_seconds(bool cpu_time) {
  if (cpu_time) {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

std::vector<Timing> best_times(const std::vector<Subject>& subjects, Mode mode,
                               const ElementBatch& b, const double* x, Outputs& o, int reps,
                               bool cpu_time) {
  const auto check = [&](const BatchReport& r, const Subject& s) {
    if (!r.ok())
      throw std::runtime_error(s.name + " " + kModeNames[static_cast<int>(mode)] + ": " +
                               std::to_string(r.n_inverted) + " inverted and " +
                               std::to_string(r.n_failed) + " failed elements (tape capacity?)");
  };
  ElementBatch warm_up = b;
  warm_up.n_elems = std::max(1, b.n_elems / 10);
  for (const Subject& s : subjects) check(s.kernel(mode, warm_up, x, o), s);
  std::vector<Timing> t(subjects.size());
  double spent = 0.0;  // by the slowest subject
  for (int run = 0; run < reps && !(run >= kMinRuns && spent > kBudget); ++run) {
    double slowest = 0.0;
    for (size_t i = 0; i < subjects.size(); ++i) {
      const double t0 = now_seconds(cpu_time);
      const BatchReport r = subjects[i].kernel(mode, b, x, o);
      const double dt = now_seconds(cpu_time) - t0;
      check(r, subjects[i]);
      t[i].seconds = std::min(t[i].seconds, dt);
      ++t[i].runs;
      slowest = std::max(slowest, dt);
    }
    spent += slowest;
  }
  return t;
}

void check_closed_form(const MaterialModel& ad_model, const Problem& pr,
                       const std::vector<double>& params) {
  constexpr int kCheck = 64;
  constexpr double kRtol = 1e-9;
  const int n = std::min(kCheck, pr.n_elems);
  const ElementBatch b = batch_of(pr, params, n);
  Outputs a(n), c(n);
  const Kernel ad_kernel = model_kernel(ad_model), cf_kernel = closed_form_kernel();
  const auto compare = [&](const char* mode, const char* what, const std::vector<double>& u,
                           const std::vector<double>& v, int size) {
    for (int e = 0; e < n; ++e) {
      double du = 0.0, dv = 0.0, diff = 0.0;
      for (int k = e * size; k < (e + 1) * size; ++k) {
        du += u[k] * u[k];
        dv += v[k] * v[k];
        diff += (u[k] - v[k]) * (u[k] - v[k]);
      }
      if (!(std::sqrt(diff) <= kRtol * std::sqrt(std::max(du, dv))) || du == 0.0) {
        char msg[256];
        std::snprintf(msg, sizeof(msg),
                      "closed-form Neo-Hookean differs from AD: mode %s, %s of element %d: "
                      "|AD| = %.9e, |closed form| = %.9e, |difference| = %.3e (rtol %.0e)",
                      mode, what, e, std::sqrt(du), std::sqrt(dv), std::sqrt(diff), kRtol);
        throw std::runtime_error(msg);
      }
    }
  };
  for (int m = 0; m < 4; ++m) {
    const Mode mode = kModes[m];
    if (!ad_kernel(mode, b, pr.x.data(), a).ok() || !cf_kernel(mode, b, pr.x.data(), c).ok())
      throw std::runtime_error("the check elements failed to evaluate");
    compare(kModeNames[m], "energy", a.per_elem, c.per_elem, 1);
    if (mode != Mode::Value) compare(kModeNames[m], "gradient", a.grad, c.grad, 12);
    if (mode == Mode::Hessian || mode == Mode::HessianProjected)
      compare(kModeNames[m], "Hessian", a.hess, c.hess, 144);
  }
  std::printf("closed-form Neo-Hookean matches AD on the first %d elements (rtol %.0e)\n", n,
              kRtol);
}

}  // namespace softgrad::bench
