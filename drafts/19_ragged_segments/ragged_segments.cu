// 19_ragged_segments: segments of any lengths, balanced by construction. What changes since 18: 18 gives a
// row a whole number of blocks, which needs rows of one length. Here the lengths come from CSR offsets and
// may be anything (millions of 1..8 beside one of n/2), so no split by segments balances the work. Merge
// path does (Merrill and Garland's SpMV): merge the n elements with the segment ends into one path of
// n + segments items (an end comes after every element before it) and give every block the same number of
// path items, 2048: a binary search of the offsets on the block's diagonal finds where its tile starts.
// Inside the tile each thread walks 8 items the same way, closing segments as it meets their ends; a
// segmented scan of the threads' carries (by segment id) completes the segments cut between threads.
// Segments cut between tiles: 18's per-row ticket, per segment. Every tile holding a piece of one stores
// it and draws a ticket kept at the tile where the segment begins; the tile that draws the last combines
// the pieces. No last block: the pieces of different segments are combined at once, in different tiles.
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
constexpr int kItemsPerThread = 8;                 // path items one thread walks
constexpr int kTile = kBlock * kItemsPerThread;    // path items per block: 2048
constexpr std::size_t kVectorBytes = 16;           // the widest load
constexpr std::size_t kPieceBytes = 16;            // a piece's slot in scratch: any state fits
constexpr int kPiecesInFlight = 8;                 // loads a thread issues before combining a cut segment's pieces
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
  __device__ static MeanVariance result(State s, long long /*start*/) {
    const float nan = cuda::std::numeric_limits<float>::quiet_NaN();
    return s.count == 0 ? MeanVariance{nan, nan} : MeanVariance{s.mean, s.m2 / float(s.count)};
  }
};
template <typename Op> using StateOf = typename Reducer<Op>::State;

// A piece of one segment: the segment's id (the key) and the state of the piece's elements.
template <typename Op> struct Carry { long long key; StateOf<Op> state; };
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

// Padded slot of the tile's element e: a spare word per 32, so that threads reading 8 apart in a warp
// (a thread's walk starts about 8 elements after its neighbour's) hit 32 different banks.
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

