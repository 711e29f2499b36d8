// 13_rows: one reduction per row of a row-major M x K matrix (sum, max, argmax, mean and
// variance), from float, __half or __nv_bfloat16 input, accumulated in float.
//
// What changes since 09: 09 spreads one long array over the whole grid and combines the
// block partials at the end. Here there are M independent reductions, and nothing needs
// combining across blocks: each row goes to one thread, one group of lanes, one warp or
// one block, and whoever reduces a row writes its result. The shape decides which: a
// warp per row wastes 30 of its 32 lanes on rows of 8 floats, a thread per row reads a
// 32 KiB row alone. Each row is read as 09 reads its array (a head before the first
// 16-byte-aligned address, 16-byte vectors four in flight, a tail), but per row, since
// rows of odd K start at every alignment; the threads of a row take its vectors in turn,
// so that neighbouring lanes read neighbouring vectors. The lanes of a group combine
// with __shfl_xor_sync inside the warp, the warps of a block through shared memory (09's
// block_reduce). The operator is a type with a state, an identity and a combine: for
// mean and variance the state is (count, mean, M2), combined with Chan et al.'s formula.
//
// Build and run:  cmake --build --preset release --target 13_rows
//                 build/release/bin/13_rows --rows 2^21 --cols 32
//                 build/release/bin/13_rows --cols 33 --type bf16 --op meanvar
#include "rows.cuh"

#include <cuda/std/limits>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace rows {
namespace {

constexpr unsigned kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;

// The widest load a thread can make in one instruction: 16 bytes (LDG.E.128 in SASS).
constexpr std::size_t kVectorBytes = 16;
// The cache line of L1 and L2: four 32-byte sectors.
constexpr std::size_t kLineBytes = 128;
// Independent 16-byte loads a thread issues before it combines any of them (as in 09).
constexpr int kVectorsInFlight = 4;
// Threads per block of the thread, group and warp kernels.
constexpr int kBlock = 256;
// Rows of at most kStagedMaxRowBytes (8 vectors) go one per thread through shared memory
// (staged_rows), a tile of at most kStagedBytes at a time: kBlock threads with
// kVectorsInFlight 16-byte loads each. Rows of up to 64 bytes fill a tile with
// rows_per_thread rows per thread; longer ones one row per thread, as many rows as fit
// (16 KiB / 66 bytes = 248 rows, 128 rows of 128 bytes: the other threads only load).
constexpr std::size_t kStagedBytesPerThread = kVectorsInFlight * kVectorBytes;  // 64
constexpr std::size_t kStagedBytes = kBlock * kStagedBytesPerThread;            // 16 KiB
constexpr std::size_t kStagedMaxRowBytes = 2 * kStagedBytesPerThread;           // 128
constexpr std::size_t staged_tile_rows(std::size_t row_bytes, int rows_per_thread) {
  return row_bytes > kStagedBytesPerThread ? kStagedBytes / row_bytes : std::size_t(kBlock) * rows_per_thread;
}
// Auto's bounds (rows.cuh): vectors per row up to which a group, then a warp, is used,
// and the row count below which long rows get a block each.
constexpr std::size_t kGroupMaxVectors = 64, kWarpMaxVectors = 128, kWarpMaxVectorsManyRows = 512;
constexpr std::size_t kFewRows = 4096;
constexpr int kMaxBlockPerRow = 256;

// The column ArgMax's identity carries: larger than any real column, so that a real
// element always wins a tie against the identity.
constexpr int kNoIndex = INT_MAX;

// ---------------------------------------------------------------- input elements as float

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

// Elements in one 16-byte vector: 4 floats, 8 halves or 8 bfloat16s.
template <typename In>
constexpr int kPerVector = int(kVectorBytes / sizeof(In));

// The elements of one 16-byte vector (loaded as a uint4), widened to float.
template <typename In>
__device__ __forceinline__ void widen(const uint4& bits, float (&x)[kPerVector<In>]) {
  const unsigned words[4] = {bits.x, bits.y, bits.z, bits.w};
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    if constexpr (std::is_same_v<In, float>) {
      x[w] = __uint_as_float(words[w]);
    } else if constexpr (std::is_same_v<In, __half>) {  // the lower half of a word comes first in memory
      x[2 * w] = __half2float(__ushort_as_half(static_cast<unsigned short>(words[w] & 0xffffu)));
      x[2 * w + 1] = __half2float(__ushort_as_half(static_cast<unsigned short>(words[w] >> 16)));
    } else {  // bfloat16 is the upper 16 bits of a float: widening is a shift
      x[2 * w] = __uint_as_float(words[w] << 16);
      x[2 * w + 1] = __uint_as_float(words[w] & 0xffff0000u);
    }
  }
}

// ---------------------------------------------------------------- the staged tile

// Where word w of a tile lies in shared memory: `spare` spare words after every 64. Thread
// t reads byte t * row_bytes + ... of the tile; without the spare words, rows of 16, 32,
// 64 or 128 bytes would put 4 to 32 lanes of a warp in the same bank (the accesses of one
// bank are served one after another). With them (3 per 64, or 5: staged_spare_words), no
// more than 4 lanes of any row length up to 128 bytes and any starting offset share a
// bank, and the 32 words a warp stores (word c of 32 neighbouring vectors) fall in at
// most 2 lanes per bank.
__host__ __device__ constexpr unsigned staged_word(unsigned word, unsigned spare) { return word + spare * (word / 64); }

// The spare words per 64 for rows of row_bytes: 3, except for rows of 122 bytes (61
// halves), one row per thread: with 3 they are 31.9 words apart, so the 32 rows a warp
// reads start about 32 words (one lap of the banks) apart, up to 16 lanes in one bank.
// With 5 they are 32.9 apart. (Counting the lanes per bank for every row length up to 128
// bytes and every starting offset gives at most 4, with 3 or with 5 where they are used.)
constexpr unsigned kSpareWords = 3, kMaxSpareWords = 5;
constexpr unsigned staged_spare_words(std::size_t row_bytes) {
  return row_bytes == 122 ? kMaxSpareWords : kSpareWords;
}

