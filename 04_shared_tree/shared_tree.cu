// 04_shared_tree: grid-stride accumulation + shared-memory tree (two launches).
//
// What changes since 03: 01-03 give every element its own thread and reduce in
// global memory, so a block of B threads handles only B elements and most threads
// go idle after the first step. Here a fixed grid of G blocks walks the whole array
// with a grid-stride loop: each thread first adds up n / (G * B) elements in a
// register (no traffic but the loads), and only then does the block combine its B
// values, in fast on-chip shared memory, with sequential addressing (stride halves,
// active threads stay contiguous, no bank conflicts). A second launch of one block
// reduces the G block partials to the final value.
//
// Build and run:  cmake --build --preset release --target 04_shared_tree
//                 build/release/04_shared_tree/04_shared_tree --n 2^24 --type float
#include "shared_tree.cuh"

#include "cuda_check.h"
#include "launch_rules.h"

using reduction::ceil_div;
using reduction::ceil_log2;

namespace {

// Each block writes the sum of its grid-stride slice of `input` to out[blockIdx.x].
// blockDim.x must be a power of two; dynamic shared memory holds blockDim.x values.
// What is still slow: every halving step needs a __syncthreads(), even the last
// five, where only one warp is left working (06 unrolls those).
template <typename T>
__global__ void block_sums(const T* input, std::size_t n, T* out) {
  extern __shared__ unsigned char shared_bytes[];
  T* partial = reinterpret_cast<T*>(shared_bytes);  // one slot per thread
  const unsigned tid = threadIdx.x;

  // 1. Grid-stride loop: 64-bit indices, since n may exceed 2^31.
  T sum = T(0);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + tid; i < n; i += stride) sum += input[i];
  partial[tid] = sum;
  __syncthreads();  // every slot written before anyone reads a neighbour's

  // 2. Sequential addressing: thread t adds slot t + stride; the active threads are
  //    always the first `stride` ones, so whole warps retire together.
  for (unsigned stride_in_block = blockDim.x / 2; stride_in_block > 0; stride_in_block /= 2) {
    if (tid < stride_in_block) partial[tid] += partial[tid + stride_in_block];
    __syncthreads();  // this step's sums are read by the next step
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}

}  // namespace

std::string SharedTree::check_shape(int block, int /*grid*/) { return reduction::check_power_of_two_block(block); }

int SharedTree::default_grid(std::size_t /*n*/, int block, int sm_count) { return sm_count * (2048 / block); }

std::size_t SharedTree::scratch_bytes(std::size_t /*n*/, int /*block*/, int grid) {
  return grid > 1 ? std::size_t(grid) * sizeof(double) : 0;
}

// A value passes through: its thread's serial loop (at most ceil(n / (G*B)) additions),
// the block's tree (log2 B), then in the second launch the serial loop over the G
// partials (ceil(G / B)) and the tree again.
std::size_t SharedTree::chain_length(std::size_t n, int block, int grid) {
  return ceil_div(n, std::size_t(grid) * block) + ceil_div(grid, block) + 2 * ceil_log2(block);
}

template <typename T>
void SharedTree::reduce(const T* input, std::size_t n, T* result, void* scratch, int block, int grid,
                        cudaStream_t stream) {
  const std::size_t shared = block * sizeof(T);
  if (grid == 1) {  // one block covers everything: its sum is the result
    block_sums<T><<<1, block, shared, stream>>>(input, n, result);
    CUDA_CHECK_LAUNCH();
    return;
  }
  T* partials = static_cast<T*>(scratch);
  block_sums<T><<<grid, block, shared, stream>>>(input, n, partials);
  CUDA_CHECK_LAUNCH();
  block_sums<T><<<1, block, shared, stream>>>(partials, grid, result);
  CUDA_CHECK_LAUNCH();
}

template void SharedTree::reduce<int>(const int*, std::size_t, int*, void*, int, int, cudaStream_t);
template void SharedTree::reduce<float>(const float*, std::size_t, float*, void*, int, int, cudaStream_t);
template void SharedTree::reduce<double>(const double*, std::size_t, double*, void*, int, int, cudaStream_t);
