#include "adjoint_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "child_process.hpp"
#include "softgrad/openmp_waiting.hpp"

namespace softgrad::bench {

const char* const kAdjointUsage =
    "usage: adjoint_cantilever [--sizes 1k,10k,50k] [--backends cholmod,pcg,matfree] "
    "[--checkpoints 1,sqrt] [--steps 100] [--dt 0.01] [--threads N] [--max-seconds 300] "
    "[--out benchmarks/results/adjoint_cantilever.json] [--merge] "
    "[--material stable_neo_hookean] [--youngs 1e7] [--poisson 0.4] [--density 1000] "
    "[--newton-tol 1e-6] [--cg-tol 1e-10] [--adjoint-tol 1e-12] [--project 10k:10000]";

namespace {

constexpr double kMB = 1024.0 * 1024.0;
constexpr double kDefaultAdjointTol = 1e-12;  ///< AdjointOptions' CG tolerance

double get_or(const json& r, const char* key, double fallback = NAN) {
  return r.contains(key) && r[key].is_number() ? r[key].get<double>() : fallback;
}

bool has_timings(const json& r) {
  const std::string s = r.value("status", "");
  return (s == "ok" || s == "truncated") && r.contains("forward_s");
}

/// The problem every record of a result file shares (--merge refuses another one).
json problem(const AdjointBenchOptions& o) {
  return {{"beam_m", {kLength, kWidth, kWidth}},
          {"clamp", "x = 0 vertices, fixed"},
          {"gravity", {0.0, -9.81, 0.0}},
          {"start", "rest"},
          {"material", o.beam.model},
          {"youngs", o.beam.youngs},
          {"poisson", o.beam.poisson},
          {"density", o.beam.density},
          {"dt", o.dt},
          {"newton_tolerance", o.newton_tol},
          {"forward_cg_rel_tol", o.cg_tol},
          {"loss",
           "sum_tip 1/(2 n_tip) |x_tip(T) - (X_tip - 0.1 m e_y)|^2 + 1/2 |centre-of-mass "
           "velocity(T)|^2"},
          {"parameters", "youngs (tied), poisson (tied), v0 (every dof)"}};
}

/// The backend, with the adjoint CG tolerance when it is not AdjointOptions' default.
std::string label(const json& r) {
  const double tol = get_or(r, "adjoint_cg_rel_tol", kDefaultAdjointTol);
  if (tol == kDefaultAdjointTol || r.value("backend", "") == "cholmod")
    return r.value("backend", "");
  char buf[32];
  std::snprintf(buf, sizeof(buf), ",tol=%g", tol);
  return r.value("backend", "") + buf;
}

std::tuple<int, int, std::string, int> sort_key(const json& r) {
  static const std::vector<std::string> backends = {"cholmod", "pcg", "pcg-jacobi", "pcg-ichol",
                                                    "matfree"};
  const auto b = std::find(backends.begin(), backends.end(), r.value("backend", ""));
  const std::string c = r.value("checkpoints", "");
  return {r.value("n_tets", 0), static_cast<int>(b - backends.begin()), label(r),
          c == "1" ? 0 : (c == "sqrt" ? 1 : 2)};
}

/// Same size, backend (and adjoint tolerance) and checkpointing.
bool same_config(const json& a, const json& b) {
  return a.value("size", "") == b.value("size", "") && label(a) == label(b) &&
         a.value("checkpoints", "") == b.value("checkpoints", "");
}

/// The "1" and "sqrt" records of each (size, backend) side by side.
json ratio_summary(const json& results) {
  std::printf(
      "\nbackward / forward (checkpoints 1: every state stored; sqrt: every ceil(sqrt T)-th, "
      "backward includes recomputing the rest; nan: no sqrt record of as many steps)\n%-9s %6s "
      "%-17s %5s %9s %7s %9s %6s %6s %9s %6s "
      "%6s %15s %15s %15s\n",
      "size", "tets", "backend", "steps", "fwd[s]", "newton", "bwd1[s]", "ratio", "cpu", "bwdS[s]",
      "ratio", "excl", "stored[MB]1/S", "peakRSS[MB]1/S", "dRSS[MB]1/S");
  json summary = json::array();
  for (const json& full : results) {
    if (full.value("checkpoints", "") != "1" || !has_timings(full)) continue;
    const json* sq = nullptr;
    for (const json& r : results)
      if (r.value("checkpoints", "") == "sqrt" && has_timings(r) &&
          r.value("size", "") == full.value("size", "") && label(r) == label(full) &&
          r.value("steps_run", 0) == full.value("steps_run", 0))
        sq = &r;
    const auto s = [&](const char* key) { return sq ? get_or(*sq, key) : NAN; };
    std::printf(
        "%-9s %6d %-17s %5d %9.2f %7.2f %9.2f %6.3f %6.3f %9.2f %6.3f %6.3f %7.2f/%-7.2f "
        "%7.1f/%-7.1f "
        "%7.1f/%-7.1f%s\n",
        full.value("size", "").c_str(), full.value("n_tets", 0), label(full).c_str(),
        full.value("steps_run", 0), get_or(full, "forward_s"), get_or(full, "newton_per_step"),
        get_or(full, "backward_s"), get_or(full, "ratio"), get_or(full, "ratio_cpu"),
        s("backward_s"), s("ratio"), s("ratio_excl_recompute"),
        get_or(full, "trajectory_bytes") / kMB, s("trajectory_bytes") / kMB,
        get_or(full, "peak_rss_mb"), s("peak_rss_mb"), get_or(full, "peak_rss_delta_mb"),
        s("peak_rss_delta_mb"), full.value("status", "") == "truncated" ? "  truncated" : "");
    summary.push_back({{"size", full["size"]},
                       {"n_tets", full["n_tets"]},
                       {"backend", full["backend"]},
                       {"adjoint_cg_rel_tol", full.value("adjoint_cg_rel_tol", json())},
                       {"steps", full["steps_run"]},
                       {"forward_s", full["forward_s"]},
                       {"newton_per_step", full["newton_per_step"]},
                       {"backward_s_checkpoints_1", full["backward_s"]},
                       {"ratio_checkpoints_1", full["ratio"]},
                       {"ratio_cpu_checkpoints_1", full.value("ratio_cpu", json())},
                       {"backward_s_sqrt", sq ? (*sq)["backward_s"] : json()},
                       {"ratio_sqrt", sq ? (*sq)["ratio"] : json()},
                       {"ratio_cpu_sqrt", sq ? sq->value("ratio_cpu", json()) : json()},
                       {"ratio_sqrt_excl_recompute", sq ? (*sq)["ratio_excl_recompute"] : json()},
                       {"stored_bytes_checkpoints_1", full["trajectory_bytes"]},
                       {"stored_bytes_sqrt", sq ? (*sq)["trajectory_bytes"] : json()},
                       {"segment_bytes_sqrt", sq ? (*sq)["segment_bytes"] : json()},
                       {"peak_rss_mb_checkpoints_1", full["peak_rss_mb"]},
                       {"peak_rss_mb_sqrt", sq ? (*sq)["peak_rss_mb"] : json()},
                       {"target_backward_le_half_forward", get_or(full, "ratio") <= 0.5}});
  }
  return summary;
}

/// Relative spread of the loss and gradient over the records of one size and step count.
json gradient_agreement(const json& results) {
  std::printf("\ngradient agreement (records of one size and step count; relative spread)\n");
  std::map<std::pair<std::string, int>, std::vector<const json*>> groups;
  for (const json& r : results)
    if (has_timings(r)) groups[{r.value("size", ""), r.value("steps_run", 0)}].push_back(&r);
  json out = json::array();
  for (const auto& [key, runs] : groups) {
    json entry = {{"size", key.first}, {"steps", key.second}, {"records", runs.size()}};
    std::printf("  %-9s %5d steps, %zu records:", key.first.c_str(), key.second, runs.size());
    for (const char* q : {"loss", "dl_dyoungs", "dl_dpoisson", "dl_dv0_norm"}) {
      double lo = INFINITY, hi = -INFINITY;
      for (const json* r : runs) {
        lo = std::min(lo, get_or(*r, q));
        hi = std::max(hi, get_or(*r, q));
      }
      const double spread = (hi - lo) / std::max(std::abs(hi), std::abs(lo));
      entry[std::string(q) + "_range"] = {lo, hi};
      entry[std::string(q) + "_rel_spread"] = spread;
      std::printf(" %s %.3e (spread %.1e)", q, hi, spread);
    }
    std::printf("\n");
    out.push_back(std::move(entry));
  }
  return out;
}

/// Memory of N steps at the projection size, computed from a record's bytes per state.
json memory_projection(const AdjointBenchOptions& o, const json& results) {
  const json* src = nullptr;
  for (const json& r : results)
    if (has_timings(r) && r.value("size", "") == o.project_size && r.contains("state_bytes") &&
        (!src || r.value("backend", "") == "cholmod"))
      src = &r;
  if (!src) {
    std::printf("\nprojection: no record of size %s to take the bytes per state from\n",
                o.project_size.c_str());
    return json();
  }
  const double b = get_or(*src, "state_bytes");
  const int N = o.project_steps;
  const int k = std::max(1, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(N)))));
  const int checkpoints = N / k + 1 + (N % k != 0 ? 1 : 0);
  const double full = (N + 1) * b, sqrt_bytes = (checkpoints + k + 1) * b;
  const double base = get_or(*src, "rss_baseline_mb");
  std::printf(
      "\nprojection, COMPUTED (not measured) from the measured %.1f kB per state (x and v) of "
      "size %s (%d dofs), %d steps:\n  every state stored: %d states = %.1f MB\n  sqrt "
      "checkpointing (k = %d): %d checkpoints + %d segment states = %.2f MB\n  plus the "
      "process's own memory before the run (model, solver, factor): %.1f MB measured at this "
      "size (%s)\n",
      b / 1024.0, o.project_size.c_str(), src->value("n_dofs", 0), N, N + 1, full / kMB, k,
      checkpoints, k + 1, sqrt_bytes / kMB, base, src->value("backend", "").c_str());
  return {{"kind", "computed from measured bytes per state, not measured"},
          {"size", o.project_size},
          {"n_dofs", (*src)["n_dofs"]},
          {"steps", N},
          {"state_bytes", b},
          {"every_state_bytes", full},
          {"sqrt_checkpoint_every", k},
          {"sqrt_checkpoints", checkpoints},
          {"sqrt_segment_states", k + 1},
          {"sqrt_bytes", sqrt_bytes},
          {"process_baseline_mb_measured", base},
          {"baseline_from_backend", (*src)["backend"]}};
}

