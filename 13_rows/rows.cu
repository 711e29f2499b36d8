// 13_rows: one reduction per row of a row-major M x K matrix, by a warp or a block per row.
//
// What changes since 09: 09 spreads one long array over the whole grid and combines the
// blocks' partials at the end. Here there are M independent reductions and nothing to
// combine between blocks: each row goes to one warp (a block of 256 threads takes 8
// neighbouring rows at a time) or, for long rows with few of them, to one block, and
// whoever reduces a row writes its result. A row is read as 09 reads its array: the
// elements before its first 16-byte-aligned address one at a time, then 16-byte vectors,
// four in flight per lane, neighbouring lanes on neighbouring vectors, then the rest. But
// per row: rows of odd K start at every alignment. A warp combines its lanes with
// __shfl_xor_sync, a block its warps through shared memory (09's block_reduce).
#include "rows.cuh"

#include <cuda/std/limits>

#include <climits>
#include <cstdint>

namespace rows {
namespace {

// [snippet:constants]
constexpr unsigned kWarpSize = 32, kFullMask = 0xffffffffu;
constexpr std::size_t kVectorBytes = 16;  // the widest load: LDG.E.128, four floats
constexpr int kPerVector = 4;
constexpr int kVectorsInFlight = 4;                 // loads a lane issues before combining any (09)
constexpr int kBlock = 256, kMaxBlockPerRow = 256;  // threads per block: warp kernel, block per row
constexpr std::size_t kWarpMaxVectors = 128, kWarpMaxVectorsManyRows = 512;
constexpr std::size_t kFewRows = 4096;  // below this, long rows get a block each
// [/snippet:constants]

// [snippet:reducers]
// What the kernels need of an operator: the State partial results are kept in, its
// identity (what a lane without input brings), the state of one element, combine, a
// shuffle of the state between lanes, and the row's result.
template <typename Op> struct Reducer;

template <> struct Reducer<Sum> {
  using State = float;
  __device__ static State identity() { return 0.0f; }
  __device__ static State element(float x, int /*column*/) { return x; }
  __device__ static State combine(State a, State b) { return a + b; }
  __device__ static State shuffle_xor(State s, int offset) { return __shfl_xor_sync(kFullMask, s, offset); }
  __device__ static float result(State s) { return s; }
};

template <> struct Reducer<Max> {  // NaN propagates, as in numpy.max: a NaN on either side is kept
  using State = float;
  __device__ static State identity() { return -cuda::std::numeric_limits<float>::infinity(); }
  __device__ static State element(float x, int /*column*/) { return x; }
  __device__ static State combine(State a, State b) { return (a > b || a != a) ? a : b; }
  __device__ static State shuffle_xor(State s, int offset) { return __shfl_xor_sync(kFullMask, s, offset); }
  __device__ static float result(State s) { return s; }
};
// [/snippet:reducers]

template <typename Op> using StateOf = typename Reducer<Op>::State;

// The N states combined in pairs: log2(N) combines deep.
template <typename Op, int N>
__device__ StateOf<Op> tree(StateOf<Op> (&states)[N]) {
#pragma unroll
  for (int width = N / 2; width > 0; width /= 2) {
#pragma unroll
    for (int k = 0; k < width; ++k) states[k] = Reducer<Op>::combine(states[k], states[k + width]);
  }
  return states[0];
}

// [snippet:values_state]
// The state of N values in registers (columns first_column, +1, ...): a tree of their
// element states.
template <typename Op, int N>
__device__ StateOf<Op> values_state(const float (&x)[N], int first_column) {
  StateOf<Op> states[N];
#pragma unroll
  for (int k = 0; k < N; ++k) states[k] = Reducer<Op>::element(x[k], first_column + k);
  return tree<Op>(states);
}
// [/snippet:values_state]

template <typename Op>
__device__ StateOf<Op> vector_state(const float4& v, int column) {
  const float x[kPerVector] = {v.x, v.y, v.z, v.w};
  return values_state<Op>(x, column);
}

template <typename Op>
__device__ StateOf<Op> trip_state(const float4 (&loaded)[kVectorsInFlight]) {
  StateOf<Op> states[kVectorsInFlight];
#pragma unroll
  for (int k = 0; k < kVectorsInFlight; ++k) states[k] = vector_state<Op>(loaded[k], 0);
  return tree<Op>(states);
}

// [snippet:lane_reduce_row]
// One lane's share of a row that `lanes` threads share (32 or more), split as 09 splits
// its array: the head (before the row's first 16-byte-aligned address: rows of odd K
// start at every alignment), whole vectors (lane l takes vectors l, l + lanes, ..., four
// loads per trip issued before any is used), and the tail. Head and tail hold fewer than
// four elements: one lane each.
template <typename Op>
__device__ StateOf<Op> lane_reduce_row(const float* __restrict__ row, std::size_t cols, unsigned lane,
                                       unsigned lanes) {
  using R = Reducer<Op>;
  const std::size_t misaligned = reinterpret_cast<std::uintptr_t>(row) % kVectorBytes;
  const std::size_t head_elements = misaligned ? (kVectorBytes - misaligned) / sizeof(float) : 0;
  const std::size_t head = head_elements < cols ? head_elements : cols;
  const std::size_t count = (cols - head) / kPerVector, tail_start = head + count * kPerVector;
  const float4* vectors = reinterpret_cast<const float4*>(row + head);

  typename R::State partial = R::identity();
  if (lane < head) partial = R::combine(partial, R::element(__ldg(row + lane), int(lane)));
  if (tail_start + lane < cols) {
    partial = R::combine(partial, R::element(__ldg(row + tail_start + lane), int(tail_start + lane)));
  }
  std::size_t v = lane;
  for (; v + (kVectorsInFlight - 1) * lanes < count; v += kVectorsInFlight * lanes) {  // full trips
    float4 loaded[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) loaded[k] = __ldg(vectors + v + k * lanes);
    partial = R::combine(partial, trip_state<Op>(loaded));
  }
  if (v < count) {  // the last, partial trip: each load guarded
    typename R::State trip[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) {
      const std::size_t i = v + k * lanes;
      trip[k] = i < count ? vector_state<Op>(__ldg(vectors + i), int(head + i * kPerVector)) : R::identity();
    }
    partial = R::combine(partial, tree<Op>(trip));
  }
  return partial;
}
// [/snippet:lane_reduce_row]

// [snippet:warp_reduce]
// The 32 lanes' states combined with __shfl_xor_sync: after five steps every lane holds
// the warp's state. Every lane of the warp must call it: the mask names all 32.
template <typename Op>
__device__ StateOf<Op> warp_reduce(StateOf<Op> state) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    state = Reducer<Op>::combine(state, Reducer<Op>::shuffle_xor(state, offset));
  }
  return state;
}
// [/snippet:warp_reduce]

