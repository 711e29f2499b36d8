// 08_vectorized/vectorized_reduce.cuh: the device code of 08, which 09 reuses.
//
//   thread_reduce(input, n, op)   one thread's share of the array, read 16 bytes at a
//                                 time with several loads in flight; the elements before
//                                 the first 16-byte boundary (the head) and after the
//                                 last whole vector (the tail) are read one by one
//   block_reduce(value, op)       07's block_sum with `+` replaced by an operator
//
// Both take the operator as a functor with an identity (common/ops.cuh: Op()(a, b) and
// Op::identity<T>()), so that 09 can reduce with max and min too; 08 only sums.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "launch_rules.h"

namespace vectorized {

constexpr unsigned kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;

// The widest load a thread can make in one instruction: 16 bytes (LDG.E.128 in SASS).
constexpr std::size_t kVectorBytes = 16;
// Independent 16-byte loads each thread issues before it adds any of them: more bytes
// in flight per thread, so fewer threads are needed to cover the memory latency.
constexpr int kVectorsInFlight = 4;
static_assert((kVectorsInFlight & (kVectorsInFlight - 1)) == 0, "the vectors of a trip are combined in pairs");

// The 16-byte vector type that holds 4 ints, 4 floats or 2 doubles (CUDA's built-in
// vector types, declared with 16-byte alignment).
template <typename T> struct Vector16;
template <> struct Vector16<int> { using type = int4; };
template <> struct Vector16<float> { using type = float4; };
template <> struct Vector16<double> { using type = double2; };

// The lanes of one vector combined with op, in pairs.
template <typename Op> __device__ int combine_lanes(int4 v, Op op) { return op(op(v.x, v.y), op(v.z, v.w)); }
template <typename Op> __device__ float combine_lanes(float4 v, Op op) { return op(op(v.x, v.y), op(v.z, v.w)); }
template <typename Op> __device__ double combine_lanes(double2 v, Op op) { return op(v.x, v.y); }

// The values of one trip combined in pairs (a tree of log2(kVectorsInFlight) levels).
template <typename T, typename Op>
__device__ T combine_trip(T (&combined)[kVectorsInFlight], Op op) {
#pragma unroll
  for (int width = kVectorsInFlight / 2; width > 0; width /= 2) {
#pragma unroll
    for (int k = 0; k < width; ++k) combined[k] = op(combined[k], combined[k + width]);
  }
  return combined[0];
}

// [snippet:thread_reduce]
// One thread's share of input[0, n), combined with op. The array is split into
//   head:    the elements before the first 16-byte-aligned address (fewer than one
//            vector; none when `input` is aligned, as cudaMalloc's pointers are),
//   vectors: whole 16-byte vectors from there on, read with one load each,
//   tail:    the elements after the last whole vector (fewer than one vector).
// The vectors are dealt out grid-stride: thread t of the grid's `threads` takes
// vectors t, t + threads, t + 2*threads, ..., so each load instruction of a warp reads
// 32 neighbouring vectors (512 contiguous bytes). Each trip of the main loop issues
// kVectorsInFlight loads before the first add needs one of them: the loads do not
// depend on each other, so they are all in flight at once.
template <typename T, typename Op>
__device__ T thread_reduce(const T* __restrict__ input, std::size_t n, Op op) {
  using Vector = typename Vector16<T>::type;
  constexpr std::size_t kLanes = kVectorBytes / sizeof(T);  // elements per vector: 4 or 2
  const std::size_t thread = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;  // 64-bit throughout
  const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;

  // Where the aligned vectors start and end (a T* is always aligned to sizeof(T)).
  const std::size_t misaligned_bytes = reinterpret_cast<std::uintptr_t>(input) % kVectorBytes;
  const std::size_t head = misaligned_bytes ? (kVectorBytes - misaligned_bytes) / sizeof(T) : 0;
  const std::size_t head_count = head < n ? head : n;
  const Vector* vectors = reinterpret_cast<const Vector*>(input + head_count);
  const std::size_t vector_count = (n - head_count) / kLanes;
  const std::size_t tail_start = head_count + vector_count * kLanes;

  T partial = Op::template identity<T>();
  // Main loop: only trips where all kVectorsInFlight vectors exist. (The arrays live in
  // registers: every loop over k is unrolled, so every index is a constant.)
  std::size_t v = thread;
  for (; v + (kVectorsInFlight - 1) * threads < vector_count; v += kVectorsInFlight * threads) {
    Vector loaded[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) loaded[k] = __ldg(vectors + v + k * threads);  // all loads first
    T combined[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) combined[k] = combine_lanes(loaded[k], op);  // then each vector
    partial = op(partial, combine_trip(combined, op));  // then the vectors, in pairs
  }
  // The last, partial trip (fewer than kVectorsInFlight vectors left for this thread):
  // the same loads, each guarded, all issued before the first add, so a small grid waits
  // for memory once rather than once per leftover vector.
  if (v < vector_count) {
    T combined[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) {
      const std::size_t index = v + k * threads;
      combined[k] = index < vector_count ? combine_lanes(__ldg(vectors + index), op) : Op::template identity<T>();
    }
    partial = op(partial, combine_trip(combined, op));
  }
  // Head and tail, one element per thread (a loop only in case the grid has fewer
  // threads than that: --grid 1 --block 1 must still be right).
#pragma unroll 1
  for (std::size_t i = thread; i < head_count; i += threads) partial = op(partial, __ldg(input + i));
#pragma unroll 1
  for (std::size_t i = tail_start + thread; i < n; i += threads) partial = op(partial, __ldg(input + i));
  return partial;
}
// [/snippet:thread_reduce]

// 07's warp_sum with op in place of +: lane 0 gets the warp's total. A partial last
// warp (block size not a multiple of 32) names only its existing lanes in the mask
// and ignores what the shuffle returns from missing ones.
template <typename T, typename Op>
__device__ T warp_reduce(T value, Op op) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const unsigned lanes = min(kWarpSize, blockDim.x - (threadIdx.x - lane));  // threads in this warp
  const unsigned mask = lanes == kWarpSize ? kFullMask : (1u << lanes) - 1;
  for (unsigned offset = kWarpSize / 2; offset > 0; offset /= 2) {
    const T from_above = __shfl_down_sync(mask, value, offset);
    if (lane + offset < lanes) value = op(value, from_above);
  }
  return value;
}

