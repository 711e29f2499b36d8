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

#include "cuda_check.h"

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

}  // namespace

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
