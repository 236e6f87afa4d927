// The processes of an MPI run. MPI is initialised only when the process was started by an MPI
// launcher (its environment says so): a plain `softgrad ...` never touches MPI.
#include "distributed.hpp"

#include <cstdlib>

#include "softgrad/config.hpp"
#include "softgrad/errors.hpp"

#if SOFTGRAD_HAS_MPI
#include <mpi.h>

#include <mutex>
#endif

namespace softgrad::detail {

#if SOFTGRAD_HAS_MPI
namespace {

bool launched_by_mpi() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(var)) return true;
  return false;
}

/// MPI_COMM_WORLD's size, initialising MPI on first use (0 ranks: not an MPI run).
int world_size() {
  static std::once_flag once;
  static int size = 1;
  std::call_once(once, [] {
    if (!launched_by_mpi()) return;
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      int provided = 0;
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
      std::atexit([] {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized) MPI_Finalize();
      });
    }
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  });
  return size;
}

}  // namespace

int process_count() { return world_size(); }

int process_rank() {
  if (world_size() == 1) return 0;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int min_over_processes(int value) {
  if (world_size() == 1) return value;
  int result = value;
  MPI_Allreduce(&value, &result, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return result;
}

void all_gather(std::vector<std::vector<double>>& results, int n, int processes) {
  const int rank = process_rank();
  const auto begin = [&](int p) { return static_cast<int>(static_cast<long>(n) * p / processes); };
  // Lengths of every task's result, then the values, each process contributing its block.
  std::vector<int> counts(processes), offsets(processes);
  for (int p = 0; p < processes; ++p) {
    counts[p] = begin(p + 1) - begin(p);
    offsets[p] = begin(p);
  }
  std::vector<int> lengths(n, 0), mine;
  for (int t = begin(rank); t < begin(rank + 1); ++t)
    mine.push_back(static_cast<int>(results[t].size()));
  MPI_Allgatherv(mine.data(), counts[rank], MPI_INT, lengths.data(), counts.data(), offsets.data(),
                 MPI_INT, MPI_COMM_WORLD);
  std::vector<int> value_counts(processes, 0), value_offsets(processes, 0);
  for (int p = 0; p < processes; ++p) {
    for (int t = begin(p); t < begin(p + 1); ++t) value_counts[p] += lengths[t];
    if (p > 0) value_offsets[p] = value_offsets[p - 1] + value_counts[p - 1];
  }
  std::vector<double> local, all(static_cast<size_t>(value_offsets.back() + value_counts.back()));
  for (int t = begin(rank); t < begin(rank + 1); ++t)
    local.insert(local.end(), results[t].begin(), results[t].end());
  MPI_Allgatherv(local.data(), value_counts[rank], MPI_DOUBLE, all.data(), value_counts.data(),
                 value_offsets.data(), MPI_DOUBLE, MPI_COMM_WORLD);
  size_t k = 0;
  for (int t = 0; t < n; ++t) {
    results[t].assign(all.begin() + k, all.begin() + k + lengths[t]);
    k += lengths[t];
  }
}

std::string mpi_description() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string v(version, length);
  const size_t comma = v.find(',');
  return "MPI (" + v.substr(0, comma) + ")";
}

#else

int process_count() { return 1; }
int process_rank() { return 0; }
int min_over_processes(int value) { return value; }
void all_gather(std::vector<std::vector<double>>&, int, int) {}
std::string mpi_description() { return "no MPI"; }

#endif

}  // namespace softgrad::detail
