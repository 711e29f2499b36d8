// 18_split_rows: a row over several blocks. What changes since 14: a block per row keeps M blocks
// busy, and where M is below about the SM count most of the GPU idles. Here a row is split into
// blocks_per_row pieces of whole vectors, enough to fill the GPU once; each block reduces its piece
// as 14 reduces a row, then (09's ticket, one per row) the row's last block combines their states.
#include "split_rows.cuh"
#include <cuda/atomic>
#include <cuda/std/limits>
#include <climits>
#include <cstring>
#include <type_traits>

namespace split_rows {
namespace {
constexpr unsigned kWarpSize = 32, kFullMask = 0xffffffffu;
constexpr std::size_t kVectorBytes = 16;  // the widest load: LDG.E.128
constexpr int kVectorsInFlight = 4;       // loads a thread issues before combining any (09)
constexpr int kBlock = 256;               // threads per block
constexpr std::size_t kPieceVectors = 4096;  // the least a block of a split row reads: 64 KiB
constexpr int kNoIndex = INT_MAX;       // ArgMax's identity column: loses every tie
template <typename In> constexpr int kPerVector = int(kVectorBytes / sizeof(In));  // 4 floats, 8 halves or bf16s

// One 16-byte vector's elements, widened to float, to x[0, kPer).
template <typename In>
__device__ __forceinline__ void widen(const uint4& bits, float* x) {
  const unsigned words[4] = {bits.x, bits.y, bits.z, bits.w};
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    if constexpr (std::is_same_v<In, float>) {
      x[w] = __uint_as_float(words[w]);
    } else if constexpr (std::is_same_v<In, __half>) {  // the lower half of a word comes first in memory
      x[2 * w] = __half2float(__ushort_as_half(static_cast<unsigned short>(words[w] & 0xffffu)));
      x[2 * w + 1] = __half2float(__ushort_as_half(static_cast<unsigned short>(words[w] >> 16)));
    } else if constexpr (std::is_same_v<In, __nv_bfloat16>) {  // the upper 16 bits of a float: a shift
      x[2 * w] = __uint_as_float(words[w] << 16);
      x[2 * w + 1] = __uint_as_float(words[w] & 0xffff0000u);
    } else {  // another 16-bit type (short, ...): the word's two elements, each converted
      static_assert(sizeof(In) == 2, "widen takes float and 16-bit types");
      In pair[2];
      memcpy(pair, &words[w], sizeof pair);
      x[2 * w] = static_cast<float>(pair[0]), x[2 * w + 1] = static_cast<float>(pair[1]);
    }
  }
}

// An operator for the kernels: its State, identity, one element's state, combine, shuffle, result.
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
// ArgMax: NaN above every number, then the larger value, then the smaller column (14).
template <> struct Reducer<ArgMax> {
  struct State { float value; int index; };
  __device__ static State identity() { return {-cuda::std::numeric_limits<float>::infinity(), kNoIndex}; }
  __device__ static State element(float x, int column) { return {x, column}; }
  __device__ static State combine(State a, State b) {
    const bool a_nan = a.value != a.value, b_nan = b.value != b.value;
    const bool b_wins = (b_nan || a_nan) ? b_nan && (!a_nan || b.index < a.index)
                                         : b.value > a.value || (b.value == a.value && b.index < a.index);
    return b_wins ? b : a;
  }
  __device__ static State shuffle_xor(State s, int offset) {
    return {__shfl_xor_sync(kFullMask, s.value, offset), __shfl_xor_sync(kFullMask, s.index, offset)};
  }
  __device__ static ValueIndex result(State s) { return {s.value, s.index == kNoIndex ? -1 : s.index}; }
};
// MeanVar: (n, mean, M2), Chan et al.'s merge; an infinite mean merges as a sum (inf - inf = NaN), as numpy's (14).
template <> struct Reducer<MeanVar> {
  struct State { int count; float mean, m2; };
  __device__ static State identity() { return {0, 0.0f, 0.0f}; }
  __device__ static State element(float x, int /*column*/) { return {1, x, x - x}; }
  __device__ static State combine(State a, State b) {
    if (b.count == 0) return a;  // the identity changes nothing (and n = 0 would divide by 0)
    if (a.count == 0) return b;
    const int n = a.count + b.count;
    const float delta = b.mean - a.mean, weight_b = float(b.count) / float(n);  // nb / n
    const float mean = isinf(a.mean) || isinf(b.mean) ? a.mean + b.mean : fmaf(delta, weight_b, a.mean);
    return {n, mean, a.m2 + b.m2 + delta * delta * (float(a.count) * weight_b)};
  }
  __device__ static State shuffle_xor(State s, int offset) {
    return {__shfl_xor_sync(kFullMask, s.count, offset), __shfl_xor_sync(kFullMask, s.mean, offset),
            __shfl_xor_sync(kFullMask, s.m2, offset)};
  }
  __device__ static MeanVariance result(State s) {
    const float nan = cuda::std::numeric_limits<float>::quiet_NaN();
    return s.count == 0 ? MeanVariance{nan, nan} : MeanVariance{s.mean, s.m2 / float(s.count)};
  }
};

template <typename Op> using StateOf = typename Reducer<Op>::State;
template <typename Op, int N>
__device__ StateOf<Op> tree(StateOf<Op> (&states)[N]) {
#pragma unroll
  for (int width = N / 2; width > 0; width /= 2) {
#pragma unroll
    for (int k = 0; k < width; ++k) states[k] = Reducer<Op>::combine(states[k], states[k + width]);
  }
  return states[0];
}

// The state of N values (columns first_column, +1, ...). MeanVar: the mean, then M2.
template <typename Op, int N>
__device__ StateOf<Op> values_state(const float (&x)[N], int first_column) {
  if constexpr (std::is_same_v<Op, MeanVar>) {
    float squares[N];
    const float mean = values_state<Sum>(x, 0) * (1.0f / N);
#pragma unroll
    for (int k = 0; k < N; ++k) squares[k] = (x[k] - mean) * (x[k] - mean);
    return {N, mean, values_state<Sum>(squares, 0)};
  } else if constexpr (std::is_same_v<Op, ArgMax>) {  // the maximum, then the first column holding it
    const float best = values_state<Max>(x, 0);
    StateOf<ArgMax> found{x[N - 1], N - 1};  // x, not best: of +0 and -0 the first one's sign is kept
#pragma unroll
    for (int k = N - 2; k >= 0; --k) {  // from the right, so that the first match is kept
      if (best != best ? x[k] != x[k] : x[k] == best) found = {x[k], k};
    }
    return {found.value, first_column + found.index};
  } else {
    StateOf<Op> states[N];
#pragma unroll
    for (int k = 0; k < N; ++k) states[k] = Reducer<Op>::element(x[k], first_column + k);
    return tree<Op>(states);
  }
}

template <typename In, typename Op>
__device__ StateOf<Op> vector_state(const uint4& bits, int column) {
  float x[kPerVector<In>];
  widen<In>(bits, x);
  return values_state<Op>(x, column);
}

// A vector's largest element, or NaN (for ArgMax); halves and bfloat16s in pairs with __hmax2_nan.
template <typename In>
__device__ __forceinline__ float vector_max(const uint4& bits) {
  if constexpr (std::is_same_v<In, __half> || std::is_same_v<In, __nv_bfloat16>) {
    using Pair = std::conditional_t<std::is_same_v<In, __half>, __half2, __nv_bfloat162>;
    auto pair = [](unsigned word) { Pair p; memcpy(&p, &word, sizeof p); return p; };
    const Pair m = __hmax2_nan(__hmax2_nan(pair(bits.x), pair(bits.y)), __hmax2_nan(pair(bits.z), pair(bits.w)));
    return Reducer<Max>::combine(float(m.x), float(m.y));
  } else {  // float, or another type widened first
    return vector_state<In, Max>(bits, 0);
  }
}

template <typename In, typename Op>
__device__ StateOf<Op> trip_state(const uint4 (&loaded)[kVectorsInFlight]) {
  constexpr int kPer = kPerVector<In>;
  if constexpr (std::is_same_v<Op, MeanVar>) {
    float x[kVectorsInFlight][kPer], sums[kVectorsInFlight], m2s[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) {
      widen<In>(loaded[k], x[k]);
      sums[k] = values_state<Sum>(x[k], 0);
    }
    const float mean = values_state<Sum>(sums, 0) * (1.0f / (kVectorsInFlight * kPer));
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) {
      float squares[kPer];
#pragma unroll
      for (int j = 0; j < kPer; ++j) squares[j] = (x[k][j] - mean) * (x[k][j] - mean);
      m2s[k] = values_state<Sum>(squares, 0);
    }
    return {kVectorsInFlight * kPer, mean, values_state<Sum>(m2s, 0)};
  } else {
    StateOf<Op> states[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) states[k] = vector_state<In, Op>(loaded[k], 0);
    return tree<Op>(states);
  }
}