/// For runs of 1000 steps or more: stored and segment states against sqrt(T).
json long_run_check(const json& results) {
  json out = json::array();
  for (const json& r : results) {
    if (!has_timings(r) || r.value("steps_run", 0) < 1000) continue;
    const int T = r.value("steps_run", 0);
    if (out.empty())
      std::printf("\nlong runs (MEASURED): stored and recomputed-segment states against sqrt(T)\n");
    std::printf(
        "  %-9s %-8s ckpt %-4s T = %d: k = %d, %d stored states (%.2f MB) + %.0f segment states "
        "(%.2f MB); sqrt(T) = %.0f; peak RSS %.1f MB (%.1f MB above the baseline)\n",
        r.value("size", "").c_str(), r.value("backend", "").c_str(),
        r.value("checkpoints", "").c_str(), T, r.value("checkpoint_every", 0),
        r.value("stored_states", 0), get_or(r, "trajectory_bytes") / kMB,
        get_or(r, "segment_states"), get_or(r, "segment_bytes") / kMB, std::sqrt(T),
        get_or(r, "peak_rss_mb"), get_or(r, "peak_rss_delta_mb"));
    out.push_back({{"size", r["size"]},
                   {"checkpoints", r["checkpoints"]},
                   {"steps", T},
                   {"sqrt_steps", std::sqrt(T)},
                   {"checkpoint_every", r["checkpoint_every"]},
                   {"stored_states", r["stored_states"]},
                   {"segment_states", r["segment_states"]},
                   {"trajectory_bytes", r["trajectory_bytes"]},
                   {"segment_bytes", r["segment_bytes"]},
                   {"peak_rss_mb", r["peak_rss_mb"]},
                   {"peak_rss_delta_mb", r["peak_rss_delta_mb"]}});
  }
  return out;
}

}  // namespace