// [snippet:ragged_tiles]
// Block b: path items [b x 2048, (b + 1) x 2048). Segments that begin and end in the tile: written here.
// A segment whose items span several tiles is *cut*; its *owner* is the tile of its first item (its first
// element, or its end when empty: item offsets[s] + s), its last tile the one of its end (item
// offsets[s + 1] + s). Each of those tiles stores its piece of the segment (the owner in opening[owner],
// the others in continuing[tile]) and draws a ticket from counters[owner]; the tile that draws the last
// one combines the pieces. A tile holds at most two such pieces: the segment open at its start (begun
// before it) and the segment open at its end (begun in it); they may be one segment only if it begins
// exactly at the tile's first item.
template <typename In, typename Offset, typename Op>
__global__ void __launch_bounds__(kBlock)
    ragged_tiles(const In* __restrict__ input, long long n, const Offset* __restrict__ offsets, long long segments,
                 typename Op::Result* __restrict__ output, unsigned* counters, StateOf<Op>* opening,
                 StateOf<Op>* continuing) {
  using R = Reducer<Op>;
  __shared__ float elements[kTile + kTile / kWarpSize];  // the tile's elements, widened, padded
  __shared__ int ends[kTile];                             // the tile's segment ends, from the tile's first element
  __shared__ long long corner[4];                         // the tile's (first end, first element, last end, last element)
  __shared__ Carry<Op> warp_totals[kWarps], first_piece;
  __shared__ StateOf<Op> warp_states[kWarps];
  __shared__ long long to_combine[2];                     // the cut segments whose last ticket this tile drew, or -1

  // 1. Where the tile starts and ends on the path: threads 0 and 1 search the offsets (end k = offsets[k + 1]).
  const long long path = segments + n, first_item = (long long)blockIdx.x * kTile;
  auto global_end = [&](long long k) { return offset_at(offsets, std::size_t(k) + 1, n); };
  if (threadIdx.x < 2) {
    const long long diagonal = first_item + (threadIdx.x ? kTile : 0);
    diagonal_search(diagonal < path ? diagonal : path, segments, n, global_end, &corner[2 * threadIdx.x],
                    &corner[2 * threadIdx.x + 1]);
  }
  __syncthreads();  // the corners are written before every thread reads them
  const long long first_end = corner[0], first_element = corner[1];
  // Clamped so that bad offsets cannot overflow the shared arrays (good ones never need it).
  const int tile_ends = int(corner[2] > first_end ? corner[2] - first_end : 0);
  const int tile_elements = int(min(corner[3] > first_element ? corner[3] - first_element : 0LL,
                                    (long long)(kTile - tile_ends)));

  // 2. Stage the tile: its ends (coalesced) and its elements, 16-byte loads between an unaligned head and
  //    tail (the tile starts at any element, so at any alignment).
  for (int k = threadIdx.x; k < tile_ends; k += kBlock) {
    const long long end = global_end(first_end + k) - first_element;
    ends[k] = int(end < 0 ? 0 : end > tile_elements ? tile_elements : end);
  }
  const In* tile_input = input + first_element;
  const int misaligned = int(reinterpret_cast<std::uintptr_t>(tile_input) % kVectorBytes);
  const int head_elements = misaligned ? int(kVectorBytes - misaligned) / int(sizeof(In)) : 0;
  const int head = min(head_elements, tile_elements);
  const int vectors = (tile_elements - head) / kPerVector<In>, tail = head + vectors * kPerVector<In>;
  const uint4* tile_vectors = reinterpret_cast<const uint4*>(tile_input + head);
  for (int v = threadIdx.x; v < vectors; v += kBlock) {
    const uint4 bits = __ldg(tile_vectors + v);
    In x[kPerVector<In>];
    memcpy(x, &bits, sizeof bits);
#pragma unroll
    for (int k = 0; k < kPerVector<In>; ++k) elements[padded(head + v * kPerVector<In> + k)] = widen(x[k]);
  }
  if (threadIdx.x < head) elements[padded(threadIdx.x)] = widen(__ldg(tile_input + threadIdx.x));
  if (tail + int(threadIdx.x) < tile_elements) {
    elements[padded(tail + threadIdx.x)] = widen(__ldg(tile_input + tail + threadIdx.x));
  }
  if (threadIdx.x == 0) first_piece = {first_end, R::identity()};  // the tile's first segment, until a thread closes it
  __syncthreads();  // the tile is staged before any thread walks it

  // 3. Each thread walks its 8 items from its own diagonal (a search in shared memory): an element joins
  //    the open segment's state; an end closes that segment. The first segment it closes may have begun
  //    before the thread (it waits for the scan); later ones lie wholly in its walk and are written now.
  const int tile_items = tile_ends + tile_elements;
  const int diagonal = min(int(threadIdx.x) * kItemsPerThread, tile_items);
  long long taken_ends, taken_elements;
  diagonal_search(diagonal, tile_ends, tile_elements, [&](long long k) { return ends[k]; }, &taken_ends,
                  &taken_elements);
  int e = int(taken_ends), j = int(taken_elements);  // the next end, the next element
  StateOf<Op> state = R::identity(), first_closed = R::identity();
  long long first_closed_key = -1;  // -1: this thread closes none
#pragma unroll
  for (int item = 0; item < kItemsPerThread; ++item) {
    if (diagonal + item >= tile_items) break;
    if (e < tile_ends && ends[e] <= j) {  // the end of segment first_end + e
      const long long key = first_end + e;
      if (first_closed_key < 0) {
        first_closed_key = key, first_closed = state;
      } else {
        output[key] = R::result(state, std::is_same_v<Op, ArgMax> ? offset_at(offsets, key, n) : 0);
      }
      state = R::identity();
      ++e;
    } else {  // element j of the tile
      state = R::combine(state, R::element(elements[padded(j)], first_element + j));
      ++j;
    }
  }

  // 4. The threads' carries (the segment open at each thread's end) scanned by key: in the warp, then the
  //    warps' totals (every warp scans the 8 totals itself: no second barrier), then the warp's prefix.
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  Carry<Op> inclusive = warp_scan_by_key<Op>(Carry<Op>{first_end + e, state});
  if (lane == kWarpSize - 1) warp_totals[warp] = inclusive;
  __syncthreads();  // the warps' totals are written before any warp reads them
  Carry<Op> total = lane < kWarps ? warp_totals[lane] : Carry<Op>{LLONG_MAX, R::identity()};
  total = warp_scan_by_key<Op>(total);  // lane w: the warps up to w, by key
  const Carry<Op> before_warp = shuffle_from(total, warp > 0 ? warp - 1 : 0);  // the warps before this one
  if (warp > 0 && before_warp.key == inclusive.key) inclusive.state = R::combine(before_warp.state, inclusive.state);
  Carry<Op> before_me = shuffle_up(inclusive, 1);  // the threads before this one (key -1: none)
  if (lane == 0) before_me = warp > 0 ? before_warp : Carry<Op>{-1, R::identity()};
  if (first_closed_key >= 0) {  // complete in this tile now: the threads before it hold the rest
    // before_me.key is the segment open where this thread starts: the one it closes first.
    const StateOf<Op> closed = before_me.key == first_closed_key ? R::combine(before_me.state, first_closed)
                                                                 : first_closed;
    if (first_closed_key == first_end) {
      first_piece = {first_end, closed};  // the tile's first segment: it may have begun in an earlier tile (step 5)
    } else {
      output[first_closed_key] =
          R::result(closed, std::is_same_v<Op, ArgMax> ? offset_at(offsets, first_closed_key, n) : 0);
    }
  }
  __syncthreads();  // first_piece is written

  // 5. Thread 255 holds the tile's carry-out (the segment open at the tile's end). It finishes the tile's
  //    first segment when it began here, else stores the tile's pieces of cut segments and draws their tickets.
  auto first_tile = [&](long long s) { return (offset_at(offsets, s, n) + s) / kTile; };    // the owner
  auto last_tile = [&](long long s) { return (offset_at(offsets, s + 1, n) + s) / kTile; };  // the tile of its end
  auto draw = [&](long long s) {  // 09's ticket, one per cut segment, kept at its owner
    const long long owner = first_tile(s), covered = last_tile(s) - owner + 1;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> ticket(counters[owner]);
    // Release: the piece stored before is visible to any thread of the device that acquires this counter.
    // Acquire: if this tile draws the last ticket, its reads of the pieces see what every other tile released.
    const bool last = ticket.fetch_add(1, cuda::memory_order_acq_rel) == covered - 1;
    if (last) ticket.store(0, cuda::memory_order_relaxed);  // every other tile has drawn: 0 for the next call
    return last ? s : -1;
  };
  const long long tile = blockIdx.x;
  if (threadIdx.x == kBlock - 1) {
    to_combine[0] = to_combine[1] = -1;
    const long long lead = first_end, trail = inclusive.key;  // open at the tile's start, at its end
    if (lead < segments && first_tile(lead) < tile && tile <= last_tile(lead)) {  // begun in an earlier tile
      continuing[tile] = tile_ends > 0 ? first_piece.state : inclusive.state;   // it ends here, or spans the tile
      to_combine[0] = draw(lead);
    } else if (tile_ends > 0) {  // begun and closed in this tile (first_piece.key == lead)
      output[lead] = R::result(first_piece.state, std::is_same_v<Op, ArgMax> ? offset_at(offsets, lead, n) : 0);
    }
    if (trail < segments && first_tile(trail) == tile && last_tile(trail) > tile) {  // begun here, goes on
      opening[tile] = inclusive.state;
      to_combine[1] = draw(trail);
    }
  }
  __syncthreads();  // to_combine is written, and carries thread 255's acquire to the block's other threads
  // [/snippet:ragged_tiles]

  // 6. The tile that drew a cut segment's last ticket combines its pieces, owner first, in a fixed order:
  //    thread t the pieces t, t + 256, ... (8 loads issued first), then the block's tree in thread order.
  //    (ArgMax's ties go to the smaller index whatever the order.) Plain loads, not __ldg: the pieces were
  //    written during this launch.
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
// Scratch: the counters (4 bytes a tile), then opening and continuing from 16-byte boundaries.
constexpr std::size_t pieces_offset(std::size_t tiles) { return ceil_div(tiles * sizeof(unsigned), 16) * 16; }
}  // namespace

std::size_t ragged_temp_bytes(std::size_t n, std::size_t segments) {  // a counter and two piece slots per tile
  const std::size_t tiles = ceil_div(n + segments, kTile);
  return pieces_offset(tiles) + 2 * tiles * kPieceBytes;
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
  ragged_tiles<In, Offset, Op><<<unsigned(tiles), kBlock, 0, stream>>>(
      input, (long long)n, offsets, (long long)segments, output, counters, opening, continuing);
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
