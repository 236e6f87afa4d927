// parallel_team(): fewer threads while other processes hold the cores; loops give the same
// results whatever the team.
#include <doctest/doctest.h>
#include <omp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

#include "softgrad/detail/parallel.hpp"

namespace softgrad {
namespace {

// Processes that spin until killed.
class BusyProcesses {
 public:
  explicit BusyProcesses(int n) {
    for (int k = 0; k < n; ++k) {
      const pid_t pid = fork();
      if (pid == 0) {
        volatile unsigned long spin = 0;
        for (;;) spin = spin + 1;
      }
      if (pid > 0) pids_.push_back(pid);
    }
  }
  ~BusyProcesses() {
    for (pid_t pid : pids_) kill(pid, SIGKILL);
    for (pid_t pid : pids_) waitpid(pid, nullptr, 0);
  }
  BusyProcesses(const BusyProcesses&) = delete;
  BusyProcesses& operator=(const BusyProcesses&) = delete;
  size_t size() const { return pids_.size(); }

 private:
  std::vector<pid_t> pids_;
};

TEST_CASE("core/parallel_team: one thread while other processes hold every core") {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(2);
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  {
    BusyProcesses busy(2 * cores);  // more spinning processes than cores
    REQUIRE(busy.size() == static_cast<size_t>(2 * cores));
    // Two samples 0.1 s apart at least, both taken while they spin.
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    idle_cores_estimate();
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    const double idle = idle_cores_estimate();
    CAPTURE(idle);
    CHECK(idle < 0.5);
    CHECK(parallel_team() == 1);
  }
  // Never more threads than asked for, never fewer than one; one inside a parallel region.
  omp_set_num_threads(1);
  CHECK(parallel_team() == 1);
  omp_set_num_threads(2);
  const int team = parallel_team();
  CHECK(team >= 1);
  CHECK(team <= 2);
  int inside = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    inside = parallel_team();
  }
  CHECK(inside == 1);
  omp_set_num_threads(saved);
}

TEST_CASE("core/parallel_team: a blocked reduction gives the same sum on one thread or two") {
  const int n = 200000;
  std::vector<double> values(n);
  for (int i = 0; i < n; ++i) values[i] = 1.0 / (1.0 + i) * (i % 3 == 0 ? -1.0 : 1.0);
  const auto sum = [&] {
    return parallel_reduce(
        n, kParallelMinEntries, 0.0, [&](int i, double& acc) { acc += values[i]; },
        [](double& total, double part) { total += part; });
  };
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const double one = sum();
  omp_set_num_threads(2);
  const double two = sum();
  omp_set_num_threads(saved);
  CHECK(one == two);  // bit for bit: the same blocks merged in the same order
}

}  // namespace
}  // namespace softgrad
