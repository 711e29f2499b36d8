// 00_cpu_baseline: the CPU sums (see cpu_sums.h). The C++ standard library only: the
// chapter's program (main.cpp) times and checks them with the repository's harness.
//
// Build and run:  cmake --build --preset release --target 00_cpu_baseline
//                 build/release/bin/00_cpu_baseline --n 300000001 --type float --reps 3
#include "cpu_sums.h"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace cpu_baseline {

namespace {
// The type a careful CPU sum accumulates in: long long for integers, else the wider of
// double and T (a long double sum stays in long double).
template <typename T>
using Wide = std::conditional_t<std::is_integral_v<T>, long long,
                                std::conditional_t<(sizeof(T) > sizeof(double)), T, double>>;

unsigned hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// threaded_sum's threads: hardware_threads() - 1 workers, started on the first call and
// reused by every later one (starting a std::thread per chunk on every call costs tens
// to hundreds of microseconds, more than summing a few million values); the calling
// thread sums chunk 0 itself.
class SumThreads {
 public:
  static SumThreads& get() {
    static SumThreads threads;
    return threads;
  }
  SumThreads(const SumThreads&) = delete;
  SumThreads& operator=(const SumThreads&) = delete;

  // Runs chunk(c) for every c in [0, count), count <= hardware_threads(), c = 0 on the
  // calling thread; returns when all are done. One job at a time: other callers wait.
  void run(unsigned count, const std::function<void(unsigned)>& chunk) {
    std::lock_guard<std::mutex> one_job_at_a_time(submit_);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      chunk_ = &chunk;
      count_ = count;
      pending_ = count - 1;
      ++generation_;
    }
    wake_.notify_all();
    chunk(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    chunk_ = nullptr;
  }

 private:
  SumThreads() {
    for (unsigned w = 1; w < hardware_threads(); ++w) workers_.emplace_back([this, w] { work(w); });
  }
  ~SumThreads() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& worker : workers_) worker.join();
  }

  // Worker `index` sleeps until a job comes, sums chunk `index` if the job has one, and
  // tells the caller when the last chunk is done.
  void work(unsigned index) {
    std::uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (index >= count_) continue;  // this job has fewer chunks than there are threads
      const std::function<void(unsigned)>* chunk = chunk_;
      lock.unlock();
      (*chunk)(index);
      lock.lock();
      if (--pending_ == 0) done_.notify_one();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex submit_;  // held by the caller for the whole job
  std::mutex mutex_;   // guards everything below
  std::condition_variable wake_, done_;
  const std::function<void(unsigned)>* chunk_ = nullptr;
  unsigned count_ = 0, pending_ = 0;
  std::uint64_t generation_ = 0;
  bool stop_ = false;
};
}  // namespace

template <typename T>
T loop_sum(const T* x, std::size_t n) {
  T sum = T(0);
  for (std::size_t i = 0; i < n; ++i) sum += x[i];
  return sum;
}

// [snippet:halving_sum]
template <typename T>
T halving_sum(T* x, std::size_t n) {
  if (n == 0) return T(0);
  for (std::size_t length = n; length > 1;) {
    const std::size_t upper = (length + 1) / 2;  // start of the upper half; x[length/2] stays when odd
    for (std::size_t i = 0; i < length / 2; ++i) x[i] += x[i + upper];
    length = upper;
  }
  return x[0];
}
// [/snippet:halving_sum]

// [snippet:compensated_sum]
template <typename T>
T compensated_sum(const T* x, std::size_t n) {
  if constexpr (std::is_integral_v<T>) {
    long long sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += x[i];
    return static_cast<T>(sum);
  } else {
    Wide<T> sum = 0, lost = 0;  // Neumaier: `lost` keeps the low bits each addition drops
    for (std::size_t i = 0; i < n; ++i) {
      const Wide<T> value = x[i], t = sum + value;
      lost += std::fabs(sum) >= std::fabs(value) ? (sum - t) + value : (value - t) + sum;
      sum = t;
    }
    return static_cast<T>(std::isfinite(sum) ? sum + lost : sum);  // past an inf or NaN, `lost` is NaN
  }
}
// [/snippet:compensated_sum]

template <typename T>
unsigned threaded_sum_threads(std::size_t n) {
  const int one_thread_below = std::is_integral_v<T> ? 18 : 17;  // log2 of n (cpu_sums.h)
  if (n < (std::size_t(1) << one_thread_below)) return 1;  // one thread: waking the others costs more
  return hardware_threads();
}

template <typename T>
T threaded_sum(const T* x, std::size_t n) {
  const unsigned threads = threaded_sum_threads<T>(n);
  const std::size_t chunk = (n + threads - 1) / threads;
  std::vector<Wide<T>> partial(threads, 0);
  auto sum_chunk = [&](unsigned t) {  // thread t sums x[t * chunk, (t + 1) * chunk), cut at n
    const std::size_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
    Wide<T> sum = 0;
    for (std::size_t i = begin; i < end; ++i) sum += x[i];
    partial[t] = sum;
  };
  if (threads == 1) {
    sum_chunk(0);
  } else {
    SumThreads::get().run(threads, sum_chunk);
  }
  Wide<T> total = 0;
  for (Wide<T> p : partial) total += p;
  return static_cast<T>(total);
}

}  // namespace cpu_baseline

// Another element type: one line CPU_SUMS_INSTANTIATE(T) at the end of this file.
#define CPU_SUMS_INSTANTIATE(T)                                         \
  template T cpu_baseline::loop_sum<T>(const T*, std::size_t);          \
  template T cpu_baseline::halving_sum<T>(T*, std::size_t);             \
  template T cpu_baseline::compensated_sum<T>(const T*, std::size_t);   \
  template T cpu_baseline::threaded_sum<T>(const T*, std::size_t);      \
  template unsigned cpu_baseline::threaded_sum_threads<T>(std::size_t);
CPU_SUMS_INSTANTIATE(int)
CPU_SUMS_INSTANTIATE(float)
CPU_SUMS_INSTANTIATE(double)
