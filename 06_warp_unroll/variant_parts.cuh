// 06_warp_unroll: the pieces of the chapter's kernel that its variants (steps.cu,
// pitfalls.cu) reuse, each as in warp_unroll.cu (which explains them; tests/test_lessons.py
// checks it line by line). Not part of the copy unit: nothing here is meant to be copied.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "warp_unroll.cuh"  // scratch_bytes: the chapter's rule for the scratch

namespace warp_unroll_parts {

// The smallest power of two at or above x, for 1 <= x <= 2^31 (05 explains it).
__device__ inline unsigned pow2ceil(unsigned x) { return 1u << (32 - __clz(static_cast<int>(x - 1))); }

// The block padded to a power of two, at least 64 slots.
inline std::size_t tree_slots(int block) {
  std::size_t slots = 64;
  while (slots < std::size_t(block)) slots *= 2;
  return slots;
}

// 06's loop (grid_stride_sum): four loads per trip.
template <typename T>
__device__ T four_loads_per_trip(const T* input, std::size_t n) {
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

// 06's block-wide halvings, written out, down to the 64 values partial[0..63]
// (`slots` = max(pow2ceil(blockDim.x), 64), the block's slots already written).
template <typename T>
__device__ void halve_to_64(T* partial, unsigned tid, unsigned slots) {
  if (slots >= 1024) { if (tid < 512) partial[tid] += partial[tid + 512]; __syncthreads(); }
  if (slots >= 512) { if (tid < 256) partial[tid] += partial[tid + 256]; __syncthreads(); }
  if (slots >= 256) { if (tid < 128) partial[tid] += partial[tid + 128]; __syncthreads(); }
  if (slots >= 128) { if (tid < 64) partial[tid] += partial[tid + 64]; __syncthreads(); }
}

// 06's two launches: `grid` partials in `scratch`, then one block over them. A scratch
// smaller than the chapter's scratch_bytes is refused before any launch.
template <typename T>
cudaError_t two_launches(void (*kernel)(const T*, std::size_t, T*), std::size_t shared, const T* input,
                         std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block, int grid,
                         cudaStream_t stream) {
  if (scratch_size < warp_unroll::scratch_bytes(n, block, grid)) return cudaErrorInvalidValue;
  if (grid == 1) {
    kernel<<<1, block, shared, stream>>>(input, n, result);
    return cudaGetLastError();
  }
  T* partials = static_cast<T*>(scratch);
  kernel<<<grid, block, shared, stream>>>(input, n, partials);
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) return status;
  kernel<<<1, block, shared, stream>>>(partials, grid, result);
  return cudaGetLastError();
}

}  // namespace warp_unroll_parts
