/// @file child_process.hpp
/// Running one benchmark configuration per child process, and reading process figures.
///
/// The peak resident set size (VmHWM) is monotone over a process's life, so only a fresh
/// process measures one configuration's peak. A benchmark re-executes itself with arguments
/// that select one configuration; the child prints one JSON object per line on stdout (the last
/// one is its result) and the parent collects it with run_child().
#pragma once

#include <fcntl.h>
#include <omp.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "machine_info.hpp"

namespace softgrad::bench {

/// The 1, 5 and 15 minute load averages (-1 where unknown).
inline std::vector<double> load_average() {
  std::ifstream in("/proc/loadavg");
  double a = -1, b = -1, c = -1;
  in >> a >> b >> c;
  return {a, b, c};
}

/// A "VmXXX:   1234 kB" field of /proc/self/status, in MB (-1 if absent).
inline double proc_status_mb(const char* field) {
  std::ifstream in("/proc/self/status");
  const std::string key = std::string(field) + ":";
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) return std::atof(line.c_str() + key.size()) / 1024.0;
  return -1.0;
}

/// The path of the running executable. @throws std::runtime_error if unreadable.
inline std::string self_exe() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) throw std::runtime_error("cannot read /proc/self/exe");
  buf[n] = '\0';
  return buf;
}

/// What a child process left behind.
struct ChildOutput {
  std::string out;      ///< its stdout
  int wait_status = 0;  ///< as waitpid() reports it
  bool killed = false;  ///< killed for running past the hard limit
  double wall_s = 0.0;
  /// The last stdout line that parses as a JSON object (null if none).
  nlohmann::ordered_json result() const {
    std::stringstream in(out);
    nlohmann::ordered_json r;
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] != '{') continue;
      try {
        r = nlohmann::ordered_json::parse(line);
      } catch (const nlohmann::ordered_json::exception&) {
      }
    }
    return r.is_object() ? r : nlohmann::ordered_json();
  }
  /// Why there is no result: the signal or exit status.
  std::string failure() const {
    if (WIFSIGNALED(wait_status))
      return "the child died of signal " + std::to_string(WTERMSIG(wait_status));
    return "the child exited with status " + std::to_string(WEXITSTATUS(wait_status)) +
           " and printed no result";
  }
};

/// Runs args[0] with args, OMP_NUM_THREADS = threads, its stderr shared with ours, and collects
/// its stdout. Kills it (SIGKILL) after hard_limit_s seconds when hard_limit_s > 0. With
/// limit_threads, also OMP_THREAD_LIMIT = threads: it caps the OpenMP teams that ask for a
/// thread count of their own (CHOLMOD's supernodal factorisation asks for 4).
/// @throws std::runtime_error if pipe() or fork() fails.
inline ChildOutput run_child(const std::vector<std::string>& args, int threads, double hard_limit_s,
                             bool limit_threads = false) {
  using Clock = std::chrono::steady_clock;
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const auto t0 = Clock::now();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    setenv("OMP_NUM_THREADS", std::to_string(threads).c_str(), 1);
    if (limit_threads) setenv("OMP_THREAD_LIMIT", std::to_string(threads).c_str(), 1);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    std::fprintf(stderr, "exec %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  close(fds[1]);
  ChildOutput c;
  for (;;) {
    pollfd p{fds[0], POLLIN, 0};
    const int pr = poll(&p, 1, 1000);
    if (pr < 0 && errno != EINTR) break;
    if (pr > 0) {
      char buf[4096];
      const ssize_t n = read(fds[0], buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // EOF: the child closed its stdout (it exited)
      c.out.append(buf, static_cast<size_t>(n));
    }
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    if (hard_limit_s > 0.0 && wall > hard_limit_s && !c.killed) {
      kill(pid, SIGKILL);
      c.killed = true;
    }
  }
  close(fds[0]);
  while (waitpid(pid, &c.wait_status, 0) < 0 && errno == EINTR) {
  }
  c.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return c;
}

/// main() of a benchmark that runs each configuration in a child process of its own: parses the
/// options (a bad one: the message, exit 1); without --one (`o.one` false) runs them all in
/// children (run_all); with it, sets the thread count and runs the one configuration, printing its
/// JSON record, or when it throws, the record `error_record` makes (which also says on stderr
/// what went wrong).
template <class Options, class Parse, class RunAll, class RunOne, class ErrorRecord>
int parent_or_child_main(int argc, char** argv, const char* program, Parse parse, RunAll run_all,
                         RunOne run_one, ErrorRecord error_record) {
  Options o;
  try {
    o = parse(argc, argv);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return 1;
  }
  if (!o.one) {
    try {
      return run_all(o);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", program, e.what());
      return 1;
    }
  }
  omp_set_num_threads(o.threads);
  try {
    std::printf("%s\n", run_one(o).dump().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::printf("%s\n", error_record(o, e.what()).dump().c_str());
    return 1;
  }
}

}  // namespace softgrad::bench
