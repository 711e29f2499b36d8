// 09_single_pass: one launch from the input to the result; the last block to finish
// combines the block partials, in a fixed order. Generic over the operator (sum, max,
// min). What changes since 08, and why, is at the top of single_pass.cu.
//
// Use it in your code (input: n floats in device memory):
//   #include "single_pass.cuh"
//   int block = 0, grid = 0;
//   cudaError_t status = single_pass::default_shape(n, &block, &grid);
//   const std::size_t bytes = single_pass::scratch_bytes(n, block, grid);
//   void* scratch = nullptr;
//   float* result = nullptr;
//   if (status == cudaSuccess) status = cudaMalloc(&scratch, bytes);
//   if (status == cudaSuccess) status = cudaMemset(scratch, 0, bytes);  // once: every call leaves it at 0
//   if (status == cudaSuccess) status = cudaMalloc(&result, sizeof(float));
//   if (status == cudaSuccess) status = single_pass::reduce<float, single_pass::Sum>(input, n, result, scratch,
//                                                                                    bytes, block, grid);
//   if (status == cudaSuccess) status = cudaDeviceSynchronize();  // the kernel's own errors show here
//   float sum = 0;
//   if (status == cudaSuccess) status = cudaMemcpy(&sum, result, sizeof(float), cudaMemcpyDeviceToHost);
//   cudaFree(scratch); cudaFree(result);
//
// Compile: nvcc -std=c++17 -c single_pass.cu (int, float and double with Sum, Max and Min are built in).
// --use_fast_math: int and double come out as without it; float adds and compares take subnormals as 0 (-ftz).
// Streams: one scratch serves one stream at a time (it keeps the ticket between calls).
// Another element type, e.g. long long: add `SINGLE_PASS_INSTANTIATE(long long)` at the end of single_pass.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <limits>

namespace single_pass {

// Threads per block at large n (default_shape picks fewer at small n, and 768 where an SM
// holds 1536). Any size from 1 to 1024 works (multiples of 32 waste no lanes).
constexpr int kDefaultBlock = 1024;

// The operators. Each is a functor with an identity, the value that changes nothing:
// threads and lanes without input contribute it, so n = 0 gives the identity.
struct Sum {
  template <typename T> __host__ __device__ static T identity() { return T(0); }
  template <typename T> __host__ __device__ T operator()(T a, T b) const { return a + b; }
};

// max and min propagate NaN, as numpy does: one NaN anywhere makes the result NaN (a != a
// holds only for NaN; for int the compiler drops it). Their identities: -inf and +inf where
// T has them (float, double: the max of {-inf} is -inf), else T's lowest and largest value,
// constants read off std::numeric_limits at compile time, so that device code may use them.
template <typename T> constexpr T kMaxIdentity =
    std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
template <typename T> constexpr T kMinIdentity =
    std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
struct Max {
  template <typename T> __host__ __device__ static T identity() { return kMaxIdentity<T>; }
  template <typename T> __host__ __device__ T operator()(T a, T b) const { return (a > b || a != a) ? a : b; }
};

struct Min {
  template <typename T> __host__ __device__ static T identity() { return kMinIdentity<T>; }
  template <typename T> __host__ __device__ T operator()(T a, T b) const { return (a < b || a != a) ? a : b; }
};

// The launch shape for n elements, read off the current device: one block at small n,
// blocks of 256 threads at medium n, a full wave of default_block's blocks at large n.
cudaError_t default_shape(std::size_t n, int* block, int* grid);
// default_shape's block for n elements on sm_count SMs of threads_per_sm threads (no device needed).
int default_block(std::size_t n, int sm_count, int threads_per_sm);

// A grid for n elements when you choose the block size (1 to 1024) yourself: as many
// blocks as one trip per thread needs, at most as many as fit on the device at once.
cudaError_t default_grid(std::size_t n, int block, int* grid);

// Device memory reduce() needs besides input and result: the ticket counter and one partial per
// block. Zero it once, before the first call (cudaMemset): every call leaves the counter at 0.
std::size_t scratch_bytes(std::size_t n, int block, int grid);

// Writes input[0, n) reduced with Op (Sum, Max or Min) to *result (device memory), in one launch on
// `stream`. block: 1 to 1024; grid: at least 1; scratch: device memory of scratch_size bytes, passed
// beside the pointer as in CUB. Returns the first CUDA error (cudaErrorInvalidValue, before any launch,
// for a shape it cannot run or a scratch smaller than scratch_bytes(n, block, grid)); like any launch,
// it returns before the GPU is done: synchronize before reading *result.
template <typename T, typename Op>
cudaError_t reduce(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block,
                   int grid, cudaStream_t stream = 0);

}  // namespace single_pass
