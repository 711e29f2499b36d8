// 12_accuracy: 09's single pass with compensated sums: a float sum about as accurate as one in twice the
// precision, rounded once: unless its terms cancel heavily, within about one rounding of the exact sum (README).
//
// What changes since 09: the arithmetic, not the memory traffic. Every addition is a TwoSum, which returns the
// rounded sum s and also the exact error e of that rounding: s + e equals a + b exactly. Each thread carries a
// pair, its running sum and a compensation that collects those errors (Neumaier's form of Kahan's compensated
// summation). The warp, block and last-block steps combine pairs: the two sums with TwoSum again, the two
// compensations and the new error with plain adds. The result is sum + compensation, rounded once. int needs
// none of it (int addition is exact, modulo 2^32, in any order): its compensation stays 0 and is never
// shuffled. The rest is 09's: the loads, the loop, head and tail, one launch, the ticket, and the last block's
// fixed order (the same bits on every run). Sum only (no --op).
//
// Build and run:  cmake --build --preset release --target 12_accuracy
//                 build/release/bin/12_accuracy --n 2^24 --type float
#include "compensated_sum.cuh"

#include <cuda/atomic>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <type_traits>

namespace compensated_sum {
namespace {

constexpr unsigned kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;

// The widest load a thread can make in one instruction: 16 bytes (LDG.E.128 in SASS).
constexpr std::size_t kVectorBytes = 16;
// Independent 16-byte loads each thread issues before it adds any of them: more bytes
// in flight per thread, so fewer threads are needed to cover the memory latency.
constexpr int kVectorsInFlight = 4;

// The 16-byte vector type that holds 4 ints, 4 floats or 2 doubles (16-byte aligned).
template <typename T> struct Vector16;
template <> struct Vector16<int> { using type = int4; };
template <> struct Vector16<float> { using type = float4; };
template <> struct Vector16<double> { using type = double2; };

// Additions rounded to nearest, with intrinsics the compiler may neither fuse nor rearrange, with or without
// --use_fast_math (it only makes the float ones .ftz: subnormals taken as 0). A compiler that reassociated
// additions (-ffast-math on a CPU) would simplify TwoSum's error term to 0.
__device__ float plus(float a, float b) { return __fadd_rn(a, b); }
__device__ double plus(double a, double b) { return __dadd_rn(a, b); }
__device__ float minus(float a, float b) { return __fsub_rn(a, b); }
__device__ double minus(double a, double b) { return __dsub_rn(a, b); }

// [snippet:two_sum]
// TwoSum (Knuth): returns a + b rounded, and sets `error` to what that rounding lost, so
// that sum + error == a + b exactly, for any sizes and signs of a and b (no branch; the
// shorter Fast2Sum needs |a| >= |b|). Six additions where a plain sum has one. Exact as
// long as nothing overflows; with an inf or a NaN the error is NaN (see value_of).
template <typename T>
__device__ T two_sum(T a, T b, T& error) {
  const T sum = plus(a, b);
  const T b_in_sum = minus(sum, a);         // the part of sum that came from b
  const T a_in_sum = minus(sum, b_in_sum);  // and the part that came from a
  error = plus(minus(a, a_in_sum), minus(b, b_in_sum));  // what each of them lost: exact
  return sum;
}
// [/snippet:two_sum]

// A running sum that keeps what its roundings dropped: its value is sum + compensation,
// where sum is the ordinary rounded running sum. For int the compensation stays 0.
// (No constructor: the struct lives in __shared__ memory below.)
template <typename T>
struct Partial {
  T sum;
  T compensation;
};

template <typename T>
__device__ Partial<T> zero() { return {T(0), T(0)}; }

// [snippet:add_merge]
// Adds x to p: the sum with TwoSum, its error into the compensation.
template <typename T>
__device__ void add(Partial<T>& p, T x) {
  if constexpr (std::is_integral_v<T>) {
    p.sum += x;  // exact unless it overflows (undefined behaviour in C++; the GPU wraps)
  } else {
    T error;
    p.sum = two_sum(p.sum, x, error);
    p.compensation = plus(p.compensation, error);
  }
}

// Combines two partials: the sums with TwoSum; the compensations and the new error with
// plain adds (about u times the sums, so their own roundings are about u^2 of the sums).
template <typename T>
__device__ Partial<T> merge(Partial<T> a, Partial<T> b) {
  if constexpr (std::is_integral_v<T>) {
    return {a.sum + b.sum, 0};
  } else {
    T error;
    const T sum = two_sum(a.sum, b.sum, error);
    return {sum, plus(plus(a.compensation, b.compensation), error)};
  }
}
// [/snippet:add_merge]

// The value of a partial, rounded once. When the sum is inf or NaN (an inf or a NaN in the input, or a sum
// past the largest float), TwoSum's error is NaN (inf - inf), so the compensation means nothing and the sum
// alone is the answer: inf, -inf or NaN, as a plain sum gives (NaN for +inf with -inf, as in NumPy).
template <typename T>
__device__ T value_of(Partial<T> p) {
  if constexpr (std::is_integral_v<T>) {
    return p.sum;
  } else {
    return isfinite(p.sum) ? plus(p.sum, p.compensation) : p.sum;
  }
}

// The lanes of one vector added to p, one after the other.
__device__ void add_lanes(Partial<int>& p, int4 v) {
  add(p, v.x);
  add(p, v.y);
  add(p, v.z);
  add(p, v.w);
}
__device__ void add_lanes(Partial<float>& p, float4 v) {
  add(p, v.x);
  add(p, v.y);
  add(p, v.z);
  add(p, v.w);
}
__device__ void add_lanes(Partial<double>& p, double2 v) {
  add(p, v.x);
  add(p, v.y);
}

// [snippet:thread_reduce]
// One thread's share of input[0, n), as a compensated partial. The array is split into
//   head:    the elements before the first 16-byte-aligned address (fewer than one
//            vector; none when `input` is aligned, as cudaMalloc's pointers are),
//   vectors: whole 16-byte vectors from there on, read with one load each,
//   tail:    the elements after the last whole vector (fewer than one vector).
// The vectors are dealt out grid-stride: thread t of the grid's `threads` takes
// vectors t, t + threads, t + 2*threads, ..., so each load instruction of a warp reads
// 32 neighbouring vectors (512 contiguous bytes). Each trip of the main loop issues
// kVectorsInFlight loads before the first add needs one of them: the loads do not
// depend on each other, so they are all in flight at once.
template <typename T>
__device__ Partial<T> thread_reduce(const T* __restrict__ input, std::size_t n) {
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

  Partial<T> partial = zero<T>();
  // Main loop: only trips where all kVectorsInFlight vectors exist. (The arrays live in
  // registers: every loop over k is unrolled, so every index is a constant.)
  std::size_t v = thread;
  for (; v + (kVectorsInFlight - 1) * threads < vector_count; v += kVectorsInFlight * threads) {
    Vector loaded[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) loaded[k] = __ldg(vectors + v + k * threads);  // all loads first
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) add_lanes(partial, loaded[k]);  // then every element, in order
  }
  // The last, partial trip (fewer than kVectorsInFlight vectors left for this thread):
  // the same loads, each guarded, all issued before the first add, so a small grid waits
  // for memory once rather than once per leftover vector.
  if (v < vector_count) {
    Vector loaded[kVectorsInFlight] = {};
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) {
      if (v + k * threads < vector_count) loaded[k] = __ldg(vectors + v + k * threads);
    }
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) {
      if (v + k * threads < vector_count) add_lanes(partial, loaded[k]);
    }
  }
  // Head and tail, one element per thread (a loop only in case the grid has fewer
  // threads than that: --grid 1 --block 1 must still be right).
