// 19_ragged_segments: segments of any lengths, balanced by construction. What changes since 18: 18 gives a
// row a whole number of blocks, which needs rows of one length. Here the lengths come from CSR offsets and
// may be anything (millions of 1..8 beside one of n/2), so no split by segments balances the work. Merge
// path does (Merrill and Garland's SpMV): merge the n elements with the segment ends into one path of
// n + segments items (an end comes after every element before it) and give every block the same number of
// path items, 4096. A first kernel, one thread per tile boundary, finds where each boundary crosses the
// path (a binary search of the offsets on its diagonal), so a tile reads its corners with two loads
// (CUB's merge-based DeviceSpmv did the same). Inside the tile each thread walks 16 items, closing segments as
// it meets their ends (in a tile of few ends, its 16 elements from its registers); a segmented scan
// of the threads' carries (by segment) completes the segments cut between threads. Segments cut between tiles: 18's per-row ticket, per segment. Every tile holding a
// piece of one stores it and draws a ticket kept at the tile where the segment begins; the tile that draws
// the last combines the pieces. No last block: the pieces of different segments are combined at once.
#include "ragged_segments.cuh"
#include <cuda/atomic>
#include <cuda/std/limits>
#include <climits>
#include <cstring>
#include <type_traits>

namespace ragged_segments {
namespace {
constexpr unsigned kWarpSize = 32, kFullMask = 0xffffffffu;
constexpr int kBlock = 256;                        // threads per block
constexpr int kWarps = kBlock / kWarpSize;         // 8
constexpr int kItemsPerThread = 16;                // path items one thread walks
constexpr int kTile = kBlock * kItemsPerThread;    // path items per block: 4096
constexpr int kStaged = kTile + kTile / kWarpSize; // the tile's staging words: its items, a spare word per 32
constexpr std::size_t kVectorBytes = 16;           // the widest load
constexpr std::size_t kPieceBytes = 16;            // a piece's slot in scratch: any state fits
constexpr int kPiecesInFlight = 8;                 // loads a thread issues before combining a cut segment's pieces
                                                   // (a segment over at most 8 tiles: its last drawer alone)
constexpr long long kNoIndex = LLONG_MAX;          // ArgMax's identity index: loses every tie
template <typename In> constexpr int kPerVector = int(kVectorBytes / sizeof(In));  // 4 floats, 8 halves

// One element widened to float (half and bfloat16 are exact in float).
template <typename In> __device__ __forceinline__ float widen(In x) { return static_cast<float>(x); }

// The operators' states (18's, with a 64-bit index and count: n may pass 2^31).
template <typename Op> struct Reducer;
template <> struct Reducer<Sum> {
  using State = float;
  __device__ static State identity() { return 0.0f; }
  __device__ static State element(float x, long long /*index*/) { return x; }
  __device__ static State combine(State a, State b) { return a + b; }
  __device__ static float result(State s, long long /*start*/) { return s; }
};
template <> struct Reducer<Max> {  // NaN propagates, as in numpy.max: a NaN on either side is kept
  using State = float;
  __device__ static State identity() { return -cuda::std::numeric_limits<float>::infinity(); }
  __device__ static State element(float x, long long /*index*/) { return x; }
  __device__ static State combine(State a, State b) { return (a > b || a != a) ? a : b; }
  __device__ static float result(State s, long long /*start*/) { return s; }
};
// ArgMax: NaN above every number, then the larger value, then the smaller index (14). The index is the
// element's in the whole input; result() makes it the segment's (start: the segment's first element).
template <> struct Reducer<ArgMax> {
  struct State { float value; long long index; };
  __device__ static State identity() { return {-cuda::std::numeric_limits<float>::infinity(), kNoIndex}; }
  __device__ static State element(float x, long long index) { return {x, index}; }
  __device__ static State combine(State a, State b) {
    const bool a_nan = a.value != a.value, b_nan = b.value != b.value;
    const bool b_wins = (b_nan || a_nan) ? b_nan && (!a_nan || b.index < a.index)
                                         : b.value > a.value || (b.value == a.value && b.index < a.index);
    return b_wins ? b : a;
  }
  __device__ static ValueIndex result(State s, long long start) {
    const long long in_segment = s.index - start;  // -1: empty, or no int32 index (documented in the header)
    return {s.value, s.index == kNoIndex || in_segment > INT_MAX ? -1 : int(in_segment)};
  }
};
// MeanVar: (n, mean, M2), Chan et al.'s merge; an infinite mean merges as a sum, as numpy's (14).
template <> struct Reducer<MeanVar> {
  struct State { long long count; float mean, m2; };
  __device__ static State identity() { return {0, 0.0f, 0.0f}; }
  __device__ static State element(float x, long long /*index*/) { return {1, x, x - x}; }
  __device__ static State combine(State a, State b) {
    if (b.count == 0) return a;  // the identity changes nothing (and n = 0 would divide by 0)
    if (a.count == 0) return b;
    const long long n = a.count + b.count;
    const float delta = b.mean - a.mean, weight_b = float(b.count) / float(n);  // nb / n
    const float mean = isinf(a.mean) || isinf(b.mean) ? a.mean + b.mean : fmaf(delta, weight_b, a.mean);
    return {n, mean, a.m2 + b.m2 + delta * delta * (float(a.count) * weight_b)};
  }
  // N elements of one segment in two passes, with no division: the mean (each element scaled by 1 / N first,
  // exact for a power of two, so that no sum overflows where the mean does not), then the squared deviations.
  template <int N> __device__ static State run(const float (&x)[N]) {
    float mean = 0.0f, m2 = 0.0f;
#pragma unroll
    for (int i = 0; i < N; ++i) mean += x[i] * (1.0f / N);
#pragma unroll
    for (int i = 0; i < N; ++i) m2 = fmaf(x[i] - mean, x[i] - mean, m2);
    return {N, mean, m2};
  }
  __device__ static MeanVariance result(State s, long long /*start*/) {
    const float nan = cuda::std::numeric_limits<float>::quiet_NaN();
    return s.count == 0 ? MeanVariance{nan, nan} : MeanVariance{s.mean, s.m2 / float(s.count)};
  }
};
template <typename Op> using StateOf = typename Reducer<Op>::State;
// The state of a run of N elements of one segment (x[0] has index first): an element() and a combine() each,
// but MeanVar's, whose combine() divides: its run(), two passes with no division.
template <typename Op, int N> __device__ StateOf<Op> run_of(const float (&x)[N], long long first) {
  if constexpr (std::is_same_v<Op, MeanVar>) return Reducer<MeanVar>::run(x);
  StateOf<Op> s = Reducer<Op>::element(x[0], first);
#pragma unroll
  for (int i = 1; i < N; ++i) s = Reducer<Op>::combine(s, Reducer<Op>::element(x[i], first + i));
  return s;
}
// A tile with at most this many ends is reduced from its registers, not staged and walked (step 3): Sum and
// Max up to 128 ends; ArgMax and MeanVar, whose register path was the slower once ends fall among the
// elements, only a tile of no end. The bench's second build (bench/staged.cu) stages every tile: the README's
// step table.
#ifdef RAGGED_SEGMENTS_STAGED_ONLY
template <typename Op> constexpr int kFewEnds = -1;
#else
template <typename Op> constexpr int kFewEnds = std::is_same_v<Op, Sum> || std::is_same_v<Op, Max> ? 128 : 0;
#endif
// Blocks of 256 an SM must hold: registers 65536 / (256 x blocks), the most ptxas (sm_90, CUDA 13.0) fits
// without a spill: 6 (40 registers) for Max, 5 (48) for Sum and ArgMax, 4 (64) for MeanVar's 16-byte state.
// 8 (32) spills for all four.
// Where an SM holds 2048 threads (sm_80, sm_90, sm_100, sm_103, as 12); 1 elsewhere (an SM of 1024 or 1536
// threads: more would be ignored, with a warning).
#if __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000 || __CUDA_ARCH__ == 1030
template <typename Op> constexpr int kMinBlocks = std::is_same_v<Op, Max> ? 6 : std::is_same_v<Op, MeanVar> ? 4 : 5;
#else
template <typename Op> constexpr int kMinBlocks = 1;
#endif

// A piece of one segment: the segment's key (its end's index in the tile) and the state of its elements.
template <typename Op> struct Carry { int key; StateOf<Op> state; };
static_assert(sizeof(StateOf<MeanVar>) <= kPieceBytes && sizeof(StateOf<ArgMax>) <= kPieceBytes, "pieces fit");

// Any trivially copyable value through a shuffle, 4 bytes at a time: from `delta` lanes below (up) or
// from lane `source` (from).
template <bool kUp, typename T>
__device__ T shuffle(const T& value, unsigned lane_or_delta) {
  static_assert(sizeof(T) % 4 == 0, "whole words");
  unsigned words[sizeof(T) / 4];
  memcpy(words, &value, sizeof(T));
#pragma unroll
  for (int w = 0; w < int(sizeof(T) / 4); ++w) {
    words[w] = kUp ? __shfl_up_sync(kFullMask, words[w], lane_or_delta) : __shfl_sync(kFullMask, words[w], lane_or_delta);
  }
  T out;
  memcpy(&out, words, sizeof(T));
  return out;
}
template <typename T> __device__ T shuffle_up(const T& value, unsigned delta) { return shuffle<true>(value, delta); }
template <typename T> __device__ T shuffle_from(const T& value, unsigned source) { return shuffle<false>(value, source); }

// Inclusive segmented scan over the warp: lane l gets the combination of the lanes up to l that hold
// its key. The keys never decrease from lane to lane, so a lower lane with the same key has combined
// only lanes of that key: 5 steps (Kogge-Stone), each a combine in the order of the lanes.
template <typename Op>
__device__ Carry<Op> warp_scan_by_key(Carry<Op> carry) {
  const unsigned lane = threadIdx.x % kWarpSize;
#pragma unroll
  for (unsigned offset = 1; offset < kWarpSize; offset *= 2) {
    const Carry<Op> lower = shuffle_up(carry, offset);
    if (lane >= offset && lower.key == carry.key) carry.state = Reducer<Op>::combine(lower.state, carry.state);
  }
  return carry;
}

// The offset of segment i, clamped into [0, n]: bad offsets never send a load out of bounds.
template <typename Offset>
__device__ __forceinline__ long long offset_at(const Offset* offsets, std::size_t i, long long n) {
  const long long o = static_cast<long long>(offsets[i]);
  return o < 0 ? 0 : o > n ? n : o;
}

// Padded slot of the tile's element e: a spare word per 32, so that threads reading 16 apart in a warp
// (a thread's walk starts about 16 elements after its neighbour's) hit 32 different banks.
__device__ __forceinline__ int padded(int e) { return e + e / int(kWarpSize); }

// The block's states combined in thread order, as a tree: at each step lane l takes lane l + offset's state
// on its right (the wrapped shuffles of the top lanes are dropped), then warp 0 does the same over the 8
// warps' totals. Thread 0 gets the result; a __syncthreads() between calls (warp_states).
template <typename Op>
__device__ StateOf<Op> block_reduce_in_order(StateOf<Op> state, StateOf<Op>* warp_states) {
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  auto warp_reduce = [lane](StateOf<Op> s) {
#pragma unroll
    for (unsigned offset = kWarpSize / 2; offset > 0; offset /= 2) {
      const StateOf<Op> right = shuffle_from(s, lane + offset);
      if (lane + offset < kWarpSize) s = Reducer<Op>::combine(s, right);
    }
    return s;
  };
  state = warp_reduce(state);
  if (lane == 0) warp_states[warp] = state;
  __syncthreads();  // every warp's total is written before warp 0 reads them
  if (warp == 0) state = warp_reduce(lane < unsigned(kWarps) ? warp_states[lane] : Reducer<Op>::identity());
  return state;
}

// [snippet:partition]
// The merge-path search: the point where `diagonal` (a number of path items) crosses the path, as
// (ends taken, elements taken). End k (k < ends) sorts before element j iff end(k) <= j, so the answer is
// the fewest ends such that the next end lies past the elements taken. end(k) is a functor.
template <typename End>
__device__ void diagonal_search(long long diagonal, long long ends, long long elements, End end,
                                long long* ends_taken, long long* elements_taken) {
  long long low = diagonal > elements ? diagonal - elements : 0, high = diagonal < ends ? diagonal : ends;
  while (low < high) {
    const long long middle = low + (high - low) / 2;
    if (end(middle) <= diagonal - middle - 1) low = middle + 1; else high = middle;
  }
  *ends_taken = low, *elements_taken = diagonal - low;
}

// The partition: thread b finds where tile boundary b (path item b x 4096, the path's end for the last)
// crosses the path and writes the ends taken there to coordinates[b] (the elements taken: the diagonal less
// them). tiles + 1 boundaries, one thread each: every tile's search runs at once, none in the tiles.
template <typename Offset>
__global__ void __launch_bounds__(kBlock)
    ragged_partition(const Offset* __restrict__ offsets, long long n, long long segments, long long tiles,
                     long long* __restrict__ coordinates) {
  const long long boundary = (long long)blockIdx.x * kBlock + threadIdx.x, path = n + segments;
  if (boundary > tiles) return;
  long long ends_taken, elements_taken;
  diagonal_search(min(boundary * kTile, path), segments, n,
                  [&](long long k) { return offset_at(offsets, std::size_t(k) + 1, n); }, &ends_taken, &elements_taken);
  coordinates[boundary] = ends_taken;
}
// [/snippet:partition]

// Block b: path items [b x 4096, (b + 1) x 4096). Segments that begin and end in the tile: written here.
// A segment whose items span several tiles is *cut*; its *owner* is the tile of its first item (its first
// element, or its end when empty: item offsets[s] + s), its last tile the one of its end (item
// offsets[s + 1] + s). Each of those tiles stores its piece of the segment (the owner in opening[owner],
// the others in continuing[tile]) and draws a ticket from counters[owner]; the tile that draws the last
// one combines the pieces. A tile holds at most two such pieces: the segment open at its start (begun
// before it) and the segment open at its end (begun in it); they may be one segment only if it begins
// exactly at the tile's first item.
// Three __syncthreads a tile (five before the partition kernel): the tile staged before the walks read
// it; the warps' totals written before every warp scans them; the long cut segments to combine written
// before the block reads them (step 6, which adds two more when it runs: a segment over more than 8 tiles).
template <typename In, typename Offset, typename Op>
__global__ void __launch_bounds__(kBlock, kMinBlocks<Op>)
    ragged_tiles(const In* __restrict__ input, long long n, const Offset* __restrict__ offsets, long long segments,
                 typename Op::Result* __restrict__ output, unsigned* counters, StateOf<Op>* opening,
                 StateOf<Op>* continuing, const long long* __restrict__ coordinates) {
  using R = Reducer<Op>;
  union Word { float element; int end; };
  __shared__ Word staged[kStaged];  // the tile's elements, widened, from the bottom (padded); its ends at the top
  __shared__ Carry<Op> warp_totals[kWarps];
  __shared__ StateOf<Op> warp_states[kWarps];
  __shared__ long long to_combine[2];  // the cut segments whose last ticket this tile drew (over 8 tiles), or -1

  // 1. The tile's corners on the path, from the partition: (first end, first element), (last end, last element).
  const long long path = segments + n, first_item = (long long)blockIdx.x * kTile;
  const long long first_end = __ldg(coordinates + blockIdx.x), last_end = __ldg(coordinates + blockIdx.x + 1);
  const long long first_element = first_item - first_end, last_element = min(first_item + kTile, path) - last_end;
  // Clamped so that bad offsets cannot overflow the staging words (good ones never need it).
  const int tile_ends = int(min(max(last_end - first_end, 0LL), (long long)kTile));
  const int tile_elements = int(min(max(last_element - first_element, 0LL), (long long)(kTile - tile_ends)));
  Word* const ends = staged + (kStaged - tile_ends);  // past the elements: padded(tile_elements) + tile_ends <= kStaged

  // 2. Load the tile: its ends into shared memory (coalesced; end k from the tile's first element), and its
  //    elements into registers, thread t the 16 after the unaligned head, [head + 16t, head + 16t + 16), in
  //    16-byte loads (all issued first). A tile of many ends also stages its elements for merge path (step 3).
  auto global_end = [&](long long k) { return offset_at(offsets, std::size_t(k) + 1, n); };
  for (int k = threadIdx.x; k < tile_ends; k += kBlock) {
    const long long end = global_end(first_end + k) - first_element;
    ends[k].end = int(end < 0 ? 0 : end > tile_elements ? tile_elements : end);
  }
  const In* tile_input = input + first_element;
  const int misaligned = int(reinterpret_cast<std::uintptr_t>(tile_input) % kVectorBytes);
  const int head_elements = misaligned ? int(kVectorBytes - misaligned) / int(sizeof(In)) : 0;
  const int head = min(head_elements, tile_elements);
  const int vectors = (tile_elements - head) / kPerVector<In>, tail = head + vectors * kPerVector<In>;
  const uint4* tile_vectors = reinterpret_cast<const uint4*>(tile_input + head);
  constexpr int kLoads = kItemsPerThread / kPerVector<In>;  // a thread's vectors: 4 of floats, 2 of halves
  static_assert(kLoads * kPerVector<In> == kItemsPerThread, "a thread's elements are whole vectors");
  const int my_vectors = int(threadIdx.x) * kLoads;  // the first of them
  uint4 bits[kLoads];
#pragma unroll
  for (int i = 0; i < kLoads; ++i) {
    if (my_vectors + i < vectors) bits[i] = __ldg(tile_vectors + my_vectors + i);
  }
  const bool few_ends = tile_ends <= kFewEnds<Op>;  // the same for the whole block
  if (!few_ends) {
#pragma unroll
    for (int i = 0; i < kLoads; ++i) {
      const int v = my_vectors + i;
      if (v >= vectors) break;
      In x[kPerVector<In>];
      memcpy(x, &bits[i], sizeof bits[i]);
#pragma unroll
      for (int k = 0; k < kPerVector<In>; ++k) staged[padded(head + v * kPerVector<In> + k)].element = widen(x[k]);
    }
    if (threadIdx.x < head) staged[padded(threadIdx.x)].element = widen(__ldg(tile_input + threadIdx.x));
    if (tail + int(threadIdx.x) < tile_elements) {
      staged[padded(tail + threadIdx.x)].element = widen(__ldg(tile_input + tail + threadIdx.x));
    }
  }
  if (threadIdx.x == 0) to_combine[0] = to_combine[1] = -1;  // until a thread draws a long segment's last ticket
  __syncthreads();  // 1 of 3: the tile is staged before any thread walks it

  // [snippet:tile_walk]
  // 3. Each thread walks its part of the tile: an element joins the open segment's state; an end closes that
  //    segment. The first segment it closes may have begun before the thread (it waits for the scan); later
  //    ones lie wholly in its part and are written now. Keys are the ends' indices in the tile (segment
  //    first_end + key); e, the next end, makes the thread's carry key.
  StateOf<Op> state = R::identity(), first_closed = R::identity();
  int first_closed_key = -1;  // -1: this thread closes none
  int e = 0;
  auto close = [&]() {
    if (first_closed_key < 0) {
      first_closed_key = e, first_closed = state;
    } else {
      const long long key = first_end + e;
      output[key] = R::result(state, std::is_same_v<Op, ArgMax> ? offset_at(offsets, key, n) : 0);
    }
    state = R::identity();
    ++e;
  };
  if (few_ends) {
    // Few ends (most tiles of long segments): thread t takes its own elements from its registers (thread 0
    // also the head's, the thread where the tail falls also the tail's) and the ends before them, found by
    // one short search; the thread of the tile's last element also the ends after it. A thread whose 16
    // elements hold no end adds them with no test at all.
    const int t = threadIdx.x, first = head + t * kItemsPerThread;  // its first element from the registers
    const int last_owner = tile_elements - 1 < head ? 0 : (tile_elements - 1 - head) / kItemsPerThread;
    int low = 0, high = t > last_owner ? 0 : tile_ends;  // the first end at or after its first element (thread 0: 0)
    const int from = t == 0 ? 0 : first;
    while (low < high) {
      const int middle = (low + high) / 2;
      if (ends[middle].end < from) low = middle + 1; else high = middle;
    }
    e = t > last_owner ? tile_ends : low;  // past the last element: every end closed before, the carry-out's key
    int next = e < tile_ends ? ends[e].end : INT_MAX;
    // The test-free loop only where the whole warp takes it: a warp split between the two loops would run both.
    const bool clear = t > last_owner || (next >= first + kItemsPerThread && my_vectors + kLoads <= vectors);
    const bool warp_clear = __all_sync(kFullMask, clear);
    auto step = [&](float x, int j) {  // element j of the tile, after the ends before it (empty segments too)
      while (next <= j) {
        close();
        next = e < tile_ends ? ends[e].end : INT_MAX;
      }
      state = R::combine(state, R::element(x, first_element + j));
    };
    if (t <= last_owner) {
      if (t == 0) {
#pragma unroll
        for (int i = 0; i < kPerVector<In> - 1; ++i) if (i < head) step(widen(__ldg(tile_input + i)), i);
      }
      if (warp_clear) {  // its 16 elements are one run of one segment: reduced at once, then joined
        float run[kItemsPerThread];
#pragma unroll
        for (int i = 0; i < kLoads; ++i) {
          In x[kPerVector<In>];
          memcpy(x, &bits[i], sizeof bits[i]);
#pragma unroll
          for (int k = 0; k < kPerVector<In>; ++k) run[i * kPerVector<In> + k] = widen(x[k]);
        }
        state = R::combine(state, run_of<Op>(run, first_element + first));
      } else {
#pragma unroll
        for (int i = 0; i < kLoads; ++i) {
          if (my_vectors + i >= vectors) break;
          In x[kPerVector<In>];
          memcpy(x, &bits[i], sizeof bits[i]);
#pragma unroll
          for (int k = 0; k < kPerVector<In>; ++k) step(widen(x[k]), first + i * kPerVector<In> + k);
        }
      }
      if (t == vectors / kLoads) {  // the tail's thread: its elements follow this thread's last vector
#pragma unroll
        for (int i = 0; i < kPerVector<In> - 1; ++i) {
          if (tail + i < tile_elements) step(widen(__ldg(tile_input + tail + i)), tail + i);
        }
      }
      if (t == last_owner) {
        while (e < tile_ends) close();  // the ends after the tile's last element (every one left)
      }
    }
  } else {
    // Many ends: merge path inside the tile, 16 items (elements or ends) a thread from its own diagonal.
    const int tile_items = tile_ends + tile_elements;
    const int diagonal = min(int(threadIdx.x) * kItemsPerThread, tile_items);
    long long taken_ends, taken_elements;
    diagonal_search(diagonal, tile_ends, tile_elements, [&](long long k) { return ends[k].end; }, &taken_ends,
                    &taken_elements);
    e = int(taken_ends);
    int j = int(taken_elements);                       // the next element
    int next = e < tile_ends ? ends[e].end : INT_MAX;  // and where the next end falls, kept in a register
#pragma unroll
    for (int item = 0; item < kItemsPerThread; ++item) {
      if (diagonal + item >= tile_items) break;
      if (next <= j) {  // the end of segment first_end + e
        close();
        next = e < tile_ends ? ends[e].end : INT_MAX;
      } else {  // element j of the tile
        state = R::combine(state, R::element(staged[padded(j)].element, first_element + j));
        ++j;
      }
    }
  }

  // [/snippet:tile_walk]

  // 4. The threads' carries (the segment open at each thread's end) scanned by key: in the warp, then the
  //    warps' totals (every warp scans the 8 totals itself: no second barrier), then the warp's prefix.
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  Carry<Op> inclusive = warp_scan_by_key<Op>(Carry<Op>{e, state});
  if (lane == kWarpSize - 1) warp_totals[warp] = inclusive;
  __syncthreads();  // 2 of 3: the warps' totals are written before any warp reads them
  Carry<Op> total = lane < kWarps ? warp_totals[lane] : Carry<Op>{INT_MAX, R::identity()};
  total = warp_scan_by_key<Op>(total);  // lane w: the warps up to w, by key
  const Carry<Op> before_warp = shuffle_from(total, warp > 0 ? warp - 1 : 0);  // the warps before this one
  if (warp > 0 && before_warp.key == inclusive.key) inclusive.state = R::combine(before_warp.state, inclusive.state);
  Carry<Op> before_me = shuffle_up(inclusive, 1);  // the threads before this one (key -1: none)
  if (lane == 0) before_me = warp > 0 ? before_warp : Carry<Op>{-1, R::identity()};

  // 5. The cut segments' pieces and tickets. The thread that closes the tile's first end finishes that
  //    segment (lead) or stores its piece when it began in an earlier tile; thread 255 holds the tile's
  //    carry-out (the segment open at its end, trail): the lead's piece when the tile has no end, and the
  //    trail's first piece when it begins here. The last drawer of a segment over at most 8 tiles combines
  //    its pieces alone (owner first, 8 loads in flight); a longer one is left to the block (step 6).
  auto first_tile = [&](long long s) { return (offset_at(offsets, s, n) + s) / kTile; };    // the owner
  auto last_tile = [&](long long s) { return (offset_at(offsets, s + 1, n) + s) / kTile; };  // the tile of its end
  const long long tile = blockIdx.x;
  auto begun_before = [&](long long s) { return s < segments && first_tile(s) < tile && tile <= last_tile(s); };
  // [snippet:settle]
  auto settle = [&](long long s) -> long long {  // 18's ticket, one per cut segment, kept at its owner
    const long long owner = first_tile(s), covered = last_tile(s) - owner + 1;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> ticket(counters[owner]);
    // Release: the piece stored before is visible to any thread of the device that acquires this counter.
    // Acquire: if this tile draws the last ticket, its reads of the pieces see what every other tile released.
    if (ticket.fetch_add(1, cuda::memory_order_acq_rel) != covered - 1) return -1;
    ticket.store(0, cuda::memory_order_relaxed);  // every other tile has drawn: 0 for the next call
    if (covered > kPiecesInFlight) return s;  // for the block (plain loads below, not __ldg: written in this launch)
    StateOf<Op> loaded[kPiecesInFlight];
#pragma unroll
    for (int q = 0; q < kPiecesInFlight; ++q) loaded[q] = q >= covered ? R::identity() : q == 0 ? opening[owner] : continuing[owner + q];
    StateOf<Op> combined = loaded[0];
#pragma unroll
    for (int q = 1; q < kPiecesInFlight; ++q) if (q < covered) combined = R::combine(combined, loaded[q]);
    output[s] = R::result(combined, std::is_same_v<Op, ArgMax> ? offset_at(offsets, s, n) : 0);
    return -1;
  };
  // [/snippet:settle]
  if (first_closed_key >= 0) {  // complete in this tile now: the threads before it hold the rest
    // before_me.key is the segment open where this thread starts: the one it closes first.
    const StateOf<Op> closed = before_me.key == first_closed_key ? R::combine(before_me.state, first_closed)
                                                                 : first_closed;
    const long long key = first_end + first_closed_key;
    if (first_closed_key == 0 && begun_before(key)) {  // the lead, begun in an earlier tile: ends here
      continuing[tile] = closed;
      to_combine[0] = settle(key);
    } else {
      output[key] = R::result(closed, std::is_same_v<Op, ArgMax> ? offset_at(offsets, key, n) : 0);
    }
  }
  if (threadIdx.x == kBlock - 1) {
    const long long lead = first_end, trail = first_end + inclusive.key;  // open at the tile's start, at its end
    if (tile_ends == 0 && begun_before(lead)) {  // the lead spans the tile
      continuing[tile] = inclusive.state;
      to_combine[0] = settle(lead);
    }
    if (trail < segments && first_tile(trail) == tile && last_tile(trail) > tile) {  // begun here, goes on
      opening[tile] = inclusive.state;
      to_combine[1] = settle(trail);
    }
  }
  __syncthreads();  // 3 of 3: to_combine is written, and carries the drawers' acquire to the block's threads

  // 6. The tile that drew the last ticket of a segment over more than 8 tiles combines its pieces, owner
  //    first, in a fixed order: thread t the pieces t, t + 256, ... (8 loads issued first), then the
  //    block's tree in thread order. (ArgMax's ties go to the smaller index whatever the order.)
  for (int k = 0; k < 2; ++k) {
    const long long s = to_combine[k];
    if (s < 0) continue;  // the same for the whole block
    const long long owner = first_tile(s), covered = last_tile(s) - owner + 1;
    StateOf<Op> state = R::identity();
    for (long long p = threadIdx.x; p < covered; p += kPiecesInFlight * kBlock) {
      StateOf<Op> loaded[kPiecesInFlight];
#pragma unroll
      for (int i = 0; i < kPiecesInFlight; ++i) {
        const long long q = p + i * kBlock;
        loaded[i] = q >= covered ? R::identity() : q == 0 ? opening[owner] : continuing[owner + q];
      }
#pragma unroll
      for (int i = 0; i < kPiecesInFlight; ++i) state = R::combine(state, loaded[i]);
    }
    state = block_reduce_in_order<Op>(state, warp_states);
    if (threadIdx.x == 0) output[s] = R::result(state, std::is_same_v<Op, ArgMax> ? offset_at(offsets, s, n) : 0);
    __syncthreads();  // warp 0 is done with warp_states before the next segment's tree
  }
}

constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }
constexpr std::size_t kMaxPath = std::size_t(INT_MAX) * kTile;  // a block per tile, at most INT_MAX blocks
// Scratch: the counters (4 bytes a tile), then opening and continuing from 16-byte boundaries, then the
// partition's coordinates (8 bytes a boundary, tiles + 1).
constexpr std::size_t pieces_offset(std::size_t tiles) { return ceil_div(tiles * sizeof(unsigned), 16) * 16; }
constexpr std::size_t coordinates_offset(std::size_t tiles) { return pieces_offset(tiles) + 2 * tiles * kPieceBytes; }
}  // namespace

