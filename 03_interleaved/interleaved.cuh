// 03_interleaved: interleaved pairs (the stride halves each step), in place in global
// memory.
//
// The declaration every chapter has (common/chapter.h describes the contract): a
// struct whose static members say how to launch the chapter's kernel.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

struct Interleaved {
  static constexpr const char* kId = "03_interleaved";
  static constexpr const char* kVariant = "";
  static constexpr const char* kSummary =
      "interleaved pairs: the stride starts at half the block and halves each step, thread t adds "
      "slot t + stride into slot t, so the working threads stay the first ones of the block";
  static constexpr bool kInPlace = true;     // the input array is overwritten with partial sums
  static constexpr bool kHasOps = false;     // sums only
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
