// 03_interleaved: interleaved pairs, in place in global memory: the stride starts at
// half the block and halves each step, so every step's loads are coalesced. What
// changes since 02, and why, is at the top of interleaved.cu.
//
// Use it in your code (input: n floats in device memory; they are overwritten):
//   #include "interleaved.cuh"
//   int block = interleaved::kDefaultBlock, grid = 0;
//   cudaError_t status = interleaved::default_grid(n, block, &grid);
//   const std::size_t bytes = interleaved::scratch_bytes(n, block, grid);
//   void* scratch = nullptr;
//   float* result = nullptr;
//   if (status == cudaSuccess) status = cudaMalloc(&scratch, bytes);
//   if (status == cudaSuccess) status = cudaMalloc(&result, sizeof(float));
//   if (status == cudaSuccess) status = interleaved::reduce(input, n, result, scratch, bytes, block, grid);
//   if (status == cudaSuccess) status = cudaDeviceSynchronize();  // the kernels' own errors show here
//   float sum = 0;
//   if (status == cudaSuccess) status = cudaMemcpy(&sum, result, sizeof(float), cudaMemcpyDeviceToHost);
//   cudaFree(scratch);
//   cudaFree(result);
//
// Compile: nvcc -std=c++17 -c interleaved.cu (int, float and double are built in).
// Another element type, e.g. long long: add `INTERLEAVED_INSTANTIATE(long long)` at the end of interleaved.cu.
// --use_fast_math: int and double sums are unchanged; float subnormals (inputs, partial sums) count as 0 (-ftz=true).
// Streams: calls on one stream may share a scratch (it holds one call's partials); concurrent streams need one each.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace interleaved {

// Threads per block when you have no better idea: 256, a common default (the articles
// this chapter follows use 512). Smaller blocks are faster for this in-place tree: on
// the H100, 128 beats 256 at both sizes measured (docs/tuning.md). Any power of two
// from 32 to 1024 works; the tree halves the block, so other sizes are refused.
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
// bytes, passed beside the pointer as in CUB. block: a power of two from 32 to 1024.
// grid is not used: the launcher runs one block per `block` elements, whatever grid
// says; it is kept so that every chapter's launcher has the same shape. n == 0 gives
// 0. Returns the first CUDA error (cudaErrorInvalidValue before any launch for a block
// it cannot run, for n > INT_MAX * block: more blocks than a grid holds, or for a
// scratch smaller than scratch_bytes(n, block, grid)); like any launch, it returns
// before the GPU is done: synchronize before reading *result.
template <typename T>
cudaError_t reduce(T* data, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block,
                   int grid, cudaStream_t stream = 0);

}  // namespace interleaved
