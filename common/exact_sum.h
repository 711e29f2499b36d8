// exact_sum.h: the exact sum of floats, and that sum rounded correctly to float or double.
// The reference of chapter 12's error study (12_accuracy/bench/error_study.cu) and of the
// tests of 12 and 17 (tests/test_accuracy.cu, tests/test_reproducible.cu).
//
// Why it is exact. Every finite float is an integer times 2^-149 (2^-149 is the smallest
// subnormal float): x = m * 2^-149 * 2^k with an integer m < 2^24 and 0 <= k <= 253. So any
// sum of floats is an integer times 2^-149, and a long enough integer holds it exactly.
// Here that integer is kLimbs = 12 limbs of 32 bits (weights 2^-149 up to 2^235), room
// for more than 2^100 times the largest float. Adding x adds m * 2^k, which touches two
// limbs. The limbs are int64, so each takes the 32-bit pieces of 2^30 additions before
// it could pass 2^62; carries are settled then, and before every read. Nothing is ever
// rounded, so the result does not depend on the order, the signs or the magnitudes of
// the values: no cancellation, absorption or overflow can happen.
//
// Reading rounds once, to nearest with ties to even (what IEEE 754 addition does to an
// exact result): to_float() and to_double() are the correctly rounded sums.
//
// Standard library only. Not thread-safe: give each thread its own and merge with add().
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace accuracy {

class ExactSum {
 public:
  static constexpr int kLimbs = 12;
  static constexpr int kLowestExponent = -149;  // the weight of bit 0 is 2^-149

  // Adds a finite float, exactly (inf and NaN have no exact sum: std::domain_error).
  void add(float x) {
    if (!std::isfinite(x)) throw std::domain_error("ExactSum: inf or NaN has no exact sum");
    std::uint32_t bits = 0;
    std::memcpy(&bits, &x, sizeof bits);
    const std::uint32_t exponent_field = (bits >> 23) & 0xffu;
    std::uint64_t m = bits & 0x7fffffu;  // subnormal: x = m * 2^-149
    int k = 0;
    if (exponent_field != 0) {  // normal: x = (2^23 + fraction) * 2^(exponent_field - 150)
      m |= 0x800000u;
      k = static_cast<int>(exponent_field) - 1;
    }
    const std::uint64_t piece = m << (k % 32);  // below 2^55: two 32-bit pieces
    const int limb = k / 32;
    const auto low = static_cast<std::int64_t>(piece & 0xffffffffu);
    const auto high = static_cast<std::int64_t>(piece >> 32);
    if (bits >> 31) {
      limbs_[limb] -= low;
      limbs_[limb + 1] -= high;
    } else {
      limbs_[limb] += low;
      limbs_[limb + 1] += high;
    }
    if (++unsettled_ == kSettleEvery) settle();
  }

  // Adds another exact sum (the parts of one array summed on several threads).
  void add(const ExactSum& other) {
    ExactSum settled = other;
    settled.settle();
    settle();
    for (int i = 0; i < kLimbs; ++i) limbs_[i] += settled.limbs_[i];
    settle();
  }

  // -1, 0 or +1.
  int sign() const {
    bool negative = false;
    const Magnitude m = magnitude(&negative);
    for (std::uint32_t limb : m) {
      if (limb) return negative ? -1 : 1;
    }
    return 0;
  }

  // The sum rounded to nearest float, ties to even; +-inf when it rounds past the largest
  // float (as a float addition that overflows). An exact zero is +0.
  float to_float() const {
    const double value = rounded(24);  // 24 significant bits: exactly representable as a double
    if (std::fabs(value) >= 0x1.0p128) return std::copysign(std::numeric_limits<float>::infinity(), value);
    return static_cast<float>(value);  // exact: value already has float's precision and range
  }

  // The sum rounded to nearest double, ties to even. (Every sum of floats fits the range
  // of double, and is a multiple of 2^-149, far above double's subnormals.)
  double to_double() const { return rounded(53); }

 private:
  using Magnitude = std::array<std::uint32_t, kLimbs>;
  static constexpr int kSettleEvery = 1 << 30;

  // Carries settled: limbs 0 .. kLimbs-2 in [0, 2^32), the top limb holds the sign (0 or
  // -1, since the sum stays far below 2^(32 * (kLimbs - 1) - 149)).
  void settle() {
    for (int i = 0; i + 1 < kLimbs; ++i) {
      const std::int64_t carry = floor_div_2_32(limbs_[i]);
      limbs_[i] -= carry * (std::int64_t(1) << 32);
      limbs_[i + 1] += carry;
    }
    unsettled_ = 0;
  }

  static std::int64_t floor_div_2_32(std::int64_t v) {
    const std::int64_t q = v / (std::int64_t(1) << 32);  // rounds toward zero
    return (v < 0 && q * (std::int64_t(1) << 32) != v) ? q - 1 : q;
  }

  // The absolute value as 32-bit limbs, least significant first, and the sign.
  Magnitude magnitude(bool* negative) const {
    ExactSum s = *this;
    s.settle();
    Magnitude m{};
    for (int i = 0; i < kLimbs; ++i) m[i] = static_cast<std::uint32_t>(s.limbs_[i]);  // two's complement
    *negative = s.limbs_[kLimbs - 1] < 0;
    if (*negative) {  // negate: invert every bit, add 1
      std::uint64_t carry = 1;
      for (std::uint32_t& limb : m) {
        const std::uint64_t v = std::uint64_t(~limb) + carry;
        limb = static_cast<std::uint32_t>(v);
        carry = v >> 32;
      }
    }
    return m;
  }

  static bool bit(const Magnitude& m, int i) { return i >= 0 && ((m[i / 32] >> (i % 32)) & 1u); }

  // The sum rounded to `digits` significant bits (24 or 53), to nearest, ties to even,
  // returned as a double (exact: at most 53 bits, exponent in double's range).
  double rounded(int digits) const {
    bool negative = false;
    const Magnitude m = magnitude(&negative);
    int top = -1;  // the highest set bit
    for (int i = kLimbs * 32 - 1; i >= 0; --i) {
      if (bit(m, i)) {
        top = i;
        break;
      }
    }
    if (top < 0) return 0.0;
    const int lowest_kept = top - digits + 1;  // the last bit that fits in `digits` bits
    std::uint64_t kept = 0;
    for (int i = top; i >= std::max(lowest_kept, 0); --i) kept = (kept << 1) | (bit(m, i) ? 1u : 0u);
    if (lowest_kept <= 0) {  // every bit fits: the sum is exactly representable
      const double exact = std::ldexp(static_cast<double>(kept), kLowestExponent);
      return negative ? -exact : exact;
    }
    const bool half = bit(m, lowest_kept - 1);  // the first bit dropped
    bool below_half = false;                    // any bit after it
    for (int i = lowest_kept - 2; i >= 0 && !below_half; --i) below_half = bit(m, i);
    if (half && (below_half || (kept & 1u))) ++kept;  // to nearest; a tie goes to the even neighbour
    const double value = std::ldexp(static_cast<double>(kept), lowest_kept + kLowestExponent);
    return negative ? -value : value;
  }

  std::array<std::int64_t, kLimbs> limbs_{};
  int unsettled_ = 0;
};

}  // namespace accuracy
