// 09_single_pass: one launch from the input to the result; the last block to finish
// combines the block partials, in a fixed order. Generic over the operator.
//
// The declaration every chapter has (common/chapter.h describes the contract).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

struct SinglePass {
  static constexpr const char* kId = "09_single_pass";
  static constexpr const char* kVariant = "";
  static constexpr const char* kSummary =
      "one launch: blocks reduce like 08 and take a ticket after a __threadfence(); the last block combines the "
      "partials in a fixed order (--op sum|max|min)";
  static constexpr bool kInPlace = false;  // the input is only read
  static constexpr bool kHasOps = true;    // sum, max and min (common/ops.cuh)
  static constexpr int kDefaultBlock = 1024;  // as 08

  // block: any size from 1 to 1024; grid: any block count.
  static std::string check_shape(int block, int grid);
  // As 08: the blocks that fit on the GPU at once, but no more than the work needs
  // (one block for tiny n). Touches the device (the occupancy query).
  static int default_grid(std::size_t n, int block, int sm_count);
  // The ticket counter and one partial per block. Zeroed once by the caller; every
  // call leaves the counter at 0 again.
  static std::size_t scratch_bytes(std::size_t n, int block, int grid);
  static std::size_t chain_length(std::size_t n, int block, int grid);

  template <typename T, typename Op>
  static void reduce(const T* input, std::size_t n, T* result, void* scratch, int block, int grid,
                     cudaStream_t stream);
};
