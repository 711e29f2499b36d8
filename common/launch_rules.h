// launch_rules.h: small host-side helpers the chapters use to check a launch shape
// and to size their scratch space, without touching the device.
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

}  // namespace reduction
