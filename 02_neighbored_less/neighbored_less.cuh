// 02_neighbored_less: neighbored pairs with contiguous active threads, in place in
// global memory.
//
// The declaration every chapter has (common/chapter.h describes the contract): a
// struct whose static members say how to launch the chapter's kernel.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "../01_global_naive/in_place_passes.cuh"  // 01's launch rules and pass loop

struct NeighboredLess : InPlacePasses {
  static constexpr const char* kId = "02_neighbored_less";
  static constexpr const char* kSummary =
      "the same neighbouring pairs as 01, but thread t adds the pair at slot 2*stride*t, so the working "
      "threads are the first ones of the block (whole warps idle instead of scattered lanes)";

  template <typename T>
  static void reduce(T* data, std::size_t n, T* result, void* scratch, int block, int grid,
                     cudaStream_t stream);
};
