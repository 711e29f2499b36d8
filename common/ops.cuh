// ops.cuh: the reduction operators that chapters 09-11 are generic over.
//
// An operator is a functor with an identity element: combining any value with the
// identity gives the value back, so threads that have no input (past the end of the
// array, or beyond N = 0) can contribute the identity and change nothing.
#pragma once

#include <cuda_runtime.h>

#include <cuda/std/limits>

#include "op.h"

namespace reduction {

struct SumOp {
  template <typename T> __host__ __device__ static T identity() { return T(0); }
  template <typename T> __host__ __device__ T operator()(T a, T b) const { return a + b; }
};

struct MaxOp {
  template <typename T> __host__ __device__ static T identity() { return cuda::std::numeric_limits<T>::lowest(); }
  template <typename T> __host__ __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};

struct MinOp {
  template <typename T> __host__ __device__ static T identity() { return cuda::std::numeric_limits<T>::max(); }
  template <typename T> __host__ __device__ T operator()(T a, T b) const { return a < b ? a : b; }
};

}  // namespace reduction
