// 04_shared_tree: grid-stride sums in registers, then a tree in shared memory (two
// launches). What changes since 03, and why, is at the top of shared_tree.cu.
// The default grid does not depend on n: a few dozen elements still get a full wave
// of blocks, nearly all with nothing to add, and two launches (08 caps the grid by n).
//
// Use it in your code (input: n floats in device memory):
//   #include "shared_tree.cuh"
//   int block = shared_tree::kDefaultBlock, grid = 0;
//   cudaError_t status = shared_tree::default_grid(n, block, &grid);
//   const std::size_t bytes = shared_tree::scratch_bytes(n, block, grid);
//   void* scratch = nullptr;
//   float* result = nullptr;
//   if (status == cudaSuccess) status = cudaMalloc(&scratch, bytes);
//   if (status == cudaSuccess) status = cudaMalloc(&result, sizeof(float));
//   if (status == cudaSuccess) status = shared_tree::reduce(input, n, result, scratch, bytes, block, grid);
//   if (status == cudaSuccess) status = cudaDeviceSynchronize();  // the kernels' own errors show here
//   float sum = 0;
//   if (status == cudaSuccess) status = cudaMemcpy(&sum, result, sizeof(float), cudaMemcpyDeviceToHost);
//   cudaFree(scratch);
//   cudaFree(result);
//
// Compile: nvcc -std=c++17 -c shared_tree.cu (int, float and double are built in).
// Another element type, e.g. long long: add `SHARED_TREE_INSTANTIATE(long long)` at the end of shared_tree.cu.
// --use_fast_math: int and double sums are unchanged; float subnormals (inputs, partial sums) count as 0 (-ftz=true).
// Streams: calls on one stream may share a scratch (it holds one call's partials); concurrent streams need one each.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace shared_tree {

// Threads per block when you have no better idea: 256 (any power of two from 32 to
// 1024 works; the tree halves the block, so other sizes are refused).
constexpr int kDefaultBlock = 256;

// SM count x (threads per SM / block) blocks: one full wave at the default 256 threads.
// It ignores the SM's limit on resident blocks, so tiny blocks get more than one wave
// (at 32 threads, two on an H100); 05 asks the occupancy calculator instead.
// n is not used: 33 elements get the same ~1000 blocks (on an H100) and two launches.
cudaError_t default_grid(std::size_t n, int block, int* grid);

// Device memory reduce() needs besides input and result: one partial per block.
std::size_t scratch_bytes(std::size_t n, int block, int grid);

// Writes the sum of input[0, n) to *result (device memory), in two launches on
// `stream`. scratch: device memory of scratch_size bytes, passed beside the pointer as
// in CUB. block: a power of two from 32 to 1024; grid: at least 1. Returns the first
// CUDA error (cudaErrorInvalidValue before any launch for a shape it cannot run or a
// scratch smaller than scratch_bytes(n, block, grid)); like any launch, it returns
// before the GPU is done: synchronize before reading *result.
template <typename T>
cudaError_t reduce(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block,
                   int grid, cudaStream_t stream = 0);

}  // namespace shared_tree