// The element of type In at byte `byte` of the tile, widened to float.
template <typename In>
__device__ __forceinline__ float load_element(const unsigned* staged, unsigned spare, unsigned byte) {
  const unsigned word = staged[staged_word(byte / 4, spare)];
  if constexpr (std::is_same_v<In, float>) {
    return __uint_as_float(word);
  } else {
    const unsigned bits = (byte & 2u) ? word >> 16 : word & 0xffffu;  // the lower half comes first in memory
    if constexpr (std::is_same_v<In, __half>) return __half2float(__ushort_as_half(static_cast<unsigned short>(bits)));
    else return __uint_as_float(bits << 16);  // bfloat16
  }
}

// The kPerVector<In> elements from byte `byte` of the tile on, widened to float, in 4
// word reads (two halves or bfloat16s per word), or 5 when halves or bfloat16s start in
// the middle of a word (every other row of odd K): then each element pair is the upper
// half of one word and the lower half of the next, which one funnel shift puts together.
template <typename In>
__device__ __forceinline__ void load_elements(const unsigned* staged, unsigned spare, unsigned byte,
                                              float (&x)[kPerVector<In>]) {
  if (sizeof(In) == 4 || byte % 4 == 0) {
    const unsigned word = byte / 4;
    const uint4 bits{staged[staged_word(word, spare)], staged[staged_word(word + 1, spare)],
                     staged[staged_word(word + 2, spare)], staged[staged_word(word + 3, spare)]};
    widen<In>(bits, x);
  } else {  // halves or bfloat16s from the middle of a word on: five words, each pair shifted by 16 bits
            // (the fifth word's upper half, unused, may lie past the tile's last byte)
    const unsigned word = byte / 4;
    unsigned w[5];
#pragma unroll
    for (int i = 0; i < 5; ++i) w[i] = staged[staged_word(word + i, spare)];
    const uint4 bits{__funnelshift_r(w[0], w[1], 16), __funnelshift_r(w[1], w[2], 16), __funnelshift_r(w[2], w[3], 16),
                     __funnelshift_r(w[3], w[4], 16)};
    widen<In>(bits, x);
  }
}

// Writes one element at byte `byte` of the tile (`halves` is the tile seen as 16-bit words).
template <typename In>
__device__ __forceinline__ void store_element(unsigned* staged, unsigned short* halves, unsigned spare, unsigned byte,
                                              In value) {
  if constexpr (std::is_same_v<In, float>) {
    staged[staged_word(byte / 4, spare)] = __float_as_uint(value);
  } else if constexpr (std::is_same_v<In, __half>) {
    halves[2 * staged_word(byte / 4, spare) + (byte & 2u) / 2] = __half_as_ushort(value);
  } else {
    halves[2 * staged_word(byte / 4, spare) + (byte & 2u) / 2] = __bfloat16_as_ushort(value);
  }
}

// ---------------------------------------------------------------- the operators

// [snippet:reducers]
// What the kernels need of an operator: a State that partial results are kept in, its
// identity (what threads without input contribute), the state of one element and of one
// vector's elements, combine (any order gives the same answer, up to float rounding for
// Sum and MeanVar), a shuffle of the state between lanes, and the row's result.
template <typename Op> struct Reducer;

template <> struct Reducer<Sum> {
  using State = float;
  __device__ static State identity() { return 0.0f; }
  __device__ static State element(float x, int /*column*/) { return x; }
  template <int N> __device__ static State vector(const float (&x)[N], int /*first_column*/) {
    float sums[N];
#pragma unroll
    for (int k = 0; k < N; ++k) sums[k] = x[k];
#pragma unroll
    for (int width = N / 2; width > 0; width /= 2) {  // in pairs: log2(N) additions deep
#pragma unroll
      for (int k = 0; k < width; ++k) sums[k] += sums[k + width];
    }
    return sums[0];
  }
  __device__ static State combine(State a, State b) { return a + b; }
  __device__ static State shuffle_xor(State s, int offset) { return __shfl_xor_sync(kFullMask, s, offset); }
  __device__ static float result(State s, std::size_t /*cols*/) { return s; }
};

// NaN propagates, as in numpy.max: (a > b || a != a) ? a : b keeps a NaN from either side.
template <> struct Reducer<Max> {
  using State = float;
  __device__ static State identity() { return -cuda::std::numeric_limits<float>::infinity(); }
  __device__ static State element(float x, int /*column*/) { return x; }
  template <int N> __device__ static State vector(const float (&x)[N], int /*first_column*/) {
    State best = x[0];
#pragma unroll
    for (int k = 1; k < N; ++k) best = combine(best, x[k]);
    return best;
  }
  __device__ static State combine(State a, State b) { return (a > b || a != a) ? a : b; }
  __device__ static State shuffle_xor(State s, int offset) { return __shfl_xor_sync(kFullMask, s, offset); }
  __device__ static float result(State s, std::size_t /*cols*/) { return s; }
};

