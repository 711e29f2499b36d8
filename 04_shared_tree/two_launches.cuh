// two_launches.cuh: the launcher of chapters 04-08. Each of them has one kernel that
// turns an array into one value per block (a grid-stride loop, then a block-wide
// reduction); the launcher runs it twice: over the input, then as a single block over
// the partials. 05-08 include this file from 04 and change only the kernel.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda_check.h"

template <typename T>
using BlockSumsKernel = void (*)(const T* input, std::size_t n, T* out);

// [snippet:two_launches]
// First launch: `grid` blocks, one partial each (in `scratch`). Second launch: one
// block folds the `grid` partials; its grid-stride loop covers any grid, even one far
// larger than the block. shared_bytes: the kernel's dynamic shared memory per block.
template <typename T>
void two_launches(BlockSumsKernel<T> kernel, const T* input, std::size_t n, T* result, void* scratch, int block,
                  int grid, std::size_t shared_bytes, cudaStream_t stream) {
  if (grid == 1) {  // one block covers everything: its sum is the result
    kernel<<<1, block, shared_bytes, stream>>>(input, n, result);
    CUDA_CHECK_LAUNCH();
    return;
  }
  T* partials = static_cast<T*>(scratch);
  kernel<<<grid, block, shared_bytes, stream>>>(input, n, partials);
  CUDA_CHECK_LAUNCH();
  kernel<<<1, block, shared_bytes, stream>>>(partials, grid, result);
  CUDA_CHECK_LAUNCH();
}
// [/snippet:two_launches]
