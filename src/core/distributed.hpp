/// @file distributed.hpp
/// Internal: the processes of an MPI run, for TaskPool. Without MPI in the build, or outside
/// mpirun, there is one process and every function here is trivial. MPI is initialised on first
/// use and finalised at exit.
#pragma once

#include <string>
#include <vector>

namespace softgrad::detail {

/// Processes in the run (1 outside mpirun), and this one's rank.
int process_count();
int process_rank();
/// The smallest of `value` over all processes.
int min_over_processes(int value);
/// Gives every process every task's result: process p holds results [n p / P, n (p + 1) / P).
void all_gather(std::vector<std::vector<double>>& results, int n, int processes);
/// "MPI (Open MPI 4.1.4)", or "no MPI" for a build without it.
std::string mpi_description();

}  // namespace softgrad::detail