// The order that decides ArgMax: NaN above every number, then the larger value, and
// between equal values (or two NaNs) the smaller column. It is a total order on
// (value, column) pairs, so the winner does not depend on who combines with whom.
template <> struct Reducer<ArgMax> {
  struct State {
    float value;
    int index;
  };
  __device__ static State identity() { return {-cuda::std::numeric_limits<float>::infinity(), kNoIndex}; }
  __device__ static State element(float x, int column) { return {x, column}; }
  // One vector: its largest value by a pairwise tree of Max's NaN-propagating compare
  // (log2(N) deep, no indices carried), then the first column that holds it (the first
  // NaN if it is NaN): cheaper than N - 1 full combines of (value, column).
  template <int N> __device__ static State vector(const float (&x)[N], int first_column) {
    float maxima[N];
#pragma unroll
    for (int k = 0; k < N; ++k) maxima[k] = x[k];
#pragma unroll
    for (int width = N / 2; width > 0; width /= 2) {
#pragma unroll
      for (int k = 0; k < width; ++k) maxima[k] = Reducer<Max>::combine(maxima[k], maxima[k + width]);
    }
    const float best = maxima[0];
    const bool best_is_nan = best != best;
    int column = N - 1;
    float value = x[N - 1];
#pragma unroll
    for (int k = N - 2; k >= 0; --k) {  // from the right, so that the first match is kept
      if (best_is_nan ? x[k] != x[k] : x[k] == best) {
        column = k;
        value = x[k];  // x[k], not best: of +0 and -0 the first one's sign is the answer
      }
    }
    return {value, first_column + column};
  }
  __device__ static bool beats(const State& b, const State& a) {
    const bool b_nan = b.value != b.value, a_nan = a.value != a.value;
    if (b_nan || a_nan) return b_nan && (!a_nan || b.index < a.index);
    return b.value > a.value || (b.value == a.value && b.index < a.index);
  }
  __device__ static State combine(State a, State b) { return beats(b, a) ? b : a; }
  __device__ static State shuffle_xor(State s, int offset) {
    return {__shfl_xor_sync(kFullMask, s.value, offset), __shfl_xor_sync(kFullMask, s.index, offset)};
  }
  __device__ static ValueIndex result(State s, std::size_t /*cols*/) {
    return {s.value, s.index == kNoIndex ? -1 : s.index};
  }
};

// Mean and variance in one pass. The state of a set of n values is (n, mean, M2), M2 the
// sum of squared deviations from the mean. Two states merge exactly (Chan, Golub and
// LeVeque):
//   n = na + nb,  delta = mean_b - mean_a,
//   mean = mean_a + delta * nb / n,   M2 = M2a + M2b + delta^2 * na * nb / n.
// With nb = 1 (one new element x, M2b = 0) this is Welford's update. A merge costs a
// division (nb / n), so a thread merges as few states as it can: the 16 or 32 elements
// of a trip's four vectors get their mean and M2 directly (vector below, no division),
// then one merge per trip; lanes, warps and blocks merge the same way. The population
// variance is M2 / n.
template <> struct Reducer<MeanVar> {
  struct State {
    int count;
    float mean, m2;
  };
  __device__ static State identity() { return {0, 0.0f, 0.0f}; }
  // One element: mean x, M2 0. Written x - x, which is 0 for a finite x and NaN for an
  // infinity or a NaN, as numpy's var([inf]) is nan (inf - inf has no value).
  __device__ static State element(float x, int /*column*/) { return {1, x, x - x}; }
  // N values held by one thread (a vector, or a whole trip of 4 vectors: 4 to 32 values)
  // in two passes over registers: the mean by a pairwise sum, then M2 as the pairwise sum
  // of the squared deviations from it. No division: N is a power of two, so 1/N is exact.
  template <int N> __device__ static State vector(const float (&x)[N], int first_column) {
    const float mean = Reducer<Sum>::vector(x, first_column) * (1.0f / N);
    float squares[N];
#pragma unroll
    for (int k = 0; k < N; ++k) squares[k] = (x[k] - mean) * (x[k] - mean);
    return {N, mean, Reducer<Sum>::vector(squares, first_column)};
  }
  __device__ static State combine(State a, State b) {
    if (b.count == 0) return a;  // the identity changes nothing (and n = 0 would divide by 0)
    if (a.count == 0) return b;
    const int n = a.count + b.count;
    const float delta = b.mean - a.mean;
    const float weight_b = static_cast<float>(b.count) / static_cast<float>(n);  // nb / n
    return {n, fmaf(delta, weight_b, a.mean), a.m2 + b.m2 + delta * delta * (static_cast<float>(a.count) * weight_b)};
  }
  __device__ static State shuffle_xor(State s, int offset) {
    return {__shfl_xor_sync(kFullMask, s.count, offset), __shfl_xor_sync(kFullMask, s.mean, offset),
            __shfl_xor_sync(kFullMask, s.m2, offset)};
  }
  __device__ static MeanVariance result(State s, std::size_t /*cols*/) {
    if (s.count == 0) {
      const float nan = cuda::std::numeric_limits<float>::quiet_NaN();
      return {nan, nan};
    }
    return {s.mean, s.m2 / static_cast<float>(s.count)};
  }
};
// [/snippet:reducers]

template <typename Op> using StateOf = typename Reducer<Op>::State;

// ---------------------------------------------------------------- one row, many lanes

// [snippet:load_vector]
// One 16-byte vector of a row, read as __ldg reads it (the read-only path). With
// kPartLines (the lanes of a row read less than a 128-byte line per load instruction:
// groups of 1, 2 or 4 lanes), plus a hint: .L2::128B asks L2 to fetch the whole line on a
// miss, not only the 32-byte sectors the load needs. Why: the rest of the line comes with
// the lanes' other loads of the trip. Those are written next to each other below, but
// ptxas schedules them: for the bf16 sum at K = 128 (a group of 4) it issues vectors 0
// and 2, adds them up, and only then issues vectors 1 and 3 (see it with cuobjdump -sass),
// so the second half of every line reaches L2 a memory latency after the first, and that
// sum ran below 90% of the read-only floor. With the hint, the first half's miss brings
// the whole line, and the sum runs as fast as the other operators there. A warp or a
// block reads whole lines per instruction and gets no hint: there it gained nothing, and
// argmax over rows of 65536 elements lost a few percent. Written as inline PTX (recent
// CCCL releases wrap the same instruction as cuda::ptx::ld_nc_L2_128B); the qualifier
// needs sm_75 and PTX ISA 7.4, and older GPUs get the plain __ldg.
template <bool kPartLines>
__device__ __forceinline__ uint4 load_vector(const uint4* vector) {
#if __CUDA_ARCH__ >= 750
  if constexpr (kPartLines) {
    uint4 v;
    asm("ld.global.nc.L2::128B.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
        : "l"(vector));
    return v;
  } else {
    return __ldg(vector);
  }
#else
  return __ldg(vector);
#endif
}
// [/snippet:load_vector]

