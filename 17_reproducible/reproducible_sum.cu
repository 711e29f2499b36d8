// 17_reproducible: the same bits on every launch shape, every GPU and every split.
//
// What changes since 09: another grid, block size, alignment or GPU adds 09's floats in
// another order, and float addition rounds, so the bits change (12 made the error
// smaller, not the order irrelevant). Here nothing is rounded until the end: every float
// is a whole number of 2^-150, so the sum is an integer, the same in any order. Each
// thread keeps that integer in its own column of shared memory, one 64-bit row per sign
// and 32 binades (powers of two), and adds each float into the row its top four bits
// name: a multiply-add whatever the value, so no kind of data takes a slower path.
// Each block adds its columns, then its total into the scratch with integer atomics; the
// block that draws 09's last ticket rounds once: the correctly rounded sum.
//
// Build and run:  cmake --build --preset release --target 17_reproducible
//                 build/release/bin/17_reproducible --n 65537 --block 40 --grid 7
#include "reproducible_sum.cuh"

#include <cuda/atomic>

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace reproducible_sum {
namespace {

constexpr unsigned kWarpSize = 32, kFullMask = 0xffffffffu;
constexpr int kVectorsInFlight = 4;                        // 09's: four 16-byte loads per trip
// Each trip's loads go a trip early (thread_sum). docs/tuning.md's step table issues them in
// their own trip, as 09 does: this unit built with -DREPRODUCIBLE_SUM_UNDO_EARLY_LOADS
// (CMakeLists.txt's UNDO); nothing else defines it.
#ifdef REPRODUCIBLE_SUM_UNDO_EARLY_LOADS
constexpr bool kEarlyLoads = false;
#else
constexpr bool kEarlyLoads = true;
#endif
constexpr unsigned kNaN = 1, kPlusInf = 2, kMinusInf = 4;  // State::flags
constexpr unsigned kSlots = 32;  // block b adds its State into slot b % 32: few atomics on one address

// [snippet:column]
// A thread's column: 17 counters of 64 bits in shared memory, `stride` apart. Row
// sign * 8 + g counts the floats of that sign whose exponent field e has e / 32 == g, in
// units of 2^(32g - 150); row 16 takes what rows 7 and 15 carry out (signed, limb 8).
constexpr unsigned kRows = 17, kCarryRow = 16;
constexpr unsigned kTripsPerCarry = 16;  // a row gains < 2^55 an element: carry before 2^9 of them

__host__ __device__ constexpr unsigned row_stride(unsigned block) { return (block + 15) / 16 * 16; }
std::size_t shared_bytes(int block) { return kRows * row_stride(block) * sizeof(unsigned long long); }

// x = m * 2^(e - 150): m = 2^23 + fraction for e >= 1; a zero or subnormal (e = 0) weighs
// fraction * 2^-149 = (2 * fraction) * 2^-150, so m = 2 * fraction. m * 2^(e % 32), below
// 2^55, goes to row bits >> 28 (the sign and e / 32): a multiply-add, whatever the float.
// `probe` collects x * 2^-100: finite unless an inf or NaN came by (the only float math).
__device__ __forceinline__ void add(unsigned long long* column, unsigned stride, float x, float& probe) {
  const unsigned bits = __float_as_uint(x);
  const unsigned m = (bits & 0x7fffffu) + min(bits & 0x7fffffffu, 0x800000u);
  const unsigned scale = __funnelshift_l(0, 1, bits >> 23);  // 2^(e % 32): the shift counts mod 32
  column[(bits >> 28) * stride] += static_cast<unsigned long long>(m) * scale;
  probe = fmaf(x, 0x1p-100f, probe);
}

// Each row's bits from 2^32 up moved to the next row (rows 7 and 15: to row 16), where
// they weigh the same. Every row but 16 is then below 2^32.
__device__ void carry(unsigned long long* column, unsigned stride) {
  unsigned long long up_plus = 0, up_minus = 0;
  for (unsigned g = 0; g < 8; ++g) {
    const unsigned long long plus = column[g * stride] + up_plus, minus = column[(8 + g) * stride] + up_minus;
    column[g * stride] = plus & 0xffffffffu, up_plus = plus >> 32;
    column[(8 + g) * stride] = minus & 0xffffffffu, up_minus = minus >> 32;
  }
  column[kCarryRow * stride] += up_plus - up_minus;
}
// [/snippet:column]

// 09's thread_reduce with the column in place of the float partial: the same head,
// 16-byte vectors four at a time, and tail, but each trip's loads are issued a trip early
// (the adds wait on shared memory, so a trip takes longer than the loads: 09's four loads
// in flight are not enough). The block's columns are zeroed while the first loads fly;
// a carry every 16 trips. Returns the flags of inf and NaN.
__device__ unsigned thread_sum(const float* __restrict__ input, std::size_t n, unsigned long long* rows,
                               unsigned stride) {
  const std::size_t thread = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
  const std::size_t misaligned_bytes = reinterpret_cast<std::uintptr_t>(input) % 16;
  const std::size_t head = misaligned_bytes ? (16 - misaligned_bytes) / sizeof(float) : 0;
  const std::size_t head_count = head < n ? head : n;
  const float4* vectors = reinterpret_cast<const float4*>(input + head_count);
  const std::size_t vector_count = (n - head_count) / 4;
  const std::size_t tail_start = head_count + vector_count * 4;
  const std::size_t step = kVectorsInFlight * threads, last = (kVectorsInFlight - 1) * threads;

  // [snippet:trips]
  unsigned long long* column = rows + threadIdx.x;
  float p = 0;  // add's probe
  std::size_t v = thread;
  float4 next[kVectorsInFlight];  // the next trip's vectors
  if (kEarlyLoads && v + last < vector_count) {
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) next[k] = __ldg(vectors + v + k * threads);
  }
  for (unsigned i = threadIdx.x; i < kRows * stride; i += blockDim.x) rows[i] = 0;
  __syncthreads();  // every column zeroed
  for (unsigned trips = 1; v + last < vector_count; v += step, ++trips) {
    float4 loaded[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) loaded[k] = kEarlyLoads ? next[k] : __ldg(vectors + v + k * threads);
    if (kEarlyLoads && v + step + last < vector_count) {
#pragma unroll
      for (int k = 0; k < kVectorsInFlight; ++k) next[k] = __ldg(vectors + v + step + k * threads);
    }
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) {
      add(column, stride, loaded[k].x, p), add(column, stride, loaded[k].y, p);
      add(column, stride, loaded[k].z, p), add(column, stride, loaded[k].w, p);
    }
    if (trips % kTripsPerCarry == 0) carry(column, stride);
  }
  // [/snippet:trips]
#pragma unroll
  for (int k = 0; k < kVectorsInFlight; ++k) {  // the last, partial trip
    if (v + k * threads >= vector_count) break;
    const float4 x = __ldg(vectors + v + k * threads);
    add(column, stride, x.x, p), add(column, stride, x.y, p);
    add(column, stride, x.z, p), add(column, stride, x.w, p);
  }
#pragma unroll 1
  for (std::size_t i = thread; i < head_count; i += threads) add(column, stride, __ldg(input + i), p);
#pragma unroll 1
  for (std::size_t i = tail_start + thread; i < n; i += threads) add(column, stride, __ldg(input + i), p);
  const unsigned probe = __float_as_uint(p);  // read as bits: exponent field 255 is inf or NaN
  if ((probe & 0x7f800000u) != 0x7f800000u) return 0;
  return (probe & 0x7fffffu) ? kNaN : (probe >> 31) ? kMinusInf : kPlusInf;  // NaN: a NaN, or +inf and -inf
}

