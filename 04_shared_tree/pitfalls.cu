// 04_shared_tree, pitfalls: the same two launches with a strided-index tree (thread t
// adds slot 2*s*t + s into slot 2*s*t), which causes shared-memory bank conflicts.
// Run it with --variant strided and compare with the chapter's kernel (README).
// Not part of the copy unit: nothing here is meant to be copied.
#include <cuda_runtime.h>

#include <cstddef>

#include "shared_tree.cuh"  // scratch_bytes: the chapter's rule for the scratch

namespace shared_tree_pitfalls {
namespace {

// [snippet:strided]
// Thread t works on slot 2*s*t, so the active threads are contiguous (as in 02), but
// their slots are 2*s apart: with 4-byte values, the lanes of a warp hit the same
// shared-memory bank 2, 4, 8, ... at a time, and each conflict serialises the access.
template <typename T>
__global__ void block_sums_strided(const T* input, std::size_t n, T* out) {
  extern __shared__ unsigned char shared_bytes[];
  T* partial = reinterpret_cast<T*>(shared_bytes);
  const unsigned tid = threadIdx.x;
  T sum = T(0);
  const std::size_t grid_stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + tid; i < n; i += grid_stride) sum += input[i];
  partial[tid] = sum;
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    const unsigned slot = 2 * stride * tid;
    if (slot < blockDim.x) partial[slot] += partial[slot + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}
// [/snippet:strided]

}  // namespace

// The chapter's two launches, with the strided kernel (shape checked by main.cu, the
// scratch here).
template <typename T>
cudaError_t reduce_strided(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size,
                           int block, int grid, cudaStream_t stream) {
  if (scratch_size < shared_tree::scratch_bytes(n, block, grid)) return cudaErrorInvalidValue;  // too small: no launch
  const std::size_t shared = block * sizeof(T);
  if (grid == 1) {
    block_sums_strided<<<1, block, shared, stream>>>(input, n, result);
    return cudaGetLastError();
  }
  T* partials = static_cast<T*>(scratch);
  block_sums_strided<<<grid, block, shared, stream>>>(input, n, partials);
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) return status;
  block_sums_strided<<<1, block, shared, stream>>>(partials, grid, result);
  return cudaGetLastError();
}

template cudaError_t reduce_strided<int>(const int*, std::size_t, int*, void*, std::size_t, int, int, cudaStream_t);
template cudaError_t reduce_strided<float>(const float*, std::size_t, float*, void*, std::size_t, int, int,
                                           cudaStream_t);
template cudaError_t reduce_strided<double>(const double*, std::size_t, double*, void*, std::size_t, int, int,
                                            cudaStream_t);

}  // namespace shared_tree_pitfalls
