// 07_warp_shuffle: the block's reduction done in registers with warp shuffles (two launches).
//
// What changes since 06: 06 folds the block's values in shared memory: one store per
// thread, then per step a load, an add and a store, with a __syncthreads() per step
// down to 64 values and a __syncwarp() per step in the last warp. Here the 32 threads
// of a warp add up their values straight from each other's registers with
// __shfl_down_sync: five steps, no shared memory, no barrier. Only one value per warp
// (at most 32 per block) goes through shared memory, behind one __syncthreads(), and
// the first warp adds those with shuffles again. No padding, no shared array sized by
// the block. Everything else is 06: the grid-stride loop with four loads per trip, the
// default launch shape (256 threads, one full wave), one partial per block, and a
// second launch of one block over the partials. Any block size from 1 to 1024 works,
// also one that is not a multiple of 32.
//
// Build and run:  cmake --build --preset release --target 07_warp_shuffle
//                 build/release/bin/07_warp_shuffle --n 2^24 --type float
#include "warp_shuffle.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <algorithm>

namespace cg = cooperative_groups;

namespace warp_shuffle {
namespace {

constexpr unsigned kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;  // all 32 lanes

// [snippet:warp_sum]
// Adds `value` over the threads of this thread's warp; lane 0 gets the total.
// Step by step, lane i adds the value that lane i + offset holds, read straight out of
// its registers by __shfl_down_sync: after offsets 16, 8, 4, 2, 1, lane 0 holds the
// sum of all 32 lanes (the picture in the README).
// Only the last warp of a block whose size is not a multiple of 32 is partial. Its
// missing lanes do not exist, so the mask must not name them (every lane named in the
// mask has to make the call), and what a shuffle returns from one of them is
// undefined, so it is not added: a missing lane counts as 0.
template <typename T>
__device__ T warp_sum(T value) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const unsigned lanes = min(kWarpSize, blockDim.x - (threadIdx.x - lane));  // threads in this warp
  const unsigned mask = lanes == kWarpSize ? kFullMask : (1u << lanes) - 1;
  for (unsigned offset = kWarpSize / 2; offset > 0; offset /= 2) {
    const T from_above = __shfl_down_sync(mask, value, offset);  // lane + offset's value
    if (lane + offset < lanes) value += from_above;
  }
  return value;
}
// [/snippet:warp_sum]

// [snippet:block_sum]
// Adds `value` over the whole block; thread 0 gets the total.
template <typename T>
__device__ T block_sum(T value) {
  __shared__ T warp_totals[kWarpSize];  // one slot per warp: at most 1024 / 32 = 32 warps
  const unsigned lane = threadIdx.x % kWarpSize;
  const unsigned warp = threadIdx.x / kWarpSize;
  const unsigned warps = (blockDim.x + kWarpSize - 1) / kWarpSize;

  value = warp_sum(value);  // 1. every warp adds its own 32 values, in registers
  if (lane == 0) warp_totals[warp] = value;
  __syncthreads();          // 2. every warp's total is written before warp 0 reads them
  if (warp == 0) {          // 3. the first warp adds the warp totals, again with shuffles
    value = lane < warps ? warp_totals[lane] : T(0);  // lanes past the last warp add 0
    value = warp_sum(value);
  }
  return value;
}
// [/snippet:block_sum]

// 06's grid-stride loop, unchanged: four strides per trip, so that a thread has four
// loads in flight before it waits for the first, and four separate sums.
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
  for (; i < n; i += grid_stride) sum0 += input[i];  // the last zero to three strides
  return (sum0 + sum1) + (sum2 + sum3);
}

