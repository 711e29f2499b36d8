// 06_warp_unroll, pitfalls: the chapter's kernel with the pre-Volta way of finishing
// the last warp, through a volatile pointer and with no __syncwarp() (the same two
// launches). It relied on the 32 lanes of a warp running in lock-step, which no GPU
// since Volta (sm_70) promises. It usually gives the right answer, which is what makes
// it dangerous: the race between lanes is there whether or not a run shows it.
// Run it with --variant volatile (README, docs/pitfalls.md).
// Not part of the copy unit: nothing here is meant to be copied.
#include <cuda_runtime.h>

#include <cstddef>

namespace warp_unroll_pitfalls {
namespace {

// The smallest power of two at or above x, for 1 <= x <= 2^31 (05 explains it).
__device__ unsigned pow2ceil(unsigned x) { return 1u << (32 - __clz(static_cast<int>(x - 1))); }

// As in warp_unroll.cu: the block padded to a power of two, at least 64 slots.
std::size_t tree_slots(int block) {
  std::size_t slots = 64;
  while (slots < std::size_t(block)) slots *= 2;
  return slots;
}

// The chapter's loop, four strides per trip (warp_unroll.cu explains it).
template <typename T>
__device__ T grid_stride_sum(const T* input, std::size_t n) {
  const std::size_t grid_stride = std::size_t(gridDim.x) * blockDim.x;  // 64-bit: n may exceed 2^31
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  T sum0 = T(0), sum1 = T(0), sum2 = T(0), sum3 = T(0);
  for (; i + 3 * grid_stride < n; i += 4 * grid_stride) {  // all four loads are in range
    sum0 += input[i];
    sum1 += input[i + grid_stride];
    sum2 += input[i + 2 * grid_stride];
    sum3 += input[i + 3 * grid_stride];
  }
  for (; i < n; i += grid_stride) sum0 += input[i];
  return (sum0 + sum1) + (sum2 + sum3);
}

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

  partial[tid] = grid_stride_sum(input, n);
  for (unsigned pad = blockDim.x + tid; pad < slots; pad += blockDim.x) partial[pad] = T(0);
  __syncthreads();

  if (slots >= 1024) { if (tid < 512) partial[tid] += partial[tid + 512]; __syncthreads(); }
  if (slots >= 512) { if (tid < 256) partial[tid] += partial[tid + 256]; __syncthreads(); }
  if (slots >= 256) { if (tid < 128) partial[tid] += partial[tid + 128]; __syncthreads(); }
  if (slots >= 128) { if (tid < 64) partial[tid] += partial[tid + 64]; __syncthreads(); }

  if (tid < 32) warp_fold_64_volatile(partial, tid);  // no __syncwarp(), no guards: the race
  if (tid == 0) out[blockIdx.x] = partial[0];
}

}  // namespace

// The chapter's two launches, with the volatile kernel (shape checked by main.cu).
template <typename T>
cudaError_t reduce_volatile(const T* input, std::size_t n, T* result, void* scratch, int block, int grid,
                            cudaStream_t stream) {
  const std::size_t shared = tree_slots(block) * sizeof(T);
  if (grid == 1) {
    block_sums_unrolled_volatile<<<1, block, shared, stream>>>(input, n, result);
    return cudaGetLastError();
  }
  T* partials = static_cast<T*>(scratch);
  block_sums_unrolled_volatile<<<grid, block, shared, stream>>>(input, n, partials);
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) return status;
  block_sums_unrolled_volatile<<<1, block, shared, stream>>>(partials, grid, result);
  return cudaGetLastError();
}

template cudaError_t reduce_volatile<int>(const int*, std::size_t, int*, void*, int, int, cudaStream_t);
template cudaError_t reduce_volatile<float>(const float*, std::size_t, float*, void*, int, int, cudaStream_t);
template cudaError_t reduce_volatile<double>(const double*, std::size_t, double*, void*, int, int, cudaStream_t);

}  // namespace warp_unroll_pitfalls