// Carries: every limb but the top one into [0, 2^32). The value does not change.
__device__ void settle(long long* limb) {
  for (int k = 0; k + 1 < kLimbs; ++k) {
    const long long carry = limb[k] >> 32;
    limb[k] -= carry * (1ll << 32);
    limb[k + 1] += carry;
  }
}

// 07's shuffle tree, per value, over the first `lanes` lanes of the warp: lane 0 ends with
// the sums of their values.
template <int kCount>
__device__ void warp_add(long long (&value)[kCount], unsigned lanes) {
  const unsigned lane = threadIdx.x % kWarpSize, mask = lanes == kWarpSize ? kFullMask : (1u << lanes) - 1;
  for (unsigned offset = kWarpSize / 2; offset > 0; offset /= 2) {
    for (int k = 0; k < kCount; ++k) {
      const long long above = __shfl_down_sync(mask, value[k], offset);
      if (lane + offset < lanes) value[k] += above;
    }
  }
}

// The block's columns as the settled limbs of *total (shared), and its threads' flags. Not
// thread by thread but row by row: warp w adds rows w, w + warps, ... of every column, each
// value cut at bit 32 (the bits above weigh one unit of the next row up, as in carry()), so
// a row's 1024 values are read once and its sums stay below 2^42. Whole block.
__device__ void block_sum(const unsigned long long* rows, unsigned stride, unsigned flags, State* total) {
  __shared__ long long row_sums[kRows][2];  // per row: its values' bits below 2^32, and above
  __shared__ unsigned any_flags;
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const unsigned warps = (blockDim.x + kWarpSize - 1) / kWarpSize;
  const unsigned lanes = min(kWarpSize, blockDim.x - warp * kWarpSize);
  if (threadIdx.x == 0) any_flags = 0;
  if (__syncthreads_or(flags)) {  // a barrier: every column final, any_flags 0
    if (flags) atomicOr(&any_flags, flags);
  }
  // [snippet:block_sum]
  for (unsigned r = warp; r < kRows; r += warps) {
    long long sum[2] = {0, 0};
    for (unsigned c = lane; c < blockDim.x; c += lanes) {
      const unsigned long long value = rows[r * stride + c];
      if (r == kCarryRow) sum[0] += static_cast<long long>(value);  // signed, small: not cut
      else sum[0] += value & 0xffffffffu, sum[1] += value >> 32;
    }
    warp_add(sum, lanes);
    if (lane == 0) row_sums[r][0] = sum[0], row_sums[r][1] = sum[1];
  }
  __syncthreads();
  if (threadIdx.x == 0) {  // limb g: plus row g minus row 8 + g, and the bits above of the rows below
    for (unsigned g = 0; g < 8; ++g) {
      total->limb[g] = row_sums[g][0] - row_sums[8 + g][0];
      if (g > 0) total->limb[g] += row_sums[g - 1][1] - row_sums[7 + g][1];
    }
    total->limb[8] = row_sums[kCarryRow][0] + row_sums[7][1] - row_sums[15][1];
    total->limb[9] = 0;
    total->flags = any_flags;
    settle(total->limb);
  }
  // [/snippet:block_sum]
  __syncthreads();
}

