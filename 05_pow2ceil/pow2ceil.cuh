// 05_pow2ceil: 04's kernel for any block size (1..1024) and any block count.
//
// The declaration every chapter has (common/chapter.h describes the contract).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

struct Pow2Ceil {
  static constexpr const char* kId = "05_pow2ceil";
  static constexpr const char* kVariant = "";
  static constexpr const char* kSummary =
      "04's shared-memory tree for any block size: the halving starts at the next power of two "
      "(pow2ceil with __clz) and skips partners past the block";
  static constexpr bool kInPlace = false;  // the input is only read
  static constexpr bool kHasOps = false;   // sums only
  static constexpr int kDefaultBlock = 256;

  // block: anything CUDA allows, 1..1024; grid: any block count.
  static std::string check_shape(int block, int grid);
  // One full wave: as many blocks as every SM can hold at once (asked of the CUDA
  // occupancy calculator), times the SM count.
  static int default_grid(std::size_t n, int block, int sm_count);
  // One partial per block of the first launch (sized for double, the widest type).
  static std::size_t scratch_bytes(std::size_t n, int block, int grid);
  static std::size_t chain_length(std::size_t n, int block, int grid);

  template <typename T>
  static void reduce(const T* input, std::size_t n, T* result, void* scratch, int block, int grid,
                     cudaStream_t stream);
};