// 09's block_reduce for a state: thread 0 gets the block's state (blockDim.x a multiple of
// 32). Calling it again needs a __syncthreads() in between.
template <typename Op>
__device__ StateOf<Op> block_reduce(StateOf<Op> state) {
  __shared__ StateOf<Op> warp_states[kWarpSize];
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  state = warp_reduce<Op>(state);
  if (lane == 0) warp_states[warp] = state;
  __syncthreads();  // every warp's state is written before warp 0 reads them
  if (warp == 0) state = warp_reduce<Op>(lane < blockDim.x / kWarpSize ? warp_states[lane] : Reducer<Op>::identity());
  return state;
}

// [snippet:rows_by_warp]
// A warp per row: a block of kBlock threads takes kBlock / 32 neighbouring rows per trip,
// then jumps by the grid; lane 0 writes the row's result.
template <typename Op>
__global__ void __launch_bounds__(kBlock)
    rows_by_warp(const float* __restrict__ input, std::size_t rows, std::size_t cols, float* __restrict__ output) {
  constexpr unsigned kRowsPerBlock = kBlock / kWarpSize;
  const unsigned lane = threadIdx.x % kWarpSize, my_row = threadIdx.x / kWarpSize;
  for (std::size_t block_row = std::size_t(blockIdx.x) * kRowsPerBlock; block_row + my_row < rows;
       block_row += std::size_t(gridDim.x) * kRowsPerBlock) {
    const std::size_t row = block_row + my_row;
    const StateOf<Op> state = warp_reduce<Op>(lane_reduce_row<Op>(input + row * cols, cols, lane, kWarpSize));
    if (lane == 0) output[row] = Reducer<Op>::result(state);
  }
}
// [/snippet:rows_by_warp]

