/// @file beam_run_options.hpp
/// The options the two cantilever benchmarks (cantilever_solvers, adjoint_cantilever) share:
/// the sizes run, the time stepping, the thread count, the budget, the output file, the beam's
/// material and the tolerances. One parser, one check and one child argument list serve both.
#pragma once

#include <omp.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cantilever_beam.hpp"
#include "command_line.hpp"

namespace softgrad::bench {

/// A cantilever benchmark's run: each benchmark's options derive from it and set its defaults.
struct BeamRunOptions {
  std::vector<std::string> sizes = {"1k", "10k", "50k"};
  int steps = 50;
  double dt = 0.01;
  int threads = 0;  ///< 0: omp_get_max_threads()
  double max_seconds = 120.0;
  std::string out;
  BeamMaterial beam;
  double newton_tol = 1e-6;
  double cg_tol = 1e-10;
};

/// Takes the current option of `args` (and its value) into `o` if it is one of BeamRunOptions':
/// --sizes, --steps, --dt, --threads, --max-seconds, --out, --material, --youngs, --poisson,
/// --density, --newton-tol, --cg-tol.
/// @return false for any other option, which `args` has not moved past.
/// @throws std::invalid_argument for a missing or bad value.
inline bool take_beam_run_option(Arguments& args, BeamRunOptions& o) {
  const std::string& a = args.option();
  if (a == "--sizes") {
    o.sizes = args.list();
  } else if (a == "--steps") {
    o.steps = args.integer();
  } else if (a == "--dt") {
    o.dt = args.number();
  } else if (a == "--threads") {
    o.threads = args.integer();
  } else if (a == "--max-seconds") {
    o.max_seconds = args.number();
  } else if (a == "--out") {
    o.out = args.value();
  } else if (a == "--material") {
    o.beam.model = args.value();
  } else if (a == "--youngs") {
    o.beam.youngs = args.number();
  } else if (a == "--poisson") {
    o.beam.poisson = args.number();
  } else if (a == "--density") {
    o.beam.density = args.number();
  } else if (a == "--newton-tol") {
    o.newton_tol = args.number();
  } else if (a == "--cg-tol") {
    o.cg_tol = args.number();
  } else {
    return false;
  }
  return true;
}

/// Checks the shared options and resolves --threads 0 to omp_get_max_threads().
/// @throws std::invalid_argument naming the option at fault.
inline void check_beam_run_options(BeamRunOptions& o) {
  if (o.sizes.empty()) throw std::invalid_argument("--sizes must not be empty");
  if (o.steps < 1) throw std::invalid_argument("--steps must be positive");
  if (!(o.dt > 0.0)) throw std::invalid_argument("--dt must be positive");
  if (o.threads < 0) throw std::invalid_argument("--threads must be positive");
  if (!(o.max_seconds >= 0.0))
    throw std::invalid_argument("--max-seconds must be >= 0 (0: no budget)");
  if (o.threads == 0) o.threads = omp_get_max_threads();
  for (const auto& s : o.sizes) parse_size(s);  // validate before running anything
}

/// A number as the child reads it back exactly.
inline std::string exact_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", x);
  return buf;
}

/// The shared options as a child process's arguments, with the child's own step count and
/// budget (--sizes and --out are the parent's alone).
inline std::vector<std::string> beam_run_arguments(const BeamRunOptions& o, int steps,
                                                   double max_seconds) {
  const std::pair<const char*, std::string> options[] = {
      {"--steps", std::to_string(steps)},
      {"--dt", exact_number(o.dt)},
      {"--threads", std::to_string(o.threads)},
      {"--max-seconds", exact_number(max_seconds)},
      {"--material", o.beam.model},
      {"--youngs", exact_number(o.beam.youngs)},
      {"--poisson", exact_number(o.beam.poisson)},
      {"--density", exact_number(o.beam.density)},
      {"--newton-tol", exact_number(o.newton_tol)},
      {"--cg-tol", exact_number(o.cg_tol)}};
  std::vector<std::string> args;
  for (const auto& [key, value] : options) {
    args.push_back(key);
    args.push_back(value);
  }
  return args;
}

}  // namespace softgrad::bench
