// 04_shared_tree: grid-stride sums in registers, then a shared-memory tree.
//
// The declaration every chapter has (common/chapter.h describes the contract):
// a struct whose static members say how to launch the chapter's kernels.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

struct SharedTree {
  static constexpr const char* kId = "04_shared_tree";
  static constexpr const char* kVariant = "";
  static constexpr const char* kSummary =
      "each thread sums a grid-stride slice in a register, then the block halves it in shared memory";
  static constexpr bool kInPlace = false;  // the input is only read
  static constexpr bool kHasOps = false;   // sums only
  static constexpr int kDefaultBlock = 256;

  // block: a power of two, 32..1024; grid: any block count.
  static std::string check_shape(int block, int grid);
  // One full wave: as many blocks as the SMs can hold at once (2048 threads each).
  static int default_grid(std::size_t n, int block, int sm_count);
  // One partial per block of the first launch.
  static std::size_t scratch_bytes(std::size_t n, int block, int grid);
  static std::size_t chain_length(std::size_t n, int block, int grid);

  template <typename T>
  static void reduce(const T* input, std::size_t n, T* result, void* scratch, int block, int grid,
                     cudaStream_t stream);
};

// --variant strided: the same two launches with seed 002's strided-index tree (thread t
// adds slot 2*s*t + s into slot 2*s*t), which causes shared-memory bank conflicts.
struct SharedTreeStrided : SharedTree {
  static constexpr const char* kVariant = "strided";
  static constexpr const char* kSummary =
      "04 with seed 002's strided-index tree in shared memory (bank conflicts), to compare with sequential addressing";

  template <typename T>
  static void reduce(const T* input, std::size_t n, T* result, void* scratch, int block, int grid,
                     cudaStream_t stream);
};
