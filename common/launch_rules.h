// launch_rules.h: small host-side helpers for the chapters' main.cu files: the messages
// for launch shapes a chapter cannot run, and the pieces of the chain-length bounds
// behind the float tolerance (reference.h). Nothing here touches the device.
#pragma once

#include <cstddef>
#include <string>

namespace reduction {

constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

constexpr bool is_power_of_two(long long x) { return x > 0 && (x & (x - 1)) == 0; }

// Smallest k with 2^k >= x (0 for x <= 1): the depth of a halving tree over x values.
constexpr std::size_t ceil_log2(std::size_t x) {
  std::size_t k = 0;
  while ((std::size_t(1) << k) < x) ++k;
  return k;
}

// The rule of chapters whose tree halves the block: a power of two from 32 to 1024.
// block == 0 means "the default" and is always accepted. Returns "" when fine.
inline std::string check_power_of_two_block(int block) {
  if (block == 0 || (is_power_of_two(block) && block >= 32 && block <= 1024)) return "";
  return "--block " + std::to_string(block) +
         " cannot be run: this chapter's tree needs a power of two from 32 to 1024 (05_pow2ceil lifts that)";
}

// The rule of chapters that take any block size: CUDA allows 1 to 1024 threads.
inline std::string check_block_range(int block) {
  if (block >= 0 && block <= 1024) return "";
  return "--block " + std::to_string(block) + " cannot be run: a CUDA block holds at most 1024 threads";
}

// The rule of chapters that launch one block per B elements (01-03): a grid holds at
// most 2^31 - 1 blocks, so n may be at most (2^31 - 1) * B. Returns "" when fine.
inline std::string check_blocks_per_element(std::size_t n, int block) {
  const std::size_t threads = block > 0 ? std::size_t(block) : 1, most = std::size_t(2147483647) * threads;
  if (n <= most) return "";
  return "--n " + std::to_string(n) + " needs " + std::to_string(ceil_div(n, threads)) + " blocks of " +
         std::to_string(threads) + " threads, more than a grid holds (2^31 - 1): at most " + std::to_string(most) +
         " elements at this --block, more with a larger one";
}

// Additions a value passes through in a warp-shuffle reduction over a block of `block`
// threads (07's block_sum, 08's and 09's block_reduce): the shuffle tree inside a warp
// of 32 (5 steps, fewer for a smaller block), then the same tree over the warps' totals.
inline std::size_t shuffle_tree_depth(int block) {
  constexpr std::size_t kWarpSize = 32;
  const std::size_t warps = ceil_div(block, kWarpSize);
  return ceil_log2(block < int(kWarpSize) ? std::size_t(block) : kWarpSize) + ceil_log2(warps);
}

// Additions an element passes through in 08's and 09's thread_reduce when the grid has
// `threads` threads and each trip of its loop issues `vectors_in_flight` 16-byte loads
// (the copy units' kVectorsInFlight). `partial` takes one addition per trip, at most
// ceil(vectors / (threads * k)) trips (k = vectors_in_flight; a vector holds at least 2
// elements, so vectors <= n / 2), then up to k - 1 leftover vectors and the head and
// tail elements (fewer than 4 each, at most ceil(3 / threads) per thread). Before it
// reaches `partial`, an element meets at most 2 additions among the lanes of its
// vector and log2(k) among the vectors of its trip.
inline std::size_t vector_loop_chain(std::size_t n, std::size_t threads, std::size_t vectors_in_flight) {
  return ceil_div(n, 2 * threads * vectors_in_flight) + (vectors_in_flight - 1) + 2 * ceil_div(3, threads) + 2 +
         ceil_log2(vectors_in_flight);
}

}  // namespace reduction
