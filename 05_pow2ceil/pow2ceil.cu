// 05_pow2ceil: the shared-memory tree for any block size and any block count.
//
// What changes since 04: 04's tree halves blockDim.x, so it only works when the
// block size is a power of two (100 threads would halve to 50, 25, 12 and lose a
// value at every odd step). Here the tree starts at pow2ceil(blockDim.x) / 2, where
// pow2ceil is the next power of two at or above the block size, computed on the
// device with one __clz instruction. Think of the block as padded with zeros up to
// that power of two: a thread adds its partner only when the partner really
// exists (partner index < blockDim.x); a missing partner would have added zero.
// The default grid, a multiple of the SM count as in 04, now asks the occupancy
// calculator how many blocks one SM holds, instead of dividing the SM's threads by
// the block size: it is one full wave at every block size.
//
// Build and run:  cmake --build --preset release --target 05_pow2ceil
//                 build/release/bin/05_pow2ceil --n 2^24 --type float --block 100
#include "pow2ceil.cuh"

#include <algorithm>

namespace pow2ceil {
namespace {

// [snippet:pow2ceil]
// The smallest power of two at or above x, for 1 <= x <= 2^31.
// __clz(v) counts the zero bits above the highest set bit of v (32 when v == 0),
// so 32 - __clz(x - 1) is how many bits x - 1 needs, and 1 shifted by that many
// is the first power of two above x - 1. Examples: x = 96 -> x - 1 = 95 needs 7
// bits -> 128; x = 128 -> 127 needs 7 bits -> 128; x = 1 -> 0 needs 0 bits -> 1.
__device__ unsigned pow2ceil(unsigned x) { return 1u << (32 - __clz(static_cast<int>(x - 1))); }
// [/snippet:pow2ceil]

// [snippet:kernel]
// Each block writes the sum of its grid-stride slice of `input` to out[blockIdx.x].
// Any blockDim.x from 1 to 1024; dynamic shared memory holds blockDim.x values.
// What is still slow: reading the input. The loop in step 1 keeps one load in flight
// per thread, too few to keep the memory busy; the profiler finds warps waiting on
// memory most of the time and at a barrier seldom (06 issues four loads per trip). The
// tree's last five steps, one warp working between barriers, cost little (06 unrolls
// them all the same).
template <typename T>
__global__ void block_sums_any_size(const T* input, std::size_t n, T* out) {
  extern __shared__ unsigned char shared_bytes[];
  T* partial = reinterpret_cast<T*>(shared_bytes);  // one slot per thread
  const unsigned tid = threadIdx.x;

  // 1. This thread's grid-stride slice, in a register. Indices are 64-bit, since n
  //    may exceed 2^31.
  T sum = T(0);
  const std::size_t grid_stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + tid; i < n; i += grid_stride) sum += input[i];
  partial[tid] = sum;
  __syncthreads();  // every slot written before anyone reads a neighbour's

  // 2. The tree over a block padded (in thought only) to a power of two. With
  //    blockDim.x = 100: strides 64, 32, 16, 8, 4, 2, 1. In the first step threads
  //    0..35 add slots 64..99; threads 36..63 would add slots 100..127, which do
  //    not exist (they hold zeros in the padded picture), so they skip the add.
  //    From then on every partner is below 64 and all of them exist.
  for (unsigned stride = pow2ceil(blockDim.x) / 2; stride > 0; stride /= 2) {
    if (tid < stride && tid + stride < blockDim.x) partial[tid] += partial[tid + stride];
    __syncthreads();  // this step's sums are read by the next step
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}
// [/snippet:kernel]

}  // namespace

// [snippet:default_grid]
// A multiple of the SM count, as in 04: the grid-stride loop gives every block the
// same work, so the run lasts as long as the busiest SM, and with the same number of
// blocks on every SM they all finish together. New here: the occupancy calculator
// tells how many blocks of this kernel, at this block size, one SM holds at once
// (its limits on threads, blocks, registers and shared memory per SM all count, and
// they differ between GPUs), so the grid is one wave at every block size. It is asked
// for the double kernel, the one with the most shared memory per block, so that the
// whole grid fits at once for every type.
cudaError_t default_grid(std::size_t /*n*/, int block, int* grid) {
  if (block < 1 || block > 1024) return cudaErrorInvalidValue;
  int device = 0, sm_count = 0, blocks_per_sm = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
  if (status == cudaSuccess) {
    status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, block_sums_any_size<double>, block,
                                                           block * sizeof(double));
  }
  if (status != cudaSuccess) return status;
  *grid = sm_count * std::max(blocks_per_sm, 1);
  return cudaSuccess;
}
// [/snippet:default_grid]

std::size_t scratch_bytes(std::size_t /*n*/, int /*block*/, int grid) {
  return grid > 1 ? std::size_t(grid) * sizeof(double) : 0;  // sized for the widest type
}

// [snippet:launcher]
// 04's two launches. First launch: `grid` blocks, one partial each (in `scratch`).
// Second launch: one block folds the `grid` partials; its grid-stride loop covers any
// grid, even one far larger than the block. Dynamic shared memory: one slot per thread.
template <typename T>
cudaError_t reduce(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block,
                   int grid, cudaStream_t stream) {
  if (block < 1 || block > 1024 || grid < 1) return cudaErrorInvalidValue;  // any size CUDA allows
  if (scratch_size < scratch_bytes(n, block, grid)) return cudaErrorInvalidValue;  // too small: no launch
  const std::size_t shared = block * sizeof(T);
  if (grid == 1) {  // one block covers everything: its sum is the result
    block_sums_any_size<<<1, block, shared, stream>>>(input, n, result);
    return cudaGetLastError();
  }
  T* partials = static_cast<T*>(scratch);
  block_sums_any_size<<<grid, block, shared, stream>>>(input, n, partials);
  const cudaError_t status = cudaGetLastError();  // a bad launch is only reported here
  if (status != cudaSuccess) return status;
  block_sums_any_size<<<1, block, shared, stream>>>(partials, grid, result);
  return cudaGetLastError();
}
// [/snippet:launcher]

}  // namespace pow2ceil

// reduce for element type T: use it at global scope (here, or at the end of this file).
#define POW2CEIL_INSTANTIATE(T) \
  template cudaError_t pow2ceil::reduce<T>(const T*, std::size_t, T*, void*, std::size_t, int, int, cudaStream_t);
POW2CEIL_INSTANTIATE(int)
POW2CEIL_INSTANTIATE(float)
POW2CEIL_INSTANTIATE(double)
