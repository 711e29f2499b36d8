// timer.h: a GPU timer (CUDA events, measures device time on a stream) and a CPU
// timer (steady clock, for the CPU baselines). Never time GPU work with the host
// clock: launches return before the kernel has run.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "cuda_check.h"

namespace reduction {

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

  void start(cudaStream_t stream) { CUDA_CHECK(cudaEventRecord(start_, stream)); }
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

}  // namespace reduction
