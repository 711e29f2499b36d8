// 13_rows: many reductions at once, one per row of a row-major M x K matrix: a sum, a
// max, an argmax, or the mean and variance in one pass, from float, __half or
// __nv_bfloat16 input, accumulated in float. The shape decides the kernel: one thread,
// a group of lanes, one warp or one block per row. What changes since 09, and why, is at
// the top of rows.cu.
//
// Use it in your code (input: n_rows x n_cols floats, row-major, in device memory):
//   #include "rows.cuh"
//   float* row_sums = nullptr;  // one result per row, in device memory
//   cudaError_t status = cudaMalloc(&row_sums, n_rows * sizeof(float));
//   if (status == cudaSuccess) status = rows::reduce_rows<float, rows::Sum>(input, n_rows, n_cols, row_sums);
//   if (status == cudaSuccess) status = cudaDeviceSynchronize();  // the kernel's own errors show here
//   std::vector<float> sums(n_rows);
//   if (status == cudaSuccess) status = cudaMemcpy(sums.data(), row_sums, n_rows * sizeof(float), cudaMemcpyDeviceToHost);
//   cudaFree(row_sums);
//   // rows::Max gives a float per row, rows::ArgMax a rows::ValueIndex, rows::MeanVar a
//   // rows::MeanVariance; __half and __nv_bfloat16 input work the same way.
//
// Compile: nvcc -std=c++17 -c rows.cu (float, __half and __nv_bfloat16 input with Sum,
// Max, ArgMax and MeanVar are built in).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace rows {

// What ArgMax writes for a row: the largest value and the column it is in. Ties go to
// the first (smallest) column; a NaN beats every number and the first NaN wins, as in
// numpy.argmax. A row of no columns gives {-inf, -1}. 8 bytes, as cub::KeyValuePair<int,
// float>: a 32-bit column, so ArgMax takes rows of fewer than 2^31 columns (the whole
// matrix may be larger).
struct ValueIndex {
  float value;
  std::int32_t index;
};

// What MeanVar writes for a row: the mean and the population variance M2 / K (numpy's
// var with ddof = 0; multiply by K / (K - 1) for the sample variance). A row of no
// columns gives {NaN, NaN}, where numpy warns and returns nan.
struct MeanVariance {
  float mean;
  float variance;
};

// The operators: tags that name the result each row gets. Every one accumulates in
// float, whatever the input type, and handles K = 0 (a row of no columns):
//   Sum      the sum of the row (0 for K = 0).
//   Max      the largest value; NaN propagates as in numpy.max (one NaN makes the max
//            NaN); -inf for K = 0.
//   ArgMax   ValueIndex above.
//   MeanVar  MeanVariance above: Welford's algorithm in each thread, Chan, Golub and
//            LeVeque's merge of (count, mean, M2) between threads.
struct Sum {
  using Result = float;
};
struct Max {
  using Result = float;
};
struct ArgMax {
  using Result = ValueIndex;
};
struct MeanVar {
  using Result = MeanVariance;
};

// How the rows are shared out. Auto picks one of the others from the row's length in
// bytes and the number of rows (choose_method); the others force a kernel:
//   Thread  one thread per row (rows of at most 128 bytes: the block stages a tile of
//           rows in shared memory with 16-byte loads, then each thread reduces its rows),
//   Group   a group of 2, 4, 8 or 16 lanes of a warp per row,
//   Warp    one warp (32 lanes) per row,
//   Block   one block of 32 to 256 threads per row.
enum class Method { Auto, Thread, Group, Warp, Block };

// Auto's rule, with V = ceil(K * element_bytes / 16), the 16-byte vectors a row spans:
//   V up to 8 (rows up to 128 bytes: 32 floats, 64 halves)       -> Thread
//   V up to 64 (rows up to 1 KiB)                                -> Group
//   V up to 128 (2 KiB), or up to 512 (8 KiB) with >= 4096 rows  -> Warp
//   longer rows, or fewer than 4096 rows of more than 2 KiB      -> Block
// The threads of a row each get about four vectors (threads_per_row below): four
// 16-byte loads in flight per thread, and neighbouring lanes read neighbouring vectors.
// A row of up to eight vectors is at most two threads' share; Thread reads such rows a
// whole tile at a time, so its loads are as wide and as many as the others', and rows
// that start at every alignment (odd K) cost it nothing: the tile is one byte range.
// (A group of 2 lanes reads each such row's ragged ends one element at a time, fewer
// than 8 halves at each end, besides its 3 to 7 whole vectors.)
// Fewer than 4096 rows give a warp each under half the threads a large GPU holds at
// once (an H100 holds 132 x 2048): there a block per row spreads each row wider.
Method choose_method(std::size_t rows, std::size_t cols, std::size_t element_bytes);

// The launch a call makes, for reports and tests: the method (Auto resolved) and how
// many threads share one row: 1 (Thread), the smallest power of two >= V / 4 within
// 2..16 (Group), 32 (Warp), or that power of two within 32..256 (Block).
struct Plan {
  Method method;
  int threads_per_row;
  bool staged;          // Thread on rows of at most 128 bytes: tiles through shared memory
  int rows_per_thread;  // staged: rows each thread reduces per tile, 64 / row bytes, at least 1 (1 otherwise)
};
Plan plan_rows(std::size_t rows, std::size_t cols, std::size_t element_bytes, Method method = Method::Auto);

const char* method_name(Method method);  // "auto", "thread", "group", "warp", "block"

// Writes one Op::Result per row of input (rows x cols elements, row-major, in device
// memory) to output[0, rows) (device memory), on `stream`. Any rows and cols (up to
// INT_MAX columns for ArgMax and MeanVar, which count columns in 32 bits), any input
// address aligned to its element type; offsets into the matrix are 64-bit, so rows * cols
// may pass 2^31. rows = 0 does nothing. Returns the first CUDA error;
// cudaErrorInvalidValue, before any launch, for a null pointer where data is needed, a
// misaligned pointer, an unknown method, more than INT_MAX columns for ArgMax or MeanVar,
// or rows * cols beyond the address space. Like any launch it returns
// before the GPU is done: synchronize before reading output.
template <typename In, typename Op>
cudaError_t reduce_rows(const In* input, std::size_t rows, std::size_t cols, typename Op::Result* output,
                        Method method = Method::Auto, cudaStream_t stream = 0);

}  // namespace rows
