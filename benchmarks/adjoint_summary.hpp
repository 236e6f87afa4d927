/// @file adjoint_summary.hpp
/// adjoint_cantilever's options, result records, table and JSON summary (merging with an
/// earlier result file, the backward/forward ratios, gradient agreement between backends, and
/// the memory projection computed from measured bytes per state).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "beam_run_options.hpp"
#include "cantilever_beam.hpp"

namespace softgrad::bench {

using json = nlohmann::ordered_json;

/// What adjoint_cantilever runs: the sizes, backends and checkpoint intervals, the problem and
/// the budget.
struct AdjointBenchOptions : BeamRunOptions {
  AdjointBenchOptions() {
    steps = 100;
    max_seconds = 300.0;
    out = "benchmarks/results/adjoint_cantilever.json";
  }
  std::vector<std::string> backends = {"cholmod", "pcg", "matfree"};
  std::vector<std::string> checkpoints = {"1", "sqrt"};
  bool merge = false;
  double adjoint_tol = 1e-12;
  std::string project_size = "10k";  ///< --project SIZE:STEPS
  int project_steps = 10000;
  // --one SIZE BACKEND CHECKPOINTS: run one configuration, print one JSON line (internal).
  bool one = false;
  std::string one_size, one_backend, one_checkpoint;
};

extern const char* const kAdjointUsage;

/// The identifying fields of a configuration's record.
json config_record(const std::string& size, const Cells& cells, const std::string& backend,
                   const std::string& checkpoint);

/// One line per record: the column names, then a record.
void print_header();
void print_row(const json& r);

/// The existing --out file for --merge (null if there is none).
/// @throws std::runtime_error if it exists but does not parse.
json read_previous(const AdjointBenchOptions& o);

/// The output document: `results` plus the records of `previous` that they do not replace,
/// the ratio summary, gradient agreement, memory projection and long-run check, all printed.
/// @throws std::runtime_error if `previous` describes a different problem.
json merge_and_summarise(const AdjointBenchOptions& o, const json& previous, json results,
                         const json& invocation);

}  // namespace softgrad::bench
