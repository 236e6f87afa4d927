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
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "child_process.hpp"
#include "command_line.hpp"
#include "material_kernels.hpp"
#include "material_problem.hpp"
#include "softgrad/material_model.hpp"
#include "softgrad/openmp_waiting.hpp"

namespace softgrad::bench {
namespace {

struct Options {
  std::string out = "material_throughput.json";
  int threads = 1;
  int n_elems = 100000;
  int reps = 5;
  std::uint64_t seed = 20240611;
};

/// The options of the command line.
/// @throws std::invalid_argument for an unknown option or a non-positive count.
Options parse_options(int argc, char** argv) {
  Options o;
  for (Arguments args(argc, argv); args.next();) {
    const std::string& a = args.option();
    if (a == "--threads") {
      o.threads = args.integer();
    } else if (a == "--elems") {
      o.n_elems = args.integer();
    } else if (a == "--reps") {
      o.reps = args.integer();
    } else if (a == "--seed") {
      const int seed = args.integer();
      if (seed < 0) throw std::invalid_argument("--seed must be >= 0, got " + std::to_string(seed));
      o.seed = static_cast<std::uint64_t>(seed);
    } else if (!a.empty() && a[0] == '-') {
      throw std::invalid_argument(
          "unknown option " + a +
          "; usage: material_throughput [out.json] [--threads N] [--elems N] [--reps N] "
          "[--seed S]");
    } else {
      o.out = a;
    }
  }
  if (o.threads < 1 || o.n_elems < 1 || o.reps < 1)
    throw std::invalid_argument("--threads, --elems and --reps must be positive");
  return o;
}

/// The widest x86 vector instruction set the build may use.
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

/// A subject's timings, per mode in the order of kModes.
struct Result {
  std::string material;
  Timing timing[4];
};

/// AD Neo-Hookean time over closed-form time, per mode.
std::vector<double> neo_hookean_ratios(const std::vector<Result>& results) {
  const auto find = [&](const std::string& name) {
    const auto it = std::find_if(results.begin(), results.end(),
                                 [&](const Result& r) { return r.material == name; });
    if (it == results.end()) throw std::runtime_error("no result for " + name);
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

/// The JSON file: the machine, the run's settings, every throughput and the ratios.
/// @throws std::runtime_error if opt.out cannot be written.
void write_json(const std::vector<Result>& results, const Options& opt, int cores) {
  nlohmann::ordered_json j;
  j["machine"] = machine_info();
  j["machine"]["cores"] = cores;
  j["machine"]["build"] = SOFTGRAD_BENCH_BUILD;
  j["machine"]["simd"] = simd();
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
  if (!file) throw std::runtime_error("cannot write " + opt.out);
  std::printf("wrote %s\n", opt.out.c_str());
}

/// Builds the problem, checks the closed form, times every material and reports.
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
  softgrad::restart_with_bounded_openmp_waiting(argv);
  // Every failure, in the options or in a check, ends the program with its message and status 1.
  try {
    return softgrad::bench::run(softgrad::bench::parse_options(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "material_throughput: %s\n", e.what());
    return 1;
  }
}
