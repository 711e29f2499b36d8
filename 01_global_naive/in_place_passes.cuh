// in_place_passes.cuh: what chapters 01-03 share. Their kernels differ (which thread
// adds which pair); everything around the kernel is the same: the launch rules, the
// scratch space, the error bound, and the launcher that repeats passes over the block
// partials until one value is left. 02 and 03 include this file from 01.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <string>

#include "cuda_check.h"
#include "launch_rules.h"

// The launch contract of an in-place chapter (common/chapter.h); each chapter's struct
// derives from it and adds its name, its summary and its reduce().
struct InPlacePasses {
  static constexpr const char* kVariant = "";
  static constexpr bool kInPlace = true;   // the input array is overwritten with partial sums
  static constexpr bool kHasOps = false;   // sums only
  // 256, measured on the H100 (docs/tuning.md); the seeds use 512.
  static constexpr int kDefaultBlock = 256;

  // block: a power of two, 32..1024. grid: derived from n (one block per B elements),
  // so any --grid is refused.
  static std::string check_shape(int block, int grid) {
    if (grid != 0) return "this chapter launches one block per B elements: --grid does not apply";
    return reduction::check_power_of_two_block(block);
  }

  static int default_grid(std::size_t n, int block, int /*sm_count*/) {
    const std::size_t blocks = reduction::ceil_div(n, std::size_t(block > 0 ? block : kDefaultBlock));
    return static_cast<int>(std::clamp<std::size_t>(blocks, 1, INT_MAX));
  }

  // Partials of the second pass (ceil(n/B) values) and, when a third pass is needed,
  // of the third (ceil(n/B^2) values); sized for the largest type, double.
  static std::size_t scratch_bytes(std::size_t n, int block, int /*grid*/) {
    const std::size_t threads = block > 0 ? block : kDefaultBlock;
    const std::size_t first = reduction::ceil_div(n, threads);
    if (first <= 1) return 0;  // one pass: it writes straight to result
    const std::size_t second = reduction::ceil_div(first, threads);
    return (first + (second > 1 ? second : 0)) * sizeof(double);
  }

  // A block's tree over len values takes ceil(log2(len)) steps, and each step adds at
  // most once to the sum a given value is part of; then the value travels on inside
  // its block's partial through the next pass's tree.
  static std::size_t chain_length(std::size_t n, int block, int /*grid*/) {
    const std::size_t threads = block > 0 ? block : kDefaultBlock;
    std::size_t chain = 0;
    for (std::size_t count = n;; count = reduction::ceil_div(count, threads)) {
      chain += reduction::ceil_log2(std::min(count, threads));
      if (count <= threads) break;
    }
    return chain;
  }
};

template <typename T>
using InPlaceBlockKernel = void (*)(T*, std::size_t, T*);

// Launches `block_kernel` pass after pass until one value is left, on `stream`.
// The first pass reduces `data` (in place) to ceil(n/B) partials; every later pass
// reduces the previous partials (in place) to ceil(count/B) new ones. Partials go to
// the scratch region the running pass is NOT reducing (A, B, A, ...), so no block
// ever writes into a slice that another block is still adding up. The last pass has
// a single block, which writes its sum straight to `result`.
// [snippet:passes]
template <typename T>
void reduce_in_passes(InPlaceBlockKernel<T> block_kernel, T* data, std::size_t n, T* result, void* scratch,
                      int block, cudaStream_t stream) {
  if (n == 0) {  // nothing to add: the result is the identity, 0 (all bits zero)
    CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(T), stream));
    return;
  }
  T* const partials_a = static_cast<T*>(scratch);  // ceil(n/B) slots
  T* values = data;                                // what the next pass reduces
  std::size_t count = n;
  std::size_t grid = reduction::ceil_div(count, block);
  while (grid > 1) {
    // partials_b (ceil(n/B^2) slots) follows partials_a in the scratch space.
    T* partials = values == partials_a ? partials_a + reduction::ceil_div(n, block) : partials_a;
    block_kernel<<<static_cast<unsigned>(grid), block, 0, stream>>>(values, count, partials);
    CUDA_CHECK_LAUNCH();
    values = partials;
    count = grid;
    grid = reduction::ceil_div(count, block);
  }
  block_kernel<<<1, block, 0, stream>>>(values, count, result);
  CUDA_CHECK_LAUNCH();
}
// [/snippet:passes]