json config_record(const std::string& size, const Cells& cells, const std::string& backend,
                   const std::string& checkpoint) {
  return {{"size", size},
          {"cells", {cells.nx, cells.ny, cells.nz}},
          {"n_tets", cells.n_tets()},
          {"n_dofs", cells.n_dofs()},
          {"backend", backend},
          {"checkpoints", checkpoint}};
}

void print_header() {
  std::printf(
      "%-9s %6s %6s %-17s %4s %4s %6s %8s %6s %8s %8s %6s %6s %6s %8s %9s %8s %8s %8s  %s\n",
      "size", "tets", "dofs", "backend", "ckpt", "k", "steps", "fwd[s]", "newton", "bwd[s]",
      "recomp[s]", "ratio", "excl", "cpu", "adjCG/st", "stored[MB]", "seg[MB]", "peak[MB]",
      "dRSS[MB]", "status");
}

void print_row(const json& r) {
  std::printf("%-9s %6d %6d %-17s %4s", r.value("size", "?").c_str(), r.value("n_tets", 0),
              r.value("n_dofs", 0), label(r).c_str(), r.value("checkpoints", "?").c_str());
  if (has_timings(r)) {
    std::printf(" %4d %6d %8.2f %6.2f %8.2f %8.2f %6.3f %6.3f %6.3f %8.1f %9.2f %8.2f %8.1f %8.1f",
                r.value("checkpoint_every", 0), r.value("steps_run", 0), get_or(r, "forward_s"),
                get_or(r, "newton_per_step"), get_or(r, "backward_s"), get_or(r, "recompute_s"),
                get_or(r, "ratio"), get_or(r, "ratio_excl_recompute"), get_or(r, "ratio_cpu"),
                get_or(r, "adjoint_linear_per_step"), get_or(r, "trajectory_bytes") / kMB,
                get_or(r, "segment_bytes") / kMB, get_or(r, "peak_rss_mb"),
                get_or(r, "peak_rss_delta_mb"));
    std::printf("  %s%s%s", r.value("status", "").c_str(),
                r.value("trustworthy", false) ? "" : " UNTRUSTWORTHY",
                r.value("forward_converged", false) ? "" : " (unconverged steps)");
    if (r.value("adjoint_solves_unconverged", 0) > 0)
      std::printf(" (%d adjoint CG solves unconverged)", r.value("adjoint_solves_unconverged", 0));
  } else {
    std::printf("  %s %s", r.value("status", "?").c_str(),
                r.value("note", r.value("error", "")).c_str());
  }
  std::printf("\n");
  std::fflush(stdout);
}

