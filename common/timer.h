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
