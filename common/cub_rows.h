// cub_rows.h: the CUB yardsticks of the rows chapters (13-16, 18), the same row reductions
// done with CUB, measured and checked beside each chapter's own kernels by the harness
// (rows_harness.h). Results are laid out as the chapters' are: a float per row, a
// ValueIndex (float value, int32 column) or a MeanVariance (two floats).
//   segmented_reduce:  cub::DeviceSegmentedReduce, one segment per row (Sum, Max, ArgMax;
//                      CUB has no mean and variance)
//   collective_reduce: a kernel written with cub::WarpReduce (1 to 32 lanes per row) or
//                      cub::BlockReduce (a block of 256 threads per row), each thread
//                      reading its elements one at a time; as many threads per row as
//                      threads_per_row gives (the rule of the rows chapters)
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "rows_harness.h"

namespace reduction::cub_rows {

struct ValueIndex { float value; std::int32_t index; };
struct MeanVariance { float mean, variance; };
struct Sum { using Result = float; };
struct Max { using Result = float; };
struct ArgMax { using Result = ValueIndex; };
struct MeanVar { using Result = MeanVariance; };

// The device storage segmented_reduce needs for this shape, in *bytes (nothing launched).
template <typename In, typename Op>
cudaError_t segmented_temp_bytes(std::size_t rows, std::size_t cols, std::size_t* bytes);

// Sum and Max through DeviceSegmentedReduce::Reduce with a functor that widens to float
// (Max propagating NaN); ArgMax through DeviceSegmentedReduce::ArgMax, whose comparison
// lets a NaN neither win nor lose reliably, and whose int offsets need rows * cols < 2^31.
// cols = 0 is refused (cudaErrorInvalidValue): CUB's ArgMax of an empty row is {1, lowest()}.
template <typename In, typename Op>
cudaError_t segmented_reduce(const In* input, std::size_t rows, std::size_t cols, typename Op::Result* output,
                             void* temp, std::size_t temp_bytes, cudaStream_t stream = 0);

// Every operator, with the chapters' rules (NaN, ties, no columns).
template <typename In, typename Op>
cudaError_t collective_reduce(const In* input, std::size_t rows, std::size_t cols, typename Op::Result* output,
                              cudaStream_t stream = 0);

// Threads that share a row in collective_reduce: the rows chapters' rule (16's thread per
// row up to 128 bytes, 15's group, a warp, and 256 where 13's rule gives a block).
int threads_per_row(std::size_t rows, std::size_t cols, std::size_t element_bytes);

// For the harness: the launcher of RowMethod::CubSegmented or CubBlock (launch == nullptr
// where CUB does not offer the operator), why a shape is refused ("" if not), what the
// method does, and the most combining steps an element goes through (the float bounds).
rows_harness::RowLaunch launcher(rows_harness::RowMethod method, rows_harness::ElementType type,
                                 rows_harness::RowOp op);
std::string refuse(rows_harness::RowMethod method, rows_harness::RowOp op, std::size_t rows, std::size_t cols);
std::string describe(rows_harness::RowMethod method, std::size_t rows, std::size_t cols,
                     rows_harness::ElementType type);
std::size_t depth(rows_harness::RowMethod method, std::size_t rows, std::size_t cols, rows_harness::ElementType type);

}  // namespace reduction::cub_rows
