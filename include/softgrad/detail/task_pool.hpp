/// @file task_pool.hpp
/// Independent tasks side by side: rollouts, episodes, fits from several starting points. A
/// TaskPool runs them on worker threads of this process (each worker with the workspace the
/// caller keeps for it) and, in an MPI run (softgrad built with MPI, started by mpirun), across
/// the processes too; every process receives every task's result, so all of them continue
/// identically. A task's result must depend only on the task, not on the worker or process that
/// ran it: then any number of threads and processes gives the results of a serial run, bit for
/// bit. Inside a worker the element loops run on one thread (the parallelism is across tasks).
///
/// Workers are plain threads that block when idle: on a busy machine they share the cores
/// without spinning, so a batch is not slower than running its tasks one after another.
#pragma once

#include <functional>
#include <vector>

namespace softgrad {

class TaskPool {
 public:
  /// One task: its result, from the task index and the worker (0..workers()-1) running it.
  using Task = std::function<std::vector<double>(int worker, int task)>;

  /// @param threads worker threads in this process; 0: one per hardware thread.
  /// @param distributed whether tasks are spread over the processes of an MPI run.
  explicit TaskPool(int threads = 0, bool distributed = true);

  /// Worker threads in this process (the workspaces a caller keeps, indexed by worker).
  int workers() const { return workers_; }
  /// Processes sharing the tasks (1 without MPI), and this one's index among them.
  int processes() const { return processes_; }
  int rank() const { return rank_; }

  /// Runs tasks 0..n-1 and returns every result, in task order, on every process.
  /// @throws the exception of the lowest-numbered failing task of this process (after all of
  /// them finished); with MPI a failure on another process throws InputError naming the task.
  std::vector<std::vector<double>> map(int n, const Task& task) const;

  /// Runs fn(worker, task) for tasks 0..n-1 on this process's threads only (nothing gathered).
  void run_local(int n, const std::function<void(int worker, int task)>& fn) const;

 private:
  int workers_ = 1;
  int processes_ = 1;
  int rank_ = 0;
};

}  // namespace softgrad
