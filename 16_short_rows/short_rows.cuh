// 16_short_rows: one result per row (sum, max, argmax, mean and variance) of a row-major
// M x K matrix of float, __half or __nv_bfloat16 whose rows are at most 128 bytes (32
// floats, 64 halves): one thread per row, the rows staged a tile at a time through shared
// memory. What changes since 15 is at the top of short_rows.cu. Longer rows: 15's
// lane_groups::reduce_rows (up to 2 KiB) or 14's row_stats::reduce_rows.
//
// Use it in your code (input: n_rows x n_cols floats, row-major, in device memory, n_cols <= 32):
//   #include "short_rows.cuh"
//   #include <vector>
//   float* row_sums = nullptr;  // one result per row, in device memory
//   cudaError_t status = cudaMalloc(&row_sums, n_rows * sizeof(float));
//   if (status == cudaSuccess) status = short_rows::reduce_rows<float, short_rows::Sum>(input, n_rows, n_cols, row_sums);
//   if (status == cudaSuccess) status = cudaDeviceSynchronize();  // the kernel's own errors show here
//   std::vector<float> sums(n_rows);
//   if (status == cudaSuccess) status = cudaMemcpy(sums.data(), row_sums, n_rows * sizeof(float), cudaMemcpyDeviceToHost);
//   cudaFree(row_sums);
//
// Compile: nvcc -std=c++17 -c short_rows.cu. --use_fast_math: subnormals count as 0 in float adds and compares,
// and MeanVar divides approximately.
// Another element type, e.g. short: add `SHORT_ROWS_INSTANTIATE(short)` at the end of short_rows.cu.
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

namespace short_rows {

// The operators, in float: Sum (0 for no columns); Max (NaN propagates, as numpy.max; -inf
// for no columns); ArgMax, the largest value and its first column (NaN beats every number,
// the first NaN wins, as numpy.argmax; {-inf, -1} for no columns); MeanVar, the mean and
// population variance ({NaN, NaN} for no columns; a row with an infinity gets numpy's mean,
// +-inf or NaN for both signs, and variance NaN). Other 16-bit input types: static_cast<float>.
using row_results::ValueIndex, row_results::MeanVariance;
struct Sum { using Result = float; };
struct Max { using Result = float; };
struct ArgMax { using Result = ValueIndex; };
struct MeanVar { using Result = MeanVariance; };

constexpr std::size_t kMaxRowBytes = 128;  // the longest row this unit takes

// A tile: the rows a block stages at once. Rows of up to 64 bytes: 256 threads x
// rows_per_thread (64 / row bytes, at least 1); longer rows: as many as fit in 16 KiB.
struct Plan { int rows_per_thread; std::size_t tile_rows; };
Plan plan_rows(std::size_t cols, std::size_t element_bytes);

// One Op::Result per row to output[0, rows) (device memory), on `stream`; rows of at most
// kMaxRowBytes, any number of them (64-bit offsets). Returns the first CUDA error, or
// cudaErrorInvalidValue before any launch for a longer row, a null or misaligned pointer,
// or rows * cols past the address space.
template <typename In, typename Op>
cudaError_t reduce_rows(const In* input, std::size_t rows, std::size_t cols, typename Op::Result* output,
                        cudaStream_t stream = 0);

}  // namespace short_rows
