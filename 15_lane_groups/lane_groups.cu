// 15_lane_groups: a group of lanes per row, for rows too short to keep a warp busy.
// What changes since 14: a row of 32 floats is eight 16-byte vectors, so a warp per row
// leaves 24 lanes without a load. The warp kernel takes its lane count as a template
// parameter: 2, 4, 8 or 16 neighbouring lanes share a row, and combine with __shfl_xor_sync
// over offsets below kLanes, which never leave the group (kLanes = 32 is 14's warp). Groups
// of up to 4 lanes read part of a line per load: they ask L2 for whole lines (load_vector).
#include "lane_groups.cuh"

#include <cuda/std/limits>
#include <algorithm>
#include <climits>
#include <cstring>
#include <type_traits>

namespace lane_groups {
namespace {
constexpr unsigned kWarpSize = 32, kFullMask = 0xffffffffu;
constexpr std::size_t kVectorBytes = 16;  // the widest load: LDG.E.128
constexpr std::size_t kLineBytes = 128;   // an L2 cache line: four 32-byte sectors
constexpr int kVectorsInFlight = 4;       // loads a thread issues before combining any (09)
constexpr int kBlock = 256;               // threads per block
constexpr std::size_t kGroupMaxVectors = 64;  // Auto: rows of up to 1 KiB get a group
constexpr int kNoIndex = INT_MAX;       // ArgMax's identity column: loses every tie

template <typename In> constexpr int kPerVector = int(kVectorBytes / sizeof(In));  // 4 floats, 8 halves or bf16s

// The elements of one 16-byte vector (loaded as a uint4), widened to float, to x[0, kPer).
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

// What the kernels need of an operator: a State, its identity (what a lane without input
// brings), the state of one element, combine, a shuffle between lanes, the row's result.
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

// ArgMax orders (value, column): NaN above every number, then the larger value, then (for
// equal values or two NaNs) the smaller column. A total order, so the winner does not
// depend on who combines with whom.
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

// Mean and variance in one pass. n values have the state (n, mean, M2), M2 the sum of
// squared deviations from the mean; two states merge exactly (Chan, Golub, LeVeque):
//   n = na + nb,  delta = mean_b - mean_a,
//   mean = mean_a + delta * nb / n,   M2 = M2a + M2b + delta^2 * na * nb / n.
// With nb = 1 this is Welford's update. Infinities as numpy: one element's M2 is x - x (NaN
// for +-inf), and an infinite mean merges as a sum, inf + x = inf, inf - inf = NaN (the
// formula would give inf - inf = NaN for any infinite mean_a).
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

// The state of N values in registers (columns first_column, +1, ...): a tree of their element
// states. MeanVar: two passes, the mean then M2, and no division (N is a power of two).
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

// [snippet:load_vector]
// One 16-byte vector, read as __ldg reads it. kPartLines: a row's lanes read less than a
// 128-byte line per load (groups of up to 4 lanes). ptxas may issue a trip's loads apart
// (cuobjdump -sass of the bf16 sum at K = 128: vectors 0 and 2, their add, then 1 and 3),
// so a line would reach L2 in two halves a memory latency apart. The .L2::128B hint asks
// L2 for the whole line on the first miss (inline PTX, sm_75 and later). The README's step
// table times plain __ldg instead: this unit built with -DLANE_GROUPS_UNDO_LINE_HINT
// (CMakeLists.txt's UNDO); nothing else defines it.
#ifdef LANE_GROUPS_UNDO_LINE_HINT
constexpr bool kLineHint = false;
#else
constexpr bool kLineHint = true;
#endif
template <bool kPartLines>
__device__ __forceinline__ uint4 load_vector(const uint4* vector) {
#if __CUDA_ARCH__ >= 750
  if constexpr (kPartLines && kLineHint) {
    uint4 v;
    asm("ld.global.nc.L2::128B.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
        : "l"(vector));
    return v;
  }
#endif
  return __ldg(vector);
}
// [/snippet:load_vector]

template <typename In, typename Op>
__device__ StateOf<Op> vector_state(const uint4& bits, int column) {
  float x[kPerVector<In>];
  widen<In>(bits, x);
  return values_state<Op>(x, column);
}

// The largest element of one vector, or NaN if one is (for ArgMax); halves and bfloat16s
// in pairs with the packed, NaN-propagating __hmax2_nan.
template <typename In>
__device__ __forceinline__ float vector_max(const uint4& bits) {
  if constexpr (std::is_same_v<In, __half> || std::is_same_v<In, __nv_bfloat16>) {
    using Pair = std::conditional_t<std::is_same_v<In, __half>, __half2, __nv_bfloat162>;
    auto pair = [](unsigned word) { Pair p; memcpy(&p, &word, sizeof p); return p; };
    const Pair m = __hmax2_nan(__hmax2_nan(pair(bits.x), pair(bits.y)), __hmax2_nan(pair(bits.z), pair(bits.w)));
    return Reducer<Max>::combine(float(m.x), float(m.y));
  } else {  // float, or another type widened first
    float x[kPerVector<In>];
    widen<In>(bits, x);
    return values_state<Max>(x, 0);
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

// One lane's share of a row that `lanes` threads share (at least kMinLanes), split as 09
// splits its array: the head (before the row's first 16-byte-aligned address: rows of odd
// K start at every alignment), whole vectors (lane l takes vectors l, l + lanes, ...,
// four loads per trip issued before any is used), and the tail. ArgMax keeps only each
// vector's maximum and a copy of the lane's best vector, and finds the column in the copy.
template <int kMinLanes, typename In, typename Op>
__device__ StateOf<Op> lane_reduce_row(const In* __restrict__ row, std::size_t cols, unsigned lane, unsigned lanes) {
  using R = Reducer<Op>;
  constexpr int kPer = kPerVector<In>;
  constexpr bool kArgMax = std::is_same_v<Op, ArgMax>, kPartLines = kMinLanes * kVectorBytes < kLineBytes;
  const std::size_t misaligned = reinterpret_cast<std::uintptr_t>(row) % kVectorBytes;
  const std::size_t head_elements = misaligned ? (kVectorBytes - misaligned) / sizeof(In) : 0;
  const std::size_t head = head_elements < cols ? head_elements : cols;
  const std::size_t count = (cols - head) / kPer, tail_start = head + count * kPer;
  const uint4* vectors = reinterpret_cast<const uint4*>(row + head);

  // [snippet:head_and_tail]
  typename R::State partial = R::identity();
  constexpr int kScalars = (kPer - 1 + kMinLanes - 1) / kMinLanes;  // head or tail elements per lane
#pragma unroll
  for (int k = 0; k < kScalars; ++k) {
    const std::size_t h = lane + std::size_t(k) * lanes;
    if (h < head) partial = R::combine(partial, R::element(float(__ldg(row + h)), int(h)));
    const std::size_t t = tail_start + lane + std::size_t(k) * lanes;
    if (t < cols) partial = R::combine(partial, R::element(float(__ldg(row + t)), int(t)));
  }
  // [/snippet:head_and_tail]
  using Index = std::conditional_t<kArgMax, unsigned, std::size_t>;  // ArgMax: fewer than 2^31 vectors
  float best = 0.0f;  // ArgMax only: the lane's largest vector maximum, that vector and a copy of it
  Index winner = ~Index(0);
  __shared__ uint4 copies[kArgMax ? kBlock : 1];  // one per thread
  auto consider = [&](const uint4& bits, Index i) {
    const float top = vector_max<In>(bits);
    if (winner == ~Index(0) || (top != top && best == best) || top > best) {
      best = top, winner = i;
      copies[threadIdx.x] = bits;
    }
  };
  Index v = lane;
  for (; v + (kVectorsInFlight - 1) * lanes < count; v += kVectorsInFlight * lanes) {  // full trips
    uint4 loaded[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) loaded[k] = load_vector<kPartLines>(vectors + v + k * lanes);
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
      for (int k = 0; k < kVectorsInFlight; ++k) {
        if (v + k * lanes < count) loaded[k] = load_vector<kPartLines>(vectors + v + k * lanes);
      }
#pragma unroll
      for (int k = 0; k < kVectorsInFlight; ++k) if (v + k * lanes < count) consider(loaded[k], v + k * lanes);
    } else {
      typename R::State trip[kVectorsInFlight];
#pragma unroll
      for (int k = 0; k < kVectorsInFlight; ++k) {
        const std::size_t i = v + k * lanes;
        trip[k] = i < count ? vector_state<In, Op>(load_vector<kPartLines>(vectors + i), int(head + i * kPer))
                            : R::identity();
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

// [snippet:lanes_reduce]
// kLanes neighbouring lanes' states combined with __shfl_xor_sync: after log2(kLanes) steps
// each lane of the group holds the group's state (offsets below kLanes stay in the group).
// Every lane of the warp must call it: the mask names all 32.
template <int kLanes, typename Op>
__device__ StateOf<Op> lanes_reduce(StateOf<Op> state) {
#pragma unroll
  for (int offset = kLanes / 2; offset > 0; offset /= 2) {
    state = Reducer<Op>::combine(state, Reducer<Op>::shuffle_xor(state, offset));
  }
  return state;
}
// [/snippet:lanes_reduce]

// [snippet:rows_by_lanes]
// kLanes neighbouring lanes per row (2 to 16: a group; 32: a warp); a block takes kBlock /
// kLanes rows per trip, then jumps by the grid. The loop runs while the first row of the
// thread's *warp* exists, so all 32 lanes stay for the shuffles; a lane past the last row
// brings the identity and writes nothing.
template <int kLanes, typename In, typename Op>
__global__ void __launch_bounds__(kBlock)
    rows_by_lanes(const In* __restrict__ input, std::size_t rows, std::size_t cols,
                  typename Op::Result* __restrict__ output) {
  constexpr unsigned kRowsPerBlock = kBlock / kLanes;
  const unsigned lane = threadIdx.x % kLanes, my_row = threadIdx.x / kLanes;
  const unsigned warp_row = (threadIdx.x / kWarpSize) * (kWarpSize / kLanes);  // my warp's first row
  for (std::size_t block_row = std::size_t(blockIdx.x) * kRowsPerBlock; block_row + warp_row < rows;
       block_row += std::size_t(gridDim.x) * kRowsPerBlock) {
    const std::size_t row = block_row + my_row;
    StateOf<Op> state = row < rows ? lane_reduce_row<kLanes, In, Op>(input + row * cols, cols, lane, kLanes)
                                   : Reducer<Op>::identity();
    state = lanes_reduce<kLanes, Op>(state);
    if (lane == 0 && row < rows) output[row] = Reducer<Op>::result(state);
  }
}
// [/snippet:rows_by_lanes]

constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }
template <int kLanes, typename In, typename Op>  // a grid of at most INT_MAX blocks: the kernel loops past it
void launch_lanes(const In* input, std::size_t rows, std::size_t cols, typename Op::Result* output,
                  cudaStream_t stream) {
  const unsigned grid = unsigned(std::min<std::size_t>(ceil_div(rows, kBlock / kLanes), INT_MAX));
  rows_by_lanes<kLanes, In, Op><<<grid, kBlock, 0, stream>>>(input, rows, cols, output);
}

}  // namespace

// [snippet:plan_rows]
Plan plan_rows(std::size_t cols, std::size_t element_bytes, Method method) {
  const std::size_t vectors = ceil_div(cols, kVectorBytes / (element_bytes == 2 ? 2 : 4));
  if (method == Method::Auto) method = vectors <= kGroupMaxVectors ? Method::Group : Method::Warp;
  int lanes = 2;  // a group: the fewest lanes that give each about four vectors, 2 to 16
  while (method == Method::Group && lanes < 16 && std::size_t(lanes) * kVectorsInFlight < vectors) lanes *= 2;
  return {method, method == Method::Warp ? int(kWarpSize) : lanes};
}
// [/snippet:plan_rows]

template <typename In, typename Op>
cudaError_t reduce_rows(const In* input, std::size_t rows, std::size_t cols, typename Op::Result* output,
                        Method method, cudaStream_t stream) {
  if (static_cast<unsigned>(method) > static_cast<unsigned>(Method::Warp)) return cudaErrorInvalidValue;
  if (rows == 0) return cudaSuccess;  // nothing to write
  if (output == nullptr || reinterpret_cast<std::uintptr_t>(output) % alignof(typename Op::Result) != 0 ||
      (cols != 0 && (input == nullptr || rows > SIZE_MAX / sizeof(In) / cols)) ||
      reinterpret_cast<std::uintptr_t>(input) % alignof(In) != 0) {
    return cudaErrorInvalidValue;
  }
  // ArgMax's column and MeanVar's count are 32-bit ints: rows of up to INT_MAX columns.
  if (!std::is_same_v<Op, Sum> && !std::is_same_v<Op, Max> && cols > std::size_t(INT_MAX)) return cudaErrorInvalidValue;
  switch (plan_rows(cols, sizeof(In), method).threads_per_row) {
    case 2: launch_lanes<2, In, Op>(input, rows, cols, output, stream); break;
    case 4: launch_lanes<4, In, Op>(input, rows, cols, output, stream); break;
    case 8: launch_lanes<8, In, Op>(input, rows, cols, output, stream); break;
    case 16: launch_lanes<16, In, Op>(input, rows, cols, output, stream); break;
    default: launch_lanes<32, In, Op>(input, rows, cols, output, stream);
  }
  return cudaGetLastError();
}

}  // namespace lane_groups

// Every operator for input type In, at global scope: the line to add for another type.
#define LANE_GROUPS_INSTANTIATE_OP(In, Op) template cudaError_t lane_groups::reduce_rows<In, lane_groups::Op>( \
    const In*, std::size_t, std::size_t, lane_groups::Op::Result*, lane_groups::Method, cudaStream_t);
#define LANE_GROUPS_INSTANTIATE(In) LANE_GROUPS_INSTANTIATE_OP(In, Sum) LANE_GROUPS_INSTANTIATE_OP(In, Max) \
    LANE_GROUPS_INSTANTIATE_OP(In, ArgMax) LANE_GROUPS_INSTANTIATE_OP(In, MeanVar)
LANE_GROUPS_INSTANTIATE(float) LANE_GROUPS_INSTANTIATE(__half) LANE_GROUPS_INSTANTIATE(__nv_bfloat16)
