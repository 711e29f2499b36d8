// 10_cub: cub::DeviceReduce and thrust::reduce.
//
// What changes since 09: nothing of our own runs. CUB's DeviceReduce is tuned per GPU
// generation by NVIDIA (block size, items per thread, vector loads, grid size), and it
// is what production code calls. The price of the call is one query for its
// temporary storage, which the caller makes once (scratch_bytes), outside the timed
// region, like every other chapter's scratch space, and passes back with the storage.
//
// Build and run:  cmake --build --preset release --target 10_cub
//                 build/release/bin/10_cub --op max --type float
//                 build/release/bin/10_cub --variant thrust
#include "cub_reduce.cuh"

#include <cub/device/device_reduce.cuh>
#include <cuda/std/limits>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/system/cuda/error.h>
#include <thrust/system_error.h>

#include <algorithm>
#include <cstdint>
#include <new>
#include <type_traits>

namespace cub_reduce {
namespace {

// The operators as functors with an identity, for the calls below. max and min
// propagate NaN, as numpy does (and 09): cub::DeviceReduce::Max and ::Min promise
// nothing for NaN (their comparison drops it or keeps it depending on where it falls),
// so they go through DeviceReduce::Reduce with these functors. The identities are -inf
// and +inf for float and double (the max of {-inf} is -inf), lowest and max for int.
template <typename Op> struct Functor;
template <> struct Functor<Sum> {
  template <typename T> static T identity() { return T(0); }
  template <typename T> __host__ __device__ T operator()(T a, T b) const { return a + b; }
};
template <> struct Functor<Max> {
  template <typename T> static T identity() {
    if constexpr (cuda::std::numeric_limits<T>::has_infinity) return -cuda::std::numeric_limits<T>::infinity();
    else return cuda::std::numeric_limits<T>::lowest();
  }
  template <typename T> __host__ __device__ T operator()(T a, T b) const { return (a > b || a != a) ? a : b; }
};
template <> struct Functor<Min> {
  template <typename T> static T identity() {
    if constexpr (cuda::std::numeric_limits<T>::has_infinity) return cuda::std::numeric_limits<T>::infinity();
    else return cuda::std::numeric_limits<T>::max();
  }
  template <typename T> __host__ __device__ T operator()(T a, T b) const { return (a < b || a != a) ? a : b; }
};

// [snippet:cub_call]
// One entry point for the three operators. With temp == nullptr CUB only writes the
// storage it needs into temp_bytes and launches nothing.
template <typename T, typename Op>
cudaError_t device_reduce(void* temp, std::size_t& temp_bytes, const T* input, std::size_t n, T* result,
                          cudaStream_t stream) {
  const auto count = static_cast<std::int64_t>(n);  // 64-bit: n may exceed 2^31
  if constexpr (std::is_same_v<Op, Sum>) {
    return cub::DeviceReduce::Sum(temp, temp_bytes, input, result, count, stream);
  } else {  // max and min: our NaN-propagating functor and its identity
    return cub::DeviceReduce::Reduce(temp, temp_bytes, input, result, count, Functor<Op>(),
                                     Functor<Op>::template identity<T>(), stream);
  }
}
// [/snippet:cub_call]

}  // namespace

// [snippet:scratch_bytes]
// The storage size CUB asks for (a size query: no launch), the largest over the operators.
template <typename T>
std::size_t scratch_bytes(std::size_t n) {
  std::size_t sum = 0, max = 0, min = 0;
  device_reduce<T, Sum>(nullptr, sum, nullptr, n, nullptr, nullptr);  // a size left at 0 on error
  device_reduce<T, Max>(nullptr, max, nullptr, n, nullptr, nullptr);
  device_reduce<T, Min>(nullptr, min, nullptr, n, nullptr, nullptr);
  return std::max({sum, max, min});
}
// [/snippet:scratch_bytes]

// [snippet:reduce]
template <typename T, typename Op>
cudaError_t reduce(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size,
                   cudaStream_t stream) {
  if (scratch == nullptr) return cudaErrorInvalidValue;  // CUB would take it for a size query and reduce nothing
  if (scratch_size == 0) return cudaErrorInvalidValue;   // CUB asks at least 1 byte, but checks none for one tile
  return device_reduce<T, Op>(scratch, scratch_size, input, n, result, stream);  // CUB checks the size
}
// [/snippet:reduce]

// [snippet:thrust]
template <typename T, typename Op>
cudaError_t thrust_reduce(const T* input, std::size_t n, T* result, cudaStream_t stream) {
  try {
    const T init = Functor<Op>::template identity<T>();
    const T value = thrust::reduce(thrust::cuda::par.on(stream), input, input + n, init, Functor<Op>());
    cudaError_t status = cudaMemcpyAsync(result, &value, sizeof(T), cudaMemcpyHostToDevice, stream);
    if (status == cudaSuccess) status = cudaStreamSynchronize(stream);  // `value` lives on this stack frame
    return status;
  } catch (const thrust::system_error& error) {  // Thrust reports CUDA errors by exception
    const bool from_cuda = error.code().category() == thrust::cuda_category();
    return from_cuda ? static_cast<cudaError_t>(error.code().value()) : cudaErrorUnknown;
  } catch (const std::bad_alloc&) {  // its temporary storage could not be allocated
    return cudaErrorMemoryAllocation;
  } catch (...) {
    return cudaErrorUnknown;
  }
}
// [/snippet:thrust]

}  // namespace cub_reduce

// scratch_bytes, reduce and thrust_reduce with Sum, Max and Min for element type T: use it at
// global scope (here, or at the end of this file).
#define CUB_REDUCE_INSTANTIATE(T) namespace cub_reduce {                                             \
  template std::size_t scratch_bytes<T>(std::size_t);                                                \
  template cudaError_t reduce<T, Sum>(const T*, std::size_t, T*, void*, std::size_t, cudaStream_t);  \
  template cudaError_t thrust_reduce<T, Sum>(const T*, std::size_t, T*, cudaStream_t);               \
  template cudaError_t reduce<T, Max>(const T*, std::size_t, T*, void*, std::size_t, cudaStream_t);  \
  template cudaError_t thrust_reduce<T, Max>(const T*, std::size_t, T*, cudaStream_t);               \
  template cudaError_t reduce<T, Min>(const T*, std::size_t, T*, void*, std::size_t, cudaStream_t);  \
  template cudaError_t thrust_reduce<T, Min>(const T*, std::size_t, T*, cudaStream_t); }
CUB_REDUCE_INSTANTIATE(int)
CUB_REDUCE_INSTANTIATE(float)
CUB_REDUCE_INSTANTIATE(double)
