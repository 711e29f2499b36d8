// 03_interleaved: interleaved pairs (the stride halves each step), in place in global
// memory.
//
// The declaration every chapter has (common/chapter.h describes the contract): a
// struct whose static members say how to launch the chapter's kernel.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "../01_global_naive/in_place_passes.cuh"  // 01's launch rules and pass loop

struct Interleaved : InPlacePasses {
  static constexpr const char* kId = "03_interleaved";
  static constexpr const char* kSummary =
      "interleaved pairs: the stride starts at half the block and halves each step, thread t adds "
      "slot t + stride into slot t, so the working threads stay the first ones of the block";

  template <typename T>
  static void reduce(T* data, std::size_t n, T* result, void* scratch, int block, int grid,
                     cudaStream_t stream);
};
