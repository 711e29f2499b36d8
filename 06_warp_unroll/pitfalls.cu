// 06_warp_unroll, pitfalls: the chapter's kernel with the pre-Volta way of finishing
// the last warp, through a volatile pointer and with no __syncwarp() (the same two
// launches). It relied on the 32 lanes of a warp running in lock-step, which no GPU
// since Volta (sm_70) promises. It usually gives the right answer, which is what makes
// it dangerous: the race between lanes is there whether or not a run shows it.
// Run it with --variant volatile (README, docs/pitfalls.md).
// Not part of the copy unit: nothing here is meant to be copied.
#include <cuda_runtime.h>

#include <cstddef>

#include "variant_parts.cuh"

namespace warp_unroll_pitfalls {
namespace {

using namespace warp_unroll_parts;

// [snippet:volatile_fold]
// WRONG since Volta, kept for docs/pitfalls.md: the pre-Volta warp-synchronous
// fold. All 32 lanes run every step with no barrier, trusting that they execute
// each statement together (all loads, then all stores). `volatile` only makes the
// compiler load and store shared memory at every statement instead of keeping
// values in registers; it says nothing about the order in which different lanes
// run. With independent thread scheduling (sm_70 on) lane 0 may reach the second
// line and read slot 16 before lane 16 has added slot 48 to it, or while lane 16
// is rewriting it: data races between the lanes of one warp.
template <typename T>
__device__ void warp_fold_64_volatile(T* partial, unsigned lane) {
  volatile T* slot = partial;
  slot[lane] = slot[lane] + slot[lane + 32];
  slot[lane] = slot[lane] + slot[lane + 16];
  slot[lane] = slot[lane] + slot[lane + 8];
  slot[lane] = slot[lane] + slot[lane + 4];
  slot[lane] = slot[lane] + slot[lane + 2];
  slot[lane] = slot[lane] + slot[lane + 1];
}
// [/snippet:volatile_fold]

// The chapter's block_sums_unrolled, with warp 0 finishing through warp_fold_64_volatile.
template <typename T>
__global__ void block_sums_unrolled_volatile(const T* input, std::size_t n, T* out) {
  extern __shared__ unsigned char shared_bytes[];
  T* partial = reinterpret_cast<T*>(shared_bytes);
  const unsigned tid = threadIdx.x;
  const unsigned slots = max(pow2ceil(blockDim.x), 64u);

  partial[tid] = four_loads_per_trip(input, n);
  for (unsigned pad = blockDim.x + tid; pad < slots; pad += blockDim.x) partial[pad] = T(0);
  __syncthreads();

  halve_to_64(partial, tid, slots);

  if (tid < 32) warp_fold_64_volatile(partial, tid);  // no __syncwarp(), no guards: the race
  if (tid == 0) out[blockIdx.x] = partial[0];
}

}  // namespace

// The chapter's two launches, with the volatile kernel (shape checked by main.cu).
template <typename T>
cudaError_t reduce_volatile(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size,
                            int block, int grid, cudaStream_t stream) {
  return two_launches(block_sums_unrolled_volatile<T>, tree_slots(block) * sizeof(T), input, n, result, scratch,
                      scratch_size, block, grid, stream);
}

template cudaError_t reduce_volatile<int>(const int*, std::size_t, int*, void*, std::size_t, int, int, cudaStream_t);
template cudaError_t reduce_volatile<float>(const float*, std::size_t, float*, void*, std::size_t, int, int,
                                            cudaStream_t);
template cudaError_t reduce_volatile<double>(const double*, std::size_t, double*, void*, std::size_t, int, int,
                                             cudaStream_t);

}  // namespace warp_unroll_pitfalls
