#include "softgrad/detail/parallel_team.hpp"

#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>

namespace softgrad {

namespace {

constexpr double kSampleSeconds = 0.1;

struct CpuSample {
  double seconds = 0.0;      // steady clock
  long long busy = 0;        // jiffies of this process's CPUs, not idle or iowait
  long long total = 0;       // all jiffies of those CPUs
  double own_seconds = 0.0;  // this process's CPU time
  int cpus = 0;              // CPUs counted
  int running = -1;          // runnable threads of the whole system now (first sample only)
  bool valid = false;
};

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Busy and total jiffies of the CPUs in this process's affinity mask (false if /proc/stat
// cannot be read); with `running`, also the system's runnable threads (procs_running).
bool read_cpu_times(CpuSample& s, bool running = false) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  const bool have_mask = sched_getaffinity(0, sizeof(mask), &mask) == 0;
  std::FILE* f = std::fopen("/proc/stat", "r");
  if (!f) return false;
  char line[512];
  s.busy = s.total = 0;
  int cpus = 0;
  while (std::fgets(line, sizeof(line), f)) {
    int cpu = -1;
    long long v[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // user nice system idle iowait irq softirq steal
    if (std::strncmp(line, "cpu", 3) != 0) {    // past the cpu lines, which come first
      if (!running) break;
      if (std::sscanf(line, "procs_running %d", &s.running) == 1) break;
      continue;  // (a long line comes in pieces, none of which starts with procs_running)
    }
    if (line[3] < '0' || line[3] > '9') continue;  // the "cpu " total line
    if (std::sscanf(line, "cpu%d %lld %lld %lld %lld %lld %lld %lld %lld", &cpu, &v[0], &v[1],
                    &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 5)
      continue;
    if (have_mask && (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &mask))) continue;
    long long total = 0;
    for (long long x : v) total += x;
    s.total += total;
    s.busy += total - v[3] - v[4];
    ++cpus;
  }
  std::fclose(f);
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  s.own_seconds = static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  s.seconds = now_seconds();
  s.cpus = cpus;
  s.valid = cpus > 0;
  return s.valid;
}

struct LoadMonitor {
  std::mutex mutex;
  CpuSample last;
  std::atomic<double> next_sample{0.0};
  std::atomic<double> free_cores{1e9};  // unknown: no limit
};

LoadMonitor& monitor() {
  static LoadMonitor m;
  return m;
}

}  // namespace

double idle_cores_estimate() {
  LoadMonitor& m = monitor();
  const double now = now_seconds();
  if (now >= m.next_sample.load(std::memory_order_relaxed)) {
    std::unique_lock<std::mutex> lock(m.mutex, std::try_to_lock);
    if (lock.owns_lock() && now >= m.next_sample.load(std::memory_order_relaxed)) {
      CpuSample s;
      if (!read_cpu_times(s, !m.last.valid)) {
        m.next_sample.store(1e300);  // no /proc/stat: never limit
      } else {
        if (!m.last.valid && s.running > 0) {
          // No interval yet: the threads runnable now, less this one, hold cores.
          m.free_cores.store(std::clamp(s.cpus - (s.running - 1.0), 0.0, 1.0 * s.cpus));
        } else if (m.last.valid && s.total > m.last.total) {
          const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
          const double elapsed = s.seconds - m.last.seconds;
          const double cpus = static_cast<double>(s.total - m.last.total) / (ticks * elapsed);
          const double busy = static_cast<double>(s.busy - m.last.busy) / (ticks * elapsed);
          const double own = (s.own_seconds - m.last.own_seconds) / elapsed;
          m.free_cores.store(std::clamp(cpus - std::max(0.0, busy - own), 0.0, cpus));
        }
        m.last = s;
        m.next_sample.store(now + kSampleSeconds);
      }
    }
  }
  return m.free_cores.load(std::memory_order_relaxed);
}

int parallel_team() {
  const int requested = omp_get_max_threads();
  if (requested <= 1 || omp_in_parallel()) return 1;
  const double free = idle_cores_estimate();
  // A core counts as free when three quarters of it are: the estimate is good to a tenth or
  // two of a core (10 ms ticks over 0.1 s), and a half-taken core delays every barrier.
  const double rounded = std::floor(free + 0.25);
  return static_cast<int>(std::clamp(rounded, 1.0, static_cast<double>(requested)));
}

}  // namespace softgrad
