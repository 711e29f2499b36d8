// Default launch shapes without a GPU: each copy unit's pure block-size rule (08, 09, 11,
// 12: default_block) fed the limits of six GPUs the students own. On every one the
// block must be a multiple of 32, at most 1024, and fill an SM with whole blocks (the SM's
// thread limit a whole multiple of it, within its resident-block limit); on the H100 the
// shapes must be the ones every published number was measured with.
//
// Threads and blocks per SM: the CUDA C++ Programming Guide, "Technical Specifications per
// Compute Capability" (blocks per SM also in the toolkit's cuda_occupancy.h,
// cudaOccMaxBlocksPerMultiprocessor). SM counts are the cards' own (a property of the
// product, not of the compute capability).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "compensated_sum.cuh"
#include "single_pass.cuh"
#include "vectorized.cuh"

namespace {

struct Gpu {
  std::string name;
  int sm_count;
  int threads_per_sm;
  int blocks_per_sm;  // the most resident blocks an SM holds
  int large_block;    // the block a full SM takes at large n
};

const std::vector<Gpu>& gpus() {
  static const std::vector<Gpu> list = {
      {"T4 (sm_75)", 40, 1024, 16, 1024},        {"A100 (sm_80)", 108, 2048, 32, 1024},
      {"RTX 3080 (sm_86)", 68, 1536, 16, 768},   {"RTX 4090 (sm_89)", 128, 1536, 24, 768},
      {"H100 SXM (sm_90)", 132, 2048, 32, 1024}, {"RTX 5090 (sm_120)", 170, 1536, 24, 768},
  };
  return list;
}

const Gpu& h100() { return gpus()[4]; }

// Element counts: the edges of 09's three rules (16384 = 1024 threads of 16 elements;
// 1024 threads for every two SMs), powers of two to 2^34, and odd sizes between.
std::vector<std::size_t> sizes(int sm_count) {
  std::vector<std::size_t> n = {0, 1, 15, 16, 17, 511, 4097, 16383, 16384, 16385, 16400};
  const std::size_t medium_end = std::size_t(1024) * sm_count / 2 * 16;
  for (std::size_t edge : {medium_end - 16, medium_end - 1, medium_end, medium_end + 1, medium_end + 16}) {
    n.push_back(edge);
  }
  for (int shift = 5; shift <= 34; ++shift) {
    n.push_back(std::size_t(1) << shift);
    n.push_back((std::size_t(1) << shift) * 3 / 2 + 7);
  }
  return n;
}

// 09's default_shape before the block followed the SM (the H100's published shapes): one
// block at small n, 256 at medium n, 1024 above.
int block_tuned_on_h100(std::size_t n, int sm_count) {
  const std::size_t threads = (std::max<std::size_t>(n, 1) + 15) / 16;
  if (threads <= 1024) return static_cast<int>((threads + 31) / 32 * 32);
  return threads < std::size_t(1024) * sm_count / 2 ? 256 : 1024;
}

// A block of a multi-block shape: whole warps, at most 1024 threads, and whole blocks fill
// the SM within its resident-block limit.
void expect_fills_sm(const Gpu& gpu, int block, const std::string& where) {
  SCOPED_TRACE(gpu.name + ", " + where + ", block " + std::to_string(block));
  EXPECT_GE(block, 32);
  EXPECT_LE(block, 1024);
  EXPECT_EQ(block % 32, 0) << "a partial warp";
  const int resident = std::min(gpu.blocks_per_sm, gpu.threads_per_sm / block);
  EXPECT_LE(block * resident, gpu.threads_per_sm);
  EXPECT_EQ(gpu.threads_per_sm % block, 0) << "the SM's thread limit is not a whole number of blocks: part of it idles";
  EXPECT_LE(gpu.threads_per_sm / block, gpu.blocks_per_sm) << "more blocks than the SM holds";
}

// 09's rule (12 repeats it; 11 uses 09's unit as it is): every shape on every GPU.
template <typename Rule>
void check_single_pass_rule(Rule default_block, const char* chapter) {
  for (const Gpu& gpu : gpus()) {
    for (std::size_t n : sizes(gpu.sm_count)) {
      const int block = default_block(n, gpu.sm_count, gpu.threads_per_sm);
      const std::string where = std::string(chapter) + ", n " + std::to_string(n);
      if (n <= 16384) {  // one block of one trip per thread: grid 1, nothing to fill
        EXPECT_EQ(block, block_tuned_on_h100(n, gpu.sm_count)) << gpu.name << ", " << where;
        continue;
      }
      expect_fills_sm(gpu, block, where);
    }
    EXPECT_EQ(default_block(std::size_t(1) << 30, gpu.sm_count, gpu.threads_per_sm), gpu.large_block)
        << chapter << " at large n on " << gpu.name;
  }
  // The H100's shapes do not move: the same block at every n, so default_grid (unchanged)
  // gives the same grid.
  for (std::size_t n : sizes(h100().sm_count)) {
    EXPECT_EQ(default_block(n, h100().sm_count, h100().threads_per_sm), block_tuned_on_h100(n, h100().sm_count))
        << chapter << " on the H100 at n " << n;
  }
}

TEST(Shapes, SinglePass09) { check_single_pass_rule(single_pass::default_block, "09_single_pass"); }

TEST(Shapes, CompensatedSum12) { check_single_pass_rule(compensated_sum::default_block, "12_accuracy"); }

// 08: one block size at every n; kDefaultBlock (1024) where it fills the SM.
TEST(Shapes, Vectorized08) {
  for (const Gpu& gpu : gpus()) {
    const int block = vectorized::default_block(gpu.threads_per_sm);
    expect_fills_sm(gpu, block, "08_vectorized");
    EXPECT_EQ(block, gpu.large_block) << gpu.name;
  }
  EXPECT_EQ(vectorized::default_block(h100().threads_per_sm), vectorized::kDefaultBlock);
}

}  // namespace
