// 15_lane_groups: one result per row of a row-major M x K matrix (sum, max, argmax, mean
// and variance) from float, __half or __nv_bfloat16, by a group of 2 to 16 lanes or a
// warp per row. What changes since 14 is at the top of lane_groups.cu.
//
// Use it in your code (input: n_rows x n_cols floats, row-major, in device memory):
//   #include "lane_groups.cuh"
//   #include <vector>
//   float* row_sums = nullptr;  // one result per row, in device memory
//   cudaError_t status = cudaMalloc(&row_sums, n_rows * sizeof(float));
//   if (status == cudaSuccess) status = lane_groups::reduce_rows<float, lane_groups::Sum>(input, n_rows, n_cols, row_sums);
//   if (status == cudaSuccess) status = cudaDeviceSynchronize();  // the kernel's own errors show here
//   std::vector<float> sums(n_rows);
//   if (status == cudaSuccess) status = cudaMemcpy(sums.data(), row_sums, n_rows * sizeof(float), cudaMemcpyDeviceToHost);
//   cudaFree(row_sums);
//
// Compile: nvcc -std=c++17 -c lane_groups.cu. --use_fast_math: subnormals count as 0 in float adds and compares,
// and MeanVar divides approximately.
// Another element type, e.g. short: add `LANE_GROUPS_INSTANTIATE(short)` at the end of lane_groups.cu.
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

namespace lane_groups {

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

// Auto gives a row of up to 1 KiB (V <= 64 16-byte vectors) a group of the fewest lanes,
// a power of two from 2 to 16, that gives each lane about four vectors (V / 4), and a
// longer row a warp (with few long rows, 14's block per row is faster).
enum class Method { Auto, Group, Warp };
struct Plan { Method method; int threads_per_row; };
Plan plan_rows(std::size_t cols, std::size_t element_bytes, Method method = Method::Auto);

// One Op::Result per row to output[0, rows) (device memory), on `stream`: any rows and
// cols (up to INT_MAX columns for ArgMax and MeanVar), 64-bit offsets. Returns the first
// CUDA error, or cudaErrorInvalidValue before any launch for a null or misaligned
// pointer, an unknown method, too many columns, or rows * cols past the address space.
template <typename In, typename Op>
cudaError_t reduce_rows(const In* input, std::size_t rows, std::size_t cols, typename Op::Result* output,
                        Method method = Method::Auto, cudaStream_t stream = 0);

}  // namespace lane_groups
