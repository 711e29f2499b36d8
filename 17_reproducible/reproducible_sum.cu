// 17_reproducible: the same bits on every launch shape, every GPU and every split.
//
// What changes since 09: another grid, block size, alignment or GPU adds 09's floats in
// another order, and float addition rounds, so the bits change (12 made the error
// smaller, not the order irrelevant). Here nothing is rounded until the end: every float
// is a whole number of 2^-150, so the sum is an integer, the same in any order. Each
// thread adds its floats as 64-bit integers in a window of 32 binades that follows its
// largest value (a few integer instructions an element: still memory speed); what falls
// outside, and the window when it moves, goes into ten exact 32-bit limbs (State).
// Warps, blocks and the last block (09's ticket) add those, and the last block rounds
// once: the correctly rounded sum, as accurate as a float can be.
//
// Build and run:  cmake --build --preset release --target 17_reproducible
//                 build/release/bin/17_reproducible --n 65537 --block 40 --grid 7
#include "reproducible_sum.cuh"

#include <cuda/atomic>

#include <algorithm>
#include <cstdint>

namespace reproducible_sum {
namespace {

constexpr unsigned kWarpSize = 32, kFullMask = 0xffffffffu;
constexpr int kVectorsInFlight = 4;                        // 09's: four 16-byte loads per trip
constexpr unsigned kNaN = 1, kPlusInf = 2, kMinusInf = 4;  // State::flags

// The window: exponent fields base .. base + 31. A float x with exponent field e in it
// is sign * m * 2^(e - 150) (m: the 24-bit significand with its leading 1), which is
// sign * (m << (e - base)) in units of 2^(base - 150): a 56-bit integer, exact.
constexpr unsigned kWindow = 32;                  // binades
constexpr int kFirstBase = 96, kLastBase = 223;  // any start works (96: 2^-31 to 2); never 255

// Adds value * 2^bit to limb (bit <= 255): value << (bit % 32) is 96 bits, three
// 32-bit digits, the top one signed. Each limb takes such digits, below 2^32, so
// it can take 2^31 of them before settle() must carry.
template <typename Add>
__device__ void add_at(long long* limb, long long value, int bit, Add add) {
  const int q = bit / 32, r = bit % 32;
  const unsigned long long low = static_cast<unsigned long long>(value) << r;
  const long long top = r ? value >> (64 - r) : value >> 63;
  add(limb[q], static_cast<long long>(low & 0xffffffffu));
  add(limb[q + 1], static_cast<long long>(low >> 32));
  add(limb[q + 2], top);
}

// Carries: every limb but the top one into [0, 2^32). The value does not change.
__device__ void settle(long long* limb) {
  for (int k = 0; k + 1 < kLimbs; ++k) {
    const long long carry = limb[k] >> 32;
    limb[k] -= carry * (1ll << 32);
    limb[k + 1] += carry;
  }
}

__device__ void plain_add(long long& limb, long long digit) { limb += digit; }
__device__ void atomic_add(long long& limb, long long digit) {
  atomicAdd(reinterpret_cast<unsigned long long*>(&limb), static_cast<unsigned long long>(digit));
}

// [snippet:window]
// One thread's running sum. `trip` takes one trip of 16 elements (each below 2^55,
// so 16 of them fit in 64 bits); end_trip moves it into high * 2^32 + low.
struct Window {
  int base = kFirstBase;
  long long trip = 0, high = 0;
  unsigned long long low = 0;
  unsigned flags = 0;
  bool spilled = false;  // whether *exact holds anything
};

__device__ void end_trip(Window& w) {
  w.low += static_cast<unsigned long long>(w.trip) & 0xffffffffu;
  w.high += w.trip >> 32;
  w.trip = 0;
}

// The window into the exact limbs (in local memory), and empty again.
__device__ Window spill(Window w, long long* exact) {
  end_trip(w);
  if (!w.spilled) for (int k = 0; k < kLimbs; ++k) exact[k] = 0;
  add_at(exact, static_cast<long long>(w.low), w.base, plain_add);  // low < 2^63: spilled in time
  add_at(exact, w.high, w.base + 32, plain_add);
  settle(exact);
  w.low = 0, w.high = 0, w.spilled = true;
  return w;
}

// The rare cases, out of line: inf and NaN, zero, a value above the window (the window
// moves up to end at it) or below it (straight into the exact limbs).
__device__ __noinline__ Window add_outside(Window w, unsigned bits, long long* exact) {
  const int e = (bits >> 23) & 0xff;
  const int sign = static_cast<int>(bits) >> 31;  // 0 or -1
  if (e == 255) {
    w.flags |= (bits & 0x7fffffu) ? kNaN : sign ? kMinusInf : kPlusInf;
  } else if (e > w.base) {
    w = spill(w, exact);
    w.base = min((e - static_cast<int>(kWindow - 1) + 7) / 8 * 8, kLastBase);  // lanes agree more on 8s
    const int m = static_cast<int>((bits & 0x7fffffu) | 0x800000u);
    w.trip = static_cast<long long>((m ^ sign) - sign) << (e - w.base);
  } else if (bits << 1) {  // not +-0: a subnormal has no leading 1 and the weight of e = 1
    if (!w.spilled) w = spill(w, exact);
    const int m = static_cast<int>((bits & 0x7fffffu) | (e ? 0x800000u : 0u));
    add_at(exact, (m ^ sign) - sign, max(e, 1), plain_add);
    settle(exact);
  }
  return w;
}

// x = sign * m * 2^(e - 150). Inside the window: a shift and an add (the common case).
__device__ __forceinline__ void add(Window& w, float x, long long* exact) {
  const unsigned bits = __float_as_uint(x);
  const unsigned shift = ((bits >> 23) & 0xffu) - static_cast<unsigned>(w.base);
  if (shift < kWindow) {
    const int sign = static_cast<int>(bits) >> 31;
    const int m = static_cast<int>((bits & 0x7fffffu) | 0x800000u);
    w.trip += static_cast<long long>((m ^ sign) - sign) << shift;
  } else {
    w = add_outside(w, bits, exact);
  }
}
// [/snippet:window]

// [snippet:thread_sum]
// 09's thread_reduce with the Window in place of the float partial: the same head,
// 16-byte vectors four at a time, and tail; end_trip after each trip.
__device__ Window thread_sum(const float* __restrict__ input, std::size_t n, long long* exact) {
  const std::size_t thread = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
  const std::size_t misaligned_bytes = reinterpret_cast<std::uintptr_t>(input) % 16;
  const std::size_t head = misaligned_bytes ? (16 - misaligned_bytes) / sizeof(float) : 0;
  const std::size_t head_count = head < n ? head : n;
  const float4* vectors = reinterpret_cast<const float4*>(input + head_count);
  const std::size_t vector_count = (n - head_count) / 4;
  const std::size_t tail_start = head_count + vector_count * 4;

  Window w;
  std::size_t v = thread;
  for (; v + (kVectorsInFlight - 1) * threads < vector_count; v += kVectorsInFlight * threads) {
    float4 loaded[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) loaded[k] = __ldg(vectors + v + k * threads);  // all loads first
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) add(w, loaded[k].x, exact), add(w, loaded[k].y, exact),
                                                 add(w, loaded[k].z, exact), add(w, loaded[k].w, exact);
    end_trip(w);
    if (w.low >> 62) w = spill(w, exact);  // after 2^30 trips of one thread
  }
#pragma unroll
  for (int k = 0; k < kVectorsInFlight; ++k) {  // the last, partial trip
    if (v + k * threads >= vector_count) break;
    const float4 x = __ldg(vectors + v + k * threads);
    add(w, x.x, exact), add(w, x.y, exact), add(w, x.z, exact), add(w, x.w, exact);
  }
#pragma unroll 1
  for (std::size_t i = thread; i < head_count; i += threads) add(w, __ldg(input + i), exact);
#pragma unroll 1
  for (std::size_t i = tail_start + thread; i < n; i += threads) add(w, __ldg(input + i), exact);
  end_trip(w);
  w.high += static_cast<long long>(w.low >> 32);  // low below 2^32: a warp's 32 lows fit
  w.low &= 0xffffffffu;
  return w;
}
// [/snippet:thread_sum]

// The block's exact sum into *total (shared, zeroed). A warp whose lanes share one window
// (and spilled nothing) sums it with shuffles into a slot; warp 0 does the same over the
// slots. Where windows disagree, each adds its limbs with atomics: integers, any order.
struct Slot { int base; unsigned long long low; long long high; };  // base -1: empty

// A warp's windows summed into lane 0's low and high, if all its lanes' bases agree.
__device__ bool sum_windows(int base, unsigned long long& low, long long& high, unsigned lanes, int* agreed) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const unsigned mask = lanes == kWarpSize ? kFullMask : (1u << lanes) - 1;
  int top = base;  // the warp's largest base; empty lanes (-1) agree with anything
  for (unsigned offset = kWarpSize / 2; offset > 0; offset /= 2) {
    const int other = __shfl_xor_sync(mask, top, offset);
    if ((lane ^ offset) < lanes) top = max(top, other);
  }
  if (!__all_sync(mask, base == top || base < 0)) return false;
  for (unsigned offset = kWarpSize / 2; offset > 0; offset /= 2) {
    const unsigned long long low_above = __shfl_down_sync(mask, low, offset);
    const long long high_above = __shfl_down_sync(mask, high, offset);
    if (lane + offset < lanes) low += low_above, high += high_above;
  }
  *agreed = top;
  return true;
}

