// timer.h: a GPU timer (CUDA events, measures device time on a stream) and a CPU
// timer (steady clock, for the CPU baselines). Never time GPU work with the host
// clock: launches return before the kernel has run.
//
// GpuTimer::start records its event behind a short busy kernel (busy_wait, about
// 20 us): while the GPU runs it, the host has time to enqueue the timed launches, so
// the time never includes the host's launch latency, whether or not an L2 flush
// (itself a kernel) came just before. Without it, --no-flush would count the latency
// of the first launch and the flushed runs would not.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "cuda_check.h"
#include "l2_flush.h"

namespace reduction {

// Keeps the GPU busy on `stream` for about `microseconds` (l2_flush.cu).
void busy_wait(cudaStream_t stream, unsigned microseconds);

class GpuTimer {
 public:
  GpuTimer() {
    CUDA_CHECK(cudaEventCreate(&start_));
    CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~GpuTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  void start(cudaStream_t stream) {
    busy_wait(stream, 20);
    CUDA_CHECK(cudaEventRecord(start_, stream));
  }
  void stop(cudaStream_t stream) { CUDA_CHECK(cudaEventRecord(stop_, stream)); }
  // Waits for the stop event, then returns the milliseconds between the two events.
  float elapsed_ms() {
    CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

// The timing protocol of every GPU measurement in the project (the chapters, the tour, the
// rows programs, the benches), for `jobs` jobs run on the default stream:
//   1. each job runs once and checked(j, false) checks it, then runs once more (warm-up);
//   2. `reps` repetitions, in each of which every job runs once, in turn, so that a drift of
//      the GPU's clocks or temperature touches every job alike; each run behind an L2 flush
//      (when `flusher` is given) and GpuTimer's busy start; after its last repetition, job j
//      is checked again: checked(j, true).
// prepare(j, poison) readies job j's run outside the timed span (e.g. poisons its result:
// 0xCD before the untimed runs, 0xAB before the timed ones); launch(j) enqueues the run.
// Returns each job's times in milliseconds.
template <typename Prepare, typename Launch, typename Checked>
std::vector<std::vector<double>> time_in_turns(std::size_t jobs, int reps, L2Flusher* flusher, Prepare&& prepare,
                                               Launch&& launch, Checked&& checked) {
  for (std::size_t j = 0; j < jobs; ++j) {
    prepare(j, 0xCD);
    launch(j);
    CUDA_CHECK(cudaDeviceSynchronize());
    checked(j, false);
    prepare(j, 0xCD);
    launch(j);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::vector<std::vector<double>> times(jobs);
  GpuTimer timer;
  for (int r = 0; r < reps; ++r) {
    for (std::size_t j = 0; j < jobs; ++j) {
      prepare(j, 0xAB);
      if (flusher) flusher->flush(nullptr);
      timer.start(nullptr);
      launch(j);
      timer.stop(nullptr);
      times[j].push_back(timer.elapsed_ms());
      if (r == reps - 1) checked(j, true);
    }
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  return times;
}

class CpuTimer {
 public:
  void start() { begin_ = std::chrono::steady_clock::now(); }
  double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin_).count();
  }

 private:
  std::chrono::steady_clock::time_point begin_{};
};

// The median of a set of timings (the middle value, or the mean of the two middle ones).
inline double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

// Median, minimum and spread of a set of timings. iqr: the interquartile range (the
// 75th minus the 25th percentile, linear interpolation), the width of the middle half.
struct Spread {
  double median = 0, min = 0, iqr = 0;
};

inline Spread summarize(std::vector<double> values) {
  Spread spread;
  if (values.empty()) return spread;
  std::sort(values.begin(), values.end());
  auto quantile = [&](double q) {
    const double at = q * (values.size() - 1);
    const std::size_t below = static_cast<std::size_t>(at);
    const std::size_t above = std::min(below + 1, values.size() - 1);
    return values[below] + (at - below) * (values[above] - values[below]);
  };
  spread.median = quantile(0.5);
  spread.min = values.front();
  spread.iqr = quantile(0.75) - quantile(0.25);
  return spread;
}

}  // namespace reduction
