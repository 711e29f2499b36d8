// parallel.h: split [0, n) into one contiguous chunk per hardware thread and run
// body(thread_index, begin, end) on each. Used to generate inputs, to compute
// references fast enough for arrays of billions of elements, and by 00's threaded sum.
//
// The threads come from one pool per process, started on the first call and reused by
// every later one: starting a std::thread per chunk on every call costs tens to
// hundreds of microseconds, more than summing a few million values, and 00's timed
// sum would measure it.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace reduction {

inline unsigned cpu_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// cpu_threads() - 1 worker threads that sleep until a job comes; the calling thread
// takes a share of every job, so a job runs on up to cpu_threads() threads.
class ThreadPool {
 public:
  explicit ThreadPool(unsigned workers) {
    for (unsigned w = 0; w < workers; ++w) threads_.emplace_back([this, w] { work(w + 1); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Threads a job can use: the workers and the caller.
  unsigned size() const { return static_cast<unsigned>(threads_.size()) + 1; }

  // Runs task(i) for every i in [0, count), i = 0 on the calling thread and the others
  // on workers, and returns when all are done (rethrowing the first exception a task
  // threw). count must not exceed size(). One job at a time: a second caller waits; a
  // call from inside a task (a nested job) runs its tasks one after the other on the
  // thread that made it, since the pool is busy with the outer job.
  void run(unsigned count, const std::function<void(unsigned)>& task) {
    if (inside_job()) {
      for (unsigned i = 0; i < count; ++i) task(i);
      return;
    }
    std::lock_guard<std::mutex> one_job_at_a_time(submit_);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = &task;
      count_ = count;
      pending_ = count - 1;
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    execute(task, 0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    task_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  static bool& inside_job() {
    thread_local bool inside = false;
    return inside;
  }

  void execute(const std::function<void(unsigned)>& task, unsigned index) {
    inside_job() = true;
    try {
      task(index);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
    inside_job() = false;
  }

  void work(unsigned index) {
    std::uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (index >= count_) continue;  // this job needs fewer threads
      const std::function<void(unsigned)>* task = task_;
      lock.unlock();
      execute(*task, index);
      lock.lock();
      if (--pending_ == 0) done_.notify_one();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex submit_;  // held by the caller for the whole job
  std::mutex mutex_;   // guards everything below
  std::condition_variable wake_, done_;
  const std::function<void(unsigned)>* task_ = nullptr;
  unsigned count_ = 0, pending_ = 0;
  std::uint64_t generation_ = 0;
  std::exception_ptr error_;
  bool stop_ = false;
};

// The process's pool, started on first use.
inline ThreadPool& thread_pool() {
  static ThreadPool pool(cpu_threads() - 1);
  return pool;
}

// Small inputs stay on the calling thread: waking the pool costs more than it saves.
template <typename Body>
unsigned parallel_chunks(std::size_t n, Body body, unsigned threads = cpu_threads()) {
  if (n < (std::size_t(1) << 16)) threads = 1;
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(n, 1)));
  if (threads <= 1) {
    body(0u, std::size_t(0), n);
    return 1;
  }
  threads = std::min(threads, thread_pool().size());
  const std::size_t chunk = (n + threads - 1) / threads;
  thread_pool().run(threads, [&](unsigned t) {
    const std::size_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
    body(t, begin, end);
  });
  return threads;
}

}  // namespace reduction