// The states of one trip's vectors combined in pairs (two levels for four vectors).
template <typename Op>
__device__ StateOf<Op> combine_trip(StateOf<Op> (&states)[kVectorsInFlight]) {
#pragma unroll
  for (int width = kVectorsInFlight / 2; width > 0; width /= 2) {
#pragma unroll
    for (int k = 0; k < width; ++k) states[k] = Reducer<Op>::combine(states[k], states[k + width]);
  }
  return states[0];
}

// The state of the vector that starts at column `column`, loaded as 16 bytes.
template <typename In, typename Op>
__device__ StateOf<Op> vector_state(const uint4& bits, int column) {
  float x[kPerVector<In>];
  widen<In>(bits, x);
  return Reducer<Op>::template vector<kPerVector<In>>(x, column);
}

// The state of one full trip: vector k starts at column first_column + k * column_step.
// Sum, Max and ArgMax: each vector's state, then the pairs. MeanVar: the trip's 16 or
// 32 values as one set (their columns do not matter), so one merge per trip instead of
// one per vector.
template <typename In, typename Op>
__device__ StateOf<Op> trip_state(const uint4 (&loaded)[kVectorsInFlight], int first_column, int column_step) {
  constexpr int kPer = kPerVector<In>;
  if constexpr (std::is_same_v<Op, MeanVar>) {  // as Reducer<MeanVar>::vector, over four vectors
    float x[kVectorsInFlight][kPer], sums[kVectorsInFlight], m2s[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) {
      widen<In>(loaded[k], x[k]);
      sums[k] = Reducer<Sum>::vector(x[k], 0);
    }
    const float mean = Reducer<Sum>::vector(sums, 0) * (1.0f / (kVectorsInFlight * kPer));  // a power of two
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) {
      float squares[kPer];
#pragma unroll
      for (int j = 0; j < kPer; ++j) squares[j] = (x[k][j] - mean) * (x[k][j] - mean);
      m2s[k] = Reducer<Sum>::vector(squares, 0);
    }
    return {kVectorsInFlight * kPer, mean, Reducer<Sum>::vector(m2s, 0)};
  } else {
    StateOf<Op> states[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) {
      states[k] = vector_state<In, Op>(loaded[k], first_column + k * column_step);
    }
    return combine_trip<Op>(states);
  }
}

// The largest element of one 16-byte vector, or NaN if one is NaN (ArgMax only compares
// it, so the sign of a zero does not matter). Halves and bfloat16s two at a time, with
// the packed NaN-propagating max (__hmax2_nan, one instruction on sm_80 and later): 3 of
// them for 8 elements, then the last two as floats. Exact: a max rounds nothing.
template <typename In>
__device__ __forceinline__ float vector_max(const uint4& bits) {
  if constexpr (std::is_same_v<In, float>) {
    float x[kPerVector<float>];
    widen<float>(bits, x);
    return Reducer<Max>::vector<kPerVector<float>>(x, 0);
  } else {
    using Pair = std::conditional_t<std::is_same_v<In, __half>, __half2, __nv_bfloat162>;
    auto pair = [](unsigned word) {
      Pair p;
      memcpy(&p, &word, sizeof p);
      return p;
    };
    const Pair m = __hmax2_nan(__hmax2_nan(pair(bits.x), pair(bits.y)), __hmax2_nan(pair(bits.z), pair(bits.w)));
    return Reducer<Max>::combine(to_float(m.x), to_float(m.y));
  }
}

// ArgMax's share of a row's vectors (lane_reduce_row below), in the same order and with
// the same loads, but cheaper than a (value, column) state per vector: per vector only
// its largest value (vector_max, NaN-propagating) and, when that beats the lane's
// running maximum, the vector's number. A later vector takes over only if its
// maximum is larger, or is the first NaN: on a tie the earlier vector, with the smaller
// columns, stays. At the end the winning vector is read again (it was just read, so
// from cache) and its column found once (Reducer<ArgMax>::vector).
template <bool kPartLines, typename In>
__device__ StateOf<ArgMax> argmax_of_vectors(const uint4* __restrict__ vectors, std::size_t vector_count,
                                             std::size_t head, unsigned lane, unsigned lanes) {
  constexpr int kPer = kPerVector<In>;
  constexpr unsigned kNone = UINT_MAX;  // vector_count < 2^31 (ArgMax takes fewer than 2^31 columns)
  float best = 0.0f;
  unsigned best_vector = kNone;
  auto consider = [&](const uint4& bits, unsigned index) {
    const float top = vector_max<In>(bits);
    if (best_vector == kNone || (top != top && best == best) || top > best) {
      best = top;
      best_vector = index;
    }
  };
  unsigned v = lane;
  const unsigned count = unsigned(vector_count);
  for (; v + (kVectorsInFlight - 1) * lanes < count; v += kVectorsInFlight * lanes) {
    uint4 loaded[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) {  // all loads first
      loaded[k] = load_vector<kPartLines>(vectors + v + k * lanes);
    }
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) consider(loaded[k], v + k * lanes);
  }
  if (v < count) {  // the last, partial trip
    uint4 loaded[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) {
      if (v + k * lanes < count) loaded[k] = load_vector<kPartLines>(vectors + v + k * lanes);
    }
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) {
      if (v + k * lanes < count) consider(loaded[k], v + k * lanes);
    }
  }
  if (best_vector == kNone) return Reducer<ArgMax>::identity();  // this lane got no vector
  const uint4 winner = load_vector<kPartLines>(vectors + best_vector);
  return vector_state<In, ArgMax>(winner, int(head + std::size_t(best_vector) * kPer));
}

