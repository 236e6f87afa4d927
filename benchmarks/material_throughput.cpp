// material_throughput: per-core throughput of every registered material's batched element
// kernels (value; value+gradient; value+gradient+Hessian; the same with the PSD projection) on
// random tetrahedra, against a closed-form Neo-Hookean baseline (closed_form_neo_hookean.hpp)
// that shares everything with the AD path but the density derivatives.
//
//   material_throughput [out.json] [--threads N] [--elems N] [--reps N] [--seed S]
//
// Single-threaded unless --threads is given: per-core throughput is the quantity compared, timed
// by the thread's CPU time so that a busy shared machine does not count against it (wall time
// with --threads > 1). Each measurement is the best of up to --reps runs (default 5) after a
// warm-up; AD Neo-Hookean and the closed form run interleaved. The closed form is checked
// against AD on the first elements before anything is timed. The JSON output holds every
// (material, mode) throughput and the AD / closed-form time ratios.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "closed_form_neo_hookean.hpp"
#include "softgrad/material_model.hpp"

namespace softgrad::bench {
namespace {

using Mat3 = Mat<double, 3, 3>;

struct Options {
  std::string out = "material_throughput.json";
  int threads = 1;
  int n_elems = 100000;
  int reps = 5;
  std::uint64_t seed = 20240611;
};

[[noreturn]] void fail(const std::string& msg) {
  std::fprintf(stderr, "material_throughput: %s\n", msg.c_str());
  std::exit(1);
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> long long {
      if (i + 1 >= argc) fail("option " + a + " needs a value");
      return std::atoll(argv[++i]);
    };
    if (a == "--threads") {
      o.threads = static_cast<int>(next());
    } else if (a == "--elems") {
      o.n_elems = static_cast<int>(next());
    } else if (a == "--reps") {
      o.reps = static_cast<int>(next());
    } else if (a == "--seed") {
      o.seed = static_cast<std::uint64_t>(next());
    } else if (!a.empty() && a[0] == '-') {
      fail("unknown option " + a +
           "; usage: material_throughput [out.json] [--threads N] [--elems N] [--reps N] "
           "[--seed S]");
    } else {
      o.out = a;
    }
  }
  if (o.threads < 1 || o.n_elems < 1 || o.reps < 1)
    fail("--threads, --elems and --reps must be positive");
  return o;
}

// ---------------------------------------------------------------------------------------------
// Random elements: each tetrahedron has its own four vertices, stored in element order.

struct Problem {
  int n_elems = 0;
  std::vector<int> elems;
  std::vector<double> Dm_inv;
  std::vector<double> volume;
  std::vector<double> x;  ///< current positions, 4 vertices per element
  std::vector<double> youngs;
  std::vector<double> poisson;
};

/// The fixed-seed random numbers the problem is built from.
struct Random {
  std::mt19937_64 engine;
  std::uniform_real_distribution<double> sym_dist{-1.0, 1.0};
  std::uniform_real_distribution<double> unit_dist{0.0, 1.0};
  std::normal_distribution<double> normal_dist{0.0, 1.0};
  double sym() { return sym_dist(engine); }    ///< uniform in [-1, 1)
  double unit() { return unit_dist(engine); }  ///< uniform in [0, 1)
  double normal() { return normal_dist(engine); }

  /// A uniformly distributed rotation (from a normalized Gaussian quaternion).
  Mat3 rotation() {
    double q[4];
    double n2 = 0.0;
    for (double& c : q) {
      c = normal();
      n2 += c * c;
    }
    const double s = 1.0 / std::sqrt(n2);
    const double w = q[0] * s, a = q[1] * s, b = q[2] * s, c = q[3] * s;
    Mat3 R;
    R.a[0] = 1 - 2 * (b * b + c * c), R.a[1] = 2 * (a * b - w * c), R.a[2] = 2 * (a * c + w * b);
    R.a[3] = 2 * (a * b + w * c), R.a[4] = 1 - 2 * (a * a + c * c), R.a[5] = 2 * (b * c - w * a);
    R.a[6] = 2 * (a * c - w * b), R.a[7] = 2 * (b * c + w * a), R.a[8] = 1 - 2 * (a * a + b * b);
    return R;
  }
};

Mat3 edge_matrix(const double (*v)[3]) {
  Mat3 D;
  for (int i = 0; i < 3; ++i)
    for (int a = 1; a <= 3; ++a) D(i, a - 1) = v[a][i] - v[0][i];
  return D;
}

/// A well-shaped rest tet X with positive orientation: a regular tet of edge h in [1, 10] cm with
/// 15% jitter, randomly rotated and placed, accepted if its volume is at least half that of the
/// regular tet with its longest edge. Returns h.
double random_rest_tet(Random& rnd, double (*X)[3]) {
  constexpr double kRegular[4][3] = {{1, 1, 1}, {-1, 1, -1}, {1, -1, -1}, {-1, -1, 1}};
  for (;;) {
    const double h = 0.01 + 0.09 * rnd.unit();
    const Mat3 R = rnd.rotation();
    const double c[3] = {rnd.sym(), rnd.sym(), rnd.sym()};
    for (int a = 0; a < 4; ++a) {
      double p[3];
      for (int i = 0; i < 3; ++i) p[i] = h * (kRegular[a][i] / std::sqrt(8.0) + 0.15 * rnd.sym());
      for (int i = 0; i < 3; ++i) X[a][i] = c[i] + R(i, 0) * p[0] + R(i, 1) * p[1] + R(i, 2) * p[2];
    }
    double longest = 0.0;
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) {
        double l2 = 0.0;
        for (int i = 0; i < 3; ++i) l2 += (X[a][i] - X[b][i]) * (X[a][i] - X[b][i]);
        longest = std::max(longest, std::sqrt(l2));
      }
    if (det(edge_matrix(X)) / 6.0 >= 0.5 * std::pow(longest, 3) / (6.0 * std::sqrt(2.0))) return h;
  }
}

