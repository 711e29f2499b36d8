// 01_global_naive: neighbored pairs, in place in global memory (the first GPU version).
//
// What changes since 00: the sum moves to the GPU. Every element gets its own thread,
// and each block of B threads turns its B elements into one sum with a tree: at the
// step with stride s, every thread whose index is a multiple of 2s adds the value s
// places to its right into its own slot. After log2(B) steps the block's sum sits in
// the first slot of its slice, and thread 0 copies it to a partials array. The
// partials are then summed the same way by another launch, and so on until a single
// block is left, whose sum is the result: blocks cannot wait for each other inside a
// kernel, so the end of a launch is our barrier between blocks.
//
// Everything happens in place, in global memory: the kernel overwrites its input
// (the harness restores the array before every timed run).
//
// Build and run:  cmake --build --preset release --target 01_global_naive
//                 build/release/bin/01_global_naive --n 2^24 --type float
//                 build/release/bin/01_global_naive --variant race        (wrong on purpose)
#include "global_naive.cuh"

#include <algorithm>
#include <climits>

#include "cuda_check.h"
#include "launch_rules.h"

using reduction::ceil_div;
using reduction::ceil_log2;

namespace {

// Each block sums its slice [b*B, b*B + len) of `data` in place and writes the sum to
// block_sums[blockIdx.x]. blockDim.x must be a power of two.
//
// Why this version is slow:
//  - `tid % (2 * stride)` is an integer division, a long instruction sequence that
//    every thread runs at every step;
//  - the threads that work are scattered (every 2nd, then every 4th, ...), so every
//    warp stays busy through the first five steps with only a few lanes doing useful
//    work (warp divergence), and no warp can retire early;
//  - every step is a round trip to global memory (two loads, one store) followed by a
//    barrier, and the data left to add halves each time while all B threads wait.
// [snippet:neighbored_pairs]
template <typename T>
__global__ void neighbored_pairs(T* data, std::size_t n, T* block_sums) {
  const unsigned tid = threadIdx.x;
  // This block's slice. The offset is 64-bit: b * B can pass 2^31 for large arrays.
  const std::size_t block_start = std::size_t(blockIdx.x) * blockDim.x;
  T* slice = data + block_start;
  // How many values the slice holds: B, or fewer in the last block. The same for
  // every thread of the block, so the loop below runs the same steps in all of them.
  const std::size_t values_left = n - block_start;
  const unsigned len = values_left < blockDim.x ? unsigned(values_left) : blockDim.x;

  for (unsigned stride = 1; stride < len; stride *= 2) {
    // Threads at multiples of 2*stride add their right-hand partner, if it exists.
    if (tid % (2 * stride) == 0 && tid + stride < len) slice[tid] += slice[tid + stride];
    // Every thread, working or not, waits here: the next step reads this step's sums.
    __syncthreads();
  }
  if (tid == 0) block_sums[blockIdx.x] = slice[0];
}
// [/snippet:neighbored_pairs]

// PITFALL (--variant race, seed 003): the same tree without the `%` filter. Were all
// reads of a step done before any write, the extra sums would land in slots nobody
// reads later and the result would be right. But nothing orders the threads inside a
// step: thread t reads slot t + stride while thread t + stride may already be
// overwriting it, so a value can be counted twice. The result depends on timing.
// [snippet:race]
template <typename T>
__global__ void neighbored_pairs_race(T* data, std::size_t n, T* block_sums) {
  const unsigned tid = threadIdx.x;
  const std::size_t block_start = std::size_t(blockIdx.x) * blockDim.x;
  T* slice = data + block_start;
  const std::size_t values_left = n - block_start;
  const unsigned len = values_left < blockDim.x ? unsigned(values_left) : blockDim.x;

  for (unsigned stride = 1; stride < len; stride *= 2) {
    if (tid + stride < len) slice[tid] += slice[tid + stride];  // RACE: no filter
    __syncthreads();
  }
  if (tid == 0) block_sums[blockIdx.x] = slice[0];
}
// [/snippet:race]

// PITFALL (--variant early-return, seed 001): threads past the end of the array leave
// before the loop. For n a multiple of the block size nothing changes; otherwise the
// last block's surviving threads wait at __syncthreads() for threads that have exited
// (undefined behaviour) and add partners at tid + stride >= len, past the end of the
// array: garbage goes into the sum. Kept exactly this broken to be demonstrated.
// [snippet:early_return]
template <typename T>
__global__ void neighbored_pairs_early_return(T* data, std::size_t n, T* block_sums) {
  const unsigned tid = threadIdx.x;
  const std::size_t block_start = std::size_t(blockIdx.x) * blockDim.x;
  T* slice = data + block_start;
  if (block_start + tid >= n) return;  // BUG: the barriers below now miss these threads

  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if (tid % (2 * stride) == 0) slice[tid] += slice[tid + stride];  // BUG: partner unchecked
    __syncthreads();
  }
  if (tid == 0) block_sums[blockIdx.x] = slice[0];
}
// [/snippet:early_return]

