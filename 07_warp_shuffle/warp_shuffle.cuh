// 07_warp_shuffle: the block's reduction done in registers, with warp shuffles.
//
// The declaration every chapter has (common/chapter.h describes the contract).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

struct WarpShuffle {
  static constexpr const char* kId = "07_warp_shuffle";
  static constexpr const char* kVariant = "";
  static constexpr const char* kSummary =
      "grid-stride sums in registers, then each warp adds its 32 values with __shfl_down_sync; one value per warp "
      "goes through shared memory";
  static constexpr bool kInPlace = false;  // the input is only read
  static constexpr bool kHasOps = false;   // sums only
  static constexpr int kDefaultBlock = 256;

  // block: any size from 1 to 1024 (a partial last warp is handled); grid: any block count.
  static std::string check_shape(int block, int grid);
  // As 06: one full wave (blocks per SM from the occupancy calculator, times the SM count).
  // Touches the device (the occupancy query).
  static int default_grid(std::size_t n, int block, int sm_count);
  // One partial per block of the first launch.
  static std::size_t scratch_bytes(std::size_t n, int block, int grid);
  static std::size_t chain_length(std::size_t n, int block, int grid);

  template <typename T>
  static void reduce(const T* input, std::size_t n, T* result, void* scratch, int block, int grid,
                     cudaStream_t stream);
};