/// Current positions xe of the rest tet X (edge h): a random rotation times a stretch with
/// principal values in [0.74, 1.35], a translation and 5% jitter, accepted if det F > 0.2.
void random_current_shape(Random& rnd, const double (*X)[3], double h,
                          const ad::ElementShape<3>& shape, double* xe) {
  do {
    const Mat3 Q = rnd.rotation();
    Mat3 S = filled<double, 3, 3>(0.0);
    for (int i = 0; i < 3; ++i) S(i, i) = std::exp(0.3 * rnd.sym());
    const Mat3 F = rnd.rotation() * Q * S * transpose(Q);
    const double t[3] = {0.1 * rnd.sym(), 0.1 * rnd.sym(), 0.1 * rnd.sym()};
    for (int a = 0; a < 4; ++a)
      for (int i = 0; i < 3; ++i) {
        double v = X[0][i] + t[i] + 0.05 * h * rnd.sym();
        for (int j = 0; j < 3; ++j) v += F(i, j) * (X[a][j] - X[0][j]);
        xe[3 * a + i] = v;
      }
  } while (!(det(ad::apply_shape(shape, xe)) > 0.2));
}

/// n_elems random elements, each with its own four vertices, and random (youngs, poisson) in
/// [10 kPa, 10 MPa] (log-uniform) x [0, 0.45).
Problem make_problem(int n_elems, std::uint64_t seed) {
  Random rnd{std::mt19937_64(seed)};
  Problem pr;
  pr.n_elems = n_elems;
  pr.elems.resize(4 * size_t(n_elems));
  pr.Dm_inv.resize(9 * size_t(n_elems));
  pr.volume.resize(n_elems);
  pr.x.resize(12 * size_t(n_elems));
  pr.youngs.resize(n_elems);
  pr.poisson.resize(n_elems);
  for (int e = 0; e < n_elems; ++e) {
    double X[4][3];
    const double h = random_rest_tet(rnd, X);
    const Mat3 Dm_inv = inverse(edge_matrix(X));
    pr.volume[e] = det(edge_matrix(X)) / 6.0;
    for (int k = 0; k < 9; ++k) pr.Dm_inv[9 * e + k] = Dm_inv.a[k];
    for (int a = 0; a < 4; ++a) pr.elems[4 * e + a] = 4 * e + a;
    const ad::ElementShape<3> shape = ad::element_shape<3>(&pr.Dm_inv[9 * e], pr.volume[e]);
    random_current_shape(rnd, X, h, shape, &pr.x[12 * e]);
    pr.youngs[e] = std::pow(10.0, 4.0 + 3.0 * rnd.unit());
    pr.poisson[e] = 0.45 * rnd.unit();
  }
  return pr;
}

/// Per-element parameters of `model` from each element's (youngs, poisson).
std::vector<double> params_for(const MaterialModel& model, const Problem& pr) {
  const int m = model.n_params();
  std::vector<double> p(static_cast<size_t>(m) * pr.n_elems);
  for (int e = 0; e < pr.n_elems; ++e) {
    const auto pe = params_from_youngs_poisson(model, pr.youngs[e], pr.poisson[e]);
    std::copy(pe.begin(), pe.end(), p.begin() + static_cast<size_t>(m) * e);
  }
  return p;
}