// [snippet:kernel]
// Each block writes the sum of its grid-stride slice of `input` to out[blockIdx.x].
// Each thread first adds its slice in registers (06's loop), then the block adds the
// threads' sums with block_sum: no shared-memory tree any more.
// What still limits it: the loads. Each is 4 or 8 bytes, so a thread has at most 16
// or 32 bytes in flight, and every element costs its own load instruction and
// address arithmetic (08 loads 16 bytes per instruction).
template <typename T>
__global__ void block_sums(const T* input, std::size_t n, T* out) {
  const T thread_sum = grid_stride_sum(input, n);
  const T block_total = block_sum(thread_sum);
  if (threadIdx.x == 0) out[blockIdx.x] = block_total;
}
// [/snippet:kernel]

}  // namespace

// Two other spellings of warp_sum, compiled here so that the README's copies of them
// are known to build. The chapter's kernel does not use them (an exercise does).
namespace alternatives {

// [snippet:cg_reduce]
// Cooperative groups: name the warp as a tile of 32 threads and let the library pick
// the instructions. Every thread of the tile gets the total (not only lane 0). The
// tile must be whole: use it with block sizes that are multiples of 32.
__device__ float warp_sum_cg(float value) {
  const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  return cg::reduce(warp, value, cg::plus<float>());
}
// [/snippet:cg_reduce]

// [snippet:reduce_add_sync]
// sm_80 and newer add up 32 ints in one instruction (REDUX in the SASS); every lane
// named in the mask gets the total. Only for int and unsigned: floats and doubles
// still need the shuffles.
__device__ int warp_sum_int(int value) {
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync(kFullMask, value);
#else
  return warp_sum(value);  // Turing (sm_75): the shuffle tree
#endif
}
// [/snippet:reduce_add_sync]

}  // namespace alternatives

// As 06: one full wave, the blocks of this kernel that fit on one SM at once (the
// occupancy calculator; the double kernel, which needs the most registers) times the
// SM count.
cudaError_t default_grid(std::size_t /*n*/, int block, int* grid) {
  if (block < 1 || block > 1024) return cudaErrorInvalidValue;
  int device = 0, sm_count = 0, blocks_per_sm = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
  if (status == cudaSuccess) {
    status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, block_sums<double>, block, 0);
  }
  if (status != cudaSuccess) return status;
  *grid = sm_count * std::max(blocks_per_sm, 1);
  return cudaSuccess;
}

std::size_t scratch_bytes(std::size_t /*n*/, int /*block*/, int grid) {
  return grid > 1 ? std::size_t(grid) * sizeof(double) : 0;  // sized for the widest type
}

// [snippet:launcher]
// 04's two launches. First launch: `grid` blocks, one partial each (in `scratch`).
// Second launch: one block folds the `grid` partials; its grid-stride loop covers any
// grid, even one far larger than the block. No dynamic shared memory: block_sum's
// 32 warp totals are a static array.
template <typename T>
cudaError_t reduce(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block,
                   int grid, cudaStream_t stream) {
  if (block < 1 || block > 1024 || grid < 1) return cudaErrorInvalidValue;  // any size CUDA allows
  if (scratch_size < scratch_bytes(n, block, grid)) return cudaErrorInvalidValue;  // too small: no launch
  if (grid == 1) {  // one block covers everything: its sum is the result
    block_sums<<<1, block, 0, stream>>>(input, n, result);
    return cudaGetLastError();
  }
  T* partials = static_cast<T*>(scratch);
  block_sums<<<grid, block, 0, stream>>>(input, n, partials);
  const cudaError_t status = cudaGetLastError();  // a bad launch is only reported here
  if (status != cudaSuccess) return status;
  block_sums<<<1, block, 0, stream>>>(partials, grid, result);
  return cudaGetLastError();
}
// [/snippet:launcher]

}  // namespace warp_shuffle

// reduce for element type T: use it at global scope (here, or at the end of this file).
#define WARP_SHUFFLE_INSTANTIATE(T) \
  template cudaError_t warp_shuffle::reduce<T>(const T*, std::size_t, T*, void*, std::size_t, int, int, cudaStream_t);
WARP_SHUFFLE_INSTANTIATE(int)
WARP_SHUFFLE_INSTANTIATE(float)
WARP_SHUFFLE_INSTANTIATE(double)
