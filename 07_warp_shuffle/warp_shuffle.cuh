// 07_warp_shuffle: 06's grid-stride loop (four loads in flight per thread), then the
// block's values added in registers with warp shuffles instead of a shared-memory tree
// (two launches, any block size from 1 to 1024). What changes since 06, and why, is at
// the top of warp_shuffle.cu.
//
// Use it in your code (input: n floats in device memory):
//   #include "warp_shuffle.cuh"
//   int block = warp_shuffle::kDefaultBlock, grid = 0;
//   cudaError_t status = warp_shuffle::default_grid(n, block, &grid);
//   const std::size_t bytes = warp_shuffle::scratch_bytes(n, block, grid);
//   void* scratch = nullptr;
//   float* result = nullptr;
//   if (status == cudaSuccess) status = cudaMalloc(&scratch, bytes);
//   if (status == cudaSuccess) status = cudaMalloc(&result, sizeof(float));
//   if (status == cudaSuccess) status = warp_shuffle::reduce(input, n, result, scratch, bytes, block, grid);
//   if (status == cudaSuccess) status = cudaDeviceSynchronize();  // the kernels' own errors show here
//   float sum = 0;
//   if (status == cudaSuccess) status = cudaMemcpy(&sum, result, sizeof(float), cudaMemcpyDeviceToHost);
//   cudaFree(scratch);
//   cudaFree(result);
//
// Compile: nvcc -std=c++17 -c warp_shuffle.cu (int, float and double are built in).
// Another element type, e.g. long long: add `WARP_SHUFFLE_INSTANTIATE(long long)` at the end of warp_shuffle.cu.
// --use_fast_math: int and double sums are unchanged; float subnormals (inputs, partial sums) count as 0 (-ftz=true).
// Streams: calls on one stream may share a scratch (it holds one call's partials); concurrent streams need one each.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace warp_shuffle {

// Threads per block when you have no better idea: 256. Any size from 1 to 1024 works,
// also one that is not a multiple of 32 (a partial last warp is handled).
constexpr int kDefaultBlock = 256;

// One full wave for blocks of `block` threads: as many blocks of this kernel as one SM
// of the current device holds at once (the CUDA occupancy calculator), times the SM count.
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

}  // namespace warp_shuffle
