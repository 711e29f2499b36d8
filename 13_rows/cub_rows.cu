// cub_rows.cu: the yardsticks of chapter 13 (cub_rows.cuh), written with CUB.
#include "cub_rows.cuh"

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cuda/std/limits>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/tabulate_output_iterator.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>

namespace cub_rows {
namespace {

constexpr int kThreads = 256;  // threads per block of both collective kernels
constexpr unsigned kWarpSize = 32;

__host__ __device__ inline float as_float(float x) { return x; }
__host__ __device__ inline float as_float(__half x) { return __half2float(x); }
__host__ __device__ inline float as_float(__nv_bfloat16 x) { return __bfloat162float(x); }

// ---------------------------------------------------------------- DeviceSegmentedReduce

// Row r is the segment [r * cols, (r + 1) * cols): the begin offsets are r * cols for
// r = 0, 1, ..., computed on the fly, and the end offsets the same sequence one later.
template <typename Offset>
struct RowStart {
  Offset cols;
  __host__ __device__ Offset operator()(Offset row) const { return row * cols; }
};

// Sum and max of any mix of float, __half and __nv_bfloat16, in float. CUB calls them on
// (accumulator, input) and (accumulator, accumulator) pairs.
struct SumInFloat {
  template <typename A, typename B>
  __host__ __device__ float operator()(const A& a, const B& b) const { return as_float(a) + as_float(b); }
};
struct MaxInFloat {
  template <typename A, typename B>
  __host__ __device__ float operator()(const A& a, const B& b) const {
    const float x = as_float(a), y = as_float(b);
    return (x > y || x != x) ? x : y;  // NaN propagates, as rows::Max
  }
};

// Writes what DeviceSegmentedReduce::ArgMax finds for a row (a KeyValuePair of the
// column and the value) as a rows::ValueIndex. A thrust::tabulate_output_iterator calls
// it with the row and the pair; its value type is void, so CUB keeps its own pair type.
struct WriteValueIndex {
  rows::ValueIndex* output;
  template <typename In>
  __host__ __device__ void operator()(std::ptrdiff_t row, const cub::KeyValuePair<int, In>& found) const {
    output[row] = {as_float(found.value), found.key};
  }
};

// [snippet:segmented]
// One entry point for the three operators; with temp == nullptr CUB only writes the
// storage it needs to temp_bytes.
template <typename In, typename Op>
cudaError_t segmented_call(void* temp, std::size_t& temp_bytes, const In* input, std::size_t rows, std::size_t cols,
                           typename Op::Result* output, cudaStream_t stream) {
  const auto segments = static_cast<std::int64_t>(rows);
  if constexpr (std::is_same_v<Op, rows::ArgMax>) {  // int offsets: CUB's ArgMax fixes them
    const auto begin = thrust::make_transform_iterator(thrust::make_counting_iterator<int>(0),
                                                       RowStart<int>{static_cast<int>(cols)});
    const auto out = thrust::make_tabulate_output_iterator(WriteValueIndex{output});
    return cub::DeviceSegmentedReduce::ArgMax(temp, temp_bytes, input, out, segments, begin, begin + 1, stream);
  } else {
    const auto begin = thrust::make_transform_iterator(thrust::make_counting_iterator<std::int64_t>(0),
                                                       RowStart<std::int64_t>{static_cast<std::int64_t>(cols)});
    if constexpr (std::is_same_v<Op, rows::Sum>) {
      return cub::DeviceSegmentedReduce::Reduce(temp, temp_bytes, input, output, segments, begin, begin + 1,
                                                SumInFloat{}, 0.0f, stream);
    } else {
      return cub::DeviceSegmentedReduce::Reduce(temp, temp_bytes, input, output, segments, begin, begin + 1,
                                                MaxInFloat{}, -cuda::std::numeric_limits<float>::infinity(), stream);
    }
  }
}
// [/snippet:segmented]

template <typename In, typename Op>
bool segmented_shape_ok(std::size_t rows, std::size_t cols) {
  if (cols == 0 || rows > SIZE_MAX / cols) return false;
  if (std::is_same_v<Op, rows::ArgMax> && rows * cols > std::size_t(INT_MAX)) return false;
  return true;
}

// ---------------------------------------------------------------- WarpReduce / BlockReduce

// The operators' rules, as rows.cu states them (that file keeps its own private).
template <typename Op> struct Rule;
template <> struct Rule<rows::Sum> {
  using State = float;
  __device__ static State identity() { return 0.0f; }
  __device__ static State element(float x, int) { return x; }
  __device__ static State combine(State a, State b) { return a + b; }
  __device__ static float result(State s) { return s; }
};
template <> struct Rule<rows::Max> {
  using State = float;
  __device__ static State identity() { return -cuda::std::numeric_limits<float>::infinity(); }
  __device__ static State element(float x, int) { return x; }
  __device__ static State combine(State a, State b) { return (a > b || a != a) ? a : b; }
  __device__ static float result(State s) { return s; }
};
template <> struct Rule<rows::ArgMax> {
  struct State {
    float value;
    int index;
  };
  __device__ static State identity() { return {-cuda::std::numeric_limits<float>::infinity(), INT_MAX}; }
  __device__ static State element(float x, int column) { return {x, column}; }
  __device__ static State combine(State a, State b) {
    const bool a_nan = a.value != a.value, b_nan = b.value != b.value;
    const bool b_wins = (b_nan || a_nan) ? b_nan && (!a_nan || b.index < a.index)
                                         : b.value > a.value || (b.value == a.value && b.index < a.index);
    return b_wins ? b : a;
  }
  __device__ static rows::ValueIndex result(State s) {
    return {s.value, s.index == INT_MAX ? -1 : s.index};
  }
};
template <> struct Rule<rows::MeanVar> {
  struct State {
    int count;
    float mean, m2;
  };
  __device__ static State identity() { return {0, 0.0f, 0.0f}; }
  __device__ static State element(float x, int) { return {1, x, x - x}; }  // M2 NaN for inf or NaN, as rows.cu
  __device__ static State combine(State a, State b) {  // Chan et al.'s merge; Welford's update when b is one element
    if (b.count == 0) return a;
    if (a.count == 0) return b;
    const int n = a.count + b.count;
    const float delta = b.mean - a.mean;
    const float weight_b = static_cast<float>(b.count) / static_cast<float>(n);
    return {n, fmaf(delta, weight_b, a.mean), a.m2 + b.m2 + delta * delta * (static_cast<float>(a.count) * weight_b)};
  }
  __device__ static rows::MeanVariance result(State s) {
    const float nan = cuda::std::numeric_limits<float>::quiet_NaN();
    if (s.count == 0) return {nan, nan};
    return {s.mean, s.m2 / static_cast<float>(s.count)};
  }
};

template <typename Op>
struct Combine {
  template <typename State>
  __device__ State operator()(const State& a, const State& b) const { return Rule<Op>::combine(a, b); }
};

// [snippet:collective]
// kLanes lanes per row (1 to 32), rows dealt out as in rows.cu's rows_by_lanes; each lane
// reads elements lane, lane + kLanes, ... of its row one at a time, then cub::WarpReduce
// combines the lanes of each row (a logical warp of kLanes threads).
template <int kLanes, typename In, typename Op>
__global__ void __launch_bounds__(kThreads)
    warp_collective_rows(const In* __restrict__ input, std::size_t rows, std::size_t cols,
                         typename Op::Result* __restrict__ output) {
  using R = Rule<Op>;
  using WarpReduce = cub::WarpReduce<typename R::State, kLanes>;
  constexpr unsigned kRowsPerBlock = kThreads / kLanes;
  __shared__ typename WarpReduce::TempStorage temp[kRowsPerBlock];
  const unsigned lane = threadIdx.x % kLanes, my_row = threadIdx.x / kLanes;
  const unsigned warp_row = (threadIdx.x / kWarpSize) * (kWarpSize / kLanes);
  for (std::size_t block_row = std::size_t(blockIdx.x) * kRowsPerBlock; block_row + warp_row < rows;
       block_row += std::size_t(gridDim.x) * kRowsPerBlock) {
    const std::size_t row = block_row + my_row;
    typename R::State state = R::identity();
    if (row < rows) {
      const In* data = input + row * cols;
#pragma unroll 4
      for (std::size_t j = lane; j < cols; j += kLanes) state = R::combine(state, R::element(as_float(data[j]), int(j)));
    }
    if constexpr (kLanes > 1) state = WarpReduce(temp[my_row]).Reduce(state, Combine<Op>{});
    if (lane == 0 && row < rows) output[row] = R::result(state);
  }
}

// A block of kThreads per row: each thread reads elements t, t + kThreads, ... one at a
// time, then cub::BlockReduce.
template <typename In, typename Op>
__global__ void __launch_bounds__(kThreads)
    block_collective_rows(const In* __restrict__ input, std::size_t rows, std::size_t cols,
                          typename Op::Result* __restrict__ output) {
  using R = Rule<Op>;
  using BlockReduce = cub::BlockReduce<typename R::State, kThreads>;
  __shared__ typename BlockReduce::TempStorage temp;
  for (std::size_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const In* data = input + row * cols;
    typename R::State state = R::identity();
#pragma unroll 4
    for (std::size_t j = threadIdx.x; j < cols; j += kThreads) {
      state = R::combine(state, R::element(as_float(data[j]), int(j)));
    }
    state = BlockReduce(temp).Reduce(state, Combine<Op>{});
    if (threadIdx.x == 0) output[row] = R::result(state);
    __syncthreads();  // temp is reused by the next row
  }
}
// [/snippet:collective]

unsigned grid_for(std::size_t rows, std::size_t rows_per_block) {
  return static_cast<unsigned>(std::min<std::size_t>((rows + rows_per_block - 1) / rows_per_block, INT_MAX));
}

template <int kLanes, typename In, typename Op>
void launch_warp(const In* input, std::size_t rows, std::size_t cols, typename Op::Result* output,
                 cudaStream_t stream) {
  warp_collective_rows<kLanes, In, Op><<<grid_for(rows, kThreads / kLanes), kThreads, 0, stream>>>(input, rows, cols,
                                                                                                  output);
}

template <typename In, typename Result>
bool pointers_ok(const In* input, std::size_t rows, std::size_t cols, const Result* output) {
  if (output == nullptr || reinterpret_cast<std::uintptr_t>(output) % alignof(Result) != 0) return false;
  if (cols != 0 && (input == nullptr || rows > SIZE_MAX / sizeof(In) / cols)) return false;
  return reinterpret_cast<std::uintptr_t>(input) % alignof(In) == 0;
}

}  // namespace

int collective_threads_per_row(std::size_t rows, std::size_t cols, std::size_t element_bytes) {
  const rows::Plan plan = rows::plan_rows(rows, cols, element_bytes);
  return plan.method == rows::Method::Block ? kThreads : plan.threads_per_row;
}

template <typename In, typename Op>
cudaError_t segmented_temp_bytes(std::size_t rows, std::size_t cols, std::size_t* bytes) {
  if (bytes == nullptr || !segmented_shape_ok<In, Op>(rows, cols)) return cudaErrorInvalidValue;
  *bytes = 0;
  return segmented_call<In, Op>(nullptr, *bytes, static_cast<const In*>(nullptr), rows, cols, nullptr, nullptr);
}

template <typename In, typename Op>
cudaError_t segmented_reduce(const In* input, std::size_t rows, std::size_t cols, typename Op::Result* output,
                             void* temp, std::size_t temp_bytes, cudaStream_t stream) {
  if (rows == 0) return cudaSuccess;
  if (!segmented_shape_ok<In, Op>(rows, cols) || !pointers_ok(input, rows, cols, output) || temp == nullptr) {
    return cudaErrorInvalidValue;  // temp == nullptr would be taken for a size query
  }
  return segmented_call<In, Op>(temp, temp_bytes, input, rows, cols, output, stream);
}

template <typename In, typename Op>
cudaError_t collective_reduce(const In* input, std::size_t rows, std::size_t cols, typename Op::Result* output,
                              cudaStream_t stream) {
  if (rows == 0) return cudaSuccess;
  if (!pointers_ok(input, rows, cols, output)) return cudaErrorInvalidValue;
  if (!std::is_same_v<Op, rows::Sum> && !std::is_same_v<Op, rows::Max> && cols > std::size_t(INT_MAX)) {
    return cudaErrorInvalidValue;  // a 32-bit column or count, as rows::reduce_rows
  }
  switch (collective_threads_per_row(rows, cols, sizeof(In))) {
    case 1: launch_warp<1, In, Op>(input, rows, cols, output, stream); break;
    case 2: launch_warp<2, In, Op>(input, rows, cols, output, stream); break;
    case 4: launch_warp<4, In, Op>(input, rows, cols, output, stream); break;
    case 8: launch_warp<8, In, Op>(input, rows, cols, output, stream); break;
    case 16: launch_warp<16, In, Op>(input, rows, cols, output, stream); break;
    case 32: launch_warp<32, In, Op>(input, rows, cols, output, stream); break;
    default:
      block_collective_rows<In, Op><<<grid_for(rows, 1), kThreads, 0, stream>>>(input, rows, cols, output);
      break;
  }
  return cudaGetLastError();
}

#define CUB_ROWS_SEGMENTED(In, OP)                                                                              \
  template cudaError_t segmented_temp_bytes<In, OP>(std::size_t, std::size_t, std::size_t*);                   \
  template cudaError_t segmented_reduce<In, OP>(const In*, std::size_t, std::size_t, OP::Result*, void*,       \
                                                std::size_t, cudaStream_t);
#define CUB_ROWS_COLLECTIVE(In, OP) \
  template cudaError_t collective_reduce<In, OP>(const In*, std::size_t, std::size_t, OP::Result*, cudaStream_t);
#define CUB_ROWS_TYPE(In)                                                                                        \
  CUB_ROWS_SEGMENTED(In, rows::Sum) CUB_ROWS_SEGMENTED(In, rows::Max) CUB_ROWS_SEGMENTED(In, rows::ArgMax)      \
  CUB_ROWS_COLLECTIVE(In, rows::Sum) CUB_ROWS_COLLECTIVE(In, rows::Max) CUB_ROWS_COLLECTIVE(In, rows::ArgMax)   \
  CUB_ROWS_COLLECTIVE(In, rows::MeanVar)
CUB_ROWS_TYPE(float)
CUB_ROWS_TYPE(__half)
CUB_ROWS_TYPE(__nv_bfloat16)
#undef CUB_ROWS_TYPE
#undef CUB_ROWS_COLLECTIVE
#undef CUB_ROWS_SEGMENTED

}  // namespace cub_rows
