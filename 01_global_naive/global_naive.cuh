// 01_global_naive: neighbored pairs, in place in global memory (the first GPU version;
// one block per B elements, passes over the block partials until one value is left).
// What it does, and why it is slow, is at the top of global_naive.cu.
//
// Use it in your code (input: n floats in device memory; they are overwritten):
//   #include "global_naive.cuh"
//   int block = global_naive::kDefaultBlock, grid = 0;
//   cudaError_t status = global_naive::default_grid(n, block, &grid);
//   const std::size_t bytes = global_naive::scratch_bytes(n, block, grid);
//   void* scratch = nullptr;
//   float* result = nullptr;
//   if (status == cudaSuccess) status = cudaMalloc(&scratch, bytes);
//   if (status == cudaSuccess) status = cudaMalloc(&result, sizeof(float));
//   if (status == cudaSuccess) status = global_naive::reduce(input, n, result, scratch, bytes, block, grid);
//   if (status == cudaSuccess) status = cudaDeviceSynchronize();  // the kernels' own errors show here
//   float sum = 0;
//   if (status == cudaSuccess) status = cudaMemcpy(&sum, result, sizeof(float), cudaMemcpyDeviceToHost);
//   cudaFree(scratch);
//   cudaFree(result);
//
// Compile: nvcc -std=c++17 -c global_naive.cu (int, float and double are built in).
// Another element type, e.g. long long: add `GLOBAL_NAIVE_INSTANTIATE(long long)` at the end of global_naive.cu.
// --use_fast_math: int and double sums are unchanged; float subnormals (inputs, partial sums) count as 0 (-ftz=true).
// Streams: calls on one stream may share a scratch (it holds one call's partials); concurrent streams need one each.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace global_naive {

// Threads per block when you have no better idea: 256, a common default (the articles
// this chapter follows use 512). Smaller blocks are faster for this in-place tree: on
// the H100, 128 beats 256 at both sizes measured (docs/tuning.md). Any size from 2 to
// 1024 works, a power of two or not (a multiple of 32 fills whole warps).
constexpr int kDefaultBlock = 256;

// The grid of the first pass: one block per `block` elements, ceil(n / block),
// clamped to [1, INT_MAX] (reduce() refuses an n that needs more than INT_MAX blocks).
// Needs no device query; the signature is every chapter's.
cudaError_t default_grid(std::size_t n, int block, int* grid);

// Device memory reduce() needs besides data and result: the partials of the second
// pass (ceil(n/B) values) and, when a third pass is needed, of the third
// (ceil(n/B^2) values), sized for the widest type, double. 0 when one pass does it.
std::size_t scratch_bytes(std::size_t n, int block, int grid);

// Writes the sum of data[0, n) to *result (device memory), in one launch per pass on
// `stream`, and OVERWRITES data[0, n) with partial sums (the kernels work in place:
// copy the input first if you still need it). scratch: device memory of scratch_size
// bytes, passed beside the pointer as in CUB. block: 2 to 1024 threads, any size.
// grid is not used: the launcher runs one block per `block` elements, whatever grid
// says; it is kept so that every chapter's launcher has the same shape. n == 0 gives
// 0. Returns the first CUDA error (cudaErrorInvalidValue before any launch for a block
// it cannot run, for n > INT_MAX * block: more blocks than a grid holds, or for a
// scratch smaller than scratch_bytes(n, block, grid)); like any launch, it returns
// before the GPU is done: synchronize before reading *result.
template <typename T>
cudaError_t reduce(T* data, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block,
                   int grid, cudaStream_t stream = 0);

}  // namespace global_naive
