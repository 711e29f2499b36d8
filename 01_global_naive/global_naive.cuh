// 01_global_naive: the first GPU version. Neighbored pairs, in place in global memory.
//
// The declaration every chapter has (common/chapter.h describes the contract): a
// struct whose static members say how to launch the chapter's kernels. This chapter
// has two more structs, pitfall variants that are wrong on purpose (--variant race,
// --variant early-return); docs/pitfalls.md runs them to show what goes wrong.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

struct GlobalNaive {
  static constexpr const char* kId = "01_global_naive";
  static constexpr const char* kVariant = "";
  static constexpr const char* kSummary =
      "one thread per element; each block adds neighbouring pairs in place in global memory, "
      "threads picked with tid % (2*stride)";
  static constexpr bool kInPlace = true;   // the input array is overwritten with partial sums
  static constexpr bool kHasOps = false;   // sums only
  // 256, measured on the H100 (README: "Block size"); the seeds use 512.
  static constexpr int kDefaultBlock = 256;

  // block: a power of two, 32..1024. grid: the chapter derives it from n (one block
  // per B elements), so any --grid is refused.
  static std::string check_shape(int block, int grid);
  // ceil(n / block), at least 1: the block count of the first pass.
  static int default_grid(std::size_t n, int block, int sm_count);
  // Two regions for the later passes' partials: ceil(n/B) and ceil(n/B^2) values.
  static std::size_t scratch_bytes(std::size_t n, int block, int grid);
  // One tree per pass: the sum over passes of ceil(log2(values the block holds)).
  static std::size_t chain_length(std::size_t n, int block, int grid);

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
// multiple of the block size, the last block's returned threads never reach the
// barriers (undefined behaviour; compute-sanitizer's synccheck reports it) and its
// remaining threads read past the end of the array. Wrong on purpose.
struct GlobalNaiveEarlyReturn : GlobalNaive {
  static constexpr const char* kVariant = "early-return";
  static constexpr const char* kSummary =
      "WRONG ON PURPOSE: returns before __syncthreads() when idx >= n and reads partners past the end "
      "(undefined behaviour unless n is a multiple of the block size; run it under compute-sanitizer)";

  template <typename T>
  static void reduce(T* data, std::size_t n, T* result, void* scratch, int block, int grid,
                     cudaStream_t stream);
};