// The exact sum (`s`, settled) rounded to the nearest float, ties to even, as an IEEE addition rounds its
// exact result, and put together from integer bits: no float result for --use_fast_math to flush to zero.
// Every float is an even number of 2^-150 (a subnormal m * 2^-149): a sum below 2^-126 is a subnormal, exactly.
__device__ float round_to_float(const State& s) {
  if ((s.flags & kNaN) || (s.flags & kPlusInf && s.flags & kMinusInf)) return __uint_as_float(0x7fc00000u);
  if (s.flags) return __uint_as_float(s.flags & kPlusInf ? 0x7f800000u : 0xff800000u);
  const bool negative = s.limb[kLimbs - 1] < 0;
  unsigned words[kLimbs], carry = negative;  // |sum| in units of 2^-150, 32 bits a word
  for (int k = 0; k < kLimbs; ++k) {
    const unsigned word = static_cast<unsigned>(s.limb[k]);
    words[k] = negative ? ~word + carry : word;
    carry = carry && words[k] == 0;
  }
  int top = 0;  // the highest word that is not 0 (0 for a zero sum), and that word
  unsigned top_word = words[0];
  for (int k = 1; k < kLimbs; ++k) {
    if (words[k]) top = k, top_word = words[k];
  }
  const int p = 32 * top + 31 - __clz(top_word);  // the leading bit; -1 for a zero sum
  const unsigned sign = negative ? 0x80000000u : 0u;
  if (p < 24) return __uint_as_float(sign | words[0] >> 1);  // fraction field: the sum in 2^-149; 0 is +0
  // [snippet:round]
  unsigned long long bits64 = 0;  // bits p-63 .. p of |sum|, and `sticky`: any 1 below them
  bool sticky = false;
  for (int k = 0; k < kLimbs; ++k) {
    const int at = 32 * k - (p - 63);  // where the word's bit 0 lands in bits64
    const unsigned long long word = words[k];
    if (at >= 64 || word == 0) continue;
    if (at >= 0) bits64 |= word << at;
    else if (at > -32) bits64 |= word >> -at, sticky = sticky || (word & ((1ull << -at) - 1)) != 0;
    else sticky = true;
  }
  const unsigned significand = static_cast<unsigned>(bits64 >> 40);  // 24 bits, the top one set
  const bool round_bit = (bits64 >> 39) & 1, below = sticky || (bits64 & ((1ull << 39) - 1)) != 0;
  if (p - 23 >= 255) return __uint_as_float(sign | 0x7f800000u);  // exponent field p - 23
  unsigned bits = (static_cast<unsigned>(p - 23) << 23) | (significand & 0x7fffffu);
  if (round_bit && (below || (significand & 1))) ++bits;  // a carry may reach the exponent, or inf
  return __uint_as_float(sign | bits);
  // [/snippet:round]
}