#pragma unroll 1
  for (std::size_t i = thread; i < head_count; i += threads) add(partial, __ldg(input + i));
#pragma unroll 1
  for (std::size_t i = tail_start + thread; i < n; i += threads) add(partial, __ldg(input + i));
  return partial;
}
// [/snippet:thread_reduce]

// 09's warp_reduce with pairs: lane 0 gets the warp's partial; both halves travel by
// shuffle (for int only the sum). A partial last warp (block size not a multiple of
// 32) names only its existing lanes in the mask and ignores what missing ones return.
template <typename T>
__device__ Partial<T> warp_reduce(Partial<T> value) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const unsigned lanes = min(kWarpSize, blockDim.x - (threadIdx.x - lane));  // threads in this warp
  const unsigned mask = lanes == kWarpSize ? kFullMask : (1u << lanes) - 1;
  for (unsigned offset = kWarpSize / 2; offset > 0; offset /= 2) {
    Partial<T> from_above = zero<T>();
    from_above.sum = __shfl_down_sync(mask, value.sum, offset);
    if constexpr (!std::is_integral_v<T>) from_above.compensation = __shfl_down_sync(mask, value.compensation, offset);
    if (lane + offset < lanes) value = merge(value, from_above);
  }
  return value;
}

// 09's block_reduce with pairs: thread 0 gets the block's partial.
// Calling it twice in one kernel needs a __syncthreads() between the two calls (warp
// 0 may still be reading warp_totals from the first call when another warp writes it).
template <typename T>
__device__ Partial<T> block_reduce(Partial<T> value) {
  __shared__ Partial<T> warp_totals[kWarpSize];  // one slot per warp: at most 1024 / 32 = 32 warps
  const unsigned lane = threadIdx.x % kWarpSize;
  const unsigned warp = threadIdx.x / kWarpSize;
  const unsigned warps = (blockDim.x + kWarpSize - 1) / kWarpSize;

  value = warp_reduce(value);  // every warp, in registers
  if (lane == 0) warp_totals[warp] = value;
  __syncthreads();             // every warp's partial is written before warp 0 reads them
  if (warp == 0) {
    value = lane < warps ? warp_totals[lane] : zero<T>();  // missing warps add nothing
    value = warp_reduce(value);
  }
  return value;
}

