// TaskPool: worker threads over an atomic task counter; across MPI processes, a block of tasks
// per process and an all-gather of the results (distributed.hpp).
#include "softgrad/detail/task_pool.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

#include "distributed.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {

TaskPool::TaskPool(int threads, bool distributed) {
  if (threads < 0) throw InputError("a task pool needs threads >= 0");
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  workers_ = threads > 0 ? threads : hardware;
  if (distributed) {
    processes_ = detail::process_count();
    rank_ = detail::process_rank();
  }
}

void TaskPool::run_local(int n, const std::function<void(int worker, int task)>& fn) const {
  std::vector<std::exception_ptr> errors(std::max(n, 0));
  std::atomic<int> next{0};
  const auto work = [&](int worker) {
    omp_set_num_threads(1);  // this thread's element loops: the parallelism is across tasks
    for (int t = next++; t < n; t = next++) {
      try {
        fn(worker, t);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    }
  };
  const int threads = std::min(workers_, std::max(n, 1));
  std::vector<std::thread> pool;
  for (int w = 1; w < threads; ++w) pool.emplace_back(work, w);
  // The calling thread is worker 0, its own OpenMP setting restored afterwards.
  const int saved = omp_get_max_threads();
  work(0);
  omp_set_num_threads(saved);
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

std::vector<std::vector<double>> TaskPool::map(int n, const Task& task) const {
  // This process's block of tasks [begin, end).
  const int begin = static_cast<int>(static_cast<long>(n) * rank_ / processes_);
  const int end = static_cast<int>(static_cast<long>(n) * (rank_ + 1) / processes_);
  std::vector<std::vector<double>> results(std::max(n, 0));
  std::exception_ptr error;
  int failed = -1;
  try {
    run_local(end - begin,
              [&](int worker, int k) { results[begin + k] = task(worker, begin + k); });
  } catch (...) {
    error = std::current_exception();
    failed = begin;
  }
  if (processes_ == 1) {
    if (error) std::rethrow_exception(error);
    return results;
  }
  // Every process learns whether any failed before results are exchanged.
  const int first_failure = detail::min_over_processes(failed < 0 ? n : failed);
  if (error) std::rethrow_exception(error);
  if (first_failure < n)
    throw InputError("task " + std::to_string(first_failure) + " failed on another process");
  detail::all_gather(results, n, processes_);
  return results;
}

}  // namespace softgrad
