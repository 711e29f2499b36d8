// 10_cub: the production answer. cub::DeviceReduce (and thrust::reduce, built on it)
// behind free functions like every other chapter's, except that CUB picks its own launch
// shape: no block, no grid, only the temporary storage it asks for. What changes since
// 09, and why, is at the top of cub_reduce.cu.
//
// Use it in your code (input: n floats in device memory):
//   #include "cub_reduce.cuh"
//   const std::size_t bytes = cub_reduce::scratch_bytes<float>(n);  // CUB's temporary storage
//   void* scratch = nullptr;
//   float* result = nullptr;
//   cudaError_t status = cudaMalloc(&scratch, bytes);
//   if (status == cudaSuccess) status = cudaMalloc(&result, sizeof(float));
//   if (status == cudaSuccess) status = cub_reduce::reduce<float, cub_reduce::Sum>(input, n, result, scratch, bytes);
//   if (status == cudaSuccess) status = cudaDeviceSynchronize();  // the kernels' own errors show here
//   float sum = 0;
//   if (status == cudaSuccess) status = cudaMemcpy(&sum, result, sizeof(float), cudaMemcpyDeviceToHost);
//   cudaFree(scratch);
//   cudaFree(result);
//
// Compile: nvcc -std=c++17 -c cub_reduce.cu (int, float and double with Sum, Max and Min
// are built in).
// --use_fast_math: int and double come out as without it; float adds and compares take subnormals as 0 (-ftz).
// Streams: calls on one stream may share a scratch; calls that may run at once (other streams) need their own.
// Another element type, e.g. long long: add `CUB_REDUCE_INSTANTIATE(long long)` at the end of cub_reduce.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace cub_reduce {

// The operators, as tags: Sum calls cub::DeviceReduce::Sum; Max and Min call
// cub::DeviceReduce::Reduce with a max or min that propagates NaN (and thrust::reduce
// with the matching functor and identity). Empty types, so this header needs nothing
// from CUB or libcu++.
struct Sum {};
struct Max {};
struct Min {};

// CUB's temporary storage for n elements of type T on the current device: the largest it
// asks for over the three operators, so one buffer serves Sum, Max and Min calls of that
// size. 0 when CUB cannot tell (no device).
template <typename T>
std::size_t scratch_bytes(std::size_t n);

// Writes input[0, n) reduced with Op (Sum, Max or Min) to *result (device memory), on
// `stream`, with cub::DeviceReduce in `scratch`: device memory of scratch_size bytes, at
// least scratch_bytes<T>(n); its contents need no preparing. Returns CUB's own error:
// cudaErrorInvalidValue, before any launch, for a null scratch or one smaller than CUB
// needs for this call (CUB checks the size; at n small enough for one tile CUB needs no
// storage and checks nothing, so reduce itself refuses 0 bytes). Like any launch, it
// returns before the GPU is done: synchronize before reading *result.
template <typename T, typename Op>
cudaError_t reduce(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size,
                   cudaStream_t stream = 0);

// The same with thrust::reduce: no scratch (Thrust allocates and frees its own storage
// on every call), and the value makes a round trip through the host, so the call waits
// for the GPU before it returns. Returns the CUDA error that Thrust reports by
// exception (cudaErrorUnknown for one that carries no CUDA error).
template <typename T, typename Op>
cudaError_t thrust_reduce(const T* input, std::size_t n, T* result, cudaStream_t stream = 0);

}  // namespace cub_reduce