// Scratch: the ticket counter (an unsigned int), then the partials from byte 16 (aligned).
constexpr std::size_t kPartialsOffset = 16;

// Partials each lane of the last block's warp 0 loads before it merges any of them.
constexpr int kPartialLoads = 4;

// Step 3 of the kernel below, in the last block's warp 0 (`lanes` threads), as 09's combine_partials with
// pairs: lane l merges partials l, l + lanes, ... in that order, then the warp tree. Plain loads, not __ldg.
template <typename T>
__device__ Partial<T> combine_partials(const Partial<T>* partials, unsigned lanes) {
  Partial<T> value = zero<T>();
  for (unsigned first = threadIdx.x; first < gridDim.x; first += kPartialLoads * lanes) {
    Partial<T> loaded[kPartialLoads];
#pragma unroll
    for (int k = 0; k < kPartialLoads; ++k) {
      const unsigned b = first + k * lanes;
      loaded[k] = b < gridDim.x ? partials[b] : zero<T>();
    }
#pragma unroll
    for (int k = 0; k < kPartialLoads; ++k) value = merge(value, loaded[k]);
  }
  return warp_reduce(value);
}

// [snippet:kernel]
// 2 blocks of 1024 threads per SM where an SM holds 2048 threads (sm_80, sm_90, sm_100,
// sm_103); 1 elsewhere (an SM of 1024 or 1536 threads: 2 would be ignored, with a warning).
#if __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000 || __CUDA_ARCH__ == 1030
constexpr int kMinBlocksPerSm = 2;
#else
constexpr int kMinBlocksPerSm = 1;
#endif

// Sums input[0, n) and writes the value to *result, in one launch. `partials` holds one
// pair per block; `ticket` must be 0 when the launch starts (scratch zeroed once by the
// caller), and is 0 again when it ends. About seven additions per element where 09 has
// one: at large n they hide behind the memory reads. Left alone, nvcc gives the pairs
// about 46 registers per thread on sm_90, room for one 1024-thread block per SM (half of
// 09's threads); asked for two, it fits the kernel in 32, with no spills.
template <typename T>
__global__ void __launch_bounds__(1024, kMinBlocksPerSm)
    compensated_sum(const T* __restrict__ input, std::size_t n, T* result, Partial<T>* partials, unsigned* ticket) {
  // 1. As in 09, with pairs: this block's share; thread 0 gets the block's partial.
  const Partial<T> block_value = block_reduce(thread_reduce(input, n));
  if (threadIdx.x >= kWarpSize) return;  // the rest is warp 0's: no block-wide barrier below
  if (gridDim.x == 1) {                  // one block (small n): its value is the result
    if (threadIdx.x == 0) *result = value_of(block_value);
    return;
  }

  // 2. As in 09: lane 0 publishes the pair and takes a ticket (acquire-release).
  const unsigned lanes = min(kWarpSize, blockDim.x);
  const unsigned mask = lanes == kWarpSize ? kFullMask : (1u << lanes) - 1;
  unsigned my_ticket = 0;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_value;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> ticket_ref(*ticket);
    my_ticket = ticket_ref.fetch_add(1, cuda::memory_order_acq_rel);
    if (my_ticket == gridDim.x - 1) ticket_ref.store(0, cuda::memory_order_relaxed);
  }
  my_ticket = __shfl_sync(mask, my_ticket, 0);
  if (my_ticket != gridDim.x - 1) return;
  __syncwarp(mask);  // carries lane 0's acquire to the other lanes before their loads

  // 3. The last block's warp 0 merges the pairs in a fixed order; their value, rounded once.
  const Partial<T> value = combine_partials(partials, lanes);
  if (threadIdx.x == 0) *result = value_of(value);
}
// [/snippet:kernel]

constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// Elements one thread covers at small n, as in 09: one trip of the main loop.
constexpr std::size_t kElementsPerThread = kVectorsInFlight * 4;

// Blocks of `block` threads of this kernel one SM holds at once (asks the device); *fewest keeps the least.
template <typename Kernel>
cudaError_t fewest_blocks_per_sm(Kernel kernel, int block, int* fewest) {
  int blocks = 0;
  const cudaError_t status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block, 0);
  *fewest = std::min(*fewest, blocks);
  return status;
}

// The SM count, and one full wave of `block`-thread blocks (the fewest per SM over the three types).
cudaError_t device_limits(int block, int* sm_count, std::size_t* wave) {
  int device = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(sm_count, cudaDevAttrMultiProcessorCount, device);
  int per_sm = INT_MAX;
  if (status == cudaSuccess) status = fewest_blocks_per_sm(compensated_sum<int>, block, &per_sm);
  if (status == cudaSuccess) status = fewest_blocks_per_sm(compensated_sum<float>, block, &per_sm);
  if (status == cudaSuccess) status = fewest_blocks_per_sm(compensated_sum<double>, block, &per_sm);
  *wave = std::size_t(std::max(per_sm, 1)) * std::max(*sm_count, 1);
  return status;
}

}  // namespace

// As 09: one trip per thread, at most one full wave.
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

// As 09: one block, blocks of 256, or the largest multiple of 32 dividing threads_per_sm.
int default_block(std::size_t n, int sm_count, int threads_per_sm) {
  const std::size_t threads = ceil_div(std::max<std::size_t>(n, 1), kElementsPerThread);
  if (threads <= 1024) return static_cast<int>(ceil_div(threads, 32) * 32);
  if (threads < std::size_t(1024) * sm_count / 2) return 256;
  for (int block = 1024;; block -= 32) if (block == 32 || threads_per_sm % block == 0) return block;
}
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
    if (wave * *block < std::size_t(sm_count) * threads_per_sm) *block = 1024;  // registers: SM not full
  }
  return status == cudaSuccess ? default_grid(n, *block, grid) : status;
}

std::size_t scratch_bytes(std::size_t /*n*/, int /*block*/, int grid) {
  return kPartialsOffset + std::size_t(grid) * sizeof(Partial<double>);  // the ticket, then pairs of the widest type
}

// [snippet:launcher]
// One launch. Scratch: the ticket counter, then the partials from byte kPartialsOffset on.
template <typename T>
cudaError_t reduce(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block,
                   int grid, cudaStream_t stream) {
  if (block < 1 || block > 1024 || grid < 1) return cudaErrorInvalidValue;
  if (scratch_size < scratch_bytes(n, block, grid)) return cudaErrorInvalidValue;  // too small: no launch
  unsigned char* bytes = static_cast<unsigned char*>(scratch);
  unsigned* ticket = reinterpret_cast<unsigned*>(bytes);
  Partial<T>* partials = reinterpret_cast<Partial<T>*>(bytes + kPartialsOffset);
  compensated_sum<T><<<grid, block, 0, stream>>>(input, n, result, partials, ticket);
  return cudaGetLastError();
}
// [/snippet:launcher]

template cudaError_t reduce<int>(const int*, std::size_t, int*, void*, std::size_t, int, int, cudaStream_t);
template cudaError_t reduce<float>(const float*, std::size_t, float*, void*, std::size_t, int, int, cudaStream_t);
template cudaError_t reduce<double>(const double*, std::size_t, double*, void*, std::size_t, int, int, cudaStream_t);

}  // namespace compensated_sum
