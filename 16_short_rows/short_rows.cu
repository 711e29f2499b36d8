// 16_short_rows: one thread per row, for rows of at most 128 bytes, through shared memory.
//
// What changes since 15: a group of lanes per row still reads a short row with small
// loads: a row of 8 floats is two vectors, so two lanes make one load each, and a row of 3
// floats has no whole vector. But the rows of a tile are one contiguous byte range. Here a
// block loads a tile of rows as 09 loads its array (16-byte vectors from the first aligned
// address, four in flight per thread, neighbouring threads on neighbouring vectors; the
// few elements before and after one at a time), stores it in shared memory, waits at the
// barrier, and then each thread reduces whole rows from shared memory: no shuffles, and a
// warp writes 32 neighbouring results. The operators are 15's, without the shuffles.
#include "short_rows.cuh"

#include <cuda/std/limits>

#include <climits>
#include <cstring>
#include <type_traits>

namespace short_rows {
namespace {

constexpr std::size_t kVectorBytes = 16;  // the widest load: LDG.E.128
constexpr int kVectorsInFlight = 4;       // loads a thread issues before storing any (09)
constexpr int kBlock = 256;
constexpr std::size_t kStagedBytesPerThread = kVectorsInFlight * kVectorBytes;  // 64
constexpr std::size_t kStagedBytes = kBlock * kStagedBytesPerThread;            // a tile: 16 KiB

template <typename In>
constexpr int kPerVector = int(kVectorBytes / sizeof(In));  // 4 floats, 8 halves or bfloat16s

// The elements of one 16-byte vector (as a uint4), widened to float, to x[0, kPer).
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

// 15's operators without the shuffles (ArgMax has its own loop in the kernel).
template <typename Op> struct Reducer;
template <> struct Reducer<Sum> {
  using State = float;
  __device__ static State identity() { return 0.0f; }
  __device__ static State element(float x) { return x; }
  __device__ static State combine(State a, State b) { return a + b; }
  __device__ static float result(State s) { return s; }
};
template <> struct Reducer<Max> {  // NaN propagates, as in numpy.max
  using State = float;
  __device__ static State identity() { return -cuda::std::numeric_limits<float>::infinity(); }
  __device__ static State element(float x) { return x; }
  __device__ static State combine(State a, State b) { return (a > b || a != a) ? a : b; }
  __device__ static float result(State s) { return s; }
};
// MeanVar: (n, mean, M2), merged as Chan, Golub and LeVeque do; an infinite mean merges as a
// sum (inf + x = inf, inf - inf = NaN), as numpy's mean, where the formula would give NaN (15).
template <> struct Reducer<MeanVar> {
  struct State { int count; float mean, m2; };
  __device__ static State identity() { return {0, 0.0f, 0.0f}; }
  __device__ static State element(float x) { return {1, x, x - x}; }
  __device__ static State combine(State a, State b) {
    if (b.count == 0) return a;
    if (a.count == 0) return b;
    const int n = a.count + b.count;
    const float delta = b.mean - a.mean, weight_b = float(b.count) / float(n);  // nb / n
    const float mean = isinf(a.mean) || isinf(b.mean) ? a.mean + b.mean : fmaf(delta, weight_b, a.mean);
    return {n, mean, a.m2 + b.m2 + delta * delta * (float(a.count) * weight_b)};
  }
  __device__ static MeanVariance result(State s) {
    const float nan = cuda::std::numeric_limits<float>::quiet_NaN();
    return s.count == 0 ? MeanVariance{nan, nan} : MeanVariance{s.mean, s.m2 / float(s.count)};
  }
};
template <typename Op> using StateOf = typename Reducer<Op>::State;

// The state of N values in registers: a pairwise tree; MeanVar: the mean, then M2.
template <typename Op, int N>
__device__ StateOf<Op> values_state(const float (&x)[N]) {
  if constexpr (std::is_same_v<Op, MeanVar>) {
    float squares[N];
    const float mean = values_state<Sum>(x) * (1.0f / N);
#pragma unroll
    for (int k = 0; k < N; ++k) squares[k] = (x[k] - mean) * (x[k] - mean);
    return {N, mean, values_state<Sum>(squares)};
  } else {
    StateOf<Op> states[N];
#pragma unroll
    for (int k = 0; k < N; ++k) states[k] = Reducer<Op>::element(x[k]);
#pragma unroll
    for (int width = N / 2; width > 0; width /= 2) {
#pragma unroll
      for (int k = 0; k < width; ++k) states[k] = Reducer<Op>::combine(states[k], states[k + width]);
    }
    return states[0];
  }
}

// [snippet:staged_word]
// Where word w of a tile lies in shared memory: kSpare spare words after every 64. Thread t
// reads its row at byte t * row_bytes of the tile: without spare words, rows of 16, 32, 64
// or 128 bytes would put 4 to 32 lanes of a warp in one bank (served one after another).
// With 3 per 64 (5 for rows of 122 bytes, which 3 would put 31.9 words apart: one lap of
// the banks), at most 4 lanes share a bank for every row length up to 128 bytes and every
// start, and the 32 words a warp stores fall at most 2 per bank.
__host__ __device__ constexpr unsigned staged_word(unsigned word, unsigned spare) { return word + spare * (word / 64); }
// [/snippet:staged_word]
#ifdef SHORT_ROWS_UNDO_SPARE_WORDS  // the README's step table: no spare words (CMakeLists.txt's UNDO)
constexpr unsigned kSpareWords = 0, kMaxSpareWords = 0;
#else
constexpr unsigned kSpareWords = 3, kMaxSpareWords = 5;
#endif

// The element of type In at byte `byte` of the tile, widened to float.
template <typename In, unsigned kSpare>
__device__ __forceinline__ float load_element(const unsigned* staged, unsigned byte) {
  const unsigned word = staged[staged_word(byte / 4, kSpare)];
  if constexpr (std::is_same_v<In, float>) {
    return __uint_as_float(word);
  } else {  // 16 bits: the lower half of a word comes first in memory
    const unsigned short bits = static_cast<unsigned short>((byte & 2u) ? word >> 16 : word & 0xffffu);
    if constexpr (std::is_same_v<In, __half>) {
      return __half2float(__ushort_as_half(bits));
    } else if constexpr (std::is_same_v<In, __nv_bfloat16>) {
      return __uint_as_float(unsigned(bits) << 16);
    } else {  // another 16-bit type (short, ...), converted
      In value;
      memcpy(&value, &bits, sizeof value);
      return static_cast<float>(value);
    }
  }
}

// [snippet:load_elements]
// The kPerVector<In> elements from byte `byte` on, in 4 word reads; or 5 when halves start
// mid-word (every other row of odd K): each pair is then the upper half of one word and
// the lower half of the next, which one funnel shift puts together.
template <typename In, unsigned kSpare>
__device__ __forceinline__ void load_elements(const unsigned* staged, unsigned byte, float (&x)[kPerVector<In>]) {
  const unsigned word = byte / 4;
  unsigned w[5];
#pragma unroll
  for (int i = 0; i < 4; ++i) w[i] = staged[staged_word(word + i, kSpare)];
  if (sizeof(In) == 4 || byte % 4 == 0) {
    widen<In>(uint4{w[0], w[1], w[2], w[3]}, x);
  } else {  // the fifth word's upper half, unused, may lie past the tile's last byte
    w[4] = staged[staged_word(word + 4, kSpare)];
    widen<In>(uint4{__funnelshift_r(w[0], w[1], 16), __funnelshift_r(w[1], w[2], 16), __funnelshift_r(w[2], w[3], 16),
                    __funnelshift_r(w[3], w[4], 16)},
              x);
  }
}
// [/snippet:load_elements]

// Writes one element of type In at byte `byte` of the tile.
template <typename In, unsigned kSpare>
__device__ __forceinline__ void store_element(unsigned* staged, unsigned byte, In value) {
  if constexpr (std::is_same_v<In, float>) {
    staged[staged_word(byte / 4, kSpare)] = __float_as_uint(value);
  } else {
    unsigned short bits;
    memcpy(&bits, &value, sizeof bits);
    reinterpret_cast<unsigned short*>(staged)[2 * staged_word(byte / 4, kSpare) + (byte & 2u) / 2] = bits;
  }
}

// [snippet:staged_rows]
// One thread per row, through shared memory, a tile of tile_rows rows at a time (thread t
// takes rows t, t + kBlock, ... of the tile). kWholeVectors: the rows hold at least a
// vector's worth of elements; shorter rows (K < 4 floats, K < 8 halves) get a kernel
// without that loop, which needs fewer registers. kSpare: the spare words per 64, a constant so that the
// compiler folds staged_word's multiply into every shared-memory address.
template <typename In, typename Op, bool kWholeVectors, unsigned kSpare>
__global__ void __launch_bounds__(kBlock)
    staged_rows(const In* __restrict__ input, std::size_t rows, std::size_t cols, unsigned tile_rows,
                typename Op::Result* __restrict__ output) {
  constexpr int kPer = kPerVector<In>;
  __shared__ unsigned staged[staged_word(kStagedBytes / 4 + 4, kSpare) + 1];  // 16 spare bytes in front
  const std::size_t row_bytes = cols * sizeof(In);
  const unsigned rows_per_thread = (tile_rows + kBlock - 1) / kBlock;  // 1 for rows over 64 bytes
  const unsigned char* matrix = reinterpret_cast<const unsigned char*>(input);
  for (std::size_t first = std::size_t(blockIdx.x) * tile_rows; first < rows;
       first += std::size_t(gridDim.x) * tile_rows) {
    const std::size_t tile_count = rows - first < tile_rows ? rows - first : tile_rows;
    // The tile's bytes [begin, end); `staged` starts at the aligned address at or below begin.
    const std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(matrix + first * row_bytes);
    const std::uintptr_t end = begin + tile_count * row_bytes;
    const std::uintptr_t staged_from = begin / kVectorBytes * kVectorBytes;
    const std::uintptr_t aligned_up = (begin + kVectorBytes - 1) / kVectorBytes * kVectorBytes;
    const std::uintptr_t head_end = aligned_up < end ? aligned_up : end;  // the elements before the vectors
    const std::uintptr_t aligned_end = end / kVectorBytes * kVectorBytes;
    const std::uintptr_t vectors_end = aligned_end > head_end ? aligned_end : head_end;
    const std::size_t vector_count = (vectors_end - head_end) / kVectorBytes;  // at most kStagedBytes / 16
    const unsigned vectors_at = unsigned(head_end - staged_from) / 4;          // 0 or 4: in words

    uint4 loaded[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) {  // all loads first
      const std::size_t v = threadIdx.x + std::size_t(k) * kBlock;
      if (v < vector_count) loaded[k] = __ldg(reinterpret_cast<const uint4*>(head_end) + v);
    }
    // Head and tail hold fewer than kPer elements each: thread t < kPer takes element t.
    const std::size_t head_elements = (head_end - begin) / sizeof(In), tail_elements = (end - vectors_end) / sizeof(In);
    if (threadIdx.x < head_elements) {
      const std::uintptr_t at = begin + threadIdx.x * sizeof(In);
      store_element<In, kSpare>(staged, unsigned(at - staged_from), __ldg(reinterpret_cast<const In*>(at)));
    }
    if (threadIdx.x < tail_elements) {
      const std::uintptr_t at = vectors_end + threadIdx.x * sizeof(In);
      store_element<In, kSpare>(staged, unsigned(at - staged_from), __ldg(reinterpret_cast<const In*>(at)));
    }
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) {  // then the vectors, word by word
      const std::size_t v = threadIdx.x + std::size_t(k) * kBlock;
      if (v < vector_count) {
        const unsigned word = vectors_at + unsigned(v) * 4;
        staged[staged_word(word, kSpare)] = loaded[k].x;
        staged[staged_word(word + 1, kSpare)] = loaded[k].y;
        staged[staged_word(word + 2, kSpare)] = loaded[k].z;
        staged[staged_word(word + 3, kSpare)] = loaded[k].w;
      }
    }
    __syncthreads();  // the whole tile is in shared memory before any thread reads a row

    for (unsigned p = 0; p < rows_per_thread; ++p) {
      const unsigned row = threadIdx.x + p * kBlock;  // within the tile
      if (row >= tile_count) break;
      const unsigned row_at = unsigned(begin - staged_from) + row * unsigned(row_bytes);  // its byte in `staged`
      unsigned column = 0;
      if constexpr (std::is_same_v<Op, ArgMax>) {  // one compare per element: the first maximum's column
        float best = -cuda::std::numeric_limits<float>::infinity();
        int best_column = -1;  // {-inf, -1} for a row of no columns
        auto consider = [&](float x, unsigned c) {
          if (best_column < 0 || x > best || (x != x && best == best)) best = x, best_column = int(c);  // or first NaN
        };
        for (; kWholeVectors && column + kPer <= cols; column += kPer) {
          float x[kPer];
          load_elements<In, kSpare>(staged, row_at + column * unsigned(sizeof(In)), x);
#pragma unroll
          for (int j = 0; j < kPer; ++j) consider(x[j], column + j);
        }
        for (; column < cols; ++column) {
          consider(load_element<In, kSpare>(staged, row_at + column * unsigned(sizeof(In))), column);
        }
        output[first + row] = {best, best_column};
      } else {
        StateOf<Op> state = Reducer<Op>::identity();
        for (; kWholeVectors && column + kPer <= cols; column += kPer) {  // a vector's worth at once
          float x[kPer];
          load_elements<In, kSpare>(staged, row_at + column * unsigned(sizeof(In)), x);
          state = Reducer<Op>::combine(state, values_state<Op>(x));
        }
        for (; column < cols; ++column) {  // the rest, one by one
          const float x = load_element<In, kSpare>(staged, row_at + column * unsigned(sizeof(In)));
          state = Reducer<Op>::combine(state, Reducer<Op>::element(x));
        }
        output[first + row] = Reducer<Op>::result(state);
      }
    }
    __syncthreads();  // every thread is done reading the tile before the next one is written
  }
}
// [/snippet:staged_rows]

}  // namespace