// 07's block_sum with op in place of +: thread 0 gets the block's total.
// Calling it twice in one kernel needs a __syncthreads() between the two calls (warp
// 0 may still be reading warp_totals from the first call when another warp writes it).
template <typename T, typename Op>
__device__ T block_reduce(T value, Op op) {
  __shared__ T warp_totals[kWarpSize];  // one slot per warp: at most 1024 / 32 = 32 warps
  const unsigned lane = threadIdx.x % kWarpSize;
  const unsigned warp = threadIdx.x / kWarpSize;
  const unsigned warps = (blockDim.x + kWarpSize - 1) / kWarpSize;

  value = warp_reduce(value, op);  // every warp, in registers
  if (lane == 0) warp_totals[warp] = value;
  __syncthreads();                 // every warp's total is written before warp 0 reads them
  if (warp == 0) {
    value = lane < warps ? warp_totals[lane] : Op::template identity<T>();  // missing warps add the identity
    value = warp_reduce(value, op);
  }
  return value;
}

// ---- Host side: the chain-length bounds (see each chapter's chain_length) ----

// Additions an element passes through inside thread_reduce when the grid has
// `threads` threads. `partial` takes one addition per trip of the main loop, at most
// ceil(vectors / (threads * k)) trips (k = kVectorsInFlight; a vector holds at least 2
// elements, so vectors <= n / 2), then up to k - 1 leftover vectors and the head and
// tail elements (fewer than 4 each, at most ceil(3 / threads) per thread). Before it
// reaches `partial`, an element meets at most 2 additions among the lanes of its
// vector and log2(k) among the vectors of its trip.
inline std::size_t thread_reduce_chain(std::size_t n, std::size_t threads) {
  using reduction::ceil_div;
  return ceil_div(n, 2 * threads * kVectorsInFlight) + (kVectorsInFlight - 1) + 2 * ceil_div(3, threads) + 2 +
         reduction::ceil_log2(kVectorsInFlight);
}

// Additions a value passes through in block_reduce: the shuffle tree inside a warp (5
// steps for a full warp, fewer for a smaller block), then the tree over the warps.
inline std::size_t block_reduce_depth(int block) {
  const std::size_t warps = reduction::ceil_div(block, kWarpSize);
  return reduction::ceil_log2(std::min<std::size_t>(block, kWarpSize)) + reduction::ceil_log2(warps);
}

// Elements one block covers when each of its threads reads one 16-byte vector of
// 4-byte elements (int, float): block * 4. Small grids are sized with it, so that at
// small n the work is spread over as many SMs as there are vectors to read (each
// thread then waits for memory once: see the partial trip in thread_reduce).
inline std::size_t elements_per_block_vector(int block) { return std::size_t(block) * 4; }

}  // namespace vectorized
