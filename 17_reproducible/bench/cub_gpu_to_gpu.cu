// CUB's own reproducible sum (CCCL 3.1 and later): cub::DeviceReduce::Reduce with
// cuda::execution::determinism::gpu_to_gpu, called as a user calls it: the environment
// API, which allocates its temporary storage on each call. Built only when a CCCL with
// it is given (17_reproducible/bench/CMakeLists.txt); on the default stream.
#include <cub/device/device_reduce.cuh>
#include <cuda/execution.determinism.h>
#include <cuda/execution.require.h>
#include <cuda/std/functional>

#include "gpu_to_gpu.h"

cudaError_t cub_gpu_to_gpu_sum(const float* input, std::size_t n, float* result) {
  return cub::DeviceReduce::Reduce(input, result, static_cast<long long>(n), cuda::std::plus<float>{}, 0.0f,
                                   cuda::execution::require(cuda::execution::determinism::gpu_to_gpu));
}