ElementBatch batch_of(const Problem& pr, const std::vector<double>& params, int n_elems) {
  ElementBatch b;
  b.dim = 3;
  b.n_elems = n_elems;
  b.elems = pr.elems.data();
  b.Dm_inv = pr.Dm_inv.data();
  b.volume = pr.volume.data();
  b.params = params.data();
  return b;
}

// ---------------------------------------------------------------------------------------------
// What is timed: four modes of a batched kernel, writing into preallocated outputs.

enum class Mode { Value, Gradient, Hessian, HessianProjected };
constexpr Mode kModes[] = {Mode::Value, Mode::Gradient, Mode::Hessian, Mode::HessianProjected};
constexpr const char* kModeNames[] = {"value", "gradient", "hessian", "hessian_projected"};

struct Outputs {
  std::vector<double> per_elem, grad, hess;
  explicit Outputs(int n) : per_elem(n), grad(12 * size_t(n)), hess(144 * size_t(n)) {}
};

using Kernel = std::function<BatchReport(Mode, const ElementBatch&, const double*, Outputs&)>;

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

/// A measurement: the best time of its timed runs [s], and how many there were.
struct Timing {
  double seconds = std::numeric_limits<double>::infinity();
  int runs = 0;
};

/// Seconds after which a measurement stops repeating once it has kMinRuns runs: the PSD-projected
/// modes take about a second per 100k-element run, and the whole program should stay near a
/// minute on one core.
constexpr double kBudget = 3.0;
constexpr int kMinRuns = 3;

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

/// A kernel under a name, for the table and for error messages.
struct Subject {
  std::string name;
  Kernel kernel;
};

/// Best time of up to `reps` runs of each subject, after a warm-up run over the first tenth
/// of the batch (the outputs are already paged in). The subjects' runs are interleaved, so that a
/// change in the machine's load affects them alike. Fails if any element fails to evaluate.
std::vector<Timing> best_times(const std::vector<Subject>& subjects, Mode mode,
                               const ElementBatch& b, const double* x, Outputs& o, int reps,
                               bool cpu_time) {
  const auto check = [&](const BatchReport& r, const Subject& s) {
    if (!r.ok())
      fail(s.name + " " + kModeNames[static_cast<int>(mode)] + ": " + std::to_string(r.n_inverted) +
           " inverted and " + std::to_string(r.n_failed) + " failed elements (tape capacity?)");
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

// ---------------------------------------------------------------------------------------------
// The closed form must compute the same quantities as AD: compare the first elements.

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
        fail(msg);
      }
    }
  };
  for (int m = 0; m < 4; ++m) {
    const Mode mode = kModes[m];
    if (!ad_kernel(mode, b, pr.x.data(), a).ok() || !cf_kernel(mode, b, pr.x.data(), c).ok())
      fail("the check elements failed to evaluate");
    compare(kModeNames[m], "energy", a.per_elem, c.per_elem, 1);
    if (mode != Mode::Value) compare(kModeNames[m], "gradient", a.grad, c.grad, 12);
    if (mode == Mode::Hessian || mode == Mode::HessianProjected)
      compare(kModeNames[m], "Hessian", a.hess, c.hess, 144);
  }
  std::printf("closed-form Neo-Hookean matches AD on the first %d elements (rtol %.0e)\n", n,
              kRtol);
}

// ---------------------------------------------------------------------------------------------

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

std::string compiler() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("gcc ") + __VERSION__;
#else
  return "unknown";
#endif
}

std::string simd() {
#if defined(__AVX512F__)
  return "avx512";
#elif defined(__AVX2__)
  return "avx2";
#elif defined(__AVX__)
  return "avx";
#else
  return "sse2";
#endif
}

#ifndef SOFTGRAD_BENCH_BUILD
#define SOFTGRAD_BENCH_BUILD "unknown"
#endif

struct Result {
  std::string material;
  Timing timing[4];
};

/// AD Neo-Hookean time over closed-form time, per mode.
std::vector<double> neo_hookean_ratios(const std::vector<Result>& results) {
  const auto find = [&](const std::string& name) {
    const auto it = std::find_if(results.begin(), results.end(),
                                 [&](const Result& r) { return r.material == name; });
    if (it == results.end()) fail("no result for " + name);
    return *it;
  };
  const Result ad = find("neo_hookean"), cf = find("neo_hookean_closed_form");
  std::vector<double> ratios;
  for (int m = 0; m < 4; ++m) ratios.push_back(ad.timing[m].seconds / cf.timing[m].seconds);
  return ratios;
}