// [snippet:lane_reduce_row]
// One lane's share of one row of `cols` elements, when `lanes` threads share the row
// (lane = 0 .. lanes - 1; at least kMinLanes of them). As 09 splits its array, the row
// is split into
//   head:    the elements before its first 16-byte-aligned address (rows of odd K start
//            at every alignment, so each row has its own),
//   vectors: whole 16-byte vectors from there on; lane l takes vectors l, l + lanes,
//            l + 2*lanes, ...: neighbouring lanes read neighbouring vectors,
//   tail:    the elements after the last whole vector.
// Head and tail hold fewer than one vector's elements, so a lane takes at most kScalars
// of each: their loads are unrolled, all issued at once. The vectors go four per trip,
// all four loads written before the first is combined, as in 09 (load_vector says what
// the compiler makes of that order).
template <int kMinLanes, typename In, typename Op>
__device__ StateOf<Op> lane_reduce_row(const In* __restrict__ row, std::size_t cols, unsigned lane,
                                       unsigned lanes) {
  using R = Reducer<Op>;
  constexpr int kPer = kPerVector<In>;
  const std::size_t misaligned_bytes = reinterpret_cast<std::uintptr_t>(row) % kVectorBytes;
  const std::size_t head_elements = misaligned_bytes ? (kVectorBytes - misaligned_bytes) / sizeof(In) : 0;
  const std::size_t head = head_elements < cols ? head_elements : cols;
  const std::size_t vector_count = (cols - head) / kPer;
  const std::size_t tail_start = head + vector_count * kPer;
  const uint4* vectors = reinterpret_cast<const uint4*>(row + head);

  constexpr bool kPartLines = kMinLanes * kVectorBytes < kLineBytes;  // see load_vector
  typename R::State partial = R::identity();
  constexpr int kScalars = (kPer - 1 + kMinLanes - 1) / kMinLanes;
#pragma unroll
  for (int k = 0; k < kScalars; ++k) {
    const std::size_t h = lane + std::size_t(k) * lanes;
    if (h < head) partial = R::combine(partial, R::element(to_float(__ldg(row + h)), int(h)));
    const std::size_t t = tail_start + lane + std::size_t(k) * lanes;
    if (t < cols) partial = R::combine(partial, R::element(to_float(__ldg(row + t)), int(t)));
  }

  if constexpr (std::is_same_v<Op, ArgMax>) {  // the vectors as below, with less work per element
    return R::combine(partial, argmax_of_vectors<kPartLines, In>(vectors, vector_count, head, lane, lanes));
  }
  // Main loop: only trips where all kVectorsInFlight vectors exist.
  std::size_t v = lane;
  for (; v + (kVectorsInFlight - 1) * lanes < vector_count; v += kVectorsInFlight * lanes) {
    uint4 loaded[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) {  // all loads first
      loaded[k] = load_vector<kPartLines>(vectors + v + k * lanes);
    }
    // then the trip's state, merged into the lane's partial once (columns as int: only
    // ArgMax needs them, and its rows have fewer than 2^31 columns)
    partial = R::combine(partial, trip_state<In, Op>(loaded, int(head + v * kPer), int(lanes * kPer)));
  }
  // The last, partial trip: the same loads, each guarded, all written before the first
  // is combined.
  if (v < vector_count) {
    typename R::State trip[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) {
      const std::size_t index = v + k * lanes;
      trip[k] = index < vector_count
                    ? vector_state<In, Op>(load_vector<kPartLines>(vectors + index), int(head + index * kPer))
                    : R::identity();
    }
    partial = R::combine(partial, combine_trip<Op>(trip));
  }
  return partial;
}
// [/snippet:lane_reduce_row]

// The states of kLanes neighbouring lanes (an aligned group of a warp) combined with
// __shfl_xor_sync: after log2(kLanes) steps every lane of the group holds the group's
// state. Every lane of the warp must call it (the mask names all 32).
template <int kLanes, typename Op>
__device__ StateOf<Op> lanes_reduce(StateOf<Op> state) {
#pragma unroll
  for (int offset = kLanes / 2; offset > 0; offset /= 2) {
    state = Reducer<Op>::combine(state, Reducer<Op>::shuffle_xor(state, offset));
  }
  return state;
}

// 09's block_reduce for a state: thread 0 gets the block's state. blockDim.x is a
// multiple of 32 here. Calling it again needs a __syncthreads() in between (warp 0 may
// still be reading warp_states when another warp writes its next state).
template <typename Op>
__device__ StateOf<Op> block_reduce(StateOf<Op> state) {
  __shared__ StateOf<Op> warp_states[kWarpSize];  // one per warp: at most 1024 / 32
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const unsigned warps = blockDim.x / kWarpSize;
  state = lanes_reduce<kWarpSize, Op>(state);
  if (lane == 0) warp_states[warp] = state;
  __syncthreads();  // every warp's state is written before warp 0 reads them
  if (warp == 0) {
    state = lane < warps ? warp_states[lane] : Reducer<Op>::identity();
    state = lanes_reduce<kWarpSize, Op>(state);
  }
  return state;
}

// ---------------------------------------------------------------- the kernels

