// 08_vectorized: 16-byte loads, several in flight per thread (two launches).
//
// What changes since 07: the reduction inside the block is 07's, but the loop over the
// input no longer loads one element at a time. A thread loads 16 bytes at once (an int4,
// float4 or double2: one LDG.E.128 instruction instead of four or two), and it issues
// 4 such loads before it adds any of them, so each thread keeps 64 bytes in flight
// instead of 16 or 32. A vector load needs a 16-byte-aligned address, so the elements
// before the first aligned address (the head) and after the last whole vector (the
// tail) are read one by one: any n and any start address work. The grid is still one
// full wave from the occupancy calculator at large n, but at small n only as many
// blocks as the work needs.
// The device code (thread_reduce, block_reduce) is in vectorized_reduce.cuh, since 09
// reuses it.
//
// Build and run:  cmake --build --preset release --target 08_vectorized
//                 build/release/bin/08_vectorized --n 2^24 --type float
// See the loads:  cuobjdump -sass build/release/bin/08_vectorized | grep LDG
#include "vectorized.cuh"

#include <algorithm>

#include "cuda_check.h"
#include "launch_rules.h"
#include "../04_shared_tree/two_launches.cuh"
#include "ops.cuh"
#include "vectorized_reduce.cuh"

using reduction::ceil_div;
using reduction::SumOp;

namespace {

// [snippet:kernel]
// Each block writes the sum of its share of `input` to out[blockIdx.x].
// __launch_bounds__(1024): the compiler keeps to the registers that let a block of
// 1024 threads launch (64 per thread), so every block size from 1 to 1024 runs.
// What still limits it: a second launch just to add up a few hundred partials; at
// small n its launch and the gap between the two kernels are a large share of the
// time (09 finishes in the same launch).
template <typename T>
__global__ void __launch_bounds__(1024) block_sums(const T* __restrict__ input, std::size_t n, T* out) {
  const T thread_sum = vectorized::thread_reduce(input, n, SumOp());
  const T block_total = vectorized::block_reduce(thread_sum, SumOp());
  if (threadIdx.x == 0) out[blockIdx.x] = block_total;
}
// [/snippet:kernel]

// [snippet:occupancy]
// How many blocks of `block` threads of this kernel one SM can hold at once, limited by
// its registers, shared memory and thread and block slots (asks the device).
template <typename Kernel>
int blocks_per_sm(Kernel kernel, int block) {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block, 0));
  return blocks;
}
// [/snippet:occupancy]

}  // namespace

std::string Vectorized::check_shape(int block, int /*grid*/) { return reduction::check_block_range(block); }

// [snippet:default_grid]
int Vectorized::default_grid(std::size_t n, int block, int sm_count) {
  // default_grid does not know the element type: take the type whose kernel fits the
  // fewest blocks per SM (the double one uses the most registers), so that the whole
  // grid is resident for every type.
  const int per_sm = std::min({blocks_per_sm(block_sums<int>, block), blocks_per_sm(block_sums<float>, block),
                               blocks_per_sm(block_sums<double>, block)});
  const std::size_t resident = std::size_t(std::max(per_sm, 1)) * sm_count;
  // Small n: no more blocks than one vector per thread needs.
  const std::size_t needed = ceil_div(std::max<std::size_t>(n, 1), vectorized::elements_per_block_vector(block));
  return static_cast<int>(std::min(resident, needed));
}
// [/snippet:default_grid]

std::size_t Vectorized::scratch_bytes(std::size_t /*n*/, int /*block*/, int grid) {
  return grid > 1 ? std::size_t(grid) * sizeof(double) : 0;
}

// A value passes through: thread_reduce over n elements with G*B threads, block_reduce,
// then in the second launch thread_reduce over the G partials with B threads and
// block_reduce again (vectorized_reduce.cuh explains each term).
std::size_t Vectorized::chain_length(std::size_t n, int block, int grid) {
  return vectorized::thread_reduce_chain(n, std::size_t(grid) * block) + vectorized::thread_reduce_chain(grid, block) +
         2 * vectorized::block_reduce_depth(block);
}

template <typename T>
void Vectorized::reduce(const T* input, std::size_t n, T* result, void* scratch, int block, int grid,
                        cudaStream_t stream) {
  two_launches<T>(block_sums<T>, input, n, result, scratch, block, grid, 0, stream);  // 04's two launches
}

template void Vectorized::reduce<int>(const int*, std::size_t, int*, void*, int, int, cudaStream_t);
template void Vectorized::reduce<float>(const float*, std::size_t, float*, void*, int, int, cudaStream_t);
template void Vectorized::reduce<double>(const double*, std::size_t, double*, void*, int, int, cudaStream_t);