// [snippet:rows_by_block]
// A block per row (32 to 256 threads); block b takes rows b, b + gridDim.x, ...
template <typename Op>
__global__ void __launch_bounds__(kMaxBlockPerRow)
    rows_by_block(const float* __restrict__ input, std::size_t rows, std::size_t cols, float* __restrict__ output) {
  for (std::size_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const StateOf<Op> partial = lane_reduce_row<Op>(input + row * cols, cols, threadIdx.x, blockDim.x);
    const StateOf<Op> state = block_reduce<Op>(partial);
    if (threadIdx.x == 0) output[row] = Reducer<Op>::result(state);
    __syncthreads();  // warp 0 is done with warp_states before the next row writes them
  }
}
// [/snippet:rows_by_block]

constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

unsigned grid_for(std::size_t rows, std::size_t rows_per_block) {  // the kernels loop past INT_MAX blocks
  const std::size_t blocks = ceil_div(rows, rows_per_block);
  return unsigned(blocks < INT_MAX ? blocks : INT_MAX);
}

}  // namespace

// [snippet:plan_rows]
Plan plan_rows(std::size_t rows, std::size_t cols, Method method) {
  const std::size_t vectors = ceil_div(cols, kPerVector);
  if (method == Method::Auto) {
    const bool warp = vectors <= kWarpMaxVectors || (vectors <= kWarpMaxVectorsManyRows && rows >= kFewRows);
    method = warp ? Method::Warp : Method::Block;
  }
  int threads = int(kWarpSize);  // a block: the fewest threads that give each about four vectors
  while (method == Method::Block && threads < kMaxBlockPerRow && std::size_t(threads) * kVectorsInFlight < vectors) {
    threads *= 2;
  }
  return {method, threads};
}
// [/snippet:plan_rows]

// [snippet:reduce_rows]
template <typename Op>
cudaError_t reduce_rows(const float* input, std::size_t rows, std::size_t cols, float* output, Method method,
                        cudaStream_t stream) {
  if (static_cast<unsigned>(method) > static_cast<unsigned>(Method::Block)) return cudaErrorInvalidValue;
  if (rows == 0) return cudaSuccess;  // nothing to write
  if (output == nullptr || reinterpret_cast<std::uintptr_t>(output) % alignof(float) != 0 ||
      (cols != 0 && (input == nullptr || rows > SIZE_MAX / sizeof(float) / cols)) ||
      reinterpret_cast<std::uintptr_t>(input) % alignof(float) != 0) {
    return cudaErrorInvalidValue;
  }
  const Plan plan = plan_rows(rows, cols, method);
  if (plan.method == Method::Warp) {
    rows_by_warp<Op><<<grid_for(rows, kBlock / kWarpSize), kBlock, 0, stream>>>(input, rows, cols, output);
  } else {
    rows_by_block<Op><<<grid_for(rows, 1), plan.threads_per_row, 0, stream>>>(input, rows, cols, output);
  }
  return cudaGetLastError();
}
// [/snippet:reduce_rows]

template cudaError_t reduce_rows<Sum>(const float*, std::size_t, std::size_t, float*, Method, cudaStream_t);
template cudaError_t reduce_rows<Max>(const float*, std::size_t, std::size_t, float*, Method, cudaStream_t);

}  // namespace rows
