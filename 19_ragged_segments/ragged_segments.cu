// 19_ragged_segments: segments of any lengths, balanced by construction. What changes since 18: 18 gives a
// row a whole number of blocks, which needs rows of one length. Here the lengths come from CSR offsets and
// may be anything (millions of 1..8 beside one of n/2), so no split by segments balances the work. Merge
// path does (Merrill and Garland's SpMV): merge the n elements with the segment ends into one path of
// n + segments items (an end comes after every element before it) and give every block the same number of
// path items, a tile of 4096, and 8 tiles to a block. A first kernel, one thread per tile boundary, finds
// where each boundary crosses the path (a search of the offsets on its diagonal, 3 probes a step), so a block reads its
// tiles' corners with one load each (CUB's merge-based DeviceSpmv did the same). Inside a tile each thread walks
// 16 items, closing segments as it meets their ends (Sum and Max: its 16 elements from its registers, closing a
// segment after each element an end has marked); a segmented scan of the threads' carries (by whether a thread
// closed a segment) completes the segments cut between threads. Tiles of no end in a row only add to the open
// segment: one span, read as a stream. Segments cut between blocks: 18's
// per-row ticket, per segment. Every block holding a piece of one stores it and draws a ticket kept at the block
// where the segment begins; the block that draws the last combines the pieces. No last block: the pieces of
// different segments are combined at once.
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
constexpr int kStaged = kTile + kTile / kWarpSize + 8;  // the tile's staging words: its items, a spare word per 32,
                                                       // and up to 7 slots past the 4096 (step 2)
constexpr std::size_t kVectorBytes = 16;           // the widest load
constexpr std::size_t kPieceBytes = 16;            // a piece's slot in scratch: any state fits
#ifndef RAGGED_SEGMENTS_WITHOUT  // the bench's other builds: 1 stages every tile, 2 gives every block one tile, 3
#define RAGGED_SEGMENTS_WITHOUT 0  // halves the partition's search range a step (its step table); 4 keeps MeanVar
#endif                             // at 3 blocks an SM, gathering 8 pieces at a time (docs/tuning.md)
constexpr int kTilesPerBlock = RAGGED_SEGMENTS_WITHOUT == 2 ? 1 : 8;  // a block's range: 8 consecutive tiles
// Loads a thread issues before combining a cut segment's pieces (a segment over at most that many ranges: its last
// drawer alone): 8, and 4 of MeanVar's 16-byte states, which keeps it within 4 blocks' registers (kMinBlocks).
template <typename Op> constexpr int kPiecesInFlight = std::is_same_v<Op, MeanVar> && RAGGED_SEGMENTS_WITHOUT != 4 ? 4 : 8;
constexpr long long kNoIndex = LLONG_MAX;          // ArgMax's identity index: loses every tie
template <typename In> constexpr int kPerVector = int(kVectorBytes / sizeof(In));  // 4 floats, 8 halves
template <typename In> constexpr int kLoads = kItemsPerThread / kPerVector<In>;  // a thread's vectors: 4 of floats, 2 of halves

// One element widened to float (half and bfloat16 are exact in float).
template <typename In> __device__ __forceinline__ float widen(In x) { return static_cast<float>(x); }
// The elements before p's first 16-byte boundary, 0 to 3 floats or 0 to 7 halves (the bytes to it: -p mod 16).
template <typename In>
__device__ int head_of(const In* p) { return int(-reinterpret_cast<std::uintptr_t>(p) % kVectorBytes / sizeof(In)); }
// A thread's 16 elements, from the bits of its vectors, widened.
template <typename In>
__device__ __forceinline__ void widen_all(const uint4 (&bits)[kLoads<In>], float (&x)[kItemsPerThread]) {
  In v[kItemsPerThread];
  memcpy(v, bits, sizeof bits);
#pragma unroll
  for (int i = 0; i < kItemsPerThread; ++i) x[i] = widen(v[i]);
}