__device__ void block_sum(Window w, long long* exact, State* total) {
  __shared__ Slot slots[kWarpSize];
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const unsigned warps = (blockDim.x + kWarpSize - 1) / kWarpSize;
  unsigned long long low = w.low;
  long long high = w.high;
  int base = -1;  // the warp's base, when its lanes agree
  const unsigned lanes = min(kWarpSize, blockDim.x - warp * kWarpSize);
  const bool any_spilled = __any_sync(lanes == kWarpSize ? kFullMask : (1u << lanes) - 1, w.spilled);
  if (!any_spilled && sum_windows(w.base, low, high, lanes, &base)) {
    if (lane == 0) slots[warp] = Slot{base, low, high};
  } else {
    w = spill(w, exact);
    for (int k = 0; k < kLimbs; ++k) atomic_add(total->limb[k], exact[k]);
    if (lane == 0) slots[warp] = Slot{-1, 0, 0};
  }
  if (w.flags) atomicOr(&total->flags, w.flags);
  __syncthreads();  // every slot written
  if (warp != 0) return;
  const Slot slot = lane < warps ? slots[lane] : Slot{-1, 0, 0};
  low = slot.low, high = slot.high;
  if (!sum_windows(slot.base, low, high, min(kWarpSize, blockDim.x), &base)) {
    base = slot.base, low = slot.low, high = slot.high;  // each lane adds its own slot
  } else if (lane != 0) {
    base = -1;
  }
  if (base >= 0) {
    add_at(total->limb, static_cast<long long>(low), base, atomic_add);
    add_at(total->limb, high, base + 32, atomic_add);
  }
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
  int top = kLimbs - 1;
  while (top > 0 && words[top] == 0) --top;
  const int p = 32 * top + 31 - __clz(words[top]);  // the leading bit; -1 for a zero sum
  const unsigned sign = negative ? 0x80000000u : 0u;
  if (p < 24) return __uint_as_float(sign | words[0] >> 1);  // fraction field: the sum in 2^-149; 0 is +0
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
}

