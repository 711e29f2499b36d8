// 08_vectorized: 16-byte loads, several in flight per thread, a grid sized from the
// device's occupancy.
//
// The declaration every chapter has (common/chapter.h describes the contract).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

struct Vectorized {
  static constexpr const char* kId = "08_vectorized";
  static constexpr const char* kVariant = "";
  static constexpr const char* kSummary =
      "16-byte vector loads (int4/float4/double2), 4 in flight per thread, unaligned head and tail peeled; grid "
      "from the occupancy calculator";
  static constexpr bool kInPlace = false;  // the input is only read
  static constexpr bool kHasOps = false;   // sums only (09 adds max and min)
  // 1024 threads (two blocks fill an H100 SM): measured fastest at large n on the H100,
  // against 256 and 512 (README: "Block size"); the grid still follows the work at small n.
  static constexpr int kDefaultBlock = 1024;

  // block: any size from 1 to 1024 (multiples of 32 waste no lanes); grid: any block count.
  static std::string check_shape(int block, int grid);
  // As many blocks as fit on the GPU at once (the occupancy calculator's blocks per SM,
  // the smallest over the int, float and double kernels, times the SM count), but no
  // more than the work needs: one trip of the main loop per thread for 4-byte elements.
  // Touches the device (the occupancy query).
  static int default_grid(std::size_t n, int block, int sm_count);
  // One partial per block of the first launch.
  static std::size_t scratch_bytes(std::size_t n, int block, int grid);
  static std::size_t chain_length(std::size_t n, int block, int grid);

  template <typename T>
  static void reduce(const T* input, std::size_t n, T* result, void* scratch, int block, int grid,
                     cudaStream_t stream);
};
