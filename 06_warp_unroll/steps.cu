// 06_warp_unroll, one change at a time: 06 changes two things since 05 (the tree is
// written out with a __syncwarp() warp stage, and the grid-stride loop issues four loads
// per trip). The kernels here make each change alone on top of 05, so that
// `tour --steps 06` can time 05, each change and 06 side by side (README, "One change
// at a time"):
//   tree_only  06's tree (written out down to 64 values, warp 0 finishes with
//              __syncwarp()), fed by 05's loop (one load per trip)
//   loop_only  06's loop (four loads per trip), feeding 05's tree (a loop, a
//              __syncthreads() per step)
// Both keep 06's two launches and take any block size from 1 to 1024.
// Run them alone with --variant tree_only or --variant loop_only. Not part of the copy
// unit: nothing here is meant to be copied.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "variant_parts.cuh"

namespace warp_unroll_steps {
namespace {

using namespace warp_unroll_parts;

// 05's loop: one load in flight per thread.
template <typename T>
__device__ T one_load_per_trip(const T* input, std::size_t n) {
  const std::size_t grid_stride = std::size_t(gridDim.x) * blockDim.x;  // 64-bit: n may exceed 2^31
  T sum = T(0);
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += grid_stride) sum += input[i];
  return sum;
}

// 06's warp stage (warp_unroll.cu explains it).
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

// 06's block_sums_unrolled with 05's loop. Shared memory: tree_slots(blockDim.x) values.
template <typename T>
__global__ void block_sums_tree_only(const T* input, std::size_t n, T* out) {
  extern __shared__ unsigned char shared_bytes[];
  T* partial = reinterpret_cast<T*>(shared_bytes);
  const unsigned tid = threadIdx.x;
  const unsigned slots = max(pow2ceil(blockDim.x), 64u);

  partial[tid] = one_load_per_trip(input, n);
  for (unsigned pad = blockDim.x + tid; pad < slots; pad += blockDim.x) partial[pad] = T(0);
  __syncthreads();

  halve_to_64(partial, tid, slots);
  if (tid < 32) {
    const unsigned lanes = blockDim.x >= 32 ? 0xffffffffu : (1u << blockDim.x) - 1u;
    warp_fold_64(partial, tid, lanes);
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}

// 05's block_sums_any_size with 06's loop. Shared memory: blockDim.x values.
template <typename T>
__global__ void block_sums_loop_only(const T* input, std::size_t n, T* out) {
  extern __shared__ unsigned char shared_bytes[];
  T* partial = reinterpret_cast<T*>(shared_bytes);
  const unsigned tid = threadIdx.x;

  partial[tid] = four_loads_per_trip(input, n);
  __syncthreads();
  for (unsigned stride = pow2ceil(blockDim.x) / 2; stride > 0; stride /= 2) {
    if (tid < stride && tid + stride < blockDim.x) partial[tid] += partial[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}

// One full wave of `kernel` (its double instance, the most shared memory), as 05 and 06
// choose their default grids.
template <typename Kernel>
cudaError_t full_wave(Kernel kernel, int block, std::size_t shared, int* grid) {
  int device = 0, sm_count = 0, blocks_per_sm = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
  if (status == cudaSuccess) {
    status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, block, shared);
  }
  if (status != cudaSuccess) return status;
  *grid = sm_count * std::max(blocks_per_sm, 1);
  return cudaSuccess;
}

bool runnable(int block, int grid) { return block >= 1 && block <= 1024 && grid >= 1; }  // any size CUDA allows

}  // namespace

cudaError_t default_grid_tree_only(std::size_t /*n*/, int block, int* grid) {
  if (!runnable(block, 1)) return cudaErrorInvalidValue;
  return full_wave(block_sums_tree_only<double>, block, tree_slots(block) * sizeof(double), grid);
}

cudaError_t default_grid_loop_only(std::size_t /*n*/, int block, int* grid) {
  if (!runnable(block, 1)) return cudaErrorInvalidValue;
  return full_wave(block_sums_loop_only<double>, block, block * sizeof(double), grid);
}

template <typename T>
cudaError_t reduce_tree_only(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size,
                             int block, int grid, cudaStream_t stream) {
  if (!runnable(block, grid)) return cudaErrorInvalidValue;
  return two_launches(block_sums_tree_only<T>, tree_slots(block) * sizeof(T), input, n, result, scratch,
                      scratch_size, block, grid, stream);
}

template <typename T>
cudaError_t reduce_loop_only(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size,
                             int block, int grid, cudaStream_t stream) {
  if (!runnable(block, grid)) return cudaErrorInvalidValue;
  return two_launches(block_sums_loop_only<T>, block * sizeof(T), input, n, result, scratch, scratch_size, block,
                      grid, stream);
}

template cudaError_t reduce_tree_only<int>(const int*, std::size_t, int*, void*, std::size_t, int, int, cudaStream_t);
template cudaError_t reduce_tree_only<float>(const float*, std::size_t, float*, void*, std::size_t, int, int,
                                             cudaStream_t);
template cudaError_t reduce_tree_only<double>(const double*, std::size_t, double*, void*, std::size_t, int, int,
                                              cudaStream_t);
template cudaError_t reduce_loop_only<int>(const int*, std::size_t, int*, void*, std::size_t, int, int, cudaStream_t);
template cudaError_t reduce_loop_only<float>(const float*, std::size_t, float*, void*, std::size_t, int, int,
                                             cudaStream_t);
template cudaError_t reduce_loop_only<double>(const double*, std::size_t, double*, void*, std::size_t, int, int,
                                              cudaStream_t);

}  // namespace warp_unroll_steps