std::size_t ragged_temp_bytes(std::size_t n, std::size_t segments) {  // per tile: a counter, two pieces, a boundary
  const std::size_t tiles = ceil_div(n + segments, kTile);
  return coordinates_offset(tiles) + (tiles + 1) * sizeof(long long);
}

// [snippet:reduce_segments]
template <typename In, typename Offset, typename Op>
cudaError_t reduce_segments(const In* input, std::size_t n, const Offset* offsets, std::size_t segments,
                            typename Op::Result* output, void* scratch, std::size_t scratch_bytes,
                            cudaStream_t stream) {
  auto misaligned = [](const void* p, std::size_t a) { return reinterpret_cast<std::uintptr_t>(p) % a != 0; };
  if (segments == 0) return n == 0 ? cudaSuccess : cudaErrorInvalidValue;  // nothing to write; n > 0 has no home
  if (n > std::size_t(cuda::std::numeric_limits<Offset>::max()) || segments > kMaxPath || n + segments > kMaxPath ||
      (n > 0 && (input == nullptr || misaligned(input, alignof(In)))) || offsets == nullptr ||
      misaligned(offsets, alignof(Offset)) || output == nullptr || misaligned(output, alignof(typename Op::Result))) {
    return cudaErrorInvalidValue;
  }
  if (scratch == nullptr || misaligned(scratch, 16) || scratch_bytes < ragged_temp_bytes(n, segments)) {
    return cudaErrorInvalidValue;
  }
  const std::size_t tiles = ceil_div(n + segments, kTile);  // at most 2^31: one block per tile
  unsigned* counters = static_cast<unsigned*>(scratch);
  char* pieces = static_cast<char*>(scratch) + pieces_offset(tiles);
  auto* opening = reinterpret_cast<StateOf<Op>*>(pieces);
  auto* continuing = reinterpret_cast<StateOf<Op>*>(pieces + tiles * kPieceBytes);
  auto* coordinates = reinterpret_cast<long long*>(static_cast<char*>(scratch) + coordinates_offset(tiles));
  ragged_partition<Offset><<<unsigned(ceil_div(tiles + 1, kBlock)), kBlock, 0, stream>>>(
      offsets, (long long)n, (long long)segments, (long long)tiles, coordinates);
  cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) return status;
  ragged_tiles<In, Offset, Op><<<unsigned(tiles), kBlock, 0, stream>>>(
      input, (long long)n, offsets, (long long)segments, output, counters, opening, continuing, coordinates);
  return cudaGetLastError();
}
// [/snippet:reduce_segments]

}  // namespace ragged_segments
// Every offset type and operator for input type In, at global scope: the line to add for another type.
#define RAGGED_SEGMENTS_INSTANTIATE_OP(In, Offset, Op) template cudaError_t                                      \
    ragged_segments::reduce_segments<In, Offset, ragged_segments::Op>(const In*, std::size_t, const Offset*,      \
    std::size_t, ragged_segments::Op::Result*, void*, std::size_t, cudaStream_t);
#define RAGGED_SEGMENTS_INSTANTIATE_OFFSET(In, Offset) RAGGED_SEGMENTS_INSTANTIATE_OP(In, Offset, Sum)             \
    RAGGED_SEGMENTS_INSTANTIATE_OP(In, Offset, Max) RAGGED_SEGMENTS_INSTANTIATE_OP(In, Offset, ArgMax)           \
    RAGGED_SEGMENTS_INSTANTIATE_OP(In, Offset, MeanVar)
#define RAGGED_SEGMENTS_INSTANTIATE(In) RAGGED_SEGMENTS_INSTANTIATE_OFFSET(In, std::int32_t)                       \
    RAGGED_SEGMENTS_INSTANTIATE_OFFSET(In, std::int64_t)
RAGGED_SEGMENTS_INSTANTIATE(float) RAGGED_SEGMENTS_INSTANTIATE(__half) RAGGED_SEGMENTS_INSTANTIATE(__nv_bfloat16)
