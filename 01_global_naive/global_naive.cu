// 01_global_naive: neighbored pairs, in place in global memory (the first GPU version).
//
// What changes since 00: the sum moves to the GPU. Every element gets its own thread,
// and each block of B threads turns its B elements into one sum with a tree: at the
// step with stride s, every thread whose index is a multiple of 2s adds the value s
// places to its right into its own slot. After ceil(log2(B)) steps the block's sum sits
// in the first slot of its slice, and thread 0 copies it to a partials array. The
// partials are then summed the same way by another launch, and so on until a single
// block is left, whose sum is the result: without a cooperative launch, blocks cannot
// wait for each other inside a kernel (cooperative_groups::this_grid().sync() needs
// cudaLaunchCooperativeKernel and every block resident at once, and at large n one
// block per B elements is far more than fit), so the end of a launch is our barrier
// between blocks.
//
// Everything happens in place, in global memory: the kernel overwrites its input
// (the harness restores the array before every timed run).
//
// Build and run:  cmake --build --preset release --target 01_global_naive
//                 build/release/bin/01_global_naive --n 2^24 --type float
//                 build/release/bin/01_global_naive --variant race   (pitfalls.cu: wrong on purpose)
#include "global_naive.cuh"

#include <algorithm>
#include <climits>

namespace global_naive {
namespace {

// Each block sums its slice [b*B, b*B + len) of `data` in place and writes the sum to
// partials[blockIdx.x]. Any block size works: the steps double the stride until it
// reaches len, so a slice of any length, a power of two or not, ends in its first slot.
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
__global__ void neighbored_pairs(T* data, std::size_t n, T* partials) {
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
  if (tid == 0) partials[blockIdx.x] = slice[0];
}
// [/snippet:neighbored_pairs]

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

}  // namespace

cudaError_t default_grid(std::size_t n, int block, int* grid) {
  const std::size_t blocks = ceil_div(n, std::size_t(block > 0 ? block : kDefaultBlock));
  *grid = static_cast<int>(std::clamp<std::size_t>(blocks, 1, INT_MAX));
  return cudaSuccess;
}

std::size_t scratch_bytes(std::size_t n, int block, int /*grid*/) {
  const std::size_t threads = block > 0 ? block : kDefaultBlock;
  const std::size_t first = ceil_div(n, threads);
  if (first <= 1) return 0;  // one pass: it writes straight to result
  const std::size_t second = ceil_div(first, threads);
  return (first + (second > 1 ? second : 0)) * sizeof(double);
}

// Launches the kernel pass after pass until one value is left, on `stream`. The
// first pass reduces `data` (in place) to ceil(n/B) partials; every later pass
// reduces the previous partials (in place) to ceil(count/B) new ones. Partials go to
// the scratch region the running pass is NOT reducing (A, B, A, ...), so no block
// ever writes into a slice that another block is still adding up. The last pass has
// a single block, which writes its sum straight to `result`. The `grid` argument is
// not used: each pass launches one block per B values it reduces.
// [snippet:passes]
template <typename T>
cudaError_t reduce(T* data, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block,
                   int /*grid*/, cudaStream_t stream) {
  // Any block from 2 to 1024 threads: each pass must shrink the values (a block of 1
  // would leave n partials of n values forever), and CUDA allows at most 1024.
  if (block < 2 || block > 1024) return cudaErrorInvalidValue;
  // One block per B elements: a grid of more than 2^31 - 1 blocks cannot be launched.
  if (n > std::size_t(INT_MAX) * block) return cudaErrorInvalidValue;
  // A scratch too small for this n's partials is refused before any launch (the grid follows from n).
  if (scratch_size < scratch_bytes(n, block, 0)) return cudaErrorInvalidValue;
  if (n == 0) {  // nothing to add: the result is the identity, 0 (all bits zero)
    return cudaMemsetAsync(result, 0, sizeof(T), stream);
  }
  T* const partials_a = static_cast<T*>(scratch);  // ceil(n/B) slots
  T* values = data;                                // what the next pass reduces
  std::size_t count = n;
  std::size_t grid = ceil_div(count, block);
  while (grid > 1) {
    // partials_b (ceil(n/B^2) slots) follows partials_a in the scratch space.
    T* partials = values == partials_a ? partials_a + ceil_div(n, block) : partials_a;
    neighbored_pairs<<<static_cast<unsigned>(grid), block, 0, stream>>>(values, count, partials);
    const cudaError_t status = cudaGetLastError();  // a bad launch is only reported here
    if (status != cudaSuccess) return status;
    values = partials;
    count = grid;
    grid = ceil_div(count, block);
  }
  neighbored_pairs<<<1, block, 0, stream>>>(values, count, result);
  return cudaGetLastError();
}
// [/snippet:passes]

}  // namespace global_naive

// reduce for element type T: use it at global scope (here, or at the end of this file).
#define GLOBAL_NAIVE_INSTANTIATE(T) \
  template cudaError_t global_naive::reduce<T>(T*, std::size_t, T*, void*, std::size_t, int, int, cudaStream_t);
GLOBAL_NAIVE_INSTANTIATE(int)
GLOBAL_NAIVE_INSTANTIATE(float)
GLOBAL_NAIVE_INSTANTIATE(double)
