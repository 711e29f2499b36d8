// cub_operators.cuh: what the CUB yardsticks hand to cub::DeviceSegmentedReduce (cub_rows.cu for the rows
// chapters, 19's segments_harness.cu): sum and max of any mix of float, __half and __nv_bfloat16, in float,
// and ArgMax's KeyValuePair written as a ValueIndex. For .cu files (CUB's headers).
#pragma once

#include <cub/util_type.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>

#include "cub_rows.h"

namespace reduction::cub_operators {

__host__ __device__ inline float as_float(float x) { return x; }
__host__ __device__ inline float as_float(__half x) { return __half2float(x); }
__host__ __device__ inline float as_float(__nv_bfloat16 x) { return __bfloat162float(x); }

// CUB calls them on (accumulator, input) and (accumulator, accumulator) pairs.
struct SumInFloat {
  template <typename A, typename B>
  __host__ __device__ float operator()(const A& a, const B& b) const { return as_float(a) + as_float(b); }
};
struct MaxInFloat {
  template <typename A, typename B>
  __host__ __device__ float operator()(const A& a, const B& b) const {
    const float x = as_float(a), y = as_float(b);
    return (x > y || x != x) ? x : y;  // NaN propagates, as Max
  }
};

// Writes what DeviceSegmentedReduce::ArgMax finds for a segment (a KeyValuePair of the index in the segment
// and the value) as a ValueIndex. A thrust::tabulate_output_iterator calls it with the segment and the pair;
// its value type is void, so CUB keeps its own pair type.
struct WriteValueIndex {
  cub_rows::ValueIndex* output;
  template <typename In>
  __host__ __device__ void operator()(std::ptrdiff_t segment, const cub::KeyValuePair<int, In>& found) const {
    output[segment] = {as_float(found.value), found.key};
  }
};

}  // namespace reduction::cub_operators
