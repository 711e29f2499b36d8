// gpu_test.h: what the GPU tests share: skipping without a device, and running a
// chapter's launcher once on a device copy of an input.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "chapter.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "device_info.h"

namespace reduction::testing {

// Whether a CUDA device is usable; the reason when not (asked once).
inline bool gpu_available(std::string* why) {
  static std::string reason;
  static const bool available = cuda_device_available(&reason);
  if (why) *why = reason;
  return available;
}

// Marks the current test SKIPPED, with the reason, when there is no GPU.
#define REQUIRE_GPU()                                        \
  do {                                                       \
    std::string why_no_gpu;                                  \
    if (!::reduction::testing::gpu_available(&why_no_gpu)) { \
      GTEST_SKIP() << why_no_gpu;                            \
    }                                                        \
  } while (0)

inline std::uint64_t fresh_seed() {
  static std::random_device device;
  return (std::uint64_t(device()) << 32) ^ device();
}

inline const std::vector<Chapter>& chapters() {
  static const std::vector<Chapter> list = all_gpu_chapters();
  return list;
}

inline const Chapter* find_chapter(const std::string& prefix) {
  for (const Chapter& c : chapters()) {
    if (c.id.rfind(prefix, 0) == 0) return &c;
  }
  return nullptr;
}

// Runs `launch` on input (restoring it first from `pristine` when in place) with a
// poisoned result slot and returns what the launcher wrote.
template <typename T>
T run_launcher(const Variant& v, Op op, T* input, const T* pristine, std::size_t n, int block, int grid,
               void* scratch, T* result, unsigned char poison) {
  if (v.in_place && n) CUDA_CHECK(cudaMemcpy(input, pristine, n * sizeof(T), cudaMemcpyDeviceToDevice));
  CUDA_CHECK(cudaMemset(result, poison, sizeof(T)));
  v.launcher<T>(op)(input, n, result, scratch, block, grid, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  T value{};
  CUDA_CHECK(cudaMemcpy(&value, result, sizeof(T), cudaMemcpyDeviceToHost));
  return value;
}

}  // namespace reduction::testing
