// 05_pow2ceil: the shared-memory tree for any block size and any block count.
//
// What changes since 04: 04's tree halves blockDim.x, so it only works when the
// block size is a power of two (100 threads would halve to 50, 25, 12 and lose a
// value at every odd step). Here the tree starts at pow2ceil(blockDim.x) / 2, where
// pow2ceil is the next power of two at or above the block size, computed on the
// device with one __clz instruction. Think of the block as padded with zeros up to
// that power of two: a thread adds its partner only when the partner really
// exists (partner index < blockDim.x); a missing partner would have added zero.
// The default grid is now a whole number of blocks per SM, asked of the device.
//
// Build and run:  cmake --build --preset release --target 05_pow2ceil
//                 build/release/bin/05_pow2ceil --n 2^24 --type float --block 100
#include "pow2ceil.cuh"

#include <algorithm>

#include "cuda_check.h"
#include "launch_rules.h"
#include "../04_shared_tree/two_launches.cuh"

using reduction::ceil_div;
using reduction::ceil_log2;

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
// What is still slow: like 04, every halving step ends in a __syncthreads(), even
// the last five, where only one warp is left working; and each thread keeps only
// one load in flight in its grid-stride loop (06 works on both).
template <typename T>
__global__ void block_sums_any_size(const T* input, std::size_t n, T* out) {
  extern __shared__ unsigned char shared_bytes[];
  T* partial = reinterpret_cast<T*>(shared_bytes);  // one slot per thread
  const unsigned tid = threadIdx.x;

  // 1. Grid-stride loop, as in 04: 64-bit indices, since n may exceed 2^31.
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

std::string Pow2Ceil::check_shape(int block, int /*grid*/) { return reduction::check_block_range(block); }

// [snippet:default_grid]
// Why a multiple of the SM count: the grid-stride loop gives every block the same
// amount of work, so the run lasts as long as the busiest SM. With the same number
// of blocks on every SM they all finish together; with, say, 1.5 blocks per SM,
// half the SMs run a second block while the other half sit idle. The occupancy
// calculator tells how many blocks of this kernel, at this block size, one SM can
// hold at once (its limits on threads, blocks, registers and shared memory per SM
// all count, and they differ between GPUs): that many per SM is one full wave, the
// most threads, and so the most memory loads, in flight at once.
int Pow2Ceil::default_grid(std::size_t /*n*/, int block, int sm_count) {
  int blocks_per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, block_sums_any_size<double>, block,
                                                           block * sizeof(double)));
  return sm_count * std::max(blocks_per_sm, 1);
}
// [/snippet:default_grid]

std::size_t Pow2Ceil::scratch_bytes(std::size_t /*n*/, int /*block*/, int grid) {
  return grid > 1 ? std::size_t(grid) * sizeof(double) : 0;
}

// A value passes through: its thread's serial loop (at most ceil(n / (G*B))
// additions), the block's tree (ceil(log2 B) levels: the padded power of two),
// then in the second launch the serial loop over the G partials (ceil(G / B)) and
// the tree again.
std::size_t Pow2Ceil::chain_length(std::size_t n, int block, int grid) {
  return ceil_div(n, std::size_t(grid) * block) + ceil_div(grid, block) + 2 * ceil_log2(block);
}

// [snippet:launcher]
template <typename T>
void Pow2Ceil::reduce(const T* input, std::size_t n, T* result, void* scratch, int block, int grid,
                      cudaStream_t stream) {
  // 04's two launches (04_shared_tree/two_launches.cuh); shared memory: one slot per thread.
  two_launches<T>(block_sums_any_size<T>, input, n, result, scratch, block, grid, block * sizeof(T), stream);
}
// [/snippet:launcher]

template void Pow2Ceil::reduce<int>(const int*, std::size_t, int*, void*, int, int, cudaStream_t);
template void Pow2Ceil::reduce<float>(const float*, std::size_t, float*, void*, int, int, cudaStream_t);
template void Pow2Ceil::reduce<double>(const double*, std::size_t, double*, void*, int, int, cudaStream_t);