// [snippet:staged_rows]
// One thread per row, for rows of at most 128 bytes (32 floats, 64 halves), through
// shared memory. Why: a thread that loads its own short row issues small loads (one
// element, or the one vector that is its row) with few bytes in flight, and the 32
// lanes of a warp touch 32 rows far apart. But rows are contiguous, so the rows
// [first, first + tile_rows) of a tile are one byte range: the block loads it as 09
// loads its array (16-byte vectors from the first aligned address, kVectorsInFlight
// per thread all issued at once, neighbouring threads on neighbouring vectors; the few
// elements before and after, one by one), writes it to shared memory, waits at the
// barrier, and then each thread reduces its rows from shared memory. Thread t takes
// rows t, t + kBlock, ... of the tile, so a warp writes 32 neighbouring results.
// tile_rows (staged_tile_rows, on the host) is kBlock * rows_per_thread for rows of up
// to 64 bytes, and as many longer rows as fit: a tile holds at most kStagedBytes.
// kWholeVectors: the rows hold at least kPerVector<In> elements, so the loop over whole
// vectors' worth runs; rows shorter than that (K = 1 or 3, say) get a kernel without it,
// which needs fewer registers (more blocks per SM). kSpare: the spare words per 64
// (staged_spare_words, on the host), a constant so that the compiler folds staged_word's
// multiply into every shared-memory address.
template <typename In, typename Op, bool kWholeVectors, unsigned kSpare>
__global__ void __launch_bounds__(kBlock)
    staged_rows(const In* __restrict__ input, std::size_t rows, std::size_t cols, unsigned tile_rows,
                typename Op::Result* __restrict__ output) {
  using R = Reducer<Op>;
  constexpr int kPer = kPerVector<In>;
  constexpr unsigned spare = kSpare;
  // The tile, with 16 spare bytes in front.
  __shared__ unsigned staged[staged_word(kStagedBytes / 4 + 4, kSpare) + 1];
  unsigned short* staged_halves = reinterpret_cast<unsigned short*>(staged);
  const std::size_t row_bytes = cols * sizeof(In);
  const unsigned rows_per_thread = (tile_rows + kBlock - 1) / kBlock;  // 1 for rows of more than 64 bytes
  const unsigned char* matrix = reinterpret_cast<const unsigned char*>(input);
  for (std::size_t first = blockIdx.x * tile_rows; first < rows; first += std::size_t(gridDim.x) * tile_rows) {
    const std::size_t tile_count = rows - first < tile_rows ? rows - first : tile_rows;
    // The tile's bytes [begin, end); `staged` starts at the aligned address at or below begin.
    const std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(matrix + first * row_bytes);
    const std::uintptr_t end = begin + tile_count * row_bytes;
    const std::uintptr_t staged_from = begin / kVectorBytes * kVectorBytes;
    const std::uintptr_t aligned_up = (begin + kVectorBytes - 1) / kVectorBytes * kVectorBytes;
    const std::uintptr_t head_end = aligned_up < end ? aligned_up : end;  // the elements before the vectors
    const std::uintptr_t vectors_end = end / kVectorBytes * kVectorBytes > head_end ? end / kVectorBytes * kVectorBytes
                                                                                    : head_end;
    const std::size_t vector_count = (vectors_end - head_end) / kVectorBytes;  // at most kStagedBytes / 16
    const unsigned vectors_at = unsigned(head_end - staged_from) / 4;          // 0 or 4: in words

    uint4 loaded[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) {  // all loads first
      const std::size_t v = threadIdx.x + std::size_t(k) * kBlock;
      if (v < vector_count) loaded[k] = __ldg(reinterpret_cast<const uint4*>(head_end) + v);
    }
    // The head (before the first vector) and the tail (after the last) hold fewer than
    // kPer elements each: thread t < kPer loads element t of each, if it is there.
    const std::size_t head_elements = (head_end - begin) / sizeof(In), tail_elements = (end - vectors_end) / sizeof(In);
    if (threadIdx.x < head_elements) {
      const std::uintptr_t at = begin + threadIdx.x * sizeof(In);
      store_element<In>(staged, staged_halves, spare, unsigned(at - staged_from),
                        __ldg(reinterpret_cast<const In*>(at)));
    }
    if (threadIdx.x < tail_elements) {
      const std::uintptr_t at = vectors_end + threadIdx.x * sizeof(In);
      store_element<In>(staged, staged_halves, spare, unsigned(at - staged_from),
                        __ldg(reinterpret_cast<const In*>(at)));
    }
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) {  // then the vectors, word by word
      const std::size_t v = threadIdx.x + std::size_t(k) * kBlock;
      if (v < vector_count) {
        const unsigned word = vectors_at + unsigned(v) * 4;
        staged[staged_word(word, spare)] = loaded[k].x;
        staged[staged_word(word + 1, spare)] = loaded[k].y;
        staged[staged_word(word + 2, spare)] = loaded[k].z;
        staged[staged_word(word + 3, spare)] = loaded[k].w;
      }
    }
    __syncthreads();  // the whole tile is in shared memory before any thread reads a row

    for (unsigned p = 0; p < rows_per_thread; ++p) {
      const unsigned row = threadIdx.x + p * kBlock;  // within the tile
      if (row >= tile_count) break;
      const unsigned row_at = unsigned(begin - staged_from) + row * unsigned(row_bytes);  // its byte in `staged`
      if constexpr (std::is_same_v<Op, ArgMax>) {  // one compare per element: the column of the first maximum
        float best = -cuda::std::numeric_limits<float>::infinity();
        int best_column = -1;  // {-inf, -1} for a row of no columns
        auto consider = [&](float x, unsigned column) {
          if (best_column < 0 || x > best || (x != x && best == best)) {  // larger, or the first NaN
            best = x;
            best_column = int(column);
          }
        };
        unsigned column = 0;
        for (; kWholeVectors && column + kPer <= cols; column += kPer) {  // kPer at a time, as below
          float x[kPer];
          load_elements<In>(staged, spare, row_at + column * unsigned(sizeof(In)), x);
#pragma unroll
          for (int j = 0; j < kPer; ++j) consider(x[j], column + j);
        }
        for (; column < cols; ++column) {
          consider(load_element<In>(staged, spare, row_at + column * unsigned(sizeof(In))), column);
        }
        output[first + row] = {best, best_column};
        continue;
      }
      typename R::State state = R::identity();
      unsigned column = 0;
      for (; kWholeVectors && column + kPer <= cols; column += kPer) {  // whole vectors' worth: kPer values at once
        float x[kPer];
        load_elements<In>(staged, spare, row_at + column * unsigned(sizeof(In)), x);
        state = R::combine(state, R::template vector<kPer>(x, column));
      }
      for (; column < cols; ++column) {  // the rest, one by one
        const float x = load_element<In>(staged, spare, row_at + column * unsigned(sizeof(In)));
        state = R::combine(state, R::element(x, column));
      }
      output[first + row] = R::result(state, cols);
    }
    __syncthreads();  // every thread is done reading the tile before the next one is written
  }
}
// [/snippet:staged_rows]

