// cub_rows.cu: the CUB yardsticks of the rows chapters (cub_rows.h).
#include "cub_rows.h"
#include "cub_operators.cuh"

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
#include <string>
#include <type_traits>

namespace reduction::cub_rows {
namespace {

constexpr int kThreads = 256;  // threads per block of both collective kernels
constexpr unsigned kWarpSize = 32;

using cub_operators::as_float;  // and CUB's operators (cub_operators.cuh)
using cub_operators::MaxInFloat;
using cub_operators::SumInFloat;
using cub_operators::WriteValueIndex;

// ---------------------------------------------------------------- DeviceSegmentedReduce

// Row r is the segment [r * cols, (r + 1) * cols): the begin offsets are r * cols for
// r = 0, 1, ..., computed on the fly, and the end offsets the same sequence one later.
template <typename Offset>
struct RowStart {
  Offset cols;
  __host__ __device__ Offset operator()(Offset row) const { return row * cols; }
};

// [snippet:segmented]
// One entry point for the three operators; with temp == nullptr CUB only writes the
// storage it needs to temp_bytes.
template <typename In, typename Op>
cudaError_t segmented_call(void* temp, std::size_t& temp_bytes, const In* input, std::size_t rows, std::size_t cols,
                           typename Op::Result* output, cudaStream_t stream) {
  const auto segments = static_cast<std::int64_t>(rows);
  if constexpr (std::is_same_v<Op, ArgMax>) {  // int offsets: CUB's ArgMax fixes them
    const auto begin = thrust::make_transform_iterator(thrust::make_counting_iterator<int>(0),
                                                       RowStart<int>{static_cast<int>(cols)});
    const auto out = thrust::make_tabulate_output_iterator(WriteValueIndex{output});
    return cub::DeviceSegmentedReduce::ArgMax(temp, temp_bytes, input, out, segments, begin, begin + 1, stream);
  } else {
    const auto begin = thrust::make_transform_iterator(thrust::make_counting_iterator<std::int64_t>(0),
                                                       RowStart<std::int64_t>{static_cast<std::int64_t>(cols)});
    if constexpr (std::is_same_v<Op, Sum>) {
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
  if (std::is_same_v<Op, ArgMax> && rows * cols > std::size_t(INT_MAX)) return false;
  return true;
}

// ---------------------------------------------------------------- WarpReduce / BlockReduce

// The operators' rules, as the rows chapters state them.
template <typename Op> struct Rule;
template <> struct Rule<Sum> {
  using State = float;
  __device__ static State identity() { return 0.0f; }
  __device__ static State element(float x, int) { return x; }
  __device__ static State combine(State a, State b) { return a + b; }
  __device__ static float result(State s) { return s; }
};
template <> struct Rule<Max> {
  using State = float;
  __device__ static State identity() { return -cuda::std::numeric_limits<float>::infinity(); }
  __device__ static State element(float x, int) { return x; }
  __device__ static State combine(State a, State b) { return (a > b || a != a) ? a : b; }
  __device__ static float result(State s) { return s; }
};
template <> struct Rule<ArgMax> {
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
  __device__ static ValueIndex result(State s) {
    return {s.value, s.index == INT_MAX ? -1 : s.index};
  }
};
template <> struct Rule<MeanVar> {
  struct State {
    int count;
    float mean, m2;
  };
  __device__ static State identity() { return {0, 0.0f, 0.0f}; }
  __device__ static State element(float x, int) { return {1, x, x - x}; }  // M2 NaN for inf or NaN
  // Chan et al.'s merge; Welford's update when b is one element. An infinite mean merges as a sum (inf - inf =
  // NaN), as numpy's mean, where the formula would give inf - inf = NaN for an infinite mean_a (14's MeanVar).
  __device__ static State combine(State a, State b) {
    if (b.count == 0) return a;
    if (a.count == 0) return b;
    const int n = a.count + b.count;
    const float delta = b.mean - a.mean;
    const float weight_b = static_cast<float>(b.count) / static_cast<float>(n);
    const float mean = isinf(a.mean) || isinf(b.mean) ? a.mean + b.mean : fmaf(delta, weight_b, a.mean);
    return {n, mean, a.m2 + b.m2 + delta * delta * (static_cast<float>(a.count) * weight_b)};
  }
  __device__ static MeanVariance result(State s) {
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
// kLanes lanes per row (1 to 32), rows dealt out as in 15's rows_by_lanes; each lane
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

int threads_per_row(std::size_t rows, std::size_t cols, std::size_t element_bytes) {
  const std::size_t vectors = (cols * (element_bytes == 2 ? 2 : 4) + 15) / 16, threads = (vectors + 3) / 4;
  if (vectors <= 8) return 1;  // rows of up to 128 bytes: 16's thread per row
  if (vectors > 128 && (vectors > 512 || rows < 4096)) return kThreads;  // 14's block per row
  if (vectors > 64) return int(kWarpSize);
  int lanes = 2;  // 15's group: about four vectors per lane
  while (lanes < 16 && std::size_t(lanes) < threads) lanes *= 2;
  return lanes;
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
  if (!std::is_same_v<Op, Sum> && !std::is_same_v<Op, Max> && cols > std::size_t(INT_MAX)) {
    return cudaErrorInvalidValue;  // a 32-bit column or count, as reduce_rows
  }
  switch (threads_per_row(rows, cols, sizeof(In))) {
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
  CUB_ROWS_SEGMENTED(In, Sum) CUB_ROWS_SEGMENTED(In, Max) CUB_ROWS_SEGMENTED(In, ArgMax) \
  CUB_ROWS_COLLECTIVE(In, Sum) CUB_ROWS_COLLECTIVE(In, Max) CUB_ROWS_COLLECTIVE(In, ArgMax)   \
  CUB_ROWS_COLLECTIVE(In, MeanVar)
CUB_ROWS_TYPE(float)
CUB_ROWS_TYPE(__half)
CUB_ROWS_TYPE(__nv_bfloat16)
#undef CUB_ROWS_TYPE
#undef CUB_ROWS_COLLECTIVE
#undef CUB_ROWS_SEGMENTED

// ---------------------------------------------------------------- for the harness

namespace {

using namespace rows_harness;

template <typename In, typename Op>
cudaError_t segmented(const void* input, std::size_t rows, std::size_t cols, void* output, void* temp,
                      std::size_t temp_bytes, cudaStream_t stream) {
  return segmented_reduce<In, Op>(static_cast<const In*>(input), rows, cols, static_cast<typename Op::Result*>(output),
                                  temp, temp_bytes, stream);
}

template <typename In, typename Op>
cudaError_t collective(const void* input, std::size_t rows, std::size_t cols, void* output, void* /*temp*/,
                       std::size_t /*temp_bytes*/, cudaStream_t stream) {
  return collective_reduce<In, Op>(static_cast<const In*>(input), rows, cols, static_cast<typename Op::Result*>(output),
                                   stream);
}

template <typename In, typename Op>
RowLaunch launcher_of(RowMethod method) {
  RowLaunch launch;
  if (method == RowMethod::CubBlock) launch.launch = collective<In, Op>;
  if constexpr (!std::is_same_v<Op, MeanVar>) {  // CUB has no segmented mean and variance
    if (method == RowMethod::CubSegmented) {
      launch.launch = segmented<In, Op>;
      launch.temp_bytes_for = segmented_temp_bytes<In, Op>;
    }
  }
  return launch;
}

template <typename In>
RowLaunch launcher_of_type(RowMethod method, RowOp op) {
  switch (op) {
    case RowOp::Sum: return launcher_of<In, Sum>(method);
    case RowOp::Max: return launcher_of<In, Max>(method);
    case RowOp::ArgMax: return launcher_of<In, ArgMax>(method);
    case RowOp::MeanVar: return launcher_of<In, MeanVar>(method);
  }
  return {};
}

std::size_t ceil_log2(std::size_t x) {
  std::size_t k = 0;
  while ((std::size_t(1) << k) < x) ++k;
  return k;
}

}  // namespace

RowLaunch launcher(RowMethod method, ElementType type, RowOp op) {
  return by_element_type(type, [&](auto tag) { return launcher_of_type<typename decltype(tag)::type>(method, op); });
}

std::string refuse(RowMethod method, RowOp op, std::size_t rows, std::size_t cols) {
  if (method != RowMethod::CubSegmented) return "";
  if (cols == 0) {
    return "--method cub_segmented needs --cols of at least 1 (CUB's ArgMax gives {1, lowest} for an empty row; "
           "the chapters' methods take K = 0)";
  }
  if (op == RowOp::ArgMax && rows > std::size_t(INT_MAX) / cols) {
    return "--method cub_segmented --op argmax takes fewer than 2^31 elements (CUB's ArgMax uses int offsets)";
  }
  return "";
}

std::string describe(RowMethod method, std::size_t rows, std::size_t cols, ElementType type) {
  if (method == RowMethod::CubSegmented) return "cub::DeviceSegmentedReduce, one segment per row";
  const int threads = threads_per_row(rows, cols, element_bytes(type));
  if (threads == 1) return "one thread per row, one element at a time (no collective needed)";
  if (threads == 32) return "cub::WarpReduce, a warp per row, one element per load";
  if (threads < 32) {
    return "cub::WarpReduce, a logical warp of " + std::to_string(threads) + " lanes per row, one element per load";
  }
  return "cub::BlockReduce, a block of " + std::to_string(threads) + " threads per row, one element per load";
}

// cub_block: each thread's loop over its elements, then WarpReduce's shuffle tree, or
// BlockReduce: a shuffle tree in each of the 8 warps, then the warps' totals in turn;
// cub_segmented: CUB's order is its own, so the bound every order meets: K.
std::size_t depth(RowMethod method, std::size_t rows, std::size_t cols, ElementType type) {
  if (method == RowMethod::CubSegmented) return std::max<std::size_t>(cols, 1);
  const std::size_t threads = std::size_t(threads_per_row(rows, cols, element_bytes(type)));
  if (threads > 32) return (cols + threads - 1) / threads + 5 + threads / 32;
  return (cols + threads - 1) / threads + ceil_log2(threads);
}

}  // namespace reduction::cub_rows
