// 04_shared_tree, one change at a time: 04 changes two things since 03 (the tree moves
// from global to shared memory, and a grid-stride loop sums many elements per thread in
// a register). The kernel here makes the first change alone, so that `tour --steps 04`
// can time 03, this step and 04 side by side (README, "One change at a time"):
//   one_each  04's shared-memory tree, but one element per thread as in 03: one block per
//             B elements and a launch per pass until one value is left (03's pass loop);
//             the input is only read, never overwritten.
// Run it alone with --variant one_each. Not part of the copy unit: nothing here is meant
// to be copied.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstddef>

namespace shared_tree_steps {
namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// Each block copies its B elements (zeros past n) into shared memory and runs 04's tree
// there; blockDim.x must be a power of two. No loop: a thread loads one element.
template <typename T>
__global__ void block_sums_one_each(const T* input, std::size_t n, T* out) {
  extern __shared__ unsigned char shared_bytes[];
  T* partial = reinterpret_cast<T*>(shared_bytes);
  const unsigned tid = threadIdx.x;
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + tid;  // 64-bit: n may exceed 2^31
  partial[tid] = i < n ? input[i] : T(0);
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {  // 04's tree
    if (tid < stride) partial[tid] += partial[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}

}  // namespace

// One block per B elements in the first pass, as in 03 (main.cu refuses --grid).
cudaError_t default_grid_one_each(std::size_t n, int block, int* grid) {
  if (block < 1) return cudaErrorInvalidValue;
  *grid = static_cast<int>(std::clamp<std::size_t>(ceil_div(n, block), 1, INT_MAX));
  return cudaSuccess;
}

// 03's two scratch regions: ceil(n/B) partials, then ceil(n/B^2) for the pass after.
std::size_t scratch_bytes_one_each(std::size_t n, int block, int /*grid*/) {
  const std::size_t first = ceil_div(n, block), second = ceil_div(first, block);
  if (first <= 1) return 0;  // one pass: it writes straight to result
  return (first + (second > 1 ? second : 0)) * sizeof(double);  // sized for the widest type
}

// 03's pass loop: each pass reads one region (the input first) and writes its partials
// to the other; the last pass, a single block, writes the result. `grid` is not used.
template <typename T>
cudaError_t reduce_one_each(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size,
                            int block, int /*grid*/, cudaStream_t stream) {
  if (block < 32 || block > 1024 || (block & (block - 1)) != 0) return cudaErrorInvalidValue;
  if (n > std::size_t(INT_MAX) * block) return cudaErrorInvalidValue;  // more blocks than a grid holds
  if (scratch_size < scratch_bytes_one_each(n, block, 0)) return cudaErrorInvalidValue;  // too small: no launch
  const std::size_t shared = block * sizeof(T);
  T* const partials_a = static_cast<T*>(scratch);
  const T* values = input;
  std::size_t count = n, grid = ceil_div(count, block);
  while (grid > 1) {
    T* partials = values == partials_a ? partials_a + ceil_div(n, block) : partials_a;
    block_sums_one_each<<<static_cast<unsigned>(grid), block, shared, stream>>>(values, count, partials);
    const cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess) return status;
    values = partials;
    count = grid;
    grid = ceil_div(count, block);
  }
  block_sums_one_each<<<1, block, shared, stream>>>(values, count, result);
  return cudaGetLastError();
}

template cudaError_t reduce_one_each<int>(const int*, std::size_t, int*, void*, std::size_t, int, int, cudaStream_t);
template cudaError_t reduce_one_each<float>(const float*, std::size_t, float*, void*, std::size_t, int, int,
                                            cudaStream_t);
template cudaError_t reduce_one_each<double>(const double*, std::size_t, double*, void*, std::size_t, int, int,
                                             cudaStream_t);

}  // namespace shared_tree_steps
