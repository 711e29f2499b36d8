// 12_accuracy: 09's single pass, with a float sum that keeps what every rounding drops:
// about as accurate as a sum in twice the precision, rounded once (within about one
// rounding of the exact sum unless the terms cancel heavily). Sum only. What changes
// since 09, and why, is at the top of compensated_sum.cu.
//
// Use it in your code (input: n floats in device memory):
//   #include "compensated_sum.cuh"
//   int block = 0, grid = 0;
//   cudaError_t status = compensated_sum::default_shape(n, &block, &grid);
//   const std::size_t bytes = compensated_sum::scratch_bytes(n, block, grid);
//   void* scratch = nullptr;
//   float* result = nullptr;
//   if (status == cudaSuccess) status = cudaMalloc(&scratch, bytes);
//   if (status == cudaSuccess) status = cudaMemset(scratch, 0, bytes);  // once: every call leaves it at 0
//   if (status == cudaSuccess) status = cudaMalloc(&result, sizeof(float));
//   if (status == cudaSuccess) status = compensated_sum::reduce(input, n, result, scratch, bytes, block, grid);
//   if (status == cudaSuccess) status = cudaDeviceSynchronize();  // the kernel's own errors show here
//   float sum = 0;
//   if (status == cudaSuccess) status = cudaMemcpy(&sum, result, sizeof(float), cudaMemcpyDeviceToHost);
//   cudaFree(scratch);
//   cudaFree(result);
//
// Compile: nvcc -std=c++17 -c compensated_sum.cu (int, float and double are built in).
// --use_fast_math: the same TwoSum steps (__fadd_rn/__fsub_rn: never fused or reordered), but -ftz takes float
// subnormals as 0, so float inputs and rounding errors below 2^-126 are lost; int and double are unchanged.
// Streams: one scratch serves one stream at a time (it keeps the ticket between calls).
// Another element type: none (compensation serves float and double, both built in; integer sums need none: see 09).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace compensated_sum {

// Threads per block at large n (default_shape picks fewer at small n, or 768), as 09.
constexpr int kDefaultBlock = 1024;

// The launch shape for n elements on the current device, by 09's rule (default_shape in 09).
cudaError_t default_shape(std::size_t n, int* block, int* grid);
// default_shape's block for n elements on sm_count SMs of threads_per_sm threads (no device needed).
int default_block(std::size_t n, int sm_count, int threads_per_sm);

// A grid for n elements and a block size (1 to 1024) of your own: one trip per thread, one wave at most.
cudaError_t default_grid(std::size_t n, int block, int* grid);

// Device memory reduce() needs besides input and result: the ticket counter and one partial (a sum and
// its compensation) per block. Zero it once (cudaMemset): every call leaves the counter at 0.
std::size_t scratch_bytes(std::size_t n, int block, int grid);

// Writes the sum of input[0, n) to *result (device memory), in one launch on `stream`: floats
// and doubles with compensation, ints exactly (modulo 2^32). block: 1 to 1024; grid: at least 1;
// scratch: device memory of scratch_size bytes, passed beside the pointer as in CUB. Returns the
// first CUDA error (cudaErrorInvalidValue, before any launch, for a shape it cannot run or a scratch
// smaller than scratch_bytes(n, block, grid)); like any launch, it returns before the GPU is done:
// synchronize before reading *result.
template <typename T>
cudaError_t reduce(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block,
                   int grid, cudaStream_t stream = 0);

}  // namespace compensated_sum