// One warp (its first `lanes` threads): parts[0, count) added, lane b % lanes taking part b;
// the sum settled into *out by lane 0.
__device__ void warp_add_states(const State* parts, unsigned count, unsigned lanes, State* out) {
  const unsigned lane = threadIdx.x % kWarpSize;
  long long limb[kLimbs] = {};
  unsigned flags = 0;
  for (unsigned b = lane; b < count; b += lanes) {
    for (int k = 0; k < kLimbs; ++k) limb[k] += parts[b].limb[k];
    flags |= parts[b].flags;
  }
  warp_add(limb, lanes);
  const unsigned mask = lanes == kWarpSize ? kFullMask : (1u << lanes) - 1;
  const unsigned any = (__any_sync(mask, flags & kNaN) ? kNaN : 0) |
                       (__any_sync(mask, flags & kPlusInf) ? kPlusInf : 0) |
                       (__any_sync(mask, flags & kMinusInf) ? kMinusInf : 0);
  if (lane != 0) return;
  for (int k = 0; k < kLimbs; ++k) out->limb[k] = limb[k];
  out->flags = any;
  settle(out->limb);
}

// [snippet:kernel]
// 09's kernel with integer limbs for partials. Each block adds its State into one of
// kSlots States in the scratch with 64-bit atomics (integers: any order, the same total);
// the block that draws 09's last ticket adds the slots, rounds once (kRound: to *result;
// else the State to *state_out) and leaves the slots and `ticket` at 0 for the next call.
template <bool kRound>
__global__ void __launch_bounds__(1024) reproducible(const float* __restrict__ input, std::size_t n, float* result,
                                                     State* state_out, State* slots, unsigned* ticket,
                                                     unsigned stride) {
  extern __shared__ unsigned long long rows[];  // kRows rows of `stride` (row_stride): column t is thread t's
  __shared__ State total;
  block_sum(rows, stride, thread_sum(input, n, rows, stride), &total);
  if (gridDim.x == 1) {
    if (threadIdx.x == 0 && kRound) *result = round_to_float(total);
    if (threadIdx.x == 0 && !kRound) *state_out = total;
    return;
  }
  if (threadIdx.x >= kWarpSize) return;  // warp 0 goes on for the block
  // 09's ticket, drawn by thread 0 after it adds the block's State into its slot.
  bool last = false;
  if (threadIdx.x == 0) {
    State* slot = slots + blockIdx.x % kSlots;
    for (int k = 0; k < kLimbs; ++k) atomicAdd(reinterpret_cast<unsigned long long*>(&slot->limb[k]), total.limb[k]);
    if (total.flags) atomicOr(&slot->flags, total.flags);
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> ticket_ref(*ticket);
    last = ticket_ref.fetch_add(1, cuda::memory_order_acq_rel) == gridDim.x - 1;  // release our adds
    if (last) ticket_ref.store(0, cuda::memory_order_relaxed);
  }
  const unsigned lanes = min(kWarpSize, blockDim.x), mask = lanes == kWarpSize ? kFullMask : (1u << lanes) - 1;
  last = __shfl_sync(mask, last, 0);
  __syncwarp(mask);  // carries thread 0's acquire to the other lanes before their loads
  if (!last) return;
  warp_add_states(slots, min(gridDim.x, kSlots), lanes, &total);
  for (unsigned b = threadIdx.x; b < min(gridDim.x, kSlots); b += lanes) slots[b] = State{};  // read: 0 again
  if (threadIdx.x == 0 && kRound) *result = round_to_float(total);
  if (threadIdx.x == 0 && !kRound) *state_out = total;
}
// [/snippet:kernel]

__global__ void round_states_kernel(const State* states, unsigned count, float* result) {
  __shared__ State total;
  warp_add_states(states, count, kWarpSize, &total);
  if (threadIdx.x == 0) *result = round_to_float(total);
}

constexpr std::size_t kSlotsOffset = 16;  // the ticket, then the kSlots States the blocks add into
constexpr std::size_t kElementsPerThread = kVectorsInFlight * 4;
constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

}  // namespace

// Columns past 40 KB (blocks over 288 threads) are asked for, once per device (refused where
// the GPU has not that much): a margin below the 48 KB any block gets, which the columns
// and the kernel's own 0.4 KB pass from 353 threads.
template <bool kRound>
cudaError_t allow_shared(int block) {
  static std::atomic<int> allowed[64];  // per device: the most this kernel has been allowed
  const int shared = static_cast<int>(shared_bytes(block));
  int device = 0;
  cudaError_t status = shared <= 40 * 1024 ? cudaSuccess : cudaGetDevice(&device);
  if (shared <= 40 * 1024 || status != cudaSuccess || (device < 64 && allowed[device] >= shared)) return status;
  status = cudaFuncSetAttribute(reproducible<kRound>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared);
  if (status == cudaSuccess && device < 64) allowed[device] = shared;
  return status;
}