// [snippet:rows_by_lanes]
// kLanes neighbouring lanes per row: 1 (a thread per row), 2 to 16 (a group of a warp),
// or 32 (a warp per row). A block of kBlock threads takes kBlock / kLanes neighbouring
// rows per trip, then jumps by the whole grid. The loop runs while the first row of the
// thread's *warp* exists, so that all 32 lanes stay in it together and every shuffle in
// lanes_reduce has its partners; a lane past the last row brings the identity and
// writes nothing.
template <int kLanes, typename In, typename Op>
__global__ void __launch_bounds__(kBlock)
    rows_by_lanes(const In* __restrict__ input, std::size_t rows, std::size_t cols,
                  typename Op::Result* __restrict__ output) {
  using R = Reducer<Op>;
  constexpr unsigned kRowsPerBlock = kBlock / kLanes;
  const unsigned lane = threadIdx.x % kLanes;
  const unsigned my_row = threadIdx.x / kLanes;                                // within the block's rows
  const unsigned warp_row = (threadIdx.x / kWarpSize) * (kWarpSize / kLanes);  // the first row of my warp
  const std::size_t rows_per_grid = std::size_t(gridDim.x) * kRowsPerBlock;
  for (std::size_t block_row = std::size_t(blockIdx.x) * kRowsPerBlock; block_row + warp_row < rows;
       block_row += rows_per_grid) {
    const std::size_t row = block_row + my_row;
    typename R::State state =
        row < rows ? lane_reduce_row<kLanes, In, Op>(input + row * cols, cols, lane, kLanes) : R::identity();
    state = lanes_reduce<kLanes, Op>(state);
    if (lane == 0 && row < rows) output[row] = R::result(state, cols);
  }
}
// [/snippet:rows_by_lanes]

// [snippet:rows_by_block]
// One block per row (blockDim.x = 32 to 256 threads, a multiple of 32): every thread
// takes its share of the row as in rows_by_lanes, then 09's block_reduce. Block b takes
// rows b, b + gridDim.x, ...
template <typename In, typename Op>
__global__ void __launch_bounds__(kMaxBlockPerRow)
    rows_by_block(const In* __restrict__ input, std::size_t rows, std::size_t cols,
                  typename Op::Result* __restrict__ output) {
  using R = Reducer<Op>;
  for (std::size_t row = blockIdx.x; row < rows; row += gridDim.x) {
    typename R::State state = lane_reduce_row<kWarpSize, In, Op>(input + row * cols, cols, threadIdx.x, blockDim.x);
    state = block_reduce<Op>(state);
    if (threadIdx.x == 0) output[row] = R::result(state, cols);
    __syncthreads();  // warp 0 is done with warp_states before the next row writes them
  }
}
// [/snippet:rows_by_block]

// ---------------------------------------------------------------- the plan

constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// The smallest power of two >= x, clamped to [low, high] (both powers of two).
int power_of_two_within(std::size_t x, int low, int high) {
  int p = low;
  while (p < high && std::size_t(p) < x) p *= 2;
  return p;
}

// The 16-byte vectors a row spans (V in rows.cuh), without overflowing for huge K.
std::size_t vectors_per_row(std::size_t cols, std::size_t element_bytes) {
  return ceil_div(cols, kVectorBytes / element_bytes);
}

// Threads sharing a row when each should get about kVectorsInFlight vectors.
std::size_t threads_for(std::size_t vectors) { return ceil_div(vectors, kVectorsInFlight); }

bool known_element_size(std::size_t element_bytes) {
  return element_bytes == 2 || element_bytes == 4;
}

// Grid size for `rows` rows at `rows_per_block` rows per block and trip: every row
// covered by one trip where the grid limit allows (the kernels loop past it).
unsigned grid_for(std::size_t rows, std::size_t rows_per_block) {
  return static_cast<unsigned>(std::min<std::size_t>(ceil_div(rows, rows_per_block), INT_MAX));
}

template <int kLanes, typename In, typename Op>
void launch_lanes(const In* input, std::size_t rows, std::size_t cols, typename Op::Result* output,
                  cudaStream_t stream) {
  rows_by_lanes<kLanes, In, Op><<<grid_for(rows, kBlock / kLanes), kBlock, 0, stream>>>(input, rows, cols, output);
}

}  // namespace

const char* method_name(Method method) {
  switch (method) {
    case Method::Auto: return "auto";
    case Method::Thread: return "thread";
    case Method::Group: return "group";
    case Method::Warp: return "warp";
    case Method::Block: return "block";
  }
  return "?";
}

