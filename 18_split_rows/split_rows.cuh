// 18_split_rows: 14's row statistics (float, __half, __nv_bfloat16), with a long row spread
// over several blocks when too few rows fill the GPU. What changes since 14 is at the top of
// split_rows.cu. Rows 16's whole rule gives no block (up to 2 KiB, or 8 KiB with 4096 rows or
// more) are 14's, 15's or 16's.
//
// Use it in your code (input: n_rows x n_cols floats, row-major, in device memory):
//   #include "split_rows.cuh"
//   #include <vector>
//   split_rows::Plan plan{};
//   cudaError_t status = split_rows::default_plan<float, split_rows::Sum>(n_rows, n_cols, &plan);
//   const std::size_t bytes = split_rows::scratch_bytes(n_rows, plan);  // 0 for a block per row
//   void* scratch = nullptr;
//   float* row_sums = nullptr;  // one result per row, in device memory
//   if (status == cudaSuccess && bytes) status = cudaMalloc(&scratch, bytes);
//   if (status == cudaSuccess && bytes) status = cudaMemset(scratch, 0, bytes);  // once: every call leaves it at 0
//   if (status == cudaSuccess) status = cudaMalloc(&row_sums, n_rows * sizeof(float));
//   if (status == cudaSuccess) status = split_rows::reduce_rows<float, split_rows::Sum>(input, n_rows, n_cols, row_sums, scratch, bytes, plan);
//   if (status == cudaSuccess) status = cudaDeviceSynchronize();  // the kernel's own errors show here
//   std::vector<float> sums(n_rows);
//   if (status == cudaSuccess) status = cudaMemcpy(sums.data(), row_sums, n_rows * sizeof(float), cudaMemcpyDeviceToHost);
//   cudaFree(scratch); cudaFree(row_sums);
// Compile: nvcc -std=c++17 -c split_rows.cu. --use_fast_math: subnormals count as 0 in float adds and compares,
// and MeanVar divides approximately.
// Another element type, e.g. short: add `SPLIT_ROWS_INSTANTIATE(short)` at the end of split_rows.cu.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>

#ifndef ROW_RESULTS_TYPES  // the result types, the same in 14, 15, 16 and 18: one type for all the units you include
#define ROW_RESULTS_TYPES
namespace row_results { struct ValueIndex { float value; std::int32_t index; }; }
namespace row_results { struct MeanVariance { float mean, variance; }; }
#endif

namespace split_rows {

// The operators, as in 14 (NaN and infinities as numpy; no columns: 0, -inf, {-inf, -1}, {NaN, NaN}).
using row_results::ValueIndex, row_results::MeanVariance;
struct Sum { using Result = float; };
struct Max { using Result = float; };
struct ArgMax { using Result = ValueIndex; };
struct MeanVar { using Result = MeanVariance; };

// Blocks (of 256 threads) per row: resident_blocks / rows, so that the grid fills the GPU
// once, at most one per 4096 vectors (64 KiB) of a row, at least 1. default_plan: on the
// current device, with resident_blocks = SMs x the kernel's blocks per SM (occupancy).
struct Plan { unsigned blocks_per_row; };
Plan plan_rows(std::size_t rows, std::size_t cols, std::size_t element_bytes, std::size_t resident_blocks);
template <typename In, typename Op> cudaError_t default_plan(std::size_t rows, std::size_t cols, Plan* plan);

// Scratch: none for one block per row, else a ticket per row, then a state per block. Zero it once;
// each call puts its tickets back to 0. One scratch serves one stream at a time and one M, with any plan it
// is large enough for (a plan depends on M, K, the type and the operator); a larger plan is refused.
std::size_t scratch_bytes(std::size_t rows, Plan plan);

// One Op::Result per row to output[0, rows) (device memory): any rows and cols (up to INT_MAX columns
// for ArgMax and MeanVar). Returns the first CUDA error, or cudaErrorInvalidValue before any launch
// for a null or misaligned pointer, no blocks, missing or too small scratch, or too many columns.
template <typename In, typename Op>
cudaError_t reduce_rows(const In* input, std::size_t rows, std::size_t cols, typename Op::Result* output,
                        void* scratch, std::size_t scratch_bytes, Plan plan, cudaStream_t stream = 0);

}  // namespace split_rows