// 09's rule: one trip of 16 elements per thread, at most one full wave (as many blocks as
// fit on the device at once, with their columns).
cudaError_t default_grid(std::size_t n, int block, int* grid) {
  int device = 0, sm_count = 0, per_sm[2] = {0, 0};  // blocks per SM of the two kernels
  cudaError_t status = block < 1 || block > 1024 ? cudaErrorInvalidValue : cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
  const std::size_t bytes = shared_bytes(block);
  if (status == cudaSuccess) status = allow_shared<false>(block);
  if (status == cudaSuccess) status = allow_shared<true>(block);
  if (status == cudaSuccess)
    status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm[0], reproducible<0>, block, bytes);
  if (status == cudaSuccess)
    status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm[1], reproducible<1>, block, bytes);
  const std::size_t wave = std::size_t(std::max(std::min(per_sm[0], per_sm[1]), 1)) * std::max(sm_count, 1);
  const std::size_t threads = ceil_div(std::max<std::size_t>(n, 1), kElementsPerThread);
  *grid = static_cast<int>(std::min(wave, ceil_div(threads, std::max(block, 1))));
  return status;
}

// 09's rule, with 512 threads where 09 takes 256: one block up to 1024 threads' worth of
// trips, 512 threads while the input is under one 1024-thread block's trips for every two
// SMs (17's blocks add 17 rows with their warps: 16 warps take two rounds, 8 take three),
// then 1024; each the largest of it, 512 and 256 whose columns fit the device's shared
// memory (docs/tuning.md: the block sweep).
cudaError_t default_shape(std::size_t n, int* block, int* grid) {
  const std::size_t threads = ceil_div(std::max<std::size_t>(n, 1), kElementsPerThread);
  int device = 0, sm_count = 0, shared = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  int large = 1024;
  while (large > kDefaultBlock && shared_bytes(large) + 8 * 1024 > std::size_t(shared)) large /= 2;
  *block = threads <= 1024 ? static_cast<int>(ceil_div(threads, 32) * 32)
                           : threads < std::size_t(1024) * sm_count / 2 ? std::min(512, large) : large;
  *grid = 1;
  return status != cudaSuccess || threads <= 1024 ? status : default_grid(n, *block, grid);
}

std::size_t scratch_bytes(std::size_t /*n*/, int /*block*/, int /*grid*/) {
  return kSlotsOffset + kSlots * sizeof(State);
}

// The refusals the header lists, before any launch (a scratch too small: States past its end).
template <bool kRound>
cudaError_t launch(const float* input, std::size_t n, float* result, State* state, void* scratch, std::size_t bytes,
                   int block, int grid, cudaStream_t stream) {
  if (block < 1 || block > 1024 || grid < 1 || (n && !input) || (kRound ? !result : !state) || !scratch ||
      bytes < scratch_bytes(n, block, grid) || reinterpret_cast<std::uintptr_t>(scratch) % alignof(State))
    return cudaErrorInvalidValue;
  const cudaError_t status = allow_shared<kRound>(block);
  if (status != cudaSuccess) return status;
  State* slots = reinterpret_cast<State*>(static_cast<unsigned char*>(scratch) + kSlotsOffset);
  reproducible<kRound><<<grid, block, shared_bytes(block), stream>>>(input, n, result, state, slots,
                                                        static_cast<unsigned*>(scratch), row_stride(block));
  return cudaGetLastError();
}

cudaError_t reduce(const float* input, std::size_t n, float* result, void* scratch, std::size_t bytes, int block,
                   int grid, cudaStream_t stream) {
  return launch<true>(input, n, result, nullptr, scratch, bytes, block, grid, stream);
}
cudaError_t reduce_state(const float* input, std::size_t n, State* state, void* scratch, std::size_t bytes,
                         int block, int grid, cudaStream_t stream) {
  return launch<false>(input, n, nullptr, state, scratch, bytes, block, grid, stream);
}
cudaError_t round_states(const State* states, int count, float* result, cudaStream_t stream) {
  if (count < 0 || (count > 0 && !states) || !result) return cudaErrorInvalidValue;
  round_states_kernel<<<1, kWarpSize, 0, stream>>>(states, static_cast<unsigned>(count), result);
  return cudaGetLastError();
}

}  // namespace reproducible_sum
