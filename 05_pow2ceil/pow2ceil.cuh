// 05_pow2ceil: 04's grid-stride sums and shared-memory tree, for any block size from 1
// to 1024 and any grid (two launches); the default grid is one full wave, asked of the
// occupancy calculator. What changes since 04, and why, is at the top of pow2ceil.cu.
// As in 04, the default grid does not depend on n: a few dozen elements still get a
// full wave of blocks, nearly all with nothing to add, and two launches (08 caps it).
//
// Use it in your code (input: n floats in device memory):
//   #include "pow2ceil.cuh"
//   int block = pow2ceil::kDefaultBlock, grid = 0;
//   cudaError_t status = pow2ceil::default_grid(n, block, &grid);
//   const std::size_t bytes = pow2ceil::scratch_bytes(n, block, grid);
//   void* scratch = nullptr;
//   float* result = nullptr;
//   if (status == cudaSuccess) status = cudaMalloc(&scratch, bytes);
//   if (status == cudaSuccess) status = cudaMalloc(&result, sizeof(float));
//   if (status == cudaSuccess) status = pow2ceil::reduce(input, n, result, scratch, bytes, block, grid);
//   if (status == cudaSuccess) status = cudaDeviceSynchronize();  // the kernels' own errors show here
//   float sum = 0;
//   if (status == cudaSuccess) status = cudaMemcpy(&sum, result, sizeof(float), cudaMemcpyDeviceToHost);
//   cudaFree(scratch);
//   cudaFree(result);
//
// Compile: nvcc -std=c++17 -c pow2ceil.cu (int, float and double are built in).
// Another element type, e.g. long long: add `POW2CEIL_INSTANTIATE(long long)` at the end of pow2ceil.cu.
// --use_fast_math: int and double sums are unchanged; float subnormals (inputs, partial sums) count as 0 (-ftz=true).
// Streams: calls on one stream may share a scratch (it holds one call's partials); concurrent streams need one each.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace pow2ceil {

// Threads per block when you have no better idea: 256. Any size from 1 to 1024 works,
// also one that is not a power of two or not a multiple of 32.
constexpr int kDefaultBlock = 256;

// One full wave for blocks of `block` threads: as many blocks of this kernel as one SM
// of the current device holds at once (the CUDA occupancy calculator), times the SM count.
// n is not used: 33 elements get the same full wave of blocks and two launches.
cudaError_t default_grid(std::size_t n, int block, int* grid);

// Device memory reduce() needs besides input and result: one partial per block.
std::size_t scratch_bytes(std::size_t n, int block, int grid);

// Writes the sum of input[0, n) to *result (device memory), in two launches on
// `stream`. scratch: device memory of scratch_size bytes, passed beside the pointer as
// in CUB. block: 1 to 1024; grid: at least 1. Returns the first CUDA error
// (cudaErrorInvalidValue before any launch for a shape it cannot run or a scratch
// smaller than scratch_bytes(n, block, grid)); like any launch, it returns before the
// GPU is done: synchronize before reading *result.
template <typename T>
cudaError_t reduce(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block,
                   int grid, cudaStream_t stream = 0);

}  // namespace pow2ceil
