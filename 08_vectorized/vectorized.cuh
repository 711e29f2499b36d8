// 08_vectorized: 16-byte loads, several in flight per thread, a grid sized from the
// device's occupancy (two launches; one for a grid of one block). What changes since
// 07, and why, is at the top of vectorized.cu.
//
// Use it in your code (input: n floats in device memory):
//   #include "vectorized.cuh"
//   int block = vectorized::kDefaultBlock, grid = 0;
//   cudaError_t status = vectorized::default_grid(n, block, &grid);
//   const std::size_t bytes = vectorized::scratch_bytes(n, block, grid);
//   void* scratch = nullptr;
//   float* result = nullptr;
//   if (status == cudaSuccess) status = cudaMalloc(&scratch, bytes);
//   if (status == cudaSuccess) status = cudaMalloc(&result, sizeof(float));
//   if (status == cudaSuccess) status = vectorized::reduce(input, n, result, scratch, bytes, block, grid);
//   if (status == cudaSuccess) status = cudaDeviceSynchronize();  // the kernels' own errors show here
//   float sum = 0;
//   if (status == cudaSuccess) status = cudaMemcpy(&sum, result, sizeof(float), cudaMemcpyDeviceToHost);
//   cudaFree(scratch);
//   cudaFree(result);
//
// Compile: nvcc -std=c++17 -c vectorized.cu (int, float and double are built in).
// Another element type, e.g. long long: add `VECTORIZED_INSTANTIATE(long long)` at the end of vectorized.cu.
// --use_fast_math: int and double sums are unchanged; float subnormals (inputs, partial sums) count as 0 (-ftz=true).
// Streams: calls on one stream may share a scratch (it holds one call's partials); concurrent streams need one each.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace vectorized {

// Threads per block when you have no better idea: 1024 (two blocks fill an H100 SM),
// measured fastest at large n on the H100 against 256 and 512 (README: "The grid");
// the grid still follows the work at small n. Any size from 1 to 1024 works (multiples
// of 32 waste no lanes).
constexpr int kDefaultBlock = 1024;

// As many blocks as fit on the current device at once (the occupancy calculator's
// blocks per SM, the smallest over the int, float and double kernels, times the SM
// count), but no more than the work needs: one 16-byte vector of 4-byte elements per
// thread (block * 4 elements a block; two vectors of doubles). block: 1 to 1024.
cudaError_t default_grid(std::size_t n, int block, int* grid);

// kDefaultBlock, or where an SM holds 1536 threads 768, so that whole blocks fill it (when
// the registers let two in), with default_grid's grid: the shape the program runs.
cudaError_t default_shape(std::size_t n, int* block, int* grid);
// default_shape's block for an SM of threads_per_sm threads (no device needed).
int default_block(int threads_per_sm);

// Device memory reduce() needs besides input and result: one partial per block.
std::size_t scratch_bytes(std::size_t n, int block, int grid);

// Writes the sum of input[0, n) to *result (device memory), in two launches on
// `stream` (one when grid is 1). Any start address works (the unaligned head and tail
// are read one by one). scratch: device memory of scratch_size bytes, passed beside the
// pointer as in CUB. block: 1 to 1024; grid: at least 1. Returns the first CUDA error
// (cudaErrorInvalidValue before any launch for a shape it cannot run or a scratch
// smaller than scratch_bytes(n, block, grid)); like any launch, it returns before the
// GPU is done: synchronize before reading *result.
template <typename T>
cudaError_t reduce(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block,
                   int grid, cudaStream_t stream = 0);

}  // namespace vectorized
