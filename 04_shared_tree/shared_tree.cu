// 04_shared_tree: grid-stride accumulation + shared-memory tree (two launches).
//
// What changes since 03: 01-03 give every element its own thread and reduce in
// global memory, so a block of B threads handles only B elements and most threads
// go idle after the first step. Here a fixed grid of G blocks walks the whole array
// with a grid-stride loop: each thread first adds up n / (G * B) elements in a
// register (no traffic but the loads), and only then does the block combine its B
// values, in fast on-chip shared memory, with sequential addressing (stride halves,
// active threads stay contiguous, no bank conflicts). A second launch of one block
// reduces the G block partials to the final value.
//
// Build and run:  cmake --build --preset release --target 04_shared_tree
//                 build/release/bin/04_shared_tree --n 2^24 --type float
//                 build/release/bin/04_shared_tree --variant strided   (pitfalls.cu: bank conflicts)
#include "shared_tree.cuh"

namespace shared_tree {
namespace {

// [snippet:kernel]
// Each block writes the sum of its grid-stride slice of `input` to out[blockIdx.x].
// blockDim.x must be a power of two; dynamic shared memory holds blockDim.x values.
// What is still slow: reading the input. The loop in step 1 keeps one load in flight
// per thread, too few to keep the memory busy; the profiler finds warps waiting on
// memory most of the time and at a barrier seldom (06 issues four loads per trip). The
// tree's last five steps, one warp working between barriers, cost little (06 unrolls
// them all the same).
template <typename T>
__global__ void block_sums(const T* input, std::size_t n, T* out) {
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

  // 2. Sequential addressing: thread t adds slot t + stride; the working threads are
  //    the first `stride` ones. The other warps do not leave: they wait at every
  //    barrier and issue the step's shared loads and stores with all lanes switched off.
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (tid < stride) partial[tid] += partial[tid + stride];
    __syncthreads();  // this step's sums are read by the next step
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}
// [/snippet:kernel]

bool is_power_of_two(int x) { return x > 0 && (x & (x - 1)) == 0; }

}  // namespace

// [snippet:default_grid]
cudaError_t default_grid(std::size_t /*n*/, int block, int* grid) {
  int device = 0, sm_count = 0, threads_per_sm = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
  if (status == cudaSuccess) {
    status = cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
  }
  if (status != cudaSuccess) return status;
  if (block < 1) return cudaErrorInvalidValue;
  const int blocks_per_sm = threads_per_sm / block;
  *grid = sm_count * (blocks_per_sm > 0 ? blocks_per_sm : 1);
  return cudaSuccess;
}
// [/snippet:default_grid]

std::size_t scratch_bytes(std::size_t /*n*/, int /*block*/, int grid) {
  return grid > 1 ? std::size_t(grid) * sizeof(double) : 0;  // sized for the widest type
}

// [snippet:launcher]
// First launch: `grid` blocks, one partial each (in `scratch`). Second launch: one
// block folds the `grid` partials; its grid-stride loop covers any grid, even one far
// larger than the block. Dynamic shared memory: one slot per thread.
template <typename T>
cudaError_t reduce(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block,
                   int grid, cudaStream_t stream) {
  if (!is_power_of_two(block) || block < 32 || block > 1024 || grid < 1) return cudaErrorInvalidValue;
  if (scratch_size < scratch_bytes(n, block, grid)) return cudaErrorInvalidValue;  // too small: no launch
  const std::size_t shared = block * sizeof(T);
  if (grid == 1) {  // one block covers everything: its sum is the result
    block_sums<<<1, block, shared, stream>>>(input, n, result);
    return cudaGetLastError();
  }
  T* partials = static_cast<T*>(scratch);
  block_sums<<<grid, block, shared, stream>>>(input, n, partials);
  const cudaError_t status = cudaGetLastError();  // a bad launch is only reported here
  if (status != cudaSuccess) return status;
  block_sums<<<1, block, shared, stream>>>(partials, grid, result);
  return cudaGetLastError();
}
// [/snippet:launcher]

}  // namespace shared_tree

// reduce for element type T: use it at global scope (here, or at the end of this file).
#define SHARED_TREE_INSTANTIATE(T) \
  template cudaError_t shared_tree::reduce<T>(const T*, std::size_t, T*, void*, std::size_t, int, int, cudaStream_t);
SHARED_TREE_INSTANTIATE(int)
SHARED_TREE_INSTANTIATE(float)
SHARED_TREE_INSTANTIATE(double)
