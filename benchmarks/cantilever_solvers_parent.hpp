/// @file cantilever_solvers_parent.hpp
/// cantilever_solvers' parent side: every (size, solver) in a child process of its own, the
/// table, the agreement between solvers and the JSON file.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "cantilever_solvers_options.hpp"

namespace softgrad::bench {

using json = nlohmann::ordered_json;

/// The record of a configuration that produced no result of its own: its identifying fields,
/// `status` ("killed", "crashed", "error") and `message`.
/// @throws std::invalid_argument if `size` is not a size name.
json failed_result(const std::string& size, const std::string& solver, const std::string& status,
                   const std::string& message, double wall_s);

/// Runs every configuration of `o` in a child process, prints the table and the agreement and
/// writes o.out. Returns the exit status (0).
/// @throws std::runtime_error if o.out cannot be written.
int run_all(const SolverBenchOptions& o);

}  // namespace softgrad::bench