// The operators' states (18's, with a 64-bit index and count: n may pass 2^31).
template <typename Op> struct Reducer;
struct FloatState {  // Sum's and Max's: the element itself
  using State = float;
  __device__ static State element(float x, long long /*index*/) { return x; }
  __device__ static float result(State s, long long /*start*/) { return s; }
};
template <> struct Reducer<Sum> : FloatState {
  __device__ static State identity() { return 0.0f; }
  __device__ static State combine(State a, State b) { return a + b; }
};
template <> struct Reducer<Max> : FloatState {  // NaN propagates, as in numpy.max: a NaN on either side is kept
  __device__ static State identity() { return -cuda::std::numeric_limits<float>::infinity(); }
  __device__ static State combine(State a, State b) { return (a > b || a != a) ? a : b; }
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
    if (a.count == 0 || b.count == 0) return a.count == 0 ? b : a;  // the identity changes nothing (n = 0: no division)
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
// The state of a run of N elements of one segment (x[0] has index first): an element() each, combined as a tree
// (pairs, then pairs of pairs: 4 dependent combines for 16, not a chain of 15), but MeanVar's, whose combine()
// divides: its run(), two passes with no division; and ArgMax's, whose combine() weighs values and indices: Max's
// tree of the values alone, then the first element equal to the top (a NaN, where the top is NaN), whose own value
// is kept (-0 or +0, a NaN's bits).
template <typename Op, int N> __device__ StateOf<Op> run_of(const float (&x)[N], long long first) {
  if constexpr (std::is_same_v<Op, MeanVar>) return Reducer<MeanVar>::run(x);
  else if constexpr (std::is_same_v<Op, ArgMax>) {
    float top = run_of<Max>(x, first);
    int at = 0;
#pragma unroll
    for (int i = N - 1; i >= 0; --i) if (x[i] == top || x[i] != x[i]) at = i, top = x[i];
    return {top, first + at};
  } else {
    StateOf<Op> s[N];
#pragma unroll
    for (int i = 0; i < N; ++i) s[i] = Reducer<Op>::element(x[i], first + i);
#pragma unroll
    for (int width = 1; width < N; width *= 2)  // s[i] takes s[i + width] on its right: the order of the elements
      for (int i = 0; i + width < N; i += 2 * width) s[i] = Reducer<Op>::combine(s[i], s[i + width]);
    return s[0];
  }
}
// Sum and Max walk a tile of ends from their registers, not staged (steps 3 and 4); ArgMax and MeanVar, whose
// register walk was not the faster on every distribution, stage every tile (as the bench's build without the step).
template <typename Op> constexpr bool kFromRegisters = RAGGED_SEGMENTS_WITHOUT != 1 && std::is_same_v<StateOf<Op>, float>;
// Blocks of 256 an SM must hold: 4, so 64 registers a thread (65536 / (256 x 4)); 5 (48) spills in 5 instances.
// MeanVar too: 4 blocks gathering 4 pieces beat 3 of 80 registers gathering 8 (docs/tuning.md), and ptxas (sm_90,
// CUDA 13.0) spills in no instance. Where an SM holds 2048 threads (sm_80, sm_90, sm_100, sm_103, as 12); 1
// elsewhere (an SM of 1024 or 1536 threads: more would be ignored, with a warning).
#if __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000 || __CUDA_ARCH__ == 1030
template <typename Op> constexpr int kMinBlocks = std::is_same_v<Op, MeanVar> && RAGGED_SEGMENTS_WITHOUT == 4 ? 3 : 4;
#else
template <typename Op> constexpr int kMinBlocks = 1;
#endif

// A thread's carry: whether it closed a segment, and the state of the segment open at its end since.
template <typename Op> struct Carry { int closed; StateOf<Op> state; };  // closed: 1 or 0
static_assert(sizeof(StateOf<MeanVar>) <= kPieceBytes && sizeof(StateOf<ArgMax>) <= kPieceBytes, "pieces fit");

// Any trivially copyable value through a shuffle, 4 bytes at a time: shuffle<true> from lane_or_delta lanes below,
// shuffle<false> from lane lane_or_delta.
template <bool kUp, typename T> __device__ T shuffle(T value, unsigned lane_or_delta) {
  static_assert(sizeof(T) % 4 == 0, "whole words");
  unsigned words[sizeof(T) / 4];
  memcpy(words, &value, sizeof(T));
#pragma unroll
  for (int w = 0; w < int(sizeof(T) / 4); ++w)
    words[w] = kUp ? __shfl_up_sync(kFullMask, words[w], lane_or_delta) : __shfl_sync(kFullMask, words[w], lane_or_delta);
  memcpy(&value, words, sizeof(T));
  return value;
}

// Inclusive segmented scan over the warp: lane l gets the combination of the lanes since the last one up to l
// that closed a segment (that lane's carry first), and whether there was one: 5 steps (Kogge-Stone), each a
// combine in the order of the lanes.
template <typename Op> __device__ Carry<Op> warp_scan_by_flag(Carry<Op> carry) {
  const unsigned lane = threadIdx.x % kWarpSize;
#pragma unroll
  for (unsigned offset = 1; offset < kWarpSize; offset *= 2) {
    const Carry<Op> lower = shuffle<true>(carry, offset);
    if (lane >= offset && !carry.closed) carry = Carry<Op>{lower.closed, Reducer<Op>::combine(lower.state, carry.state)};
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
__device__ __forceinline__ int padded(int e) { return e + int(unsigned(e) / kWarpSize); }  // e >= 0: a shift

// The block's states combined in thread order, as a tree: at each step lane l takes lane l + offset's state
// on its right (the wrapped shuffles of the top lanes are dropped), then warp 0 does the same over the 8
// warps' totals. Thread 0 gets the result; a __syncthreads() between calls (warp_states).
template <typename Op> __device__ StateOf<Op> warp_reduce_in_order(StateOf<Op> s) {  // lane 0 gets the warp's
  const unsigned lane = threadIdx.x % kWarpSize;
#pragma unroll
  for (unsigned offset = kWarpSize / 2; offset > 0; offset /= 2) {
    const StateOf<Op> right = shuffle<false>(s, lane + offset);
    if (lane + offset < kWarpSize) s = Reducer<Op>::combine(s, right);
  }
  return s;
}
template <typename Op> __device__ StateOf<Op> block_reduce_in_order(StateOf<Op> state, StateOf<Op>* warp_states) {
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  state = warp_reduce_in_order<Op>(state);
  if (lane == 0) warp_states[warp] = state;
  __syncthreads();  // every warp's total is written before warp 0 reads them
  if (warp == 0) state = warp_reduce_in_order<Op>(lane < unsigned(kWarps) ? warp_states[lane] : Reducer<Op>::identity());
  return state;
}

// [snippet:partition]
// The merge-path search: the point where `diagonal` (a number of path items) crosses the path, as the ends
// taken there (the elements taken: the diagonal less them). End k (k < ends) sorts before element j iff
// end(k) <= j, so the answer is the fewest ends such that the next end lies past the elements taken. end(k) is a
// functor. Each step probes kWays - 1 ends at once, cutting the range into kWays parts: a binary search (2) over
// the offsets in DRAM is a chain of log2(segments) loads, each waiting for the one before; 4 ways, half as many
// steps, with 3 loads in flight in each.
template <int kWays, typename Index, typename End>  // Index: long long over the whole path, int inside a tile
__device__ Index diagonal_search(Index diagonal, Index ends, Index elements, End end) {
  Index low = diagonal > elements ? diagonal - elements : 0, high = diagonal < ends ? diagonal : ends;
  while (low < high) {
    auto probe = [&, first = low, width = high - low](int p) { return first + width * p / kWays; };
    int below = 0;  // the probes before the answer: the first `below` of them (the ends never decrease)
#pragma unroll
    for (int p = 1; p < kWays; ++p) below += end(probe(p)) <= diagonal - probe(p) - 1;
    if (below > 0) low = probe(below) + 1;
    if (below < kWays - 1) high = probe(below + 1);
  }
  return low;
}

// The partition: thread b finds where tile boundary b (path item b x 4096, the path's end for the last)
// crosses the path and writes the ends taken there to coordinates[b] (the elements taken: the diagonal less
// them). tiles + 1 boundaries, one thread each: every tile's search runs at once, none in the tiles.
template <typename Offset> __global__ void __launch_bounds__(kBlock)
    ragged_partition(const Offset* __restrict__ offsets, long long n, long long segments, long long tiles,
                     long long* __restrict__ coordinates) {
  const long long boundary = (long long)blockIdx.x * kBlock + threadIdx.x, path = n + segments;
  if (boundary > tiles) return;
  coordinates[boundary] = diagonal_search<RAGGED_SEGMENTS_WITHOUT == 3 ? 2 : 4>(min(boundary * kTile, path), segments, n,
      [&](long long k) { return offset_at(offsets, std::size_t(k) + 1, n); });
}
// [/snippet:partition]

// Block b takes a range of 8 tiles (tile t: path items [t x 4096, (t + 1) x 4096)), b x 8 to b x 8 + 7, in
// turn. Tiles of no end in a row (inside a long segment) cost no barrier: each thread adds their elements, one
// span, to its own share of the open segment (`open`, step 1). Any other tile is reduced as merge path says (steps
// 2-6); the segment open at its end goes on in the next as its carry (shared memory). A segment
// whose items span several ranges is *cut*; its *owner* is the range of its first item (its first element, or its
// end when empty: item offsets[s] + s), its last range the one of its end (item offsets[s + 1] + s). Each of those
// ranges stores its piece of the segment (the owner in opening[owner], the others in continuing[range]) and draws a
// ticket from counters[owner]; the block that draws the last one combines the pieces. A range holds at most two
// such pieces: the segment open at its start (begun before it) and the segment open at its end (begun in it); they
// may be one segment only if it begins exactly at the range's first item.
// One __syncthreads at the range's start: its corners loaded. Two a tile of ends: the tile staged before the walks
// read it; the warps' totals written before every warp scans them. One where the range ends in a span: the block's
// tree over the threads' shares. One at the end: the long cut segments to combine written before the block reads
// them (step 7, which adds two more when it runs: a segment over more than kPiecesInFlight ranges).
template <typename In, typename Offset, typename Op> __global__ void __launch_bounds__(kBlock, kMinBlocks<Op>)
    ragged_tiles(const In* __restrict__ input, long long n, const Offset* __restrict__ offsets, long long segments,
                 long long tiles, typename Op::Result* __restrict__ output, unsigned* counters, StateOf<Op>* opening,
                 StateOf<Op>* continuing, const long long* __restrict__ coordinates) {
  using R = Reducer<Op>;
  const int t = threadIdx.x;
  union Word { float element; int end; };
  __shared__ Word staged[kStaged];  // the tile's elements, widened, from the bottom (padded); its ends at the top
  __shared__ unsigned tile_marks[2][kBlock / 2 + 1];  // the register walk's marks, a bit a slot (by tile parity)
  __shared__ float past_slots[kVectorBytes / 2];      // and the elements past the slots (at most 7)
  __shared__ Carry<Op> warp_totals[kWarps];
  __shared__ StateOf<Op> warp_states[kWarps];
  __shared__ StateOf<Op> carries[2];   // the segment open at a tile of ends' end, for the next (by their parity)
  __shared__ StateOf<Op> warp_open[2][kWarps];  // each warp's share of the tiles of no end before a tile of ends
  __shared__ long long corners[kTilesPerBlock + 1];  // the range's tiles' first corners (ends taken), then its end's
  __shared__ long long to_combine[2];  // the cut segments whose last ticket this block drew (for step 7), or -1

  // 0. The block's range: tiles [begin_tile, end_tile). range_of: the range that holds a path item.
  const long long path = segments + n, range = blockIdx.x;
  const int begin_tile = int(range) * kTilesPerBlock, end_tile = int(min(begin_tile + (long long)kTilesPerBlock, tiles));
  auto range_of = [](long long item) { return item / (kTile * (long long)kTilesPerBlock); };
  auto first_range = [&](long long s) { return range_of(offset_at(offsets, s, n) + s); };    // the owner
  auto last_range = [&](long long s) { return range_of(offset_at(offsets, s + 1, n) + s); };  // the range of its end
  auto begun_before = [&](long long s) { return s < segments && first_range(s) < range && range <= last_range(s); };
  auto write = [&](long long s, StateOf<Op> state) {  // segment s's result (ArgMax's index from its first element)
    output[s] = R::result(state, std::is_same_v<Op, ArgMax> ? offset_at(offsets, s, n) : 0);
  };
  // kPiecesInFlight pieces p, p + stride, ... of the cut segment whose owner is `owner` (covered: its pieces),
  // combined in that order (the identity past the last): every load issued first. Plain loads, not __ldg: the
  // pieces are written in this launch.
  auto gather = [&](long long owner, long long covered, long long p, long long stride) {
    StateOf<Op> loaded[kPiecesInFlight<Op>], state = R::identity();
#pragma unroll
    for (long long i = 0, q = p; i < kPiecesInFlight<Op>; ++i, q += stride)  // piece q
      loaded[i] = q >= covered ? R::identity() : q == 0 ? opening[owner] : continuing[owner + q];
#pragma unroll
    for (int i = 0; i < kPiecesInFlight<Op>; ++i) state = R::combine(state, loaded[i]);
    return state;
  };
  // [snippet:settle]
  auto settle = [&](long long s) -> long long {  // 18's ticket, one per cut segment, kept at its owner
    const long long owner = first_range(s), covered = last_range(s) - owner + 1;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> ticket(counters[owner]);
    // Release: the piece stored before is visible to any thread of the device that acquires this counter.
    // Acquire: if this block draws the last ticket, its reads of the pieces see what every other block released.
    if (ticket.fetch_add(1, cuda::memory_order_acq_rel) != covered - 1) return -1;
    ticket.store(0, cuda::memory_order_relaxed);  // every other block has drawn: 0 for the next call
    if (covered > kPiecesInFlight<Op>) return s;  // for the block
    write(s, gather(owner, covered, 0, 1));
    return -1;
  };
  // [/snippet:settle]

  if (t <= end_tile - begin_tile) corners[t] = __ldg(coordinates + begin_tile + t);
  if (t == 0) to_combine[0] = to_combine[1] = -1;  // until a thread draws a long segment's last ticket
  if (t <= kBlock / 2) tile_marks[0][t] = 0;  // the first tile's marks (each tile clears the next one's)
  __syncthreads();  // the corners are loaded before any thread reads them
  const long long lead = corners[0];  // the segment open at the range's start, the only one that may have begun before it
  int full_tiles = 0;     // tiles reduced with a barrier so far in the range (their parity picks the shared slots)
  bool opened = false;    // tiles of no end passed since: their elements are in each thread's `open`
  StateOf<Op> open = R::identity();
  // The segment open at the range's end, with its elements in the range: the lead's piece when it spans the range,
  // or the first piece of a segment begun here that goes on; 18's ticket either way.
  auto end_range = [&](long long trail, StateOf<Op> state) {
    if (trail == lead && begun_before(trail)) {
      continuing[range] = state, to_combine[0] = settle(trail);
    } else if (trail < segments && first_range(trail) == range && last_range(trail) > range) {
      opening[range] = state, to_combine[1] = settle(trail);
    }
  };

  for (int tile = begin_tile; tile < end_tile; ++tile) {
    // 1. Tiles of no end in a row (inside a long segment) are one span of the open segment's elements, read as a
    //    stream with no barrier: thread t adds runs of 16 of them (16t, 16t + 4096, ... after the unaligned head) to
    //    its own share `open`, and its element of the head and of the rest, if any. The tile of ends after them goes
    //    on below; a span that ends the range, after the loop.
    const long long first_end = corners[tile - begin_tile];
    int stop = tile;  // never the path's last tile: good offsets put the last end there; with bad ones it may hold
                      // none, and a span would read a whole tile of elements where the path ends sooner
    while (stop < end_tile && corners[stop + 1 - begin_tile] == first_end && stop + 1 < tiles) ++stop;
    if (stop > tile) {
      const long long span_first = (long long)tile * kTile - first_end, span = (long long)(stop - tile) * kTile;
      const In* span_input = input + span_first;
      // The unaligned head, then runs of 16 elements, then the rest (fewer than 16).
      const long long head = head_of(span_input), runs = (span - head) / kItemsPerThread, rest = head + runs * kItemsPerThread;
#pragma unroll (sizeof(In) == 2 ? 2 : 1)  // halves: two runs' loads in flight, 64 bytes as a float run's
      for (long long r = t; r < runs; r += kBlock) {
        uint4 bits[kLoads<In>];  // thread t's run r: vectors r x 4 to r x 4 + 3 after the head (halves: r x 2, r x 2 + 1)
#pragma unroll
        for (int i = 0; i < kLoads<In>; ++i) bits[i] = __ldg(reinterpret_cast<const uint4*>(span_input + head) + r * kLoads<In> + i);
        float x[kItemsPerThread];
        widen_all<In>(bits, x);
        open = R::combine(open, run_of<Op>(x, span_first + head + r * kItemsPerThread));
      }
      if (t < head) open = R::combine(open, R::element(widen(__ldg(span_input + t)), span_first + t));
      if (rest + t < span) open = R::combine(open, R::element(widen(__ldg(span_input + rest + t)), span_first + rest + t));
      opened = true, tile = stop;
      if (tile == end_tile) break;
    }
    // 2. The tile's corners on the path, from the partition: (first end, first element), (last end, last element).
    //    Its elements into registers in 16-byte loads, all issued first: thread t the 16 of slots [16t, 16t + 16),
    //    slot q holding element q - skew (skew: the elements of the first 16 bytes before the tile's first). With
    //    fewer ends than skew the tile's last elements lie past slot 4095: thread 255's too, read in step 3.
    const long long last_end = corners[tile + 1 - begin_tile];
    const long long first_element = (long long)tile * kTile - first_end, last_element = min((tile + 1LL) * kTile, path) - last_end;
    // Clamped so that bad offsets cannot overflow the staging words (good ones never need it).
    const int tile_ends = int(min(max(last_end - first_end, 0LL), (long long)kTile));
    const int tile_elements = int(min(max(last_element - first_element, 0LL), (long long)(kTile - tile_ends)));
    const int skew = (kPerVector<In> - head_of(input + first_element)) % kPerVector<In>;
    const long long slot0 = first_element - skew, from = slot0 + t * kItemsPerThread;  // slot 0's element; its first slot's
    const int slots = skew + tile_elements, overflow = slots - kTile;  // the tile's slots: [skew, slots)
    const int first = t * kItemsPerThread, lo = max(skew - first, 0), hi = min(slots - first, kItemsPerThread);
    uint4 bits[kLoads<In>];  // x[lo, hi) below are its elements of the tile
    if (first < slots && from >= 0 && from + kItemsPerThread <= n) {  // (the tile's last thread: past its last slot too)
#pragma unroll
      for (int i = 0; i < kLoads<In>; ++i) bits[i] = __ldg(reinterpret_cast<const uint4*>(input + from) + i);
    } else {  // past the tile, or the input's first or last 16 bytes: its elements one by one, if any
      In part[kItemsPerThread] = {};
      for (int i = 0; i < kItemsPerThread; ++i) if (first + i < slots && from + i >= 0 && from + i < n) part[i] = input[from + i];
      memcpy(bits, part, sizeof bits);
    }
    // 3. The threads' `open` shares reduced per warp, for step 5. The register walk: each end marks the slot of
    //    its segment's last element (a bit in marks, its index in staged), an empty segment is written now. Else
    //    the tile is staged in shared memory: its ends (coalesced; end k from the tile's first element) and
    //    elements.
    const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    if (opened) {
      const StateOf<Op> warp_total = warp_reduce_in_order<Op>(open);
      if (lane == 0) warp_open[full_tiles & 1][warp] = warp_total;
    }
    auto slot_of = [&](long long o) { return int(min(max(o - slot0, (long long)skew), (long long)slots)); };
    Word* const ends = staged + (kStaged - tile_ends);  // past the elements: padded(tile_elements) + tile_ends <= kStaged
    StateOf<Op> state = R::identity(), first_closed = R::identity();
    int first_closed_key = -1;  // -1: this thread closes no segment
    auto close = [&](int k) {  // segment first_end + k ends here: the first kept for the scan, the others written
      if (first_closed_key < 0) first_closed_key = k, first_closed = state; else write(first_end + k, state);
      state = R::identity();
    };
    for (int k = t; k < tile_ends; k += kBlock) {
      const int p = slot_of(offsets[first_end + k + 1]), q = p - 1;  // the slots after and before end k
      if constexpr (!kFromRegisters<Op>) ends[k].end = p;
      else if (p > (k == 0 ? skew : slot_of(offsets[first_end + k])))  // q ends a segment (bad offsets may repeat it)
        atomicExch(&staged[padded(q)].end, k), atomicOr(&tile_marks[full_tiles & 1][q / kWarpSize], 1u << q % kWarpSize);
      else if (k > 0) write(first_end + k, R::identity());  // empty
      else first_closed_key = 0;  // end 0 before the tile's first element: thread 0 closes the segment carried in
    }
    float x[kItemsPerThread];
    widen_all<In>(bits, x);
    if constexpr (!kFromRegisters<Op>) {
#pragma unroll
      for (int i = 0; i < kItemsPerThread; ++i) if (i < hi) staged[padded(first + i)].element = x[i];  // (and slots < skew)
    }
    for (int i = 0; i < kPerVector<In> - 1; ++i)  // the elements past the slots: staged, or kept for the register walk
      if (t == kBlock - 1 && i < overflow)
        (kFromRegisters<Op> ? past_slots[i] : staged[padded(kTile + i)].element) = widen(input[slot0 + kTile + i]);
    __syncthreads();  // 1 of 2: the tile is staged (marked) before any thread walks it
    // [snippet:tile_walk]
    // 4. Each thread walks its part of the tile: an element joins the open segment's state; an end closes that
    //    segment. The first segment it closes may have begun before the thread (it waits for the scan); later
    //    ones lie wholly in its part and are written now.
    if constexpr (kFromRegisters<Op>) {
      // From registers: thread t its 16 elements, closing a segment after each marked one (thread 255 also the
      // elements past the slots). A warp whose threads hold 16 elements and no mark each adds them with no test.
      const unsigned mine = tile_marks[full_tiles & 1][t / 2] >> (t % 2 * kItemsPerThread) & 0xffffu;  // its slots' marks
      if (t <= kBlock / 2) tile_marks[(full_tiles + 1) & 1][t] = 0;  // the next tile's marks, cleared
      // The test-free run only where the whole warp takes it (a warp split between two loops would run both).
      if (__all_sync(kFullMask, (hi <= lo || (lo == 0 && hi == kItemsPerThread && !mine)) && (t < kBlock - 1 || overflow <= 0))) {
        if (hi > lo) state = run_of<Op>(x, slot0 + first);
      } else {
#pragma unroll
        for (int i = 0; i < kItemsPerThread; ++i) {
          if (i >= lo && i < hi) state = R::combine(state, R::element(x[i], slot0 + first + i));
          if (mine >> i & 1u) close(staged[padded(first + i)].end);
        }
        for (int q = kTile; t == kBlock - 1 && q < slots; ++q) {
          state = R::combine(state, R::element(past_slots[q - kTile], slot0 + q));
          if (tile_marks[full_tiles & 1][q / kWarpSize] >> q % kWarpSize & 1u) close(staged[padded(q)].end);
        }
      }
    } else {
      // Staged: merge path inside the tile, 16 items (elements or ends) a thread from its own diagonal.
      const int tile_items = tile_ends + tile_elements, diagonal = min(t * kItemsPerThread, tile_items);
      int e = diagonal_search<2>(diagonal, tile_ends, tile_elements, [&](int k) { return ends[k].end - skew; });
      int q = skew + diagonal - e;  // the next element's slot
      int next = e < tile_ends ? ends[e].end : INT_MAX;  // and the slot before which the next end falls
#pragma unroll
      for (int item = 0; item < kItemsPerThread; ++item) {
        if (diagonal + item >= tile_items) break;
        if (next <= q) {  // the end of segment first_end + e
          close(e++);
          next = e < tile_ends ? ends[e].end : INT_MAX;
        } else {  // the element in slot q
          state = R::combine(state, R::element(staged[padded(q)].element, slot0 + q));
          ++q;
        }
      }
    }
    // [/snippet:tile_walk]

    // 5. The threads' carries (the segment open at each thread's end) scanned by flag (has the thread closed a
    //    segment): in the warp, then the warps' totals (every warp scans the 8 totals itself: no second barrier),
    //    then the warp's prefix. Past the range's first tile, the segment open at the tile's start begins with
    //    the carry: the last tile of ends' carry-out, then the warps' states of the tiles of no end since.
    Carry<Op> inclusive = warp_scan_by_flag<Op>(Carry<Op>{first_closed_key >= 0, state});
    if (lane == kWarpSize - 1) warp_totals[warp] = inclusive;
    __syncthreads();  // 2 of 2: the warps' totals are written before any warp reads them
    // Lane w: the warps up to w.
    const Carry<Op> total = warp_scan_by_flag<Op>(lane < kWarps ? warp_totals[lane] : Carry<Op>{1, R::identity()});
    const Carry<Op> before_warp = shuffle<false>(total, warp > 0 ? warp - 1 : 0);  // the warps before this one
    if (warp > 0 && !inclusive.closed) inclusive = Carry<Op>{before_warp.closed, R::combine(before_warp.state, inclusive.state)};
    Carry<Op> before_me = shuffle<true>(inclusive, 1);  // the threads before this one
    if (lane == 0) before_me = warp > 0 ? before_warp : Carry<Op>{0, R::identity()};
    if (full_tiles > 0 || opened) {  // the same for the whole block
      StateOf<Op> carry = full_tiles > 0 ? carries[full_tiles & 1] : R::identity();
      for (int w = 0; opened && w < kWarps; ++w) carry = R::combine(carry, warp_open[full_tiles & 1][w]);
      if (!before_me.closed) before_me.state = R::combine(carry, before_me.state);
      if (!inclusive.closed) inclusive.state = R::combine(carry, inclusive.state);
    }

    // 6. The cut segments' pieces and tickets. The thread that closes the range's first end finishes that
    //    segment (lead) or stores its piece when it began in an earlier range; thread 255 holds the tile's
    //    carry-out (the segment open at its end): the next tile's carry, or in the range's last tile the piece of
    //    the segment open at the range's end (end_range). The last
    //    drawer of a segment over at most kPiecesInFlight ranges combines its pieces alone (owner first, `gather`);
    //    a longer one is left to the block (step 7).
    if (first_closed_key >= 0) {  // complete in this tile now: the threads before it hold the rest
      // before_me is the segment open where this thread starts: the one it closes first.
      const StateOf<Op> closed = R::combine(before_me.state, first_closed);
      const long long key = first_end + first_closed_key;
      if (key == lead && begun_before(key)) {  // the lead, begun in an earlier range: ends here
        continuing[range] = closed, to_combine[0] = settle(key);
      } else {
        write(key, closed);
      }
    }
    // Thread 255 holds the segment open at the tile's end: the next tile's carry, or the range's end.
    if (t == kBlock - 1 && tile + 1 < end_tile) carries[(full_tiles + 1) & 1] = inclusive.state;
    else if (t == kBlock - 1) end_range(first_end + tile_ends, inclusive.state);
    ++full_tiles, opened = false, open = R::identity();
  }
  if (opened) {  // the range ends in a span: its segment's state is the carry, then the threads' shares in order
    const StateOf<Op> shares = block_reduce_in_order<Op>(open, warp_states);
    if (t == 0) end_range(corners[end_tile - begin_tile], full_tiles > 0 ? R::combine(carries[full_tiles & 1], shares) : shares);
  }
  __syncthreads();  // to_combine is written, and carries the drawers' acquire to the block's threads

  // 7. The block that drew the last ticket of a segment over more than kPiecesInFlight ranges combines its pieces,
  //    owner first, in a fixed order: thread t the pieces t, t + 256, ... (gather's loads first), then the
  //    block's tree in thread order. (ArgMax's ties go to the smaller index whatever the order.)
  for (int k = 0; k < 2; ++k) {
    const long long s = to_combine[k];
    if (s < 0) continue;  // the same for the whole block
    const long long owner = first_range(s), covered = last_range(s) - owner + 1;
    StateOf<Op> state = R::identity();
    for (long long p = t; p < covered; p += kPiecesInFlight<Op> * kBlock) state = R::combine(state, gather(owner, covered, p, kBlock));
    state = block_reduce_in_order<Op>(state, warp_states);
    if (t == 0) write(s, state);
    __syncthreads();  // warp 0 is done with warp_states before the next segment's tree
  }
}

constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }
constexpr std::size_t kMaxPath = std::size_t(INT_MAX) * kTile;  // at most INT_MAX tiles (int tile indices)
// Scratch: the counters (4 bytes a tile), then opening and continuing from 16-byte boundaries, then the
// partition's coordinates (8 bytes a boundary, tiles + 1). Counters and pieces go by range, so 8 tiles use one of
// each; sized by tile, the scratch does not depend on the range (the bench's third build has ranges of one).
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
      misaligned(offsets, alignof(Offset)) || output == nullptr || misaligned(output, alignof(typename Op::Result)) ||
      scratch == nullptr || misaligned(scratch, 16) || scratch_bytes < ragged_temp_bytes(n, segments)) {
    return cudaErrorInvalidValue;
  }
  const std::size_t tiles = ceil_div(n + segments, kTile);  // less than 2^31
  char* pieces = static_cast<char*>(scratch) + pieces_offset(tiles);  // after the counters
  auto* opening = reinterpret_cast<StateOf<Op>*>(pieces);
  auto* continuing = reinterpret_cast<StateOf<Op>*>(pieces + tiles * kPieceBytes);
  auto* coordinates = reinterpret_cast<long long*>(static_cast<char*>(scratch) + coordinates_offset(tiles));
  ragged_partition<Offset><<<unsigned(ceil_div(tiles + 1, kBlock)), kBlock, 0, stream>>>(
      offsets, (long long)n, (long long)segments, (long long)tiles, coordinates);
  cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) return status;
  const std::size_t blocks = ceil_div(tiles, kTilesPerBlock);  // a block per range of 8 tiles
  ragged_tiles<In, Offset, Op><<<unsigned(blocks), kBlock, 0, stream>>>(input, (long long)n, offsets,
      (long long)segments, (long long)tiles, output, static_cast<unsigned*>(scratch), opening, continuing, coordinates);
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