// Block: `count` States added limb by limb into *total (shared, zeroed) by the whole
// block, a warp per limb (and one for the flags); thread 0 then settles it.
__device__ void add_states(const State* parts, unsigned count, State* total) {
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const unsigned warps = (blockDim.x + kWarpSize - 1) / kWarpSize;
  const unsigned lanes = min(kWarpSize, blockDim.x - warp * kWarpSize);
  const unsigned mask = lanes == kWarpSize ? kFullMask : (1u << lanes) - 1;
  for (unsigned k = warp; k <= kLimbs; k += warps) {
    long long value = 0;  // limb k, or the flags when k == kLimbs
    for (unsigned b = lane; b < count; b += lanes) {
      value = k < kLimbs ? value + parts[b].limb[k] : value | parts[b].flags;
    }
    for (unsigned offset = kWarpSize / 2; offset > 0; offset /= 2) {
      const long long above = __shfl_down_sync(mask, value, offset);
      if (lane + offset < lanes) value = k < kLimbs ? value + above : (value | above);
    }
    if (lane == 0 && k < kLimbs) total->limb[k] = value;
    if (lane == 0 && k == kLimbs) total->flags = static_cast<unsigned>(value);
  }
  __syncthreads();
  if (threadIdx.x == 0) settle(total->limb);
}

