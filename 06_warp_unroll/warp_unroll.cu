// 06_warp_unroll: the tree written out, and the last warp finishing with __syncwarp().
//
// What changes since 05, two things. (1) The tree: 05's ends every halving step
// with a __syncthreads(), a barrier for the whole block, even in the last six
// steps, when at most 32 threads (one warp) still have work. Here the steps are
// written out one by one with constant strides, the block-wide ones stop at 64
// values, and warp 0 alone folds those 64 into one. Between its steps it needs
// only __syncwarp(), a barrier for its own 32 lanes, and the other warps are done
// as soon as the block-wide steps are. Timed alone, this changes little: the tree
// runs once per block.
// (2) The loop: the grid-stride loop makes four independent loads per trip. A sum
// reads each byte once, so its speed is set by how many loads are in flight at
// once; 05 had only one per thread. This is where 06's speed-up comes from.
//
// Any block size from 1 to 1024 still works: the shared array is padded with zeros
// up to a power of two (at least 64), so the written-out steps and the warp stage
// never read a slot that no thread wrote.
//
// Build and run:  cmake --build --preset release --target 06_warp_unroll
//                 build/release/bin/06_warp_unroll --n 2^24 --type float
//                 build/release/bin/06_warp_unroll --variant volatile   (pitfalls.cu: the pre-Volta tail)
#include "warp_unroll.cuh"

#include <algorithm>

namespace warp_unroll {
namespace {

// The smallest power of two at or above x, for 1 <= x <= 2^31 (05 explains it).
__device__ unsigned pow2ceil(unsigned x) { return 1u << (32 - __clz(static_cast<int>(x - 1))); }

// Shared-memory slots a block of `block` threads uses: its size padded to a power
// of two, and never fewer than 64, the values warp 0's stage starts from. The
// kernel computes the same number on the device.
std::size_t tree_slots(int block) {
  std::size_t slots = 64;
  while (slots < std::size_t(block)) slots *= 2;
  return slots;
}

// [snippet:grid_stride]
// The grid-stride sum of 04 and 05, four strides per trip. 05's loop waits for each
// load before it issues the next: one load in flight per thread. Here the thread
// issues all four loads before it waits for the first. Four separate sums keep the
// additions independent, and make each float sum's chain of roundings four times
// shorter. The last zero to three strides go one at a time, each checked against n.
template <typename T>
__device__ T grid_stride_sum(const T* input, std::size_t n) {
  const std::size_t grid_stride = std::size_t(gridDim.x) * blockDim.x;  // 64-bit: n may exceed 2^31
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  T sum0 = T(0), sum1 = T(0), sum2 = T(0), sum3 = T(0);
  for (; i + 3 * grid_stride < n; i += 4 * grid_stride) {  // all four loads are in range
    sum0 += input[i];
    sum1 += input[i + grid_stride];
    sum2 += input[i + 2 * grid_stride];
    sum3 += input[i + 3 * grid_stride];
  }
  for (; i < n; i += grid_stride) sum0 += input[i];
  return (sum0 + sum1) + (sum2 + sum3);
}
// [/snippet:grid_stride]

// [snippet:warp_fold]
// Warp 0 folds partial[0..63] into partial[0]. `lanes` names the threads of warp 0
// (all 32, or fewer when the whole block is smaller than a warp). In each step only
// the lanes below the stride write, and every slot read by another lane lies at or
// above it: no race inside a step (without `if (lane < 16)`, lane 16 would write
// slot 16 while lane 0 reads it). The __syncwarp() after each step makes its sums
// visible to the next step's readers: lanes are not guaranteed to run in lock-step.
template <typename T>
__device__ void warp_fold_64(T* partial, unsigned lane, unsigned lanes) {
  partial[lane] += partial[lane + 32];
  __syncwarp(lanes);
  if (lane < 16) partial[lane] += partial[lane + 16];
  __syncwarp(lanes);
  if (lane < 8) partial[lane] += partial[lane + 8];
  __syncwarp(lanes);
  if (lane < 4) partial[lane] += partial[lane + 4];
  __syncwarp(lanes);
  if (lane < 2) partial[lane] += partial[lane + 2];
  __syncwarp(lanes);
  if (lane == 0) partial[0] += partial[1];
}
// [/snippet:warp_fold]

// [snippet:kernel]
// Each block writes the sum of its grid-stride slice of `input` to out[blockIdx.x].
// Any blockDim.x from 1 to 1024; dynamic shared memory holds tree_slots(blockDim.x) values.
// What still limits it: DRAM. A sum does one addition per element loaded, so once
// enough loads are in flight it runs as fast as memory delivers data, and the
// tree is a small fixed cost per block. What is left is the way the loads are
// issued (08: vector loads) and the tree's trips through shared memory (07
// adds the block's values in registers with shuffles instead).
template <typename T>
__global__ void block_sums_unrolled(const T* input, std::size_t n, T* out) {
  extern __shared__ unsigned char shared_bytes[];
  T* partial = reinterpret_cast<T*>(shared_bytes);
  const unsigned tid = threadIdx.x;
  const unsigned slots = max(pow2ceil(blockDim.x), 64u);  // the same for every thread of the block

  // 1. Each thread's grid-stride sum goes to its own slot; the slots past the
  //    block (up to `slots`) get zeros, so the steps below need no bounds checks.
  partial[tid] = grid_stride_sum(input, n);
  for (unsigned pad = blockDim.x + tid; pad < slots; pad += blockDim.x) partial[pad] = T(0);
  __syncthreads();  // every slot written before anyone reads another thread's

  // 2. The block-wide halvings, written out, down to 64 values. Each `if (slots ...)`
  //    is true or false for the whole block, so every thread reaches a barrier or
  //    none does. The barrier: this step's sums are read by other warps next step.
  if (slots >= 1024) { if (tid < 512) partial[tid] += partial[tid + 512]; __syncthreads(); }
  if (slots >= 512) { if (tid < 256) partial[tid] += partial[tid + 256]; __syncthreads(); }
  if (slots >= 256) { if (tid < 128) partial[tid] += partial[tid + 128]; __syncthreads(); }
  if (slots >= 128) { if (tid < 64) partial[tid] += partial[tid + 64]; __syncthreads(); }

  // 3. Warp 0 alone folds the last 64 values; the other warps have nothing left to do.
  if (tid < 32) {
    const unsigned lanes = blockDim.x >= 32 ? 0xffffffffu : (1u << blockDim.x) - 1u;
    warp_fold_64(partial, tid, lanes);
  }
  if (tid == 0) out[blockIdx.x] = partial[0];  // thread 0 wrote partial[0] itself, last
}
// [/snippet:kernel]

}  // namespace

// [snippet:default_grid]
// One full wave, a multiple of the SM count (05 says why): the occupancy
// calculator gives how many blocks of this kernel fit on one SM at once. With the
// default 256 threads that is the SM's whole thread capacity (2048 threads, 8 blocks
// on an H100), so each SM has the most loads in flight that it can hold.
cudaError_t default_grid(std::size_t /*n*/, int block, int* grid) {
  if (block < 1 || block > 1024) return cudaErrorInvalidValue;
  int device = 0, sm_count = 0, blocks_per_sm = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
  if (status == cudaSuccess) {
    status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, block_sums_unrolled<double>, block,
                                                           tree_slots(block) * sizeof(double));
  }
  if (status != cudaSuccess) return status;
  *grid = sm_count * std::max(blocks_per_sm, 1);
  return cudaSuccess;
}
// [/snippet:default_grid]