// [snippet:lane_reduce_row]
// One lane's share of a row that `lanes` threads share (32 or more), split as 09 splits its
// array: the head (before the row's first 16-byte-aligned address: rows of odd K start at
// every alignment), whole vectors (lane l takes vectors l, l + lanes, ..., four loads per trip
// issued first), the tail. ArgMax keeps each vector's maximum and a copy of the lane's best
// vector, and finds the column in the copy at the end.
// Here only piece `part` of `parts`: its run of the vectors, the head in the first, the tail in the last.
template <typename In, typename Op>
__device__ StateOf<Op> lane_reduce_row(const In* __restrict__ row, std::size_t cols, unsigned part, unsigned parts,
                                       unsigned lane, unsigned lanes) {
  using R = Reducer<Op>;
  constexpr int kPer = kPerVector<In>;
  constexpr bool kArgMax = std::is_same_v<Op, ArgMax>;
  const std::size_t misaligned = reinterpret_cast<std::uintptr_t>(row) % kVectorBytes;
  const std::size_t head_elements = misaligned ? (kVectorBytes - misaligned) / sizeof(In) : 0;
  const std::size_t head = head_elements < cols ? head_elements : cols;
  const std::size_t all = (cols - head) / kPer, tail_start = head + all * kPer;  // the row's vectors
  const uint4* vectors = reinterpret_cast<const uint4*>(row + head);
  const std::size_t per_part = (all + parts - 1) / parts;  // the piece's vectors: [begin, count)
  const std::size_t begin = per_part * part < all ? per_part * part : all;
  const std::size_t count = all - begin < per_part ? all : begin + per_part;

  typename R::State partial = R::identity();  // head and tail: fewer elements than lanes
  if (part == 0 && lane < head) partial = R::combine(partial, R::element(float(__ldg(row + lane)), int(lane)));
  if (part == parts - 1 && tail_start + lane < cols) {
    partial = R::combine(partial, R::element(float(__ldg(row + tail_start + lane)), int(tail_start + lane)));
  }
  using Index = std::conditional_t<kArgMax, unsigned, std::size_t>;  // ArgMax: fewer than 2^31 vectors
  float best = 0.0f;  // ArgMax only: the lane's largest vector maximum, that vector and a copy of it
  Index winner = ~Index(0);
  __shared__ uint4 copies[kArgMax ? kBlock : 1];  // one per thread (blocks of up to kBlock)
  auto consider = [&](const uint4& bits, Index i) {
    const float top = vector_max<In>(bits);
    if (winner == ~Index(0) || (top != top && best == best) || top > best) {
      best = top, winner = i;
      copies[threadIdx.x] = bits;
    }
  };
  Index v = Index(begin) + lane;
  for (; v + (kVectorsInFlight - 1) * lanes < count; v += kVectorsInFlight * lanes) {  // full trips
    uint4 loaded[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) loaded[k] = __ldg(vectors + v + k * lanes);
    if constexpr (kArgMax) {
#pragma unroll
      for (int k = 0; k < kVectorsInFlight; ++k) consider(loaded[k], v + k * lanes);
    } else {
      partial = R::combine(partial, trip_state<In, Op>(loaded));
    }
  }
  if (v < count) {  // the last, partial trip: each load guarded, all issued before any is used
    if constexpr (kArgMax) {
      uint4 loaded[kVectorsInFlight];
#pragma unroll
      for (int k = 0; k < kVectorsInFlight; ++k) if (v + k * lanes < count) loaded[k] = __ldg(vectors + v + k * lanes);
#pragma unroll
      for (int k = 0; k < kVectorsInFlight; ++k) if (v + k * lanes < count) consider(loaded[k], v + k * lanes);
    } else {
      typename R::State trip[kVectorsInFlight];
#pragma unroll
      for (int k = 0; k < kVectorsInFlight; ++k) {
        const std::size_t i = v + k * lanes;
        trip[k] = i < count ? vector_state<In, Op>(__ldg(vectors + i), int(head + i * kPer)) : R::identity();
      }
      partial = R::combine(partial, tree<Op>(trip));
    }
  }
  if constexpr (kArgMax) {
    if (winner != ~Index(0)) {
      const uint4 bits = copies[threadIdx.x];
      partial = R::combine(partial, vector_state<In, ArgMax>(bits, int(head + winner * kPer)));
    }
  }
  return partial;
}
// [/snippet:lane_reduce_row]

