// 02_neighbored_less: the same neighbouring pairs as 01, added by contiguous threads.
//
// What changes since 01: one line of indexing. In 01, the thread that adds a pair is
// the one whose index is the pair's left slot, so the working threads are scattered
// (every 2nd, every 4th, ...) and they are picked with an expensive `%`. Here thread t
// handles the t-th pair of the step instead: its left slot is 2 * stride * t. The
// pairs, the additions and the summation order are exactly those of 01; only which
// thread does which addition changes. The working threads are now threads 0, 1, 2, ...,
// so whole warps either work or skip the step, and the `%` is gone.
//
// As in 01, everything happens in place in global memory, one block per B elements,
// and the launcher repeats passes over the block partials until one value is left.
//
// Build and run:  cmake --build --preset release --target 02_neighbored_less
//                 build/release/bin/02_neighbored_less --n 2^24 --type float
#include "neighbored_less.cuh"

#include <algorithm>
#include <climits>

namespace neighbored_less {
namespace {

// Each block sums its slice [b*B, b*B + len) of `data` in place and writes the sum to
// partials[blockIdx.x]. Any block size works: the steps double the stride until it
// reaches len, so a slice of any length, a power of two or not, ends in its first slot.
//
// What still limits it:
//  - the memory accesses are strided: at stride s, neighbouring threads touch slots
//    2s apart, so one warp's load spreads over up to 32 separate 32-byte sectors
//    instead of a few, and most of each sector fetched is not used by that load;
//  - every step is still a round trip to global memory and a barrier;
//  - the last five steps (fewer than 32 working threads) still leave most lanes of
//    the one busy warp idle.
// [snippet:neighbored_less]
template <typename T>
__global__ void neighbored_pairs_contiguous(T* data, std::size_t n, T* partials) {
  const unsigned tid = threadIdx.x;
  // This block's slice. The offset is 64-bit: b * B can pass 2^31 for large arrays.
  const std::size_t block_start = std::size_t(blockIdx.x) * blockDim.x;
  T* slice = data + block_start;
  // How many values the slice holds: B, or fewer in the last block. The same for
  // every thread of the block, so the loop below runs the same steps in all of them.
  const std::size_t values_left = n - block_start;
  const unsigned len = values_left < blockDim.x ? unsigned(values_left) : blockDim.x;

  for (unsigned stride = 1; stride < len; stride *= 2) {
    // Thread t adds the t-th pair of this step: slots 2*stride*t and 2*stride*t + stride.
    // Only the first threads have a pair whose right slot lies inside the slice.
    const unsigned left = 2 * stride * tid;
    if (left + stride < len) slice[left] += slice[left + stride];
    // Every thread, working or not, waits here: the next step reads this step's sums.
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = slice[0];
}
// [/snippet:neighbored_less]

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

// 01's pass loop, unchanged but for the kernel's name.
// Launches the kernel pass after pass until one value is left, on `stream`. The
// first pass reduces `data` (in place) to ceil(n/B) partials; every later pass
// reduces the previous partials (in place) to ceil(count/B) new ones. Partials go to
// the scratch region the running pass is NOT reducing (A, B, A, ...), so no block
// ever writes into a slice that another block is still adding up. The last pass has
// a single block, which writes its sum straight to `result`. The `grid` argument is
// not used: each pass launches one block per B values it reduces.
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
    neighbored_pairs_contiguous<<<static_cast<unsigned>(grid), block, 0, stream>>>(values, count, partials);
    const cudaError_t status = cudaGetLastError();  // a bad launch is only reported here
    if (status != cudaSuccess) return status;
    values = partials;
    count = grid;
    grid = ceil_div(count, block);
  }
  neighbored_pairs_contiguous<<<1, block, 0, stream>>>(values, count, result);
  return cudaGetLastError();
}

}  // namespace neighbored_less

// reduce for element type T: use it at global scope (here, or at the end of this file).
#define NEIGHBORED_LESS_INSTANTIATE(T) \
  template cudaError_t neighbored_less::reduce<T>(T*, std::size_t, T*, void*, std::size_t, int, int, cudaStream_t);
NEIGHBORED_LESS_INSTANTIATE(int)
NEIGHBORED_LESS_INSTANTIATE(float)
NEIGHBORED_LESS_INSTANTIATE(double)
