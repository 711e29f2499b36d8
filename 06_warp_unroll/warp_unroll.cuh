// 06_warp_unroll: the tree written out step by step, and the last warp finishing
// alone with __syncwarp() instead of __syncthreads().
//
// The declaration every chapter has (common/chapter.h describes the contract).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

struct WarpUnroll {
  static constexpr const char* kId = "06_warp_unroll";
  static constexpr const char* kVariant = "";
  static constexpr const char* kSummary =
      "unrolled shared-memory tree down to 64 values, then warp 0 finishes with __syncwarp(); "
      "grid-stride loop with four loads in flight";
  static constexpr bool kInPlace = false;  // the input is only read
  static constexpr bool kHasOps = false;   // sums only
  static constexpr int kDefaultBlock = 256;

  // block: anything CUDA allows, 1..1024; grid: any block count.
  static std::string check_shape(int block, int grid);
  // One full wave: the blocks every SM can hold at once (CUDA occupancy calculator) times the SM count.
  static int default_grid(std::size_t n, int block, int sm_count);
  // One partial per block of the first launch (sized for double, the widest type).
  static std::size_t scratch_bytes(std::size_t n, int block, int grid);
  static std::size_t chain_length(std::size_t n, int block, int grid);

  template <typename T>
  static void reduce(const T* input, std::size_t n, T* result, void* scratch, int block, int grid,
                     cudaStream_t stream);
};

// The pitfall, kept to be looked at (docs/pitfalls.md): the pre-Volta way of
// finishing the last warp, through a volatile pointer with no __syncwarp(). It
// relied on the 32 lanes of a warp running in lock-step, which no GPU since Volta
// (sm_70) promises. It usually gives the right answer, which is what makes it
// dangerous: the race between lanes is there whether or not a run shows it.
struct WarpUnrollVolatile : WarpUnroll {
  static constexpr const char* kVariant = "volatile";
  static constexpr const char* kSummary =
      "WRONG since Volta, for study only: the last warp through a volatile pointer without __syncwarp() "
      "(assumes lock-step lanes, which independent thread scheduling does not promise)";

  template <typename T>
  static void reduce(const T* input, std::size_t n, T* result, void* scratch, int block, int grid,
                     cudaStream_t stream);
};
