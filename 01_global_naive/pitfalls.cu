// 01_global_naive, pitfalls: two versions of the chapter's kernel that are wrong on
// purpose, for docs/pitfalls.md (--variant race, --variant early-return), each run by
// the chapter's pass loop (repeated below). Not part of the copy unit: nothing here is
// meant to be copied.
#include <cuda_runtime.h>

#include <climits>
#include <cstddef>

#include "global_naive.cuh"  // scratch_bytes: the chapter's rule for the scratch

namespace global_naive_pitfalls {
namespace {

// --variant race: the chapter's tree without the `%` filter (the "optimization" of
// the Korean course notes on global-memory reduction). Were all reads of a step done
// before any write, the extra sums would land in slots nobody reads later and the
// result would be right. But nothing orders the threads inside a step: thread t reads
// slot t + stride while thread t + stride may already be overwriting it, so a value
// can be counted twice. The result depends on timing.
// [snippet:race]
template <typename T>
__global__ void neighbored_pairs_race(T* data, std::size_t n, T* partials) {
  const unsigned tid = threadIdx.x;
  const std::size_t block_start = std::size_t(blockIdx.x) * blockDim.x;
  T* slice = data + block_start;
  const std::size_t values_left = n - block_start;
  const unsigned len = values_left < blockDim.x ? unsigned(values_left) : blockDim.x;

  for (unsigned stride = 1; stride < len; stride *= 2) {
    if (tid + stride < len) slice[tid] += slice[tid + stride];  // RACE: no filter
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = slice[0];
}
// [/snippet:race]

// --variant early-return: the pattern of the Professional CUDA C Programming notes.
// Threads past the end of the array leave before the loop. For n a multiple of the
// block size nothing changes; otherwise the last block's surviving threads wait at
// __syncthreads() for threads that have exited (undefined behaviour: the CUDA
// Programming Guide allows a __syncthreads() only where all threads of the block reach
// it or none do) and add partners at tid + stride >= len, past the end of the array:
// garbage goes into the sum (memcheck reports it). Kept exactly this broken to be
// demonstrated.
// [snippet:early_return]
template <typename T>
__global__ void neighbored_pairs_early_return(T* data, std::size_t n, T* partials) {
  const unsigned tid = threadIdx.x;
  const std::size_t block_start = std::size_t(blockIdx.x) * blockDim.x;
  T* slice = data + block_start;
  if (block_start + tid >= n) return;  // BUG: the barriers below now miss these threads

  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if (tid % (2 * stride) == 0) slice[tid] += slice[tid + stride];  // BUG: partner unchecked
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = slice[0];
}
// [/snippet:early_return]

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

template <typename T>
using BlockKernel = void (*)(T*, std::size_t, T*);

// The chapter's pass loop (global_naive.cu), with the kernel as an argument; the
// shape is checked by main.cu, the scratch here.
template <typename T>
cudaError_t reduce_in_passes(BlockKernel<T> block_kernel, T* data, std::size_t n, T* result, void* scratch,
                             std::size_t scratch_size, int block, cudaStream_t stream) {
  if (n > std::size_t(INT_MAX) * block) return cudaErrorInvalidValue;  // more than 2^31 - 1 blocks
  if (scratch_size < global_naive::scratch_bytes(n, block, 0)) return cudaErrorInvalidValue;  // too small a scratch
  if (n == 0) return cudaMemsetAsync(result, 0, sizeof(T), stream);
  T* const partials_a = static_cast<T*>(scratch);
  T* values = data;
  std::size_t count = n;
  std::size_t grid = ceil_div(count, block);
  while (grid > 1) {
    T* partials = values == partials_a ? partials_a + ceil_div(n, block) : partials_a;
    block_kernel<<<static_cast<unsigned>(grid), block, 0, stream>>>(values, count, partials);
    const cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess) return status;
    values = partials;
    count = grid;
    grid = ceil_div(count, block);
  }
  block_kernel<<<1, block, 0, stream>>>(values, count, result);
  return cudaGetLastError();
}

}  // namespace

template <typename T>
cudaError_t reduce_race(T* data, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block,
                        int /*grid*/, cudaStream_t stream) {
  return reduce_in_passes<T>(neighbored_pairs_race<T>, data, n, result, scratch, scratch_size, block, stream);
}

template <typename T>
cudaError_t reduce_early_return(T* data, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block,
                                int /*grid*/, cudaStream_t stream) {
  return reduce_in_passes<T>(neighbored_pairs_early_return<T>, data, n, result, scratch, scratch_size, block, stream);
}

template cudaError_t reduce_race<int>(int*, std::size_t, int*, void*, std::size_t, int, int, cudaStream_t);
template cudaError_t reduce_race<float>(float*, std::size_t, float*, void*, std::size_t, int, int, cudaStream_t);
template cudaError_t reduce_race<double>(double*, std::size_t, double*, void*, std::size_t, int, int, cudaStream_t);
template cudaError_t reduce_early_return<int>(int*, std::size_t, int*, void*, std::size_t, int, int, cudaStream_t);
template cudaError_t reduce_early_return<float>(float*, std::size_t, float*, void*, std::size_t, int, int,
                                                cudaStream_t);
template cudaError_t reduce_early_return<double>(double*, std::size_t, double*, void*, std::size_t, int, int,
                                                 cudaStream_t);

}  // namespace global_naive_pitfalls
