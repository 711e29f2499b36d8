// 09_single_pass: one launch from the input to the result, for sum, max and min.
//
// What changes since 08: 08 needs a second launch just to combine a few hundred block partials, and at small n that
// launch is a large share of the time. Here every block reduces its share exactly as in 08 (thread_reduce and
// block_reduce are 08's code, repeated unchanged below), writes its partial, and takes a numbered ticket from a
// counter with a cuda::atomic_ref fetch_add whose acquire-release order makes the partial visible to whoever draws a
// later ticket. The block that draws the last ticket knows that every other partial is written, so its first warp
// combines them, in a fixed order (partial b always goes to the same lane and the same place in the tree), writes
// the result and puts the counter back to 0 for the next call. Whichever block comes last, the arithmetic is the
// same, so a float result is the same bit for bit on every run (atomicAdd of float partials would add them in
// arrival order). The launch shape now follows n (default_shape): one block, blocks of 256, or a wave of 1024.
//
// Build and run:  cmake --build --preset release --target 09_single_pass
//                 build/release/bin/09_single_pass --n 2^24 --type float
//                 build/release/bin/09_single_pass --n 2^20 --op max --type double
#include "single_pass.cuh"

#include <cuda/atomic>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace single_pass {
namespace {

constexpr unsigned kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;

// The widest load a thread can make in one instruction: 16 bytes (LDG.E.128 in SASS).
constexpr std::size_t kVectorBytes = 16;
// Independent 16-byte loads each thread issues before it adds any of them: more bytes
// in flight per thread, so fewer threads are needed to cover the memory latency.
constexpr int kVectorsInFlight = 4;
static_assert((kVectorsInFlight & (kVectorsInFlight - 1)) == 0, "the vectors of a trip are combined in pairs");

// The 16-byte vector type that holds 4 ints, 4 floats or 2 doubles (CUDA's built-in
// vector types, declared with 16-byte alignment); for any other number type of 1, 2, 4
// or 8 bytes (long long, unsigned, short, ...) a uint4, whose bytes combine_lanes splits.
// (8 bytes at most: scratch_bytes sizes each partial for a double.)
template <typename T> struct Vector16 {
  static_assert(std::is_arithmetic_v<T> && 16 % sizeof(T) == 0 && sizeof(T) <= 8, "T: a number of 1 to 8 bytes");
  using type = uint4;
};
template <> struct Vector16<int> { using type = int4; };
template <> struct Vector16<float> { using type = float4; };
template <> struct Vector16<double> { using type = double2; };

// The lanes of one vector combined with op, in pairs: (x op y) op (z op w) for 4 lanes.
template <typename T, typename Op>
__device__ T combine_lanes(typename Vector16<T>::type vector, Op op) {
  constexpr int kLanes = kVectorBytes / sizeof(T);
  T lane[kLanes];
  memcpy(lane, &vector, kVectorBytes);  // the same 16 bytes as kLanes values (in registers: no copy)
  for (int width = 1; width < kLanes; width *= 2)  // constant trip counts: unrolled
    for (int k = 0; k + width < kLanes; k += 2 * width) lane[k] = op(lane[k], lane[k + width]);
  return lane[0];
}

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
    for (int k = 0; k < kVectorsInFlight; ++k) combined[k] = combine_lanes<T>(loaded[k], op);  // then each vector
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
      combined[k] = index < vector_count ? combine_lanes<T>(__ldg(vectors + index), op) : Op::template identity<T>();
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

// [snippet:warp_reduce]
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
// [/snippet:warp_reduce]

// 07's block_sum with op in place of +: thread 0 gets the block's total. Calling it twice in one kernel needs
// a __syncthreads() between the calls (warp 0 may still read warp_totals of the first when another warp writes).
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

// Scratch layout: the ticket counter (an unsigned int), then the block partials from byte 16 (aligned for any T).
constexpr std::size_t kPartialsOffset = 16;

// Partials each lane of the last block's warp 0 loads before it adds any of them.
constexpr int kPartialLoads = 4;

constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// [snippet:combine_partials]
// Step 3 of the kernel (single_pass), in the last block's warp 0 (`lanes` threads): lane l combines
// partials l, l + lanes, l + 2*lanes, ... in that order, then the warp tree; lane 0 gets the value.
// The order never depends on which block finished when. Each lane issues kPartialLoads loads before
// it adds any, so that they wait for L2 together. Plain loads, not __ldg: the read-only cache may
// hold a stale copy of data that changes during the launch.
template <typename T, typename Op>
__device__ T combine_partials(const T* partials, unsigned lanes, Op op) {
  T value = Op::template identity<T>();
  for (unsigned first = threadIdx.x; first < gridDim.x; first += kPartialLoads * lanes) {
    T loaded[kPartialLoads];
#pragma unroll
    for (int k = 0; k < kPartialLoads; ++k) {
      const unsigned b = first + k * lanes;
      loaded[k] = b < gridDim.x ? partials[b] : Op::template identity<T>();
    }
#pragma unroll
    for (int k = 0; k < kPartialLoads; ++k) value = op(value, loaded[k]);
  }
  return warp_reduce(value, op);
}
// [/snippet:combine_partials]

// [snippet:kernel]
// Reduces input[0, n) with Op and writes the value to *result, in one launch.
// `partials` holds one value per block; `ticket` must be 0 when the launch starts
// (scratch zeroed once by the caller), and is 0 again when it ends.
// What still limits it: nothing at large n, where it streams at the memory's speed; at
// small n, the launch itself and the finish (the ticket's round trip to L2, then the
// last block's loads of the partials): 09's README, "Where the time goes at small n".
template <typename T, typename Op>
__global__ void __launch_bounds__(1024)
    single_pass(const T* __restrict__ input, std::size_t n, T* result, T* partials, unsigned* ticket) {
  const Op op{};

  // 1. As in 08: this block's share, 16 bytes at a time; thread 0 gets the block's value.
  const T block_value = block_reduce(thread_reduce(input, n, op), op);
  if (threadIdx.x >= kWarpSize) return;  // the rest is warp 0's: no block-wide barrier below
  if (gridDim.x == 1) {                  // one block (small n): its value is the result
    if (threadIdx.x == 0) *result = block_value;
    return;
  }

  // 2. Lane 0 publishes the partial and takes a ticket.
  const unsigned lanes = min(kWarpSize, blockDim.x);  // warp 0's threads (fewer for a tiny block)
  const unsigned mask = lanes == kWarpSize ? kFullMask : (1u << lanes) - 1;
  unsigned my_ticket = 0;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_value;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> ticket_ref(*ticket);
    // Release: the partial stored above is visible to any thread of the device that
    // acquires this ticket. Acquire: if this block draws the last ticket, its reads of
    // the partials below see what every other block released. (acq_rel: both.)
    my_ticket = ticket_ref.fetch_add(1, cuda::memory_order_acq_rel);
    // fetch_add does not wrap: the last block puts the counter back to 0 for the next
    // call. Every other block has drawn its ticket already.
    if (my_ticket == gridDim.x - 1) ticket_ref.store(0, cuda::memory_order_relaxed);
  }
  my_ticket = __shfl_sync(mask, my_ticket, 0);  // every lane of warp 0 learns the ticket
  if (my_ticket != gridDim.x - 1) return;        // not the last block: done
  __syncwarp(mask);  // carries lane 0's acquire to the other lanes before their loads