std::size_t scratch_bytes(std::size_t /*n*/, int /*block*/, int grid) {
  return grid > 1 ? std::size_t(grid) * sizeof(double) : 0;  // sized for the widest type
}

// [snippet:launcher]
// 04's two launches. First launch: `grid` blocks, one partial each (in `scratch`).
// Second launch: one block folds the `grid` partials; its grid-stride loop covers any
// grid, even one far larger than the block. Dynamic shared memory: tree_slots(block)
// values (the block padded to a power of two, at least 64).
template <typename T>
cudaError_t reduce(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block,
                   int grid, cudaStream_t stream) {
  if (block < 1 || block > 1024 || grid < 1) return cudaErrorInvalidValue;  // any size CUDA allows
  if (scratch_size < scratch_bytes(n, block, grid)) return cudaErrorInvalidValue;  // too small: no launch
  const std::size_t shared = tree_slots(block) * sizeof(T);
  if (grid == 1) {  // one block covers everything: its sum is the result
    block_sums_unrolled<<<1, block, shared, stream>>>(input, n, result);
    return cudaGetLastError();
  }
  T* partials = static_cast<T*>(scratch);
  block_sums_unrolled<<<grid, block, shared, stream>>>(input, n, partials);
  const cudaError_t status = cudaGetLastError();  // a bad launch is only reported here
  if (status != cudaSuccess) return status;
  block_sums_unrolled<<<1, block, shared, stream>>>(partials, grid, result);
  return cudaGetLastError();
}
// [/snippet:launcher]

}  // namespace warp_unroll

// reduce for element type T: use it at global scope (here, or at the end of this file).
#define WARP_UNROLL_INSTANTIATE(T) \
  template cudaError_t warp_unroll::reduce<T>(const T*, std::size_t, T*, void*, std::size_t, int, int, cudaStream_t);
WARP_UNROLL_INSTANTIATE(int)
WARP_UNROLL_INSTANTIATE(float)
WARP_UNROLL_INSTANTIATE(double)
