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
#include "harness.h"

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

// Runs `launch` on input (restoring it first from `pristine` when in place) with a
// poisoned result slot and returns what the launcher wrote.
template <typename T>
T run_launcher(const Variant& v, Op op, T* input, const T* pristine, std::size_t n, int block, int grid,
               void* scratch, std::size_t scratch_bytes, T* result, unsigned char poison) {
  if (v.in_place && n) CUDA_CHECK(cudaMemcpy(input, pristine, n * sizeof(T), cudaMemcpyDeviceToDevice));
  CUDA_CHECK(cudaMemset(result, poison, sizeof(T)));
  CUDA_CHECK(v.launcher<T>(op)(input, n, result, scratch, scratch_bytes, block, grid, nullptr));
  CUDA_CHECK(cudaDeviceSynchronize());
  T value{};
  CUDA_CHECK(cudaMemcpy(&value, result, sizeof(T), cudaMemcpyDeviceToHost));
  return value;
}

// One input on the device, ready for a chapter's launcher: uploaded `offset` elements
// past an aligned allocation (with a pristine copy for in-place chapters), a launch
// shape resolved and scratch space allocated and zeroed for it.
template <typename T>
class DeviceRun {
 public:
  DeviceRun(const Variant& v, const std::vector<T>& host, std::size_t offset = 0)
      : v_(v), n_(host.size()), offset_(offset), input_(n_ + offset), pristine_(v.in_place ? n_ : 0), result_(1) {
    if (!n_) return;
    CUDA_CHECK(cudaMemcpy(input_.get() + offset_, host.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
    if (v.in_place) CUDA_CHECK(cudaMemcpy(pristine_.get(), host.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
  }

  // block and grid as a reader would pass them (0: the chapter's default).
  void set_shape(int block, int grid) {
    block_ = block;
    grid_ = grid;
    resolve_shape(v_, n_, block_, grid_);
    scratch_ = DeviceBuffer<unsigned char>(v_.scratch_bytes(n_, block_, grid_));
    if (scratch_.bytes()) CUDA_CHECK(cudaMemset(scratch_.get(), 0, scratch_.bytes()));
  }

  // Runs the launcher once with a poisoned result slot; returns what it wrote.
  T run(Op op, unsigned char poison) {
    if (block_ == 0) set_shape(0, 0);
    return run_launcher<T>(v_, op, input_.get() + offset_, pristine_.get(), n_, block_, grid_, scratch_.get(),
                           scratch_.bytes(), result_.get(), poison);
  }

  std::size_t chain_length() const { return v_.chain_length(n_, block_, grid_); }
  std::string where() const {
    return v_.label() + " n=" + std::to_string(n_) + " block=" + std::to_string(block_) +
           " grid=" + std::to_string(grid_) + (offset_ ? " offset=" + std::to_string(offset_) : "");
  }

 private:
  const Variant& v_;
  std::size_t n_, offset_;
  DeviceBuffer<T> input_, pristine_, result_;
  DeviceBuffer<unsigned char> scratch_;
  int block_ = 0, grid_ = 0;
};

}  // namespace reduction::testing
