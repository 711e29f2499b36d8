// 13_rows: many reductions at once: the sum or the max of every row of a row-major M x K
// float matrix, by a warp or a block per row. What changes since 09 is at the top of
// rows.cu.
//
// Use it in your code (input: n_rows x n_cols floats, row-major, in device memory):
//   #include "rows.cuh"
//   #include <vector>
//   float* row_sums = nullptr;  // one result per row, in device memory
//   cudaError_t status = cudaMalloc(&row_sums, n_rows * sizeof(float));
//   if (status == cudaSuccess) status = rows::reduce_rows<rows::Sum>(input, n_rows, n_cols, row_sums);
//   if (status == cudaSuccess) status = cudaDeviceSynchronize();  // the kernel's own errors show here
//   std::vector<float> sums(n_rows);
//   if (status == cudaSuccess) status = cudaMemcpy(sums.data(), row_sums, n_rows * sizeof(float), cudaMemcpyDeviceToHost);
//   cudaFree(row_sums);
//
// Compile: nvcc -std=c++17 -c rows.cu. --use_fast_math: subnormals count as 0 in the float adds and
// compares; nothing else changes. Another operator is a Reducer and one line at the end of rows.cu.
// Another element type: none (13 reads float; 14 adds half and bf16).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace rows {

// The operators: Sum (0 for a row of no columns) and Max (NaN propagates, as in
// numpy.max; -inf for a row of no columns).
struct Sum {};
struct Max {};

// Auto, with V = ceil(K / 4) 16-byte vectors per row: a warp for V up to 128 (2 KiB), or up
// to 512 with at least 4096 rows; else a block of the fewest threads, a power of two from
// 32 to 256, that gives each thread about four vectors (V / 4).
enum class Method { Auto, Warp, Block };
struct Plan {
  Method method;
  int threads_per_row;  // 32 for a warp
};
Plan plan_rows(std::size_t rows, std::size_t cols, Method method = Method::Auto);

// Writes one float per row of input (rows x cols floats, row-major, device memory) to
// output[0, rows) (device memory), on `stream`. Any rows and cols; offsets are 64-bit,
// so rows * cols may pass 2^31; input only 4-byte aligned. Returns the first CUDA error,
// or cudaErrorInvalidValue before any launch for a null or misaligned pointer, an unknown
// method, or rows * cols past the address space. rows = 0 does nothing.
template <typename Op>
cudaError_t reduce_rows(const float* input, std::size_t rows, std::size_t cols, float* output,
                        Method method = Method::Auto, cudaStream_t stream = 0);

}  // namespace rows