/// The table: ns per element and million elements per second, per mode.
void print_table(const std::vector<Result>& results, int n_elems) {
  std::printf("\n%-24s", "material");
  for (const char* m : kModeNames) std::printf(" %22s", m);
  std::printf("\n%-24s", "");
  for (int m = 0; m < 4; ++m) std::printf(" %12s %9s", "ns/elem", "Melem/s");
  std::printf("\n");
  for (const Result& r : results) {
    std::printf("%-24s", r.material.c_str());
    for (const Timing& t : r.timing)
      std::printf(" %12.1f %9.3f", 1e9 * t.seconds / n_elems, 1e-6 * n_elems / t.seconds);
    std::printf("\n");
  }
  const std::vector<double> ratios = neo_hookean_ratios(results);
  std::printf("\nneo_hookean time, AD / closed form:");
  for (int m = 0; m < 4; ++m) std::printf("  %s %.2f", kModeNames[m], ratios[m]);
  std::printf("   (target for hessian: <= 1.5)\n");
}

void write_json(const std::vector<Result>& results, const Options& opt, int cores) {
  nlohmann::ordered_json j;
  j["machine"] = {{"cores", cores},
                  {"cpu", cpu_model()},
                  {"compiler", compiler()},
                  {"build", SOFTGRAD_BENCH_BUILD},
                  {"simd", simd()}};
  j["n_elems"] = opt.n_elems;
  j["threads"] = opt.threads;
  j["max_repetitions"] = opt.reps;
  j["clock"] = opt.threads == 1 ? "thread_cpu_time" : "wall";
  j["seed"] = opt.seed;
  j["results"] = nlohmann::ordered_json::array();
  for (const Result& r : results)
    for (int m = 0; m < 4; ++m)
      j["results"].push_back({{"material", r.material},
                              {"mode", kModeNames[m]},
                              {"elements_per_second", opt.n_elems / r.timing[m].seconds},
                              {"ns_per_element", 1e9 * r.timing[m].seconds / opt.n_elems},
                              {"runs", r.timing[m].runs}});
  const std::vector<double> ratios = neo_hookean_ratios(results);
  for (int m = 0; m < 4; ++m) j["neo_hookean_ratio_ad_over_hand"][kModeNames[m]] = ratios[m];
  std::ofstream file(opt.out);
  file << j.dump(2) << "\n";
  if (!file) fail("cannot write " + opt.out);
  std::printf("wrote %s\n", opt.out.c_str());
}

int run(const Options& opt) {
  omp_set_num_threads(opt.threads);
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  std::printf("material_throughput: %d tetrahedra, %d thread(s) on a %d-core machine\n",
              opt.n_elems, opt.threads, cores);
  std::printf("cpu: %s; %s; build %s, %s\n", cpu_model().c_str(), compiler().c_str(),
              SOFTGRAD_BENCH_BUILD, simd().c_str());
  std::printf("best of up to %d runs (at least %d; fewer than %d only after %.0f s), %s\n",
              opt.reps, std::min(kMinRuns, opt.reps), opt.reps, kBudget,
              opt.threads == 1 ? "thread CPU time" : "wall time");

  const Problem pr = make_problem(opt.n_elems, opt.seed);
  const auto neo_hookean = find_material("neo_hookean");
  const std::vector<double> nh_params = params_for(*neo_hookean, pr);
  check_closed_form(*neo_hookean, pr, nh_params);

  std::vector<Result> results;
  Outputs out(opt.n_elems);
  // Each model alone, except that AD Neo-Hookean and the closed form run interleaved.
  const auto measure = [&](const std::vector<Subject>& subjects,
                           const std::vector<double>& params) {
    const ElementBatch b = batch_of(pr, params, pr.n_elems);
    std::vector<Result> rs;
    for (const Subject& s : subjects) rs.push_back(Result{s.name, {}});
    for (int m = 0; m < 4; ++m) {
      const std::vector<Timing> t =
          best_times(subjects, kModes[m], b, pr.x.data(), out, opt.reps, opt.threads == 1);
      for (size_t i = 0; i < subjects.size(); ++i) rs[i].timing[m] = t[i];
    }
    results.insert(results.end(), rs.begin(), rs.end());
  };
  for (const auto& model : all_materials()) {
    std::vector<Subject> subjects{{model->name(), model_kernel(*model)}};
    if (model == neo_hookean) subjects.push_back({"neo_hookean_closed_form", closed_form_kernel()});
    measure(subjects, params_for(*model, pr));
  }

  print_table(results, opt.n_elems);
  write_json(results, opt, cores);
  return 0;
}

}  // namespace
}  // namespace softgrad::bench

int main(int argc, char** argv) {
  return softgrad::bench::run(softgrad::bench::parse_options(argc, argv));
}