template <typename T>
using BlockKernel = void (*)(T*, std::size_t, T*);

// Launches `block_kernel` pass after pass until one value is left, on `stream`.
// The first pass reduces `data` (in place) to ceil(n/B) partials; every later pass
// reduces the previous partials (in place) to ceil(count/B) new ones. Partials go to
// the scratch region the running pass is NOT reducing (A, B, A, ...), so no block
// ever writes into a slice that another block is still adding up. The last pass has
// a single block, which writes its sum straight to `result`.
// [snippet:passes]
template <typename T>
void reduce_in_passes(BlockKernel<T> block_kernel, T* data, std::size_t n, T* result, void* scratch,
                      int block, cudaStream_t stream) {
  if (n == 0) {  // nothing to add: the result is the identity, 0 (all bits zero)
    CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(T), stream));
    return;
  }
  T* const partials_a = static_cast<T*>(scratch);  // ceil(n/B) slots
  T* values = data;                                // what the next pass reduces
  std::size_t count = n;
  std::size_t grid = ceil_div(count, block);
  while (grid > 1) {
    // partials_b (ceil(n/B^2) slots) follows partials_a in the scratch space.
    T* partials = values == partials_a ? partials_a + ceil_div(n, block) : partials_a;
    block_kernel<<<static_cast<unsigned>(grid), block, 0, stream>>>(values, count, partials);
    CUDA_CHECK_LAUNCH();
    values = partials;
    count = grid;
    grid = ceil_div(count, block);
  }
  block_kernel<<<1, block, 0, stream>>>(values, count, result);
  CUDA_CHECK_LAUNCH();
}
// [/snippet:passes]

}  // namespace

std::string GlobalNaive::check_shape(int block, int grid) {
  if (grid != 0) return "this chapter launches one block per B elements: --grid does not apply";
  return reduction::check_power_of_two_block(block);
}

int GlobalNaive::default_grid(std::size_t n, int block, int /*sm_count*/) {
  const std::size_t blocks = ceil_div(n, std::size_t(block > 0 ? block : kDefaultBlock));
  return static_cast<int>(std::clamp<std::size_t>(blocks, 1, INT_MAX));
}

// Partials of the second pass (ceil(n/B) values) and, when a third pass is needed,
// of the third (ceil(n/B^2) values); sized for the largest type, double.
std::size_t GlobalNaive::scratch_bytes(std::size_t n, int block, int /*grid*/) {
  const std::size_t threads = block > 0 ? block : kDefaultBlock;
  const std::size_t first = ceil_div(n, threads);
  if (first <= 1) return 0;  // one pass: it writes straight to result
  const std::size_t second = ceil_div(first, threads);
  return (first + (second > 1 ? second : 0)) * sizeof(double);
}

// A block's tree over len values takes ceil(log2(len)) steps, and each step adds at
// most once to the sum a given value is part of; then the value travels on inside
// its block's partial through the next pass's tree.
std::size_t GlobalNaive::chain_length(std::size_t n, int block, int /*grid*/) {
  const std::size_t threads = block > 0 ? block : kDefaultBlock;
  std::size_t chain = 0;
  for (std::size_t count = n;; count = ceil_div(count, threads)) {
    chain += ceil_log2(std::min(count, threads));
    if (count <= threads) break;
  }
  return chain;
}

template <typename T>
void GlobalNaive::reduce(T* data, std::size_t n, T* result, void* scratch, int block, int /*grid*/,
                         cudaStream_t stream) {
  reduce_in_passes<T>(neighbored_pairs<T>, data, n, result, scratch, block, stream);
}

template <typename T>
void GlobalNaiveRace::reduce(T* data, std::size_t n, T* result, void* scratch, int block, int /*grid*/,
                             cudaStream_t stream) {
  reduce_in_passes<T>(neighbored_pairs_race<T>, data, n, result, scratch, block, stream);
}

template <typename T>
void GlobalNaiveEarlyReturn::reduce(T* data, std::size_t n, T* result, void* scratch, int block,
                                    int /*grid*/, cudaStream_t stream) {
  reduce_in_passes<T>(neighbored_pairs_early_return<T>, data, n, result, scratch, block, stream);
}

#define GLOBAL_NAIVE_INSTANTIATE(S)                                                        \
  template void S::reduce<int>(int*, std::size_t, int*, void*, int, int, cudaStream_t);    \
  template void S::reduce<float>(float*, std::size_t, float*, void*, int, int, cudaStream_t); \
  template void S::reduce<double>(double*, std::size_t, double*, void*, int, int, cudaStream_t);
GLOBAL_NAIVE_INSTANTIATE(GlobalNaive)
GLOBAL_NAIVE_INSTANTIATE(GlobalNaiveRace)
GLOBAL_NAIVE_INSTANTIATE(GlobalNaiveEarlyReturn)
