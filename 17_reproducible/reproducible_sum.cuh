// 17_reproducible: a float sum with the same bits on every launch shape, every input
// alignment, every GPU and every split of the array: the exact sum, rounded once.
// Still one launch, and the same instructions whatever the values (the README times it against
// 09 on five kinds of data).
// What changes since 09, and why, is at the top of reproducible_sum.cu.
//
// Use it in your code (input: n floats in device memory):
//   #include "reproducible_sum.cuh"
//   int block = 0, grid = 0;
//   cudaError_t status = reproducible_sum::default_shape(n, &block, &grid);
//   const std::size_t bytes = reproducible_sum::scratch_bytes(n, block, grid);
//   void* scratch = nullptr;
//   float* result = nullptr;
//   if (status == cudaSuccess) status = cudaMalloc(&scratch, bytes);
//   if (status == cudaSuccess) status = cudaMemset(scratch, 0, bytes);  // once: every call leaves it at 0
//   if (status == cudaSuccess) status = cudaMalloc(&result, sizeof(float));
//   if (status == cudaSuccess) status = reproducible_sum::reduce(input, n, result, scratch, bytes, block, grid);
//   if (status == cudaSuccess) status = cudaDeviceSynchronize();  // the kernel's own errors show here
//   float sum = 0;
//   if (status == cudaSuccess) status = cudaMemcpy(&sum, result, sizeof(float), cudaMemcpyDeviceToHost);
//   cudaFree(scratch), cudaFree(result);
//
// Compile: nvcc -std=c++17 -c reproducible_sum.cu (float only).
// Another element type: none (a double's 2048 exponents and 53-bit significands: README, exercise 4).
// --use_fast_math: still exact, the same bits: floats are read and made as bits; the one float
// instruction (the inf/NaN probe) is read only for inf and NaN, which flush to zero leaves alone.
// Shared memory: 136 bytes a thread (from 353 threads more than the 48 KB any block gets).
// Streams: one scratch serves one stream at a time: calls that may overlap (other streams, threads) need one each.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace reproducible_sum {

constexpr int kDefaultBlock = 256;  // fits every GPU's 48 KB (default_shape picks per n); 1 to 1024 work

// The exact sum of some floats: sum of limb[k] * 2^(32k - 150) (every float is a whole
// number of 2^-150), 32-bit digits and a signed top one: room for 2^40 floats. `flags`
// records inf and NaN (no exact sum). States add limb by limb, in any order.
constexpr int kLimbs = 10;
struct State { long long limb[kLimbs]; unsigned flags; };

// 09's launch shape for n elements on the current device, with 512 threads where 09 takes
// 256 (docs/tuning.md); the scratch one call needs.
cudaError_t default_shape(std::size_t n, int* block, int* grid);
cudaError_t default_grid(std::size_t n, int block, int* grid);
std::size_t scratch_bytes(std::size_t n, int block, int grid);

// input[0, n) summed to *result (device memory) in one launch: the exact sum rounded to nearest, ties to
// even; NaN if a NaN or both infinities are in the input, else +-inf if one is (numpy's rules). Scratch:
// scratch_bytes(n, block, grid) bytes, zeroed once before the first call; calls leave it so. Refused
// (cudaErrorInvalidValue, before any launch): block < 1 or > 1024, grid < 1, a null input (n > 0),
// result, state or scratch, a scratch not 8-byte aligned or smaller than scratch_bytes(n, block, grid) (one
// size for every shape). A block whose columns the GPU cannot hold returns cudaFuncSetAttribute's error.
cudaError_t reduce(const float* input, std::size_t n, float* result, void* scratch, std::size_t scratch_bytes,
                   int block, int grid, cudaStream_t stream = 0);

// An array in pieces (shards on several GPUs): reduce_state writes a piece's exact State
// (scratch and refusals as reduce); round_states adds `count` States (on this device) and
// rounds once: reduce()'s bits. It refuses count < 0, null states (count > 0) or result.
cudaError_t reduce_state(const float* input, std::size_t n, State* state, void* scratch, std::size_t scratch_bytes,
                         int block, int grid, cudaStream_t stream = 0);
cudaError_t round_states(const State* states, int count, float* result, cudaStream_t stream = 0);

}  // namespace reproducible_sum
