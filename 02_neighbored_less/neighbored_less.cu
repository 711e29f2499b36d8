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

#include "cuda_check.h"

namespace {

// Each block sums its slice [b*B, b*B + len) of `data` in place and writes the sum to
// block_sums[blockIdx.x]. blockDim.x must be a power of two.
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
__global__ void neighbored_pairs_contiguous(T* data, std::size_t n, T* block_sums) {
  const unsigned tid = threadIdx.x;
  // This block's slice. The offset is 64-bit: b * B can pass 2^31 for large arrays.
  const std::size_t block_start = std::size_t(blockIdx.x) * blockDim.x;
  T* slice = data + block_start;
  // How many values the slice holds: B, or fewer in the last block (same for the
  // whole block, so every thread runs the same steps and meets every barrier).
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
  if (tid == 0) block_sums[blockIdx.x] = slice[0];
}
// [/snippet:neighbored_less]

}  // namespace

template <typename T>
void NeighboredLess::reduce(T* data, std::size_t n, T* result, void* scratch, int block, int /*grid*/,
                            cudaStream_t stream) {
  reduce_in_passes<T>(neighbored_pairs_contiguous<T>, data, n, result, scratch, block, stream);  // 01's pass loop
}

template void NeighboredLess::reduce<int>(int*, std::size_t, int*, void*, int, int, cudaStream_t);
template void NeighboredLess::reduce<float>(float*, std::size_t, float*, void*, int, int, cudaStream_t);
template void NeighboredLess::reduce<double>(double*, std::size_t, double*, void*, int, int, cudaStream_t);
