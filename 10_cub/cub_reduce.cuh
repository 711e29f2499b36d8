// 10_cub: the production answer. cub::DeviceReduce (and thrust::reduce, built on it)
// behind the same contract as every other chapter.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

struct CubReduce {
  static constexpr const char* kId = "10_cub";
  static constexpr const char* kVariant = "";
  static constexpr const char* kSummary =
      "cub::DeviceReduce::Sum/Max/Min: temporary-storage query, then one call (CUB picks the launch shape)";
  static constexpr bool kInPlace = false;
  static constexpr bool kHasOps = true;
  static constexpr int kDefaultBlock = 256;  // not used: CUB tunes its own block size per GPU

  // CUB chooses its own shape: --block and --grid are refused.
  static std::string check_shape(int block, int grid);
  // Returns the SM count: CUB keeps at least one block per SM busy, which bounds its chain length.
  static int default_grid(std::size_t n, int block, int sm_count);
  // CUB's temporary storage for n elements (the largest over int/float/double and the three operators).
  static std::size_t scratch_bytes(std::size_t n, int block, int grid);
  static std::size_t chain_length(std::size_t n, int block, int grid);

  template <typename T, typename Op>
  static void reduce(const T* input, std::size_t n, T* result, void* scratch, int block, int grid,
                     cudaStream_t stream);
};

// thrust::reduce: one line, but it allocates its temporary storage and copies the
// result back to the host on every call (so it also synchronizes).
struct ThrustReduce : CubReduce {
  static constexpr const char* kVariant = "thrust";
  static constexpr const char* kSummary =
      "thrust::reduce: one line; allocates temporary storage and returns the value to the host on every call";
  static std::size_t scratch_bytes(std::size_t, int, int) { return 0; }

  template <typename T, typename Op>
  static void reduce(const T* input, std::size_t n, T* result, void* scratch, int block, int grid,
                     cudaStream_t stream);
};
