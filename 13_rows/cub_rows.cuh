// cub_rows.cuh: chapter 13's yardsticks, the same row reductions done with CUB. Not part
// of the copy unit (rows.cuh + rows.cu): the program and the tests measure and check
// them beside it.
//   segmented_reduce:  cub::DeviceSegmentedReduce, one segment per row (Sum, Max, ArgMax;
//                      CUB has no mean and variance)
//   collective_reduce: a kernel written with cub::WarpReduce (a group of lanes or a warp
//                      per row, as many as rows::plan_rows gives) or cub::BlockReduce (a
//                      block of 256 threads per row, where the plan is Block), each
//                      thread reading its elements one at a time
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

#include "rows.cuh"

namespace cub_rows {

// Which operators cub::DeviceSegmentedReduce offers.
template <typename Op>
constexpr bool kSegmentedOffers = !std::is_same_v<Op, rows::MeanVar>;

// The device storage segmented_reduce needs for this shape, in *bytes (CUB's size
// query: nothing is launched).
template <typename In, typename Op>
cudaError_t segmented_temp_bytes(std::size_t rows, std::size_t cols, std::size_t* bytes);

// One result per row with cub::DeviceSegmentedReduce. Sum and Max go through
// DeviceSegmentedReduce::Reduce with a functor that widens to float (Max propagating
// NaN, as rows::Max); ArgMax through DeviceSegmentedReduce::ArgMax, whose comparison
// lets a NaN neither win nor lose reliably (its KeyValuePair<int, In> is written as a
// rows::ValueIndex). ArgMax's column offsets are int in CUB, so
// rows * cols must stay below 2^31. cols = 0 is refused (cudaErrorInvalidValue): CUB's
// ArgMax of an empty row is {1, lowest()}, not rows::ArgMax's {-inf, -1}.
template <typename In, typename Op>
cudaError_t segmented_reduce(const In* input, std::size_t rows, std::size_t cols, typename Op::Result* output,
                             void* temp, std::size_t temp_bytes, cudaStream_t stream = 0);

// One result per row with cub::WarpReduce / cub::BlockReduce (every operator, the
// rules of rows.cuh). cols = 0 gives the operator's identity result, as rows::reduce_rows.
template <typename In, typename Op>
cudaError_t collective_reduce(const In* input, std::size_t rows, std::size_t cols, typename Op::Result* output,
                              cudaStream_t stream = 0);

// Threads that share a row in collective_reduce: rows::plan_rows' count for a thread,
// group or warp, 256 where the plan is a block.
int collective_threads_per_row(std::size_t rows, std::size_t cols, std::size_t element_bytes);

}  // namespace cub_rows
