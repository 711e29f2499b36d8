// 09_single_pass: one launch from the input to the result, for sum, max and min.
//
// What changes since 08: 08 needs a second launch just to combine a few hundred block
// partials, and at small n that launch is a large share of the time. Here every block
// reduces its share exactly as in 08 (thread_reduce and block_reduce come from
// 08_vectorized/vectorized_reduce.cuh, unchanged), writes its partial, makes it visible
// to the whole GPU with __threadfence(), and takes a numbered ticket from a counter with
// an atomic. The block that draws the last ticket knows that every other partial is
// written, so it combines them, in a fixed order (partial b always goes to the same
// thread and the same place in the tree), and writes the result. The atomicInc that
// hands out the last ticket also puts the counter back to 0 for the next call. Whichever
// block comes last, the arithmetic is the same, so a float result is the same bit for
// bit on every run (atomicAdd of float partials would add them in arrival order).
// The kernel is generic over the operator: a functor with an identity (common/ops.cuh).
//
// Build and run:  cmake --build --preset release --target 09_single_pass
//                 build/release/bin/09_single_pass --n 2^24 --type float
//                 build/release/bin/09_single_pass --n 2^20 --op max --type double
#include "single_pass.cuh"

#include <algorithm>

#include "../08_vectorized/vectorized_reduce.cuh"
#include "cuda_check.h"
#include "launch_rules.h"
#include "ops.cuh"

using reduction::ceil_div;
using reduction::MaxOp;
using reduction::MinOp;
using reduction::SumOp;

namespace {

// Scratch layout: the ticket counter (an unsigned int), then the block partials,
// starting 16 bytes in so that they are aligned for any element type.
constexpr std::size_t kPartialsOffset = 16;

// [snippet:kernel]
// Reduces input[0, n) with Op and writes the value to *result, in one launch.
// `partials` holds one value per block; `ticket` must be 0 when the launch starts
// (scratch zeroed once by the caller), and is 0 again when it ends.
// What still limits it: nothing at large n, where it streams at the memory's speed; at
// small n, the launch itself and one round trip to memory (the fence, the atomic).
template <typename T, typename Op>
__global__ void __launch_bounds__(1024)
    single_pass(const T* __restrict__ input, std::size_t n, T* result, T* partials, unsigned* ticket) {
  __shared__ bool is_last_block;
  const Op op{};

  // 1. As in 08: this block's share, 16 bytes at a time; thread 0 gets the block's value.
  const T block_value = vectorized::block_reduce(vectorized::thread_reduce(input, n, op), op);
  if (gridDim.x == 1) {  // one block (small n): its value is the result, no ticket needed
    if (threadIdx.x == 0) *result = block_value;
    return;  // every thread of the grid takes this branch: no barrier is left waiting
  }

  // 2. Publish the partial, then take a ticket.
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_value;
    __threadfence();  // the partial reaches every SM's view of memory before the ticket below
    // atomicInc(p, m) returns the old value and stores old + 1, or 0 once old reaches
    // m: tickets 0, 1, ..., G-1, and drawing the last one resets the counter.
    const unsigned my_ticket = atomicInc(ticket, gridDim.x - 1);
    is_last_block = my_ticket == gridDim.x - 1;
    if (is_last_block) __threadfence();  // and our reads of the partials come after it
  }
  __syncthreads();  // the block learns if it is last (and block_reduce's shared slots are free again)

  // 3. The last block: every partial is written. Thread t combines partials t, t + B,
  //    t + 2B, ... in that order, then the block tree; the order never depends on which
  //    block finished when. __ldcg reads through L2, past this SM's L1, which may hold
  //    stale copies; partials are written during this launch, so not __ldg either.
  if (is_last_block) {
    T value = Op::template identity<T>();
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) value = op(value, __ldcg(partials + b));
    value = vectorized::block_reduce(value, op);
    if (threadIdx.x == 0) *result = value;
  }
}
// [/snippet:kernel]

template <typename Kernel>
int blocks_per_sm(Kernel kernel, int block) {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block, 0));
  return blocks;
}

// The fewest blocks per SM over the kernels of one element type (sum, max, min).
template <typename T>
int blocks_per_sm_for(int block) {
  return std::min({blocks_per_sm(single_pass<T, SumOp>, block), blocks_per_sm(single_pass<T, MaxOp>, block),
                   blocks_per_sm(single_pass<T, MinOp>, block)});
}

}  // namespace

std::string SinglePass::check_shape(int block, int /*grid*/) { return reduction::check_block_range(block); }

// As 08: all blocks resident at once, no more than the work needs. For n up to
// block * 16 elements that is one block, whose "last block" step is then its own.
int SinglePass::default_grid(std::size_t n, int block, int sm_count) {
  const int per_sm = std::min({blocks_per_sm_for<int>(block), blocks_per_sm_for<float>(block),
                               blocks_per_sm_for<double>(block)});
  const std::size_t resident = std::size_t(std::max(per_sm, 1)) * sm_count;
  const std::size_t needed = ceil_div(std::max<std::size_t>(n, 1), vectorized::elements_per_block_vector(block));
  return static_cast<int>(std::min(resident, needed));
}

std::size_t SinglePass::scratch_bytes(std::size_t /*n*/, int /*block*/, int grid) {
  return kPartialsOffset + std::size_t(grid) * sizeof(double);
}

// A value passes through: thread_reduce over n elements with G*B threads and
// block_reduce (as in 08), then in the last block a serial loop over at most
// ceil(G / B) partials per thread and block_reduce again.
std::size_t SinglePass::chain_length(std::size_t n, int block, int grid) {
  return vectorized::thread_reduce_chain(n, std::size_t(grid) * block) + ceil_div(grid, block) +
         2 * vectorized::block_reduce_depth(block);
}

// [snippet:launcher]
template <typename T, typename Op>
void SinglePass::reduce(const T* input, std::size_t n, T* result, void* scratch, int block, int grid,
                        cudaStream_t stream) {
  // Scratch: the ticket counter, then the partials from byte kPartialsOffset on.
  unsigned char* bytes = static_cast<unsigned char*>(scratch);
  unsigned* ticket = reinterpret_cast<unsigned*>(bytes);
  T* partials = reinterpret_cast<T*>(bytes + kPartialsOffset);
  single_pass<T, Op><<<grid, block, 0, stream>>>(input, n, result, partials, ticket);
  CUDA_CHECK_LAUNCH();
}
// [/snippet:launcher]

#define SINGLE_PASS_INSTANTIATE(T)                                                                        \
  template void SinglePass::reduce<T, SumOp>(const T*, std::size_t, T*, void*, int, int, cudaStream_t); \
  template void SinglePass::reduce<T, MaxOp>(const T*, std::size_t, T*, void*, int, int, cudaStream_t); \
  template void SinglePass::reduce<T, MinOp>(const T*, std::size_t, T*, void*, int, int, cudaStream_t);
SINGLE_PASS_INSTANTIATE(int)
SINGLE_PASS_INSTANTIATE(float)
SINGLE_PASS_INSTANTIATE(double)
