// 03_interleaved: interleaved pairs, the stride halving from half the block down to 1.
//
// What changes since 02: which two values form a pair. 01 and 02 add neighbours, then
// values 2 apart, 4 apart, ... (the stride doubles). Here the stride starts at half
// the block and halves: at each step thread t adds slot t + stride into slot t, so the
// upper half of what is left folds onto the lower half. The working threads are the
// first `stride` ones, as in 02, but now neighbouring threads also touch neighbouring
// slots at every step: each warp's loads and stores are coalesced, so a step moves a
// few full sectors instead of 02's scattered ones. The summation order changes (a
// value meets a partner B/2 away first), the number of additions does not.
//
// As in 01 and 02, everything happens in place in global memory, one block per B
// elements, and the launcher repeats passes over the block partials until one value
// is left.
//
// Build and run:  cmake --build --preset release --target 03_interleaved
//                 build/release/bin/03_interleaved --n 2^24 --type float
#include "interleaved.cuh"

#include <algorithm>
#include <climits>

namespace interleaved {
namespace {

// Each block sums its slice [b*B, b*B + len) of `data` in place and writes the sum to
// partials[blockIdx.x]. blockDim.x must be a power of two.
//
// What still limits it:
//  - every step is a round trip to global memory and a barrier, log2(B) of them per
//    block, with each value loaded, added and stored again at every level of the tree;
//  - half the threads never add anything (only the first B/2 do, at the first step),
//    and a block of B threads handles only B elements;
//  - the last five steps (fewer than 32 working threads) leave most lanes of the one
//    busy warp idle.
// 04 fixes the first two: each thread first sums many elements in a register, and the
// tree runs in shared memory.
// [snippet:interleaved]
template <typename T>
__global__ void interleaved_pairs(T* data, std::size_t n, T* partials) {
  const unsigned tid = threadIdx.x;
  // This block's slice. The offset is 64-bit: b * B can pass 2^31 for large arrays.
  const std::size_t block_start = std::size_t(blockIdx.x) * blockDim.x;
  T* slice = data + block_start;
  // How many values the slice holds: B, or fewer in the last block.
  const std::size_t values_left = n - block_start;
  const unsigned len = values_left < blockDim.x ? unsigned(values_left) : blockDim.x;

  // The same steps in every thread of the block, so every thread meets every barrier.
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    // The first `stride` threads fold the upper half onto the lower half; a partner
    // past the end of a short last slice is skipped.
    if (tid < stride && tid + stride < len) slice[tid] += slice[tid + stride];
    // Every thread, working or not, waits here: the next step reads this step's sums.
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = slice[0];
}
// [/snippet:interleaved]

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

bool is_power_of_two(int x) { return x > 0 && (x & (x - 1)) == 0; }

}  // namespace

// [snippet:default_grid]
cudaError_t default_grid(std::size_t n, int block, int* grid) {
  const std::size_t blocks = ceil_div(n, std::size_t(block > 0 ? block : kDefaultBlock));
  *grid = static_cast<int>(std::clamp<std::size_t>(blocks, 1, INT_MAX));
  return cudaSuccess;
}
// [/snippet:default_grid]

std::size_t scratch_bytes(std::size_t n, int block, int /*grid*/) {
  const std::size_t threads = block > 0 ? block : kDefaultBlock;
  const std::size_t first = ceil_div(n, threads);
  if (first <= 1) return 0;  // one pass: it writes straight to result
  const std::size_t second = ceil_div(first, threads);
  return (first + (second > 1 ? second : 0)) * sizeof(double);
}

// 01's pass loop, unchanged but for the kernel's name.
// Launches the kernel pass after pass until one value is left, on `stream`. The
// first pass reduces `data` (in place) to ceil(n/B) partials; every later pass
// reduces the previous partials (in place) to ceil(count/B) new ones. Partials go to
// the scratch region the running pass is NOT reducing (A, B, A, ...), so no block
// ever writes into a slice that another block is still adding up. The last pass has
// a single block, which writes its sum straight to `result`. The `grid` argument is
// not used: each pass launches one block per B values it reduces.
// [snippet:launcher]
template <typename T>
cudaError_t reduce(T* data, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block,
                   int /*grid*/, cudaStream_t stream) {
  if (!is_power_of_two(block) || block < 32 || block > 1024) return cudaErrorInvalidValue;
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
    interleaved_pairs<<<static_cast<unsigned>(grid), block, 0, stream>>>(values, count, partials);
    const cudaError_t status = cudaGetLastError();  // a bad launch is only reported here
    if (status != cudaSuccess) return status;
    values = partials;
    count = grid;
    grid = ceil_div(count, block);
  }
  interleaved_pairs<<<1, block, 0, stream>>>(values, count, result);
  return cudaGetLastError();
}
// [/snippet:launcher]

}  // namespace interleaved

// reduce for element type T: use it at global scope (here, or at the end of this file).
#define INTERLEAVED_INSTANTIATE(T) \
  template cudaError_t interleaved::reduce<T>(T*, std::size_t, T*, void*, std::size_t, int, int, cudaStream_t);
INTERLEAVED_INSTANTIATE(int)
INTERLEAVED_INSTANTIATE(float)
INTERLEAVED_INSTANTIATE(double)