// [snippet:choose_method]
Method choose_method(std::size_t rows, std::size_t cols, std::size_t element_bytes) {
  if (!known_element_size(element_bytes)) element_bytes = 4;
  const std::size_t vectors = vectors_per_row(cols, element_bytes);
  if (vectors <= kStagedMaxRowBytes / kVectorBytes) return Method::Thread;  // up to 128 bytes: staged
  if (vectors <= kGroupMaxVectors) return Method::Group;   // up to 1 KiB: 2 to 16 lanes
  if (vectors <= kWarpMaxVectors) return Method::Warp;     // up to 2 KiB: a warp
  if (vectors <= kWarpMaxVectorsManyRows && rows >= kFewRows) return Method::Warp;  // up to 8 KiB
  return Method::Block;  // long rows, or too few rows to fill the GPU with warps
}
// [/snippet:choose_method]

Plan plan_rows(std::size_t rows, std::size_t cols, std::size_t element_bytes, Method method) {
  if (!known_element_size(element_bytes)) element_bytes = 4;
  if (method == Method::Auto) method = choose_method(rows, cols, element_bytes);
  const std::size_t threads = threads_for(vectors_per_row(cols, element_bytes));
  Plan plan{method, 1, false, 1};
  switch (method) {
    case Method::Auto:
    case Method::Thread:
      if (cols <= kStagedMaxRowBytes / element_bytes) {  // at most 128 bytes: through shared memory
        plan.staged = true;
        const std::size_t row_bytes = std::max<std::size_t>(cols * element_bytes, 2);
        plan.rows_per_thread = int(std::max<std::size_t>(1, kStagedBytesPerThread / row_bytes));
      }
      break;
    case Method::Group: plan.threads_per_row = power_of_two_within(threads, 2, 16); break;
    case Method::Warp: plan.threads_per_row = int(kWarpSize); break;
    case Method::Block: plan.threads_per_row = power_of_two_within(threads, int(kWarpSize), kMaxBlockPerRow); break;
  }
  return plan;
}

// [snippet:reduce_rows]
template <typename In, typename Op>
cudaError_t reduce_rows(const In* input, std::size_t rows, std::size_t cols, typename Op::Result* output,
                        Method method, cudaStream_t stream) {
  const int method_number = static_cast<int>(method);
  if (method_number < static_cast<int>(Method::Auto) || method_number > static_cast<int>(Method::Block)) {
    return cudaErrorInvalidValue;
  }
  if (rows == 0) return cudaSuccess;  // no rows: nothing to write
  if (output == nullptr || reinterpret_cast<std::uintptr_t>(output) % alignof(typename Op::Result) != 0) {
    return cudaErrorInvalidValue;
  }
  if (cols != 0 && (input == nullptr || rows > SIZE_MAX / sizeof(In) / cols)) return cudaErrorInvalidValue;
  if (reinterpret_cast<std::uintptr_t>(input) % alignof(In) != 0) return cudaErrorInvalidValue;
  // ArgMax's column and MeanVar's count are 32-bit ints (4 bytes less to move and
  // shuffle than 64-bit ones, and half the bytes ArgMax writes): rows up to INT_MAX columns.
  if (!std::is_same_v<Op, Sum> && !std::is_same_v<Op, Max> && cols > std::size_t(INT_MAX)) return cudaErrorInvalidValue;

  const Plan plan = plan_rows(rows, cols, sizeof(In), method);
  if (plan.staged) {
    const std::size_t row_bytes = cols * sizeof(In), tile_rows = staged_tile_rows(row_bytes, plan.rows_per_thread);
    const unsigned grid = grid_for(rows, tile_rows);
    const unsigned tile = unsigned(tile_rows);
    if (cols < std::size_t(kPerVector<In>)) {  // never 122 bytes
      staged_rows<In, Op, false, kSpareWords><<<grid, kBlock, 0, stream>>>(input, rows, cols, tile, output);
    } else if (staged_spare_words(row_bytes) == kSpareWords) {
      staged_rows<In, Op, true, kSpareWords><<<grid, kBlock, 0, stream>>>(input, rows, cols, tile, output);
    } else {
      staged_rows<In, Op, true, kMaxSpareWords><<<grid, kBlock, 0, stream>>>(input, rows, cols, tile, output);
    }
  } else if (plan.method == Method::Block) {
    rows_by_block<In, Op><<<grid_for(rows, 1), plan.threads_per_row, 0, stream>>>(input, rows, cols, output);
  } else {
    switch (plan.threads_per_row) {
      case 1: launch_lanes<1, In, Op>(input, rows, cols, output, stream); break;
      case 2: launch_lanes<2, In, Op>(input, rows, cols, output, stream); break;
      case 4: launch_lanes<4, In, Op>(input, rows, cols, output, stream); break;
      case 8: launch_lanes<8, In, Op>(input, rows, cols, output, stream); break;
      case 16: launch_lanes<16, In, Op>(input, rows, cols, output, stream); break;
      default: launch_lanes<32, In, Op>(input, rows, cols, output, stream); break;
    }
  }
  return cudaGetLastError();
}
// [/snippet:reduce_rows]

#define ROWS_INSTANTIATE(In, OP) \
  template cudaError_t reduce_rows<In, OP>(const In*, std::size_t, std::size_t, OP::Result*, Method, cudaStream_t);
#define ROWS_INSTANTIATE_OPS(In) \
  ROWS_INSTANTIATE(In, Sum) ROWS_INSTANTIATE(In, Max) ROWS_INSTANTIATE(In, ArgMax) ROWS_INSTANTIATE(In, MeanVar)
ROWS_INSTANTIATE_OPS(float)
ROWS_INSTANTIATE_OPS(__half)
ROWS_INSTANTIATE_OPS(__nv_bfloat16)
#undef ROWS_INSTANTIATE_OPS
#undef ROWS_INSTANTIATE

}  // namespace rows