// The 32 lanes' states combined with __shfl_xor_sync (every lane of the warp calls it).
template <typename Op>
__device__ StateOf<Op> warp_reduce(StateOf<Op> state) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    state = Reducer<Op>::combine(state, Reducer<Op>::shuffle_xor(state, offset));
  }
  return state;
}

// Thread 0 gets the block's state (blockDim.x a multiple of 32); a __syncthreads() between calls.
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

// [snippet:rows_by_blocks]
// Block b: piece b % parts of row b / parts (then it jumps by the grid); parts = 1 is 14's block per row.
template <typename In, typename Op>
__global__ void __launch_bounds__(kBlock)
    rows_by_blocks(const In* __restrict__ input, std::size_t rows, std::size_t cols, unsigned parts,
                   typename Op::Result* __restrict__ output, StateOf<Op>* partials, unsigned* tickets) {
  using R = Reducer<Op>;
  __shared__ bool last;  // this block drew its row's last ticket
  for (std::size_t piece = blockIdx.x; piece < rows * parts; piece += gridDim.x) {  // parts: blocks per row
    const std::size_t row = piece / parts, part = piece % parts;
    StateOf<Op> state =
        block_reduce<Op>(lane_reduce_row<In, Op>(input + row * cols, cols, unsigned(part), parts, threadIdx.x, kBlock));
    if (parts > 1) {
      if (threadIdx.x == 0) {
        partials[piece] = state;
        // 09's ticket: release publishes the state; acquire (the last block) sees every piece's.
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> ticket(tickets[row]);
        last = ticket.fetch_add(1, cuda::memory_order_acq_rel) == parts - 1;
        if (last) ticket.store(0, cuda::memory_order_relaxed);  // ready for the next call
      }
      __syncthreads();  // `last` is written, and warp 0 is done with block_reduce's slots
      if (!last) continue;  // the same for the whole block: no thread skips a barrier alone
      // The row's states in a fixed order: thread t combines t, t + 256, ... (four loads issued
      // first), then block_reduce. Plain loads, not __ldg: they were written during this launch.
      const StateOf<Op>* states = partials + row * parts;
      state = R::identity();
      for (unsigned p = threadIdx.x; p < parts; p += kVectorsInFlight * kBlock) {
        StateOf<Op> loaded[kVectorsInFlight];
#pragma unroll
        for (int k = 0; k < kVectorsInFlight; ++k) {
          loaded[k] = p + k * kBlock < parts ? states[p + k * kBlock] : R::identity();
        }
#pragma unroll
        for (int k = 0; k < kVectorsInFlight; ++k) state = R::combine(state, loaded[k]);
      }
      state = block_reduce<Op>(state);
    }
    if (threadIdx.x == 0) output[row] = R::result(state);
    __syncthreads();  // warp 0 is done with block_reduce's slots and `last` before the next piece
  }
}
// [/snippet:rows_by_blocks]

constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }
constexpr std::size_t states_offset(std::size_t rows) { return ceil_div(rows * sizeof(unsigned), 16) * 16; }
}  // namespace

// [snippet:plan_rows]
Plan plan_rows(std::size_t rows, std::size_t cols, std::size_t element_bytes, std::size_t resident_blocks) {
  const std::size_t vectors = ceil_div(cols, kVectorBytes / (element_bytes == 2 ? 2 : 4));
  const std::size_t fill = rows == 0 ? 1 : resident_blocks / rows;  // one full wave of blocks
  const std::size_t work = vectors / kPieceVectors;                 // at least 64 KiB per block
  std::size_t blocks = fill < work ? fill : work;
  return {unsigned(blocks < 1 ? 1 : blocks > UINT_MAX ? UINT_MAX : blocks)};
}
// [/snippet:plan_rows]
template <typename In, typename Op>
cudaError_t default_plan(std::size_t rows, std::size_t cols, Plan* plan) {
  int device = 0, sms = 0, per_sm = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (status == cudaSuccess) {
    status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rows_by_blocks<In, Op>, kBlock, 0);
  }
  if (status == cudaSuccess) *plan = plan_rows(rows, cols, sizeof(In), std::size_t(sms) * std::size_t(per_sm));
  return status;
}
std::size_t scratch_bytes(std::size_t rows, Plan plan) {  // the tickets, then the states from a 16-byte boundary
  return plan.blocks_per_row <= 1 ? 0 : states_offset(rows) + rows * plan.blocks_per_row * 16;  // any state fits
}

