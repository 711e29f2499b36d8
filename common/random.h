// random.h: seeded random inputs from a counter-based generator.
//
// Value i depends only on (seed, i), through the splitmix64 mixing function, so the
// same input can be produced by many CPU threads at once, or on the GPU (chapter 11),
// without any generator state to share.
//
// The ranges keep every partial sum representable (ints: up to INT_MAX elements):
// - int:   uniform in [-m, m] with m = min(1000, INT_MAX / n): whatever order the
//          additions happen in, no partial sum can pass INT_MAX in magnitude. Past
//          INT_MAX elements m is 1 (its least), and a sum may pass INT_MAX.
// - float, double: uniform in [0, 1). Positive values make the float accumulator
//          stall of chapter 00 visible, and give sum(|x|) = sum(x) for the tolerance.
// - "exact" floats (tests only): small integers whose every partial sum is exactly
//          representable, so any summation order must give the exact answer.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace reduction {

__host__ __device__ inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Largest |value| for random ints of an n-element input (see above).
__host__ __device__ inline int int_magnitude(std::size_t n) {
  std::size_t m = n == 0 ? 1000 : INT_MAX / n;
  return static_cast<int>(m < 1 ? 1 : (m > 1000 ? 1000 : m));
}

// Largest integer value for "exact" float inputs of n elements: n * m stays below
// 2^digits (24 for float, 53 for double), so every partial sum is exact. 0 if none fits.
template <typename T>
__host__ __device__ inline long long exact_magnitude(std::size_t n) {
  const double limit = std::is_same<T, float>::value ? 16777216.0 : 9007199254740992.0;
  double m = n == 0 ? 1000.0 : limit / static_cast<double>(n);
  return m >= 1000.0 ? 1000 : static_cast<long long>(m);
}

template <typename T>
__host__ __device__ inline T random_value(std::uint64_t seed, std::size_t i, std::size_t n, bool exact = false) {
  std::uint64_t bits = splitmix64(seed * 0xD1B54A32D192ED03ull + i);
  if constexpr (std::is_same<T, int>::value) {
    const std::uint64_t m = static_cast<std::uint64_t>(int_magnitude(n));
    return static_cast<int>(bits % (2 * m + 1)) - static_cast<int>(m);
  } else {
    if (exact) {
      const std::uint64_t m = static_cast<std::uint64_t>(exact_magnitude<T>(n));
      return static_cast<T>(bits % (m + 1));
    }
    // The top 53 (or 24) bits as a fraction in [0, 1).
    if constexpr (std::is_same<T, double>::value) return static_cast<double>(bits >> 11) * 0x1.0p-53;
    return static_cast<float>(bits >> 40) * 0x1.0p-24f;
  }
}

}  // namespace reduction