  // 3. The last block's warp 0: every partial is written (the acquire orders our loads
  //    after every other block's release); combine them in a fixed order.
  const T value = combine_partials(partials, lanes, op);
  if (threadIdx.x == 0) *result = value;
}
// [/snippet:kernel]

// Elements one thread covers at small n: one trip of thread_reduce's main loop, kVectorsInFlight 16-byte vectors
// of 4-byte elements (for double, two trips). Each thread then waits for memory about once.
constexpr std::size_t kElementsPerThread = kVectorsInFlight * 4;

// How many blocks of `block` threads of this kernel one SM holds at once, limited by its registers, shared
// memory and thread and block slots (asks the device); *fewest keeps the smallest answer so far.
template <typename Kernel>
cudaError_t fewest_blocks_per_sm(Kernel kernel, int block, int* fewest) {
  int blocks = 0;
  const cudaError_t status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block, 0);
  *fewest = std::min(*fewest, blocks);
  return status;
}

// The same over the kernels of one element type (sum, max, min).
template <typename T>
cudaError_t fewest_blocks_per_sm_for(int block, int* fewest) {
  cudaError_t status = fewest_blocks_per_sm(single_pass<T, Sum>, block, fewest);
  if (status == cudaSuccess) status = fewest_blocks_per_sm(single_pass<T, Max>, block, fewest);
  if (status == cudaSuccess) status = fewest_blocks_per_sm(single_pass<T, Min>, block, fewest);
  return status;
}

// The SM count, and how many blocks of `block` threads fit on the device at once (one full wave: the fewest
// per SM over the built-in types and operators, so that the whole grid is resident whichever kernel runs).
cudaError_t device_limits(int block, int* sm_count, std::size_t* wave) {
  int device = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(sm_count, cudaDevAttrMultiProcessorCount, device);
  int per_sm = INT_MAX;
  if (status == cudaSuccess) status = fewest_blocks_per_sm_for<int>(block, &per_sm);
  if (status == cudaSuccess) status = fewest_blocks_per_sm_for<float>(block, &per_sm);
  if (status == cudaSuccess) status = fewest_blocks_per_sm_for<double>(block, &per_sm);
  *wave = std::size_t(std::max(per_sm, 1)) * std::max(*sm_count, 1);
  return status;
}

}  // namespace

