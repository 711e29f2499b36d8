// 01_global_naive: the first GPU version. Neighbored pairs, in place in global memory.
//
// The declaration every chapter has (common/chapter.h describes the contract): a
// struct whose static members say how to launch the chapter's kernels. This chapter
// has two more structs, pitfall variants that are wrong on purpose (--variant race,
// --variant early-return); docs/pitfalls.md runs them to show what goes wrong.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "in_place_passes.cuh"  // the launch rules and the pass loop 01-03 share

struct GlobalNaive : InPlacePasses {
  static constexpr const char* kId = "01_global_naive";
  static constexpr const char* kSummary =
      "one thread per element; each block adds neighbouring pairs in place in global memory, "
      "threads picked with tid % (2*stride)";

  template <typename T>
  static void reduce(T* data, std::size_t n, T* result, void* scratch, int block, int grid,
                     cudaStream_t stream);
};

// Pitfall (seed 003): the `%` filter removed. Every thread adds its partner at every
// step, so a thread can read a value that another thread of the same step is
// overwriting: a data race. Wrong on purpose.
struct GlobalNaiveRace : GlobalNaive {
  static constexpr const char* kVariant = "race";
  static constexpr const char* kSummary =
      "WRONG ON PURPOSE: the % filter removed, so threads read values other threads are overwriting "
      "in the same step (a data race; the sum may or may not come out right)";
  template <typename T>
  static void reduce(T* data, std::size_t n, T* result, void* scratch, int block, int grid,
                     cudaStream_t stream);
};

// Pitfall (seed 001): `if (idx >= n) return;` before the loop that holds the
// barriers, and no check that a partner lies inside the array. When n is not a
// multiple of the block size, the last block's returned threads skip the barriers
// (undefined by CUDA's rules; since Volta exited threads no longer hold a barrier up,
// so it does not hang on an H100) and its remaining threads read past the end of the
// array (memcheck reports it). Wrong on purpose.
struct GlobalNaiveEarlyReturn : GlobalNaive {
  static constexpr const char* kVariant = "early-return";
  static constexpr const char* kSummary =
      "WRONG ON PURPOSE: returns before __syncthreads() when idx >= n and reads partners past the end "
      "(undefined behaviour unless n is a multiple of the block size; run it under compute-sanitizer)";
  template <typename T>
  static void reduce(T* data, std::size_t n, T* result, void* scratch, int block, int grid,
                     cudaStream_t stream);
};