// [snippet:kernel]
// 09's kernel with States for partials. kRound: write the rounded float to *result;
// else the exact State to *state_out. `ticket` is 0 before and after.
template <bool kRound>
__global__ void __launch_bounds__(1024) reproducible(const float* __restrict__ input, std::size_t n, float* result,
                                                     State* state_out, State* partials, unsigned* ticket) {
  __shared__ State block_total;
  __shared__ bool last;
  long long exact[kLimbs];  // indexed at run time: local memory, touched only by the rare cases
  for (unsigned k = threadIdx.x; k < kLimbs; k += blockDim.x) block_total.limb[k] = 0;
  if (threadIdx.x == 0) block_total.flags = 0;
  const Window w = thread_sum(input, n, exact);
  __syncthreads();  // block_total zeroed
  block_sum(w, exact, &block_total);
  __syncthreads();  // every warp has added
  if (gridDim.x > 1) {
    // 09's ticket, taken by thread 0 for the whole block.
    if (threadIdx.x == 0) {
      settle(block_total.limb);
      partials[blockIdx.x] = block_total;
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> ticket_ref(*ticket);
      const unsigned my_ticket = ticket_ref.fetch_add(1, cuda::memory_order_acq_rel);
      last = my_ticket == gridDim.x - 1;
      if (last) ticket_ref.store(0, cuda::memory_order_relaxed);
    }
    __syncthreads();  // carries thread 0's acquire to the block with `last`
    if (!last) return;
    add_states(partials, gridDim.x, &block_total);
  } else if (threadIdx.x == 0) {
    settle(block_total.limb);
  }
  if (threadIdx.x == 0 && kRound) *result = round_to_float(block_total);
  if (threadIdx.x == 0 && !kRound) *state_out = block_total;
}
// [/snippet:kernel]

__global__ void round_states_kernel(const State* states, unsigned count, float* result) {
  __shared__ State total;
  add_states(states, count, &total);
  if (threadIdx.x == 0) *result = round_to_float(total);
}

constexpr std::size_t kPartialsOffset = 16;  // the ticket, then one State per block
constexpr std::size_t kElementsPerThread = kVectorsInFlight * 4;
constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

}  // namespace

// 09's rule: one trip of 16 elements per thread, at most one full wave (as many blocks as
// fit on the device at once).
cudaError_t default_grid(std::size_t n, int block, int* grid) {
  int device = 0, sm_count = 0, per_sm[2] = {0, 0};  // blocks per SM of the two kernels
  cudaError_t status = block < 1 || block > 1024 ? cudaErrorInvalidValue : cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
  if (status == cudaSuccess) status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm[0], reproducible<0>, block, 0);
  if (status == cudaSuccess) status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm[1], reproducible<1>, block, 0);
  const std::size_t wave = std::size_t(std::max(std::min(per_sm[0], per_sm[1]), 1)) * std::max(sm_count, 1);
  const std::size_t threads = ceil_div(std::max<std::size_t>(n, 1), kElementsPerThread);
  *grid = static_cast<int>(std::min(wave, ceil_div(threads, std::max(block, 1))));
  return status;
}

// 09's blocks: one block up to 1024 threads' worth of trips, 256 threads while the input
// is under one 1024-thread block's trips for every two SMs, then 1024 (the kernel's 64
// registers a thread let one such block, or two of 512, onto an SM of any GPU).
cudaError_t default_shape(std::size_t n, int* block, int* grid) {
  const std::size_t threads = ceil_div(std::max<std::size_t>(n, 1), kElementsPerThread);
  int device = 0, sm_count = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
  *block = threads <= 1024 ? static_cast<int>(ceil_div(threads, 32) * 32)
                           : threads < std::size_t(1024) * sm_count / 2 ? 256 : 1024;
  *grid = 1;
  return status != cudaSuccess || threads <= 1024 ? status : default_grid(n, *block, grid);
}

std::size_t scratch_bytes(std::size_t /*n*/, int /*block*/, int grid) {
  return kPartialsOffset + std::size_t(std::max(grid, 1)) * sizeof(State);
}

// The refusals the header lists, before any launch (a scratch too small: States past its end).
template <bool kRound>
cudaError_t launch(const float* input, std::size_t n, float* result, State* state, void* scratch, std::size_t bytes,
                   int block, int grid, cudaStream_t stream) {
  if (block < 1 || block > 1024 || grid < 1 || (n && !input) || (kRound ? !result : !state) || !scratch ||
      bytes < scratch_bytes(n, block, grid) || reinterpret_cast<std::uintptr_t>(scratch) % alignof(State))
    return cudaErrorInvalidValue;
  State* partials = reinterpret_cast<State*>(static_cast<unsigned char*>(scratch) + kPartialsOffset);
  reproducible<kRound><<<grid, block, 0, stream>>>(input, n, result, state, partials, static_cast<unsigned*>(scratch));
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
  round_states_kernel<<<1, kWarpSize * (kLimbs + 1), 0, stream>>>(states, static_cast<unsigned>(count), result);
  return cudaGetLastError();
}

}  // namespace reproducible_sum