// [snippet:plan_rows]
Plan plan_rows(std::size_t cols, std::size_t element_bytes) {
  const std::size_t row_bytes = cols * (element_bytes == 2 ? 2 : 4);
  const int rows_per_thread = int(kStagedBytesPerThread / (row_bytes > 2 ? row_bytes : 2));
  if (row_bytes > kStagedBytesPerThread) return {1, kStagedBytes / row_bytes};  // as many rows as fit
  return {rows_per_thread, std::size_t(kBlock) * rows_per_thread};
}
// [/snippet:plan_rows]

// [snippet:reduce_rows]
template <typename In, typename Op>
cudaError_t reduce_rows(const In* input, std::size_t rows, std::size_t cols, typename Op::Result* output,
                        cudaStream_t stream) {
  if (cols * sizeof(In) > kMaxRowBytes) return cudaErrorInvalidValue;  // longer rows: 15's or 14's unit
  if (rows == 0) return cudaSuccess;
  if (output == nullptr || reinterpret_cast<std::uintptr_t>(output) % alignof(typename Op::Result) != 0 ||
      (cols != 0 && (input == nullptr || rows > SIZE_MAX / sizeof(In) / cols)) ||
      reinterpret_cast<std::uintptr_t>(input) % alignof(In) != 0) {
    return cudaErrorInvalidValue;
  }
  const std::size_t tile_rows = plan_rows(cols, sizeof(In)).tile_rows;
  const std::size_t tiles = (rows + tile_rows - 1) / tile_rows;
  const unsigned grid = unsigned(tiles < INT_MAX ? tiles : INT_MAX), tile = unsigned(tile_rows);  // loops past it
  if (cols < std::size_t(kPerVector<In>)) {  // never 122 bytes
    staged_rows<In, Op, false, kSpareWords><<<grid, kBlock, 0, stream>>>(input, rows, cols, tile, output);
  } else if (cols * sizeof(In) != 122) {
    staged_rows<In, Op, true, kSpareWords><<<grid, kBlock, 0, stream>>>(input, rows, cols, tile, output);
  } else {
    staged_rows<In, Op, true, kMaxSpareWords><<<grid, kBlock, 0, stream>>>(input, rows, cols, tile, output);
  }
  return cudaGetLastError();
}
// [/snippet:reduce_rows]

}  // namespace short_rows

// Every operator for input type In, at global scope: the line to add for another type.
#define SHORT_ROWS_INSTANTIATE_OP(In, Op) template cudaError_t short_rows::reduce_rows<In, short_rows::Op>( \
    const In*, std::size_t, std::size_t, short_rows::Op::Result*, cudaStream_t);
#define SHORT_ROWS_INSTANTIATE(In) SHORT_ROWS_INSTANTIATE_OP(In, Sum) SHORT_ROWS_INSTANTIATE_OP(In, Max) \
    SHORT_ROWS_INSTANTIATE_OP(In, ArgMax) SHORT_ROWS_INSTANTIATE_OP(In, MeanVar)
SHORT_ROWS_INSTANTIATE(float) SHORT_ROWS_INSTANTIATE(__half) SHORT_ROWS_INSTANTIATE(__nv_bfloat16)
