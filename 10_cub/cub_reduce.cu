// 10_cub: cub::DeviceReduce and thrust::reduce.
//
// What changes since 09: nothing of our own runs. CUB's DeviceReduce is tuned per GPU
// generation by NVIDIA (block size, items per thread, vector loads, grid size), and it
// is what production code calls. The price of the call is one query for its
// temporary storage, which we make once, outside the timed region, like every other
// chapter's scratch space.
//
// Build and run:  cmake --build --preset release --target 10_cub
//                 build/release/bin/10_cub --op max --type float
//                 build/release/bin/10_cub --variant thrust
#include "cub_reduce.cuh"

#include <cub/device/device_reduce.cuh>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "cuda_check.h"
#include "launch_rules.h"
#include "ops.cuh"

using reduction::MaxOp;
using reduction::MinOp;
using reduction::SumOp;

namespace {

// [snippet:cub_call]
// One entry point for the three operators. With temp == nullptr CUB only writes the
// storage it needs into temp_bytes and launches nothing.
template <typename T, typename Op>
void cub_reduce(void* temp, std::size_t& temp_bytes, const T* input, std::size_t n, T* result, cudaStream_t stream) {
  const auto count = static_cast<std::int64_t>(n);  // 64-bit: n may exceed 2^31
  if constexpr (std::is_same_v<Op, SumOp>) {
    CUDA_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, input, result, count, stream));
  } else if constexpr (std::is_same_v<Op, MaxOp>) {
    CUDA_CHECK(cub::DeviceReduce::Max(temp, temp_bytes, input, result, count, stream));
  } else {
    CUDA_CHECK(cub::DeviceReduce::Min(temp, temp_bytes, input, result, count, stream));
  }
}
// [/snippet:cub_call]

template <typename T>
std::size_t temp_bytes_for(std::size_t n) {
  std::size_t sum = 0, max = 0, min = 0;
  cub_reduce<T, SumOp>(nullptr, sum, nullptr, n, nullptr, nullptr);
  cub_reduce<T, MaxOp>(nullptr, max, nullptr, n, nullptr, nullptr);
  cub_reduce<T, MinOp>(nullptr, min, nullptr, n, nullptr, nullptr);
  return std::max({sum, max, min});
}

}  // namespace

std::string CubReduce::check_shape(int block, int grid) {
  if (block != 0 || grid != 0) return "CUB chooses its own launch shape: --block and --grid do not apply";
  return "";
}

int CubReduce::default_grid(std::size_t /*n*/, int /*block*/, int sm_count) { return sm_count; }

// [snippet:scratch_bytes]
std::size_t CubReduce::scratch_bytes(std::size_t n, int /*block*/, int /*grid*/) {
  return std::max({temp_bytes_for<int>(n), temp_bytes_for<float>(n), temp_bytes_for<double>(n)});
}
// [/snippet:scratch_bytes]

// CUB's summation order is its own, so we bound it from what CUB guarantees in
// structure: at least `grid` (= SM count) blocks of at least 128 threads each add up
// their slices serially, then trees of at most log2(n) levels combine them; 32 more
// additions cover the per-thread item loop and the final single-block pass.
std::size_t CubReduce::chain_length(std::size_t n, int /*block*/, int grid) {
  return reduction::ceil_div(n, std::size_t(grid) * 128) + 2 * reduction::ceil_log2(n + 1) + 32;
}

// [snippet:reduce]
template <typename T, typename Op>
void CubReduce::reduce(const T* input, std::size_t n, T* result, void* scratch, int, int, cudaStream_t stream) {
  std::size_t temp_bytes = 0;
  cub_reduce<T, Op>(nullptr, temp_bytes, input, n, result, stream);  // host-side size query: no launch
  cub_reduce<T, Op>(scratch, temp_bytes, input, n, result, stream);
  CUDA_CHECK_LAUNCH();
}
// [/snippet:reduce]

// [snippet:thrust]
template <typename T, typename Op>
void ThrustReduce::reduce(const T* input, std::size_t n, T* result, void*, int, int, cudaStream_t stream) {
  const T value = thrust::reduce(thrust::cuda::par.on(stream), input, input + n, Op::template identity<T>(), Op());
  CUDA_CHECK(cudaMemcpyAsync(result, &value, sizeof(T), cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));  // `value` lives on this stack frame
}
// [/snippet:thrust]

#define CUB_INSTANTIATE(S, T, OP) \
  template void S::reduce<T, OP>(const T*, std::size_t, T*, void*, int, int, cudaStream_t);
#define CUB_INSTANTIATE_ALL(S)                                                                       \
  CUB_INSTANTIATE(S, int, SumOp) CUB_INSTANTIATE(S, int, MaxOp) CUB_INSTANTIATE(S, int, MinOp)       \
  CUB_INSTANTIATE(S, float, SumOp) CUB_INSTANTIATE(S, float, MaxOp) CUB_INSTANTIATE(S, float, MinOp) \
  CUB_INSTANTIATE(S, double, SumOp) CUB_INSTANTIATE(S, double, MaxOp) CUB_INSTANTIATE(S, double, MinOp)
CUB_INSTANTIATE_ALL(CubReduce)
CUB_INSTANTIATE_ALL(ThrustReduce)