// [snippet:shape]
// A grid for blocks of `block` threads: one trip of kElementsPerThread elements per
// thread, but never more than one full wave (then each thread loops).
cudaError_t default_grid(std::size_t n, int block, int* grid) {
  if (block < 1 || block > 1024) return cudaErrorInvalidValue;
  int sm_count = 0;
  std::size_t wave = 0;
  const cudaError_t status = device_limits(block, &sm_count, &wave);
  if (status != cudaSuccess) return status;
  const std::size_t threads = ceil_div(std::max<std::size_t>(n, 1), kElementsPerThread);
  *grid = static_cast<int>(std::min(wave, ceil_div(threads, block)));
  return cudaSuccess;
}

// The block for n elements, found with the small-n sweep (docs/tuning.md):
//   up to 1024 threads' worth (n <= 16384 for 4-byte types): one block, as many threads
//     as one trip each needs (a multiple of 32): it writes the result, no ticket;
//   up to one 1024-thread block for every two SMs: blocks of 256 threads, so that a
//     small input is spread over more SMs (each SM reads only so fast);
//   above: the largest multiple of 32 up to 1024 that divides the SM's thread limit, so
//     that whole blocks fill it (1024 for 2048 or 1024 threads, 768 for 1536).
int default_block(std::size_t n, int sm_count, int threads_per_sm) {
  const std::size_t threads = ceil_div(std::max<std::size_t>(n, 1), kElementsPerThread);
  if (threads <= 1024) return static_cast<int>(ceil_div(threads, 32) * 32);
  if (threads < std::size_t(1024) * sm_count / 2) return 256;
  int block = 1024;
  while (block > 32 && threads_per_sm % block != 0) block -= 32;
  return block;
}

// default_block on this device (at large n 1024 where the registers keep its blocks from
// filling an SM), then default_grid.
cudaError_t default_shape(std::size_t n, int* block, int* grid) {
  int device = 0, sm_count = 0, threads_per_sm = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
  if (status == cudaSuccess) {
    status = cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
  }
  *block = default_block(n, sm_count, threads_per_sm);
  if (status == cudaSuccess && n > 1024 * kElementsPerThread && *block != 256 && *block != 1024) {
    std::size_t wave = 0;  // blocks on the device at once
    status = device_limits(*block, &sm_count, &wave);
    if (wave * *block < std::size_t(sm_count) * threads_per_sm) *block = 1024;
  }
  return status == cudaSuccess ? default_grid(n, *block, grid) : status;
}
// [/snippet:shape]

std::size_t scratch_bytes(std::size_t /*n*/, int /*block*/, int grid) {
  return kPartialsOffset + std::size_t(grid) * sizeof(double);  // the ticket, then partials of the widest type
}

// [snippet:launcher]
// One launch. Scratch: the ticket counter, then the partials from byte kPartialsOffset on.
template <typename T, typename Op>
cudaError_t reduce(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block,
                   int grid, cudaStream_t stream) {
  if (block < 1 || block > 1024 || grid < 1) return cudaErrorInvalidValue;
  if (scratch_size < scratch_bytes(n, block, grid)) return cudaErrorInvalidValue;  // too small: no launch
  unsigned char* bytes = static_cast<unsigned char*>(scratch);
  unsigned* ticket = reinterpret_cast<unsigned*>(bytes);
  T* partials = reinterpret_cast<T*>(bytes + kPartialsOffset);
  single_pass<T, Op><<<grid, block, 0, stream>>>(input, n, result, partials, ticket);
  return cudaGetLastError();
}
// [/snippet:launcher]

}  // namespace single_pass

// reduce with Sum, Max and Min for element type T: use it at global scope (here, or at the end of this file).
#define SINGLE_PASS_INSTANTIATE(T) namespace single_pass {                                                     \
  template cudaError_t reduce<T, Sum>(const T*, std::size_t, T*, void*, std::size_t, int, int, cudaStream_t);  \
  template cudaError_t reduce<T, Max>(const T*, std::size_t, T*, void*, std::size_t, int, int, cudaStream_t);  \
  template cudaError_t reduce<T, Min>(const T*, std::size_t, T*, void*, std::size_t, int, int, cudaStream_t); }
SINGLE_PASS_INSTANTIATE(int)
SINGLE_PASS_INSTANTIATE(float)
SINGLE_PASS_INSTANTIATE(double)