// [snippet:reduce_rows]
template <typename In, typename Op>
cudaError_t reduce_rows(const In* input, std::size_t rows, std::size_t cols, typename Op::Result* output,
                        void* scratch, std::size_t scratch_bytes, Plan plan, cudaStream_t stream) {
  if (plan.blocks_per_row == 0) return cudaErrorInvalidValue;
  if (rows == 0) return cudaSuccess;  // nothing to write
  if (output == nullptr || reinterpret_cast<std::uintptr_t>(output) % alignof(typename Op::Result) != 0 ||
      (cols != 0 && (input == nullptr || rows > SIZE_MAX / sizeof(In) / cols)) ||
      reinterpret_cast<std::uintptr_t>(input) % alignof(In) != 0) {
    return cudaErrorInvalidValue;
  }
  // ArgMax's column and MeanVar's count are 32-bit ints: rows of up to INT_MAX columns.
  if (!std::is_same_v<Op, Sum> && !std::is_same_v<Op, Max> && cols > std::size_t(INT_MAX)) return cudaErrorInvalidValue;
  const bool split = plan.blocks_per_row > 1;  // then scratch: 16-byte aligned, as cudaMalloc's, and large enough
  if (split && (!scratch || std::uintptr_t(scratch) % 16 || rows > SIZE_MAX / 32 / plan.blocks_per_row ||
                scratch_bytes < split_rows::scratch_bytes(rows, plan))) {
    return cudaErrorInvalidValue;
  }
  unsigned* tickets = split ? static_cast<unsigned*>(scratch) : nullptr;
  auto* partials = split ? reinterpret_cast<StateOf<Op>*>(static_cast<char*>(scratch) + states_offset(rows)) : nullptr;
  const std::size_t pieces = rows * plan.blocks_per_row;  // the kernel loops past INT_MAX blocks
  const unsigned grid = unsigned(pieces < INT_MAX ? pieces : INT_MAX);
  rows_by_blocks<In, Op><<<grid, kBlock, 0, stream>>>(input, rows, cols, plan.blocks_per_row, output, partials,
                                                      tickets);
  return cudaGetLastError();
}
// [/snippet:reduce_rows]

}  // namespace split_rows
// Every operator for input type In, at global scope: the line to add for another type.
#define SPLIT_ROWS_INSTANTIATE_OP(In, Op) template cudaError_t split_rows::default_plan<In, split_rows::Op>(          \
    std::size_t, std::size_t, split_rows::Plan*); template cudaError_t split_rows::reduce_rows<In, split_rows::Op>( \
    const In*, std::size_t, std::size_t, split_rows::Op::Result*, void*, std::size_t, split_rows::Plan, cudaStream_t);
#define SPLIT_ROWS_INSTANTIATE(In) SPLIT_ROWS_INSTANTIATE_OP(In, Sum) SPLIT_ROWS_INSTANTIATE_OP(In, Max) \
    SPLIT_ROWS_INSTANTIATE_OP(In, ArgMax) SPLIT_ROWS_INSTANTIATE_OP(In, MeanVar)
SPLIT_ROWS_INSTANTIATE(float) SPLIT_ROWS_INSTANTIATE(__half) SPLIT_ROWS_INSTANTIATE(__nv_bfloat16)
