// 08_vectorized: 16-byte loads, several in flight per thread (two launches; one for a one-block grid).
//
// What changes since 07: the reduction inside the block is 07's, but the loop over the
// input no longer loads one element at a time. A thread loads 16 bytes at once (an int4,
// float4 or double2: one LDG.E.128 instruction instead of four or two), and it issues
// 4 such loads before it adds any of them, so each thread keeps 64 bytes in flight
// instead of 16 or 32. A vector load needs a 16-byte-aligned address, so the elements
// before the first aligned address (the head) and after the last whole vector (the
// tail) are read one by one: any n and any start address work. The grid is still one
// full wave from the occupancy calculator at large n, but at small n only as many
// blocks as the work needs. And the default block is 1024 threads, not 07's 256
// (__launch_bounds__(1024) so that the kernel fits them).
// The device code (thread_reduce, block_reduce) takes the operator as a parameter: 08
// only sums, 09 repeats this code and reduces with max and min too.
//
// Build and run:  cmake --build --preset release --target 08_vectorized
//                 build/release/bin/08_vectorized --n 2^24 --type float
// See the loads:  cuobjdump -sass build/release/bin/08_vectorized | grep LDG
#include "vectorized.cuh"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace vectorized {
namespace {

// The operator: a functor with an identity, the value that changes nothing, which
// threads and lanes without input contribute.
struct Sum {
  template <typename T> __host__ __device__ static T identity() { return T(0); }
  template <typename T> __host__ __device__ T operator()(T a, T b) const { return a + b; }
};

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
  constexpr std::size_t kLanes = kVectorBytes / sizeof(T);  // elements per vector: 4 or 2 (int, float, double)
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

// [snippet:kernel]
// Each block writes the sum of its share of `input` to out[blockIdx.x].
// __launch_bounds__(1024): the compiler keeps to the registers that let a block of
// 1024 threads launch (64 per thread), so every block size from 1 to 1024 runs.
// What still limits it: a second launch just to add up a few hundred partials; at
// small n its launch and the gap between the two kernels are a large share of the
// time (09 finishes in the same launch).
template <typename T>
__global__ void __launch_bounds__(1024) block_sums(const T* __restrict__ input, std::size_t n, T* out) {
  const T thread_sum = thread_reduce(input, n, Sum());
  const T block_total = block_reduce(thread_sum, Sum());
  if (threadIdx.x == 0) out[blockIdx.x] = block_total;
}
// [/snippet:kernel]

constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// Elements one block covers when each of its threads reads one 16-byte vector of
// 4-byte elements (int, float): block * 4. Small grids are sized with it, so that at
// small n the work is spread over as many SMs as there are vectors to read (each
// thread then waits for memory once: see the partial trip in thread_reduce).
std::size_t elements_per_block_vector(int block) { return std::size_t(block) * 4; }

// [snippet:occupancy]
// How many blocks of `block` threads of this kernel one SM can hold at once, limited by
// its registers, shared memory and thread and block slots (asks the device); *fewest
// keeps the smallest answer so far.
template <typename Kernel>
cudaError_t fewest_blocks_per_sm(Kernel kernel, int block, int* fewest) {
  int blocks = 0;
  const cudaError_t status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block, 0);
  *fewest = std::min(*fewest, blocks);
  return status;
}
// [/snippet:occupancy]

}  // namespace

// [snippet:default_grid]
cudaError_t default_grid(std::size_t n, int block, int* grid) {
  if (block < 1 || block > 1024) return cudaErrorInvalidValue;
  int device = 0, sm_count = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
  // default_grid does not know the element type: take the type whose kernel fits the
  // fewest blocks per SM (the double one uses the most registers), so that the whole
  // grid is resident for every type.
  int per_sm = INT_MAX;
  if (status == cudaSuccess) status = fewest_blocks_per_sm(block_sums<int>, block, &per_sm);
  if (status == cudaSuccess) status = fewest_blocks_per_sm(block_sums<float>, block, &per_sm);
  if (status == cudaSuccess) status = fewest_blocks_per_sm(block_sums<double>, block, &per_sm);
  if (status != cudaSuccess) return status;
  const std::size_t resident = std::size_t(std::max(per_sm, 1)) * sm_count;
  // Small n: no more blocks than four elements per thread need (one vector of ints or floats).
  const std::size_t needed = ceil_div(std::max<std::size_t>(n, 1), elements_per_block_vector(block));
  *grid = static_cast<int>(std::min(resident, needed));
  return cudaSuccess;
}
// [/snippet:default_grid]

// The largest multiple of 32 up to kDefaultBlock that divides the SM's thread limit:
// 1024 where an SM holds 2048 or 1024 threads, 768 where it holds 1536.
int default_block(int threads_per_sm) {
  int block = kDefaultBlock;
  while (block > 32 && threads_per_sm % block != 0) block -= 32;
  return block;
}

// default_block on this device, but kDefaultBlock where the registers keep its blocks
// from filling an SM (then a 1024-thread block holds more), then default_grid.
cudaError_t default_shape(std::size_t n, int* block, int* grid) {
  int device = 0, threads_per_sm = 0, per_sm = INT_MAX;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) {
    status = cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
  }
  *block = default_block(threads_per_sm);
  if (status == cudaSuccess && *block != kDefaultBlock) {
    status = fewest_blocks_per_sm(block_sums<int>, *block, &per_sm);
    if (status == cudaSuccess) status = fewest_blocks_per_sm(block_sums<float>, *block, &per_sm);
    if (status == cudaSuccess) status = fewest_blocks_per_sm(block_sums<double>, *block, &per_sm);
    if (per_sm * *block < threads_per_sm) *block = kDefaultBlock;
  }
  return status == cudaSuccess ? default_grid(n, *block, grid) : status;
}

std::size_t scratch_bytes(std::size_t /*n*/, int /*block*/, int grid) {
  return grid > 1 ? std::size_t(grid) * sizeof(double) : 0;  // sized for the widest type
}

// [snippet:launcher]
// 04's two launches. First launch: `grid` blocks, one partial each (in `scratch`).
// Second launch: one block folds the `grid` partials; its loop covers any grid, even
// one far larger than the block.
template <typename T>
cudaError_t reduce(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block,
                   int grid, cudaStream_t stream) {
  if (block < 1 || block > 1024 || grid < 1) return cudaErrorInvalidValue;
  if (scratch_size < scratch_bytes(n, block, grid)) return cudaErrorInvalidValue;  // too small: no launch
  if (grid == 1) {  // one block covers everything: its sum is the result
    block_sums<<<1, block, 0, stream>>>(input, n, result);
    return cudaGetLastError();
  }
  T* partials = static_cast<T*>(scratch);
  block_sums<<<grid, block, 0, stream>>>(input, n, partials);
  const cudaError_t status = cudaGetLastError();  // a bad launch is only reported here
  if (status != cudaSuccess) return status;
  block_sums<<<1, block, 0, stream>>>(partials, grid, result);
  return cudaGetLastError();
}
// [/snippet:launcher]

}  // namespace vectorized

// reduce for element type T: use it at global scope (here, or at the end of this file).
#define VECTORIZED_INSTANTIATE(T) \
  template cudaError_t vectorized::reduce<T>(const T*, std::size_t, T*, void*, std::size_t, int, int, cudaStream_t);
VECTORIZED_INSTANTIATE(int)
VECTORIZED_INSTANTIATE(float)
VECTORIZED_INSTANTIATE(double)
