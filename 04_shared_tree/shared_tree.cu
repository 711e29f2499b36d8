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
//                 build/release/bin/04_shared_tree --n 2^24 --type float
//                 build/release/bin/04_shared_tree --variant strided   (seed 002's bank conflicts)
#include "shared_tree.cuh"

#include "cuda_check.h"
#include "launch_rules.h"
#include "two_launches.cuh"

using reduction::ceil_div;
using reduction::ceil_log2;

namespace {

// [snippet:kernel]
// Step 1, the same in both kernels below: each thread adds up its grid-stride slice
// in a register. Indices are 64-bit, since n may exceed 2^31.
template <typename T>
__device__ T grid_stride_sum(const T* input, std::size_t n) {
  T sum = T(0);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) sum += input[i];
  return sum;
}

// Each block writes the sum of its grid-stride slice of `input` to out[blockIdx.x].
// blockDim.x must be a power of two; dynamic shared memory holds blockDim.x values.
// What is still slow: every halving step needs a __syncthreads(), even the last
// five, where only one warp is left working (06 unrolls those).
template <typename T>
__global__ void block_sums(const T* input, std::size_t n, T* out) {
  extern __shared__ unsigned char shared_bytes[];
  T* partial = reinterpret_cast<T*>(shared_bytes);  // one slot per thread
  const unsigned tid = threadIdx.x;

  partial[tid] = grid_stride_sum(input, n);  // 1. this thread's slice, in a register
  __syncthreads();  // every slot written before anyone reads a neighbour's

  // 2. Sequential addressing: thread t adds slot t + stride; the active threads are
  //    always the first `stride` ones, so whole warps retire together.
  for (unsigned stride_in_block = blockDim.x / 2; stride_in_block > 0; stride_in_block /= 2) {
    if (tid < stride_in_block) partial[tid] += partial[tid + stride_in_block];
    __syncthreads();  // this step's sums are read by the next step
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}
// [/snippet:kernel]

// [snippet:strided]
// --variant strided: seed 002's second scheme, kept to measure its bank conflicts.
// Thread t works on slot 2*s*t, so the active threads are contiguous (as in 02), but
// their slots are 2*s apart: with 4-byte values, the lanes of a warp hit the same
// shared-memory bank 2, 4, 8, ... at a time, and each conflict serialises the access.
template <typename T>
__global__ void block_sums_strided(const T* input, std::size_t n, T* out) {
  extern __shared__ unsigned char shared_bytes[];
  T* partial = reinterpret_cast<T*>(shared_bytes);
  const unsigned tid = threadIdx.x;
  partial[tid] = grid_stride_sum(input, n);
  __syncthreads();
  for (unsigned stride_in_block = 1; stride_in_block < blockDim.x; stride_in_block *= 2) {
    const unsigned slot = 2 * stride_in_block * tid;
    if (slot < blockDim.x) partial[slot] += partial[slot + stride_in_block];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}
// [/snippet:strided]

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
  two_launches<T>(block_sums<T>, input, n, result, scratch, block, grid, block * sizeof(T), stream);
}

template <typename T>
void SharedTreeStrided::reduce(const T* input, std::size_t n, T* result, void* scratch, int block, int grid,
                               cudaStream_t stream) {
  two_launches<T>(block_sums_strided<T>, input, n, result, scratch, block, grid, block * sizeof(T), stream);
}

#define SHARED_TREE_INSTANTIATE(S)                                                                     \
  template void S::reduce<int>(const int*, std::size_t, int*, void*, int, int, cudaStream_t);          \
  template void S::reduce<float>(const float*, std::size_t, float*, void*, int, int, cudaStream_t);    \
  template void S::reduce<double>(const double*, std::size_t, double*, void*, int, int, cudaStream_t);
SHARED_TREE_INSTANTIATE(SharedTree)
SHARED_TREE_INSTANTIATE(SharedTreeStrided)