json read_previous(const AdjointBenchOptions& o) {
  std::ifstream in(o.out);
  if (!in) return json();
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    throw std::runtime_error("--merge: cannot parse " + o.out + ": " + e.what());
  }
}

json merge_and_summarise(const AdjointBenchOptions& o, const json& previous, json results,
                         const json& invocation) {
  json j;
  j["benchmark"] = "adjoint_cantilever";
  j["machine"] = machine_info();
  j["machine"]["cores"] = std::thread::hardware_concurrency();
  j["omp_wait_policy"] = softgrad::openmp_wait_policy();
  j["problem"] = problem(o);
  j["invocations"] = json::array();
  if (previous.is_object()) {
    if (previous.value("problem", json()) != j["problem"])
      throw std::runtime_error("--merge: " + o.out +
                               " describes another problem (options differ): " +
                               previous.value("problem", json()).dump());
    j["invocations"] = previous.value("invocations", json::array());
    for (const json& r : previous.value("results", json::array())) {
      bool replaced = false;
      for (const json& n : results) replaced = replaced || same_config(r, n);
      if (!replaced) results.push_back(r);
    }
  }
  j["invocations"].push_back(invocation);
  std::stable_sort(results.begin(), results.end(),
                   [](const json& a, const json& b) { return sort_key(a) < sort_key(b); });
  if (previous.is_object()) {
    std::printf("\nall records in %s:\n", o.out.c_str());
    print_header();
    for (const json& r : results) print_row(r);
  }
  j["summary"] = ratio_summary(results);
  j["agreement"] = gradient_agreement(results);
  j["projection"] = memory_projection(o, results);
  j["long_runs"] = long_run_check(results);
  j["notes"] = {
      "Times are wall-clock seconds of simulate() (forward) and gradient() (backward, "
      "including the recomputation of checkpoint segments, recompute_s) over steps_run steps; "
      "ratio = backward / forward; ratio_excl_recompute leaves out recompute_s; ratio_cpu is "
      "the ratio of process CPU seconds (forward_cpu_s, backward_cpu_s), less sensitive to "
      "other jobs on the machine.",
      "Children run with OMP_NUM_THREADS = OMP_THREAD_LIMIT = threads (the limit also caps "
      "CHOLMOD's own team of 4 threads in its supernodal factorisation).",
      "Each record comes from a fresh child process. peak_rss_mb is its VmHWM after the "
      "backward pass; rss_baseline_mb its VmHWM after set-up and a one-step probe (model, "
      "solver, factor and scratch allocated); peak_rss_delta_mb the difference. "
      "trajectory_bytes / segment_bytes are AdjointReport's counts of stored states and of the "
      "largest recomputed segment.",
      "adjoint_solves_unconverged counts the steps whose adjoint CG solve stopped at its "
      "iteration limit without reaching adjoint_cg_rel_tol (AdjointReport::trustworthy() does "
      "not look at them).",
      "status 'truncated': the probe said --steps would not fit in --max-seconds, so fewer "
      "steps ran (steps_run); 'skipped': fewer than 2 steps fit, only the probe ran.",
      "projection: computed from measured bytes per state, not measured."};
  std::printf(
      "\nbackend 'pcg,tol=1e-10': the adjoint CG tolerance is not AdjointOptions' 1e-12. "
      "ratio: backward / forward wall time; excl: without recomputation; cpu: the same "
      "ratio of process CPU times; newton: iterations per "
      "step; adjCG/st: adjoint CG iterations per step; stored: bytes of stored states; seg: "
      "largest recomputed segment; peak: the child's VmHWM; dRSS: VmHWM rise above the "
      "baseline measured after set-up and a one-step probe.\n");
  j["results"] = std::move(results);
  return j;
}

}  // namespace softgrad::bench
