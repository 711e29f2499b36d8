// 11_multi_gpu: shards over K GPUs, 09's kernel on each, then an all-reduce of the K totals.
//
// What changes since 09: nothing inside a GPU. The kernel, its launch shape and its scratch below are 09's,
// repeated (reduce_shard is 09's reduce), so that this file compiles alone. What is new comes after them: each
// GPU's own non-blocking stream; the all-reduce, made of ncclAllGather (every GPU receives every GPU's total)
// and one thread per GPU that combines them with the operator in rank order (not ncclAllReduce: its ncclMax
// and ncclMin drop a NaN); and every wait on NCCL polls with a deadline, because an NCCL call whose peer died
// would otherwise wait forever. The float total is the same bit for bit on every GPU and every run: each
// GPU's value is 09's fixed-order result, and every GPU combines them alike.
//
// Build and run:  cmake --build --preset release --target 11_multi_gpu
//                 build/release/bin/11_multi_gpu --gpus 2 --n 2^30 --type float
#include "multi_gpu.cuh"

#include <cuda/atomic>
#include <cuda/std/limits>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <thread>

namespace multi_gpu {

// 09's operators (single_pass.cuh). Each has an identity, the value that changes nothing:
// threads and lanes without input contribute it. max and min propagate NaN, as numpy does.
struct Sum {
  template <typename T> __host__ __device__ static T identity() { return T(0); }
  template <typename T> __host__ __device__ T operator()(T a, T b) const { return a + b; }
};

struct Max {
  template <typename T> __host__ __device__ static T identity() {
    if constexpr (cuda::std::numeric_limits<T>::has_infinity) return -cuda::std::numeric_limits<T>::infinity();
    else return cuda::std::numeric_limits<T>::lowest();
  }
  template <typename T> __host__ __device__ T operator()(T a, T b) const { return (a > b || a != a) ? a : b; }
};

struct Min {
  template <typename T> __host__ __device__ static T identity() {
    if constexpr (cuda::std::numeric_limits<T>::has_infinity) return cuda::std::numeric_limits<T>::infinity();
    else return cuda::std::numeric_limits<T>::max();
  }
  template <typename T> __host__ __device__ T operator()(T a, T b) const { return (a < b || a != a) ? a : b; }
};

// The 16-byte vector type that holds 4 ints, 4 floats or 2 doubles (CUDA's built-in
// vector types, declared with 16-byte alignment); MULTI_GPU_ADD_TYPE adds one.
template <typename T> struct Vector16;
template <> struct Vector16<int> { using type = int4; };
template <> struct Vector16<float> { using type = float4; };
template <> struct Vector16<double> { using type = double2; };

namespace {

constexpr unsigned kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;

// The widest load a thread can make in one instruction: 16 bytes (LDG.E.128 in SASS).
constexpr std::size_t kVectorBytes = 16;
// Independent 16-byte loads each thread issues before it adds any of them: more bytes
// in flight per thread, so fewer threads are needed to cover the memory latency.
constexpr int kVectorsInFlight = 4;
static_assert((kVectorsInFlight & (kVectorsInFlight - 1)) == 0, "the vectors of a trip are combined in pairs");

// The lanes of one vector (4 or 2 of them) combined with op, in pairs.
template <typename Vector, typename Op> __device__ auto combine_lanes(Vector v, Op op) {
  if constexpr (sizeof(Vector) == 4 * sizeof(v.x)) return op(op(v.x, v.y), op(v.z, v.w));
  else return op(v.x, v.y);
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

// Scratch layout: the ticket counter (an unsigned int), then the block partials,
// starting 16 bytes in so that they are aligned for any element type.
constexpr std::size_t kPartialsOffset = 16;

// Partials each lane of the last block's warp 0 loads before it adds any of them.
constexpr int kPartialLoads = 4;

constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// Step 3 of the kernel below, in the last block's warp 0 (`lanes` threads): lane l
// combines partials l, l + lanes, l + 2*lanes, ... in that order, then the warp tree;
// lane 0 gets the value. The order never depends on which block finished when. Each
// lane issues kPartialLoads loads before it adds any, so that they wait for L2 together.
// Plain loads, not __ldg: the read-only cache may hold a stale copy of data that
// changes during the launch.
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

// Reduces input[0, n) with Op and writes the value to *result, in one launch.
// `partials` holds one value per block; `ticket` must be 0 when the launch starts
// (scratch zeroed once by the caller), and is 0 again when it ends.
// What still limits it: nothing at large n, where it streams at the memory's speed; at
// small n, the launch itself and the finish (the ticket's round trip to L2, then the
// last block's loads of the partials): README, "Where the time goes at small n".
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

}  // namespace

namespace {

// Elements one thread covers at small n: one trip of thread_reduce's main loop,
// kVectorsInFlight 16-byte vectors of 4-byte elements (for double, two trips). Each
// thread then waits for memory about once.
constexpr std::size_t kElementsPerThread = kVectorsInFlight * 4;

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

// The same over the kernels of one element type (sum, max, min).
template <typename T>
cudaError_t fewest_blocks_per_sm_for(int block, int* fewest) {
  cudaError_t status = fewest_blocks_per_sm(single_pass<T, Sum>, block, fewest);
  if (status == cudaSuccess) status = fewest_blocks_per_sm(single_pass<T, Max>, block, fewest);
  if (status == cudaSuccess) status = fewest_blocks_per_sm(single_pass<T, Min>, block, fewest);
  return status;
}

// The SM count, and how many blocks of `block` threads fit on the device at once (one
// full wave: the fewest per SM over every type and operator, so that the whole grid is
// resident whichever kernel runs).
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

std::size_t scratch_bytes(std::size_t /*n*/, int /*block*/, int grid) {
  return kPartialsOffset + std::size_t(grid) * sizeof(double);  // the ticket, then partials of the widest type
}

// One launch. Scratch: the ticket counter, then the partials from byte kPartialsOffset on;
// one too small for this grid is refused before the launch, not written past.
template <typename T, typename Op>
cudaError_t reduce_shard(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_bytes,
                         int block, int grid, cudaStream_t stream) {
  if (block < 1 || block > 1024 || grid < 1) return cudaErrorInvalidValue;
  if (!scratch || scratch_bytes < multi_gpu::scratch_bytes(n, block, grid)) return cudaErrorInvalidValue;
  unsigned char* bytes = static_cast<unsigned char*>(scratch);
  unsigned* ticket = reinterpret_cast<unsigned*>(bytes);
  T* partials = reinterpret_cast<T*>(bytes + kPartialsOffset);
  single_pass<T, Op><<<grid, block, 0, stream>>>(input, n, result, partials, ticket);
  return cudaGetLastError();
}

// ---------------------------------------------------------------- what is new in 11

Shard shard_of(std::size_t n, int parts, int index) {
  const std::size_t base = n / parts, extra = n % parts;  // the first `extra` shards get one more
  Shard s;
  s.begin = index * base + std::min<std::size_t>(index, extra);
  s.count = base + (static_cast<std::size_t>(index) < extra ? 1 : 0);
  return s;
}

std::string Status::message() const {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", timeout_s);
  if (timed_out) return step + " did not finish within " + seconds + " s: a peer is dead, stuck or unreachable";
  if (nccl != ncclSuccess) {
    return step + " failed: NCCL reports " + ncclGetErrorString(nccl) + (detail.empty() ? "" : " (" + detail + ")") +
           (nccl == ncclRemoteError ? "; a peer failed or its connection broke" : "");
  }
  if (cuda == cudaSuccess) return "";
  return step + " failed: CUDA error " + cudaGetErrorName(cuda) + ": " + cudaGetErrorString(cuda);
}

namespace {

using Clock = std::chrono::steady_clock;

Status cuda_status(cudaError_t error, const std::string& step) { return Status{error, ncclSuccess, false, step, ""}; }

// ncclInProgress is not an error: a non-blocking communicator returns it from every
// call that has not finished yet (poll() tells when it has).
Status nccl_status(ncclResult_t result, const std::string& step) {
  return Status{cudaSuccess, result == ncclInProgress ? ncclSuccess : result, false, step, ""};
}

Status timeout_status(const std::string& step, double timeout_s) {
  return Status{cudaSuccess, ncclSuccess, true, step, "", timeout_s};
}

// Between two polls: spin (yield) for the first 20 ms, so that a wait that ends quickly
// (an all-reduce being enqueued) costs microseconds, then sleep 1 ms at a time.
void pause_between_polls(Clock::time_point since) {
  if (Clock::now() - since < std::chrono::milliseconds(20)) {
    std::this_thread::yield();
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

Clock::time_point deadline_after(Clock::time_point start, double timeout_s) {
  return start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
}

// Every communicator made here is non-blocking: its calls return at once (ncclInProgress)
// and poll() tells when they are done, so that every wait can have a deadline.
ncclConfig_t non_blocking_config() {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  return config;
}

}  // namespace

Status poll(const ncclComm_t* comms, int k, bool* in_progress) {
  *in_progress = false;
  for (int i = 0; i < k; ++i) {
    if (!comms[i]) continue;
    ncclResult_t state = ncclSuccess;
    Status s = nccl_status(ncclCommGetAsyncError(comms[i], &state), "ncclCommGetAsyncError");
    if (!s.ok()) return s;
    if (state == ncclInProgress) {
      *in_progress = true;
    } else if (state != ncclSuccess) {
      s.nccl = state;
      const char* detail = ncclGetLastError(comms[i]);
      if (detail) s.detail = detail;
      return s;
    }
  }
  return Status();
}

Status wait_enqueued(const ncclComm_t* comms, int k, double timeout_s) {
  const Clock::time_point start = Clock::now();
  for (;;) {
    bool in_progress = false;
    const Status s = poll(comms, k, &in_progress);
    if (!s.ok() || !in_progress) return s;
    if (Clock::now() > deadline_after(start, timeout_s)) return timeout_status("", timeout_s);
    pause_between_polls(start);
  }
}

Status init_local(ncclComm_t* comms, int k, double timeout_s) {
  const std::string step = "creating the NCCL communicators (ncclCommInitRankConfig, " + std::to_string(k) + " GPUs)";
  ncclUniqueId id;
  Status s = nccl_status(ncclGetUniqueId(&id), step);
  if (!s.ok()) return s;
  ncclConfig_t config = non_blocking_config();
  for (int d = 0; d < k; ++d) comms[d] = nullptr;
  // One thread creates k communicators of one clique: inside a group, so that NCCL
  // starts them together (one call alone would wait for the other ranks).
  s = nccl_status(ncclGroupStart(), step);
  for (int d = 0; d < k && s.ok(); ++d) {
    s = cuda_status(cudaSetDevice(d), step);
    if (s.ok()) s = nccl_status(ncclCommInitRankConfig(&comms[d], k, id, d, &config), step);
  }
  const Status ended = nccl_status(ncclGroupEnd(), step);
  if (s.ok()) s = ended;
  if (s.ok()) s = wait_enqueued(comms, k, timeout_s);
  s.step = step;
  return s;
}

Status init_rank(ncclComm_t* comm, int ranks, const ncclUniqueId& id, int rank, double timeout_s) {
  const std::string step = "creating the NCCL communicator (ncclCommInitRankConfig, rank " + std::to_string(rank) +
                           " of " + std::to_string(ranks) + ")";
  ncclConfig_t config = non_blocking_config();
  *comm = nullptr;
  Status s = nccl_status(ncclCommInitRankConfig(comm, ranks, id, rank, &config), step);
  if (s.ok()) s = wait_enqueued(comm, 1, timeout_s);
  s.step = step;
  return s;
}

template <typename T>
Status wait(const Part<T>* parts, const ncclComm_t* comms, int k, double timeout_s) {
  const std::string step = "the reduction and its all-reduce";
  const Clock::time_point start = Clock::now();
  for (;;) {
    bool busy = false;
    for (int d = 0; d < k; ++d) {
      Status s = cuda_status(cudaSetDevice(parts[d].device), step);
      if (!s.ok()) return s;
      const cudaError_t state = cudaStreamQuery(parts[d].stream);
      if (state == cudaErrorNotReady) {
        busy = true;  // "not ready" is an answer, not an error
      } else if (state != cudaSuccess) {
        return cuda_status(state, step);
      }
    }
    bool in_progress = false;
    Status s = poll(comms, k, &in_progress);
    if (!s.ok()) {
      s.step = step;
      return s;
    }
    if (!busy && !in_progress) return Status();
    if (Clock::now() > deadline_after(start, timeout_s)) return timeout_status(step, timeout_s);
    pause_between_polls(start);
  }
}

template <typename T>
Status prepare(int device, int ranks, std::size_t count, Part<T>* part, int block, int grid) {
  const std::string step = "setting up GPU " + std::to_string(device);
  part->device = device;
  part->ranks = ranks;
  cudaError_t e = cudaSetDevice(device);
  if (e == cudaSuccess && !block && !grid) e = default_shape(count, &block, &grid);  // 09's shape for the shard
  if (e == cudaSuccess && !block) block = kDefaultBlock;
  if (e == cudaSuccess && !grid) e = default_grid(count, block, &grid);
  part->block = block;
  part->grid = grid;
  const std::size_t bytes = part->scratch_bytes = scratch_bytes(count, block, grid);
  if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&part->stream, cudaStreamNonBlocking);
  if (e == cudaSuccess) e = cudaMalloc(&part->scratch, bytes);
  if (e == cudaSuccess) e = cudaMalloc(&part->totals, ranks * sizeof(T));
  if (e == cudaSuccess) e = cudaMalloc(&part->total, sizeof(T));
  if (e == cudaSuccess) e = cudaMemsetAsync(part->scratch, 0, bytes, part->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(part->stream);  // no NCCL work yet: cannot hang
  return cuda_status(e, step);
}

template <typename T>
Status read_total(const Part<T>& part, T* value) {
  cudaError_t e = cudaSetDevice(part.device);
  if (e == cudaSuccess) e = cudaMemcpyAsync(value, part.total, sizeof(T), cudaMemcpyDeviceToHost, part.stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(part.stream);  // idle after wait(): cannot hang on a peer
  return cuda_status(e, "reading GPU " + std::to_string(part.device) + "'s total");
}

Status finish(ncclComm_t* comms, int k, double timeout_s) {
  const std::string step = "finalizing the NCCL communicators";
  Status s;
  for (int d = 0; d < k && s.ok(); ++d) {
    if (comms[d]) s = nccl_status(ncclCommFinalize(comms[d]), step);  // non-blocking: flushes pending work
  }
  if (s.ok()) s = wait_enqueued(comms, k, timeout_s);
  s.step = step;
  if (!s.ok()) {
    abort(comms, k);
    return s;
  }
  for (int d = 0; d < k; ++d) {
    if (comms[d]) ncclCommDestroy(comms[d]);
    comms[d] = nullptr;
  }
  return s;
}

void abort(ncclComm_t* comms, int k) {
  for (int d = 0; d < k; ++d) {
    if (comms[d]) ncclCommAbort(comms[d]);
    comms[d] = nullptr;
  }
}

template <typename T>
Status release(Part<T>* parts, ncclComm_t* comms, int k, double timeout_s, bool clean) {
  const Status s = clean ? finish(comms, k, timeout_s) : Status();
  if (!clean) abort(comms, k);
  for (int d = 0; d < k; ++d) {  // after the communicators: an aborted one no longer uses them
    cudaSetDevice(parts[d].device);
    if (parts[d].stream) cudaStreamDestroy(parts[d].stream);
    cudaFree(parts[d].scratch);
    cudaFree(parts[d].totals);
    cudaFree(parts[d].total);
    parts[d] = Part<T>();
  }
  return s;
}

// [snippet:allreduce]
// The all-gather leaves rank r's total in totals[r] on every GPU; one thread combines them with the operator
// in rank order, so every GPU computes the same bits, and a NaN in any total reaches the result
// (ncclAllReduce's ncclMax and ncclMin use fmaxf and fminf, which return the other operand when one is NaN).
template <typename T, typename Op>
__global__ void combine_totals(const T* totals, int ranks, T* total) {
  T value = totals[0];
  for (int r = 1; r < ranks; ++r) value = Op()(value, totals[r]);
  *total = value;
}

template <typename T, typename Op>
Status reduce_all(const T* const* shards, const std::size_t* counts, const Part<T>* parts, const ncclComm_t* comms,
                  int k, double timeout_s) {
  Status s = nccl_status(ncclGroupStart(), "the all-reduce (ncclGroupStart)");
  for (int d = 0; d < k && s.ok(); ++d) {
    const Part<T>& part = parts[d];
    int ranks = 0;  // part.totals has room for part.ranks totals: refuse a communicator of another size
    s = nccl_status(ncclCommCount(comms[d], &ranks), "checking that the communicator has prepare()'s ranks");
    if (s.ok() && ranks != part.ranks) s.nccl = ncclInvalidArgument;
    if (s.ok()) s = cuda_status(cudaSetDevice(part.device), "the reduction on GPU " + std::to_string(part.device));
    if (s.ok()) {  // 09's kernel: the shard's total into part.total
      s = cuda_status(reduce_shard<T, Op>(shards[d], counts[d], part.total, part.scratch, part.scratch_bytes,
                                          part.block, part.grid, part.stream), s.step);
    }
    if (s.ok()) {  // every rank's total (sizeof(T) bytes) into part.totals[rank], on every GPU
      s = nccl_status(ncclAllGather(part.total, part.totals, sizeof(T), ncclUint8, comms[d], part.stream),
                      "the all-reduce (ncclAllGather) on GPU " + std::to_string(part.device));
    }
  }
  const Status ended = nccl_status(ncclGroupEnd(), "the all-reduce (ncclGroupEnd)");  // always close the group
  if (s.ok()) s = ended;
  if (s.ok()) {  // non-blocking communicators may still be enqueueing the all-gathers: the combines follow them
    s = wait_enqueued(comms, k, timeout_s);
    s.step = "enqueueing the all-reduce";
  }
  for (int d = 0; d < k && s.ok(); ++d) {
    s = cuda_status(cudaSetDevice(parts[d].device), "combining the totals");
    if (s.ok()) combine_totals<T, Op><<<1, 1, 0, parts[d].stream>>>(parts[d].totals, parts[d].ranks, parts[d].total);
    if (s.ok()) s = cuda_status(cudaGetLastError(), "combining the totals");
  }
  return s;
}

// One rank of one process (MPI): the same, a group of one.
template <typename T, typename Op>
Status reduce(const T* shard, std::size_t count, const Part<T>& part, ncclComm_t comm, double timeout_s) {
  return reduce_all<T, Op>(&shard, &count, &part, &comm, 1, timeout_s);
}
// [/snippet:allreduce]

}  // namespace multi_gpu

// Every function for element type T and each operator. Another type (8 bytes at most: the scratch holds 8 per
// block) names its 16-byte CUDA vector type: MULTI_GPU_ADD_TYPE(long long, longlong2), (unsigned, uint4), ...
#define MULTI_GPU_INSTANTIATE_OP(T, Op)                                                                      \
  template cudaError_t reduce_shard<T, Op>(const T*, std::size_t, T*, void*, std::size_t, int, int, cudaStream_t); \
  template Status reduce<T, Op>(const T*, std::size_t, const Part<T>&, ncclComm_t, double);                  \
  template Status reduce_all<T, Op>(const T* const*, const std::size_t*, const Part<T>*, const ncclComm_t*, int, \
                                    double);
#define MULTI_GPU_INSTANTIATE(T)                                                                             \
  namespace multi_gpu {                                                                                      \
  MULTI_GPU_INSTANTIATE_OP(T, Sum)                                                                           \
  MULTI_GPU_INSTANTIATE_OP(T, Max)                                                                           \
  MULTI_GPU_INSTANTIATE_OP(T, Min)                                                                           \
  template Status prepare<T>(int, int, std::size_t, Part<T>*, int, int);                                    \
  template Status read_total<T>(const Part<T>&, T*);                                                         \
  template Status wait<T>(const Part<T>*, const ncclComm_t*, int, double);                                  \
  template Status release<T>(Part<T>*, ncclComm_t*, int, double, bool);                                     \
  }
#define MULTI_GPU_ADD_TYPE(T, Vector)                                                                        \
  namespace multi_gpu { template <> struct Vector16<T> { using type = Vector; }; }                           \
  MULTI_GPU_INSTANTIATE(T)
MULTI_GPU_INSTANTIATE(int)
MULTI_GPU_INSTANTIATE(float)
MULTI_GPU_INSTANTIATE(double)
