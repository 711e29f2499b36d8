// The CPU reference and the tolerance: checked against independent computations
// (long double sums, hand-made cases whose exact answers are known) and shown to
// reject results just outside the bound.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "input.h"
#include "reference.h"

namespace reduction {
namespace {

TEST(Reference, IntSumIsExactInInt64) {
  const auto x = generate_input<int>(1000003, 17);
  long long expect = 0, abs_sum = 0;
  for (int v : x) expect += v, abs_sum += std::llabs(v);
  const Reference ref = cpu_reference(x.data(), x.size());
  EXPECT_EQ(ref.int_value, expect);
  EXPECT_EQ(ref.sum_abs, static_cast<double>(abs_sum));
  // Past the int range too: the reference itself must not overflow.
  std::vector<int> big(3000, INT_MAX);
  EXPECT_EQ(cpu_reference(big.data(), big.size()).int_value, 3000LL * INT_MAX);
}

TEST(Reference, FloatSumMatchesALongDoubleSum) {
  for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(1) << 20, (std::size_t(1) << 22) + 3}) {
    const auto x = generate_input<float>(n, n);
    long double expect = 0;
    for (float v : x) expect += v;
    const Reference ref = cpu_reference(x.data(), n);
    EXPECT_LE(std::fabs(ref.value - static_cast<double>(expect)), 4 * 0x1.0p-53 * ref.sum_abs) << n;
  }
}

TEST(Reference, CompensationRecoversWhatPlainDoubleLoses) {
  // 1 + 1e16 - 1e16 in plain double is 0 (the 1 is rounded away); the compensated sum keeps it.
  const std::vector<double> x = {1e16, 1.0, -1e16};
  EXPECT_EQ(cpu_reference(x.data(), x.size()).value, 1.0);
  // The same with values spread over threads (large n): alternating +-big plus ones.
  std::vector<double> many(1 << 20);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = (i % 4 == 0) ? 1e16 : (i % 4 == 2) ? -1e16 : 1.0;
  EXPECT_EQ(cpu_reference(many.data(), many.size()).value, static_cast<double>(many.size() / 2));
}

TEST(Reference, MaxAndMinAreExact) {
  std::vector<float> x = generate_input<float>(100001, 9);
  x[777] = 5.0f;
  x[4242] = -3.0f;
  EXPECT_EQ(cpu_reference(x.data(), x.size(), Op::Max).value, 5.0);
  EXPECT_EQ(cpu_reference(x.data(), x.size(), Op::Min).value, -3.0);
  const std::vector<int> empty;
  EXPECT_EQ(cpu_reference(empty.data(), 0, Op::Max).int_value, INT_MIN);  // the identity
  EXPECT_EQ(cpu_reference(empty.data(), 0, Op::Min).int_value, INT_MAX);
  EXPECT_EQ(cpu_reference(empty.data(), 0, Op::Sum).value, 0.0);
  // For floats the identities are the infinities: max of {-inf} is -inf, not -FLT_MAX.
  const std::vector<float> none;
  EXPECT_EQ(cpu_reference(none.data(), 0, Op::Max).value, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(cpu_reference(none.data(), 0, Op::Min).value, std::numeric_limits<double>::infinity());
  const std::vector<double> minus_inf = {-std::numeric_limits<double>::infinity()};
  EXPECT_EQ(cpu_reference(minus_inf.data(), 1, Op::Max).value, -std::numeric_limits<double>::infinity());
  const Verdict lowest = verify(std::numeric_limits<float>::lowest(), cpu_reference(none.data(), 0, Op::Max), 0);
  EXPECT_FALSE(lowest.ok);
  EXPECT_EQ(lowest.note, "the max of no values is its identity, -inf, not -3.40282347e+38");
}

// The worst case of a sequential float sum: 1 followed by 2^20 values of 2^-25, each of
// which is lost entirely when added to 1 (half an ulp of 1, rounded to even). The loop
// returns 1, the exact sum is 1 + 2^-5: an error of 2^-5 that is real, not estimated.
// The bound for the loop's chain (n - 1 additions) must cover it; a bound for a chain
// 64 times shorter must not, or the tolerance would pass a loop it claims to rule out.
TEST(Tolerance, CoversTheWorstSequentialLossAndNoMore) {
  std::vector<float> x(1 + (std::size_t(1) << 20), std::ldexp(1.0f, -25));
  x[0] = 1.0f;
  float loop = 0;
  for (float v : x) loop += v;
  ASSERT_EQ(loop, 1.0f) << "each tiny value must vanish into 1";
  const Reference ref = cpu_reference(x.data(), x.size());
  ASSERT_EQ(ref.value, 1.0 + std::ldexp(1.0, -5));
  EXPECT_TRUE(verify(loop, ref, x.size() - 1).ok);
  EXPECT_FALSE(verify(loop, ref, (x.size() - 1) / 64).ok);
  // A chain of 2^24 float additions can lose everything: no finite bound exists.
  EXPECT_TRUE(std::isinf(sum_error_bound(unit_roundoff<float>(), unit_roundoff<float>(), std::size_t(1) << 24,
                                         1.0, 1.0)));
}

TEST(Tolerance, HoldsForARealFloatLoopAndRejectsJustOutside) {
  // A sequential float loop has chain length n - 1: its real error must be in the bound.
  const std::size_t n = 1 << 20;
  const auto x = generate_input<float>(n, 23);
  float loop = 0;
  for (float v : x) loop += v;
  const Reference ref = cpu_reference(x.data(), n);
  const Verdict good = verify(loop, ref, n - 1);
  EXPECT_TRUE(good.ok) << good.error << " > " << good.tolerance;
  // A result one tolerance-and-a-bit away must be refused.
  const float bad = static_cast<float>(ref.value + 1.5 * good.tolerance + 1.0);
  EXPECT_FALSE(verify(bad, ref, n - 1).ok);
  // A tree-shaped sum claims a far shorter chain and gets a far tighter tolerance.
  EXPECT_LT(verify(loop, ref, 20).tolerance, good.tolerance / 1000);
}

TEST(Verify, IntsMustBeExact) {
  const std::vector<int> x = {1, 2, 3};
  const Reference ref = cpu_reference(x.data(), x.size());
  EXPECT_TRUE(verify(6, ref, 2).ok);
  EXPECT_FALSE(verify(7, ref, 2).ok);
  EXPECT_EQ(verify(6, ref, 2).note, "");
  EXPECT_FALSE(ref.overflows_int());
}

// Fresh values in [lo, lo + 2^30) whose sum leaves the int range.
std::vector<int> large_ints(std::size_t n, long long lo) {
  std::mt19937_64 random(std::random_device{}());
  std::vector<int> x(n);
  for (int& v : x) v = static_cast<int>(lo + static_cast<long long>(random() % (1u << 30)));
  return x;
}

TEST(Verify, AnIntSumThatOverflowsIsCheckedModulo2To32AndSaysSo) {
  for (long long lo : {1LL << 30, -(1LL << 31)}) {  // past INT_MAX, past INT_MIN
    const std::vector<int> x = large_ints(100003, lo);
    long long exact = 0;
    std::uint32_t wrapped = 0;  // what int addition gives, in any order
    for (int v : x) exact += v, wrapped += static_cast<std::uint32_t>(v);
    const int expected = static_cast<int>(wrapped);
    const Reference ref = cpu_reference(x.data(), x.size());
    EXPECT_EQ(ref.int_value, exact);
    EXPECT_TRUE(ref.overflows_int());
    EXPECT_EQ(ref.wrapped_int(), expected);
    EXPECT_EQ(expected_text(ref), std::to_string(expected));
    const Verdict v = verify(expected, ref, 1);
    EXPECT_TRUE(v.ok) << v.note;
    EXPECT_EQ(v.error, 0.0);
    for (const std::string& part : {std::string("true sum ") + std::to_string(exact), std::string("overflows int"),
                                    std::to_string(expected), std::string("--type double")}) {
      EXPECT_NE(v.note.find(part), std::string::npos) << part << " not in: " << v.note;
    }
    EXPECT_EQ(overflow_note(ref), v.note);
    EXPECT_FALSE(verify(expected + 1, ref, 1).ok);
    EXPECT_FALSE(verify(static_cast<int>(exact / 2), ref, 1).ok);
  }
  // max and min never overflow: no note.
  const std::vector<int> extremes = {INT_MAX, INT_MIN, INT_MAX};
  EXPECT_TRUE(verify(INT_MAX, cpu_reference(extremes.data(), 3, Op::Max), 0).ok);
  EXPECT_TRUE(verify(INT_MIN, cpu_reference(extremes.data(), 3, Op::Min), 0).ok);
  EXPECT_EQ(overflow_note(cpu_reference(extremes.data(), 3, Op::Max)), "");
}

TEST(Verify, NaNAndPoisonNeverPass) {
  const std::vector<float> x = {0.5f, 0.25f};
  const Reference ref = cpu_reference(x.data(), x.size());
  EXPECT_TRUE(verify(0.75f, ref, 1).ok);
  EXPECT_FALSE(verify(std::nanf(""), ref, 1).ok);
  float poison;
  std::memset(&poison, 0xCD, sizeof poison);
  EXPECT_FALSE(verify(poison, ref, 1).ok);
  const std::vector<float> empty;
  EXPECT_FALSE(verify(poison, cpu_reference(empty.data(), 0), 0).ok);  // poison is not 0
  EXPECT_TRUE(verify(0.0f, cpu_reference(empty.data(), 0), 0).ok);
}

TEST(Verify, NoBoundMeansNotVerified) {
  const std::vector<float> x = {1.0f};
  const Verdict v = verify(1.0f, cpu_reference(x.data(), 1), std::size_t(1) << 25);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.note.find("no error bound"), std::string::npos);
}

// Fresh random values (with mixed signs) and the positions to put NaN or inf in them.
template <typename T>
struct SpecialInput {
  std::vector<T> x;
  std::size_t a, b;  // two different random positions
  explicit SpecialInput(std::size_t n) : x(generate_input<T>(n, std::random_device{}())) {
    for (T& v : x) v = T(2) * v - T(1);
    std::mt19937_64 random(std::random_device{}());
    a = random() % n;
    b = (a + 1 + random() % (n - 1)) % n;
  }
};

constexpr double kInf = std::numeric_limits<double>::infinity();

template <typename T>
void check_non_finite_rule() {
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  // n past 2^16: the reference runs on several threads, so the values land in different chunks.
  const std::size_t n = (std::size_t(1) << 20) + 7;
  struct Case {
    const char* name;
    T at_a, at_b;
    double sum;         // NaN: the sum must be NaN
    bool max_is_inf, min_is_minus_inf, max_min_nan;
  };
  const Case cases[] = {
      {"one NaN", nan, T(0.5), std::nan(""), false, false, true},
      {"one +inf", inf, T(0.5), kInf, true, false, false},
      {"one -inf", -inf, T(0.5), -kInf, false, true, false},
      {"+inf and -inf", inf, -inf, std::nan(""), true, true, false},
      {"NaN and +inf", nan, inf, std::nan(""), false, false, true},
  };
  for (const Case& c : cases) {
    SpecialInput<T> in(n);
    in.x[in.a] = c.at_a;
    in.x[in.b] = c.at_b;
    // Independently: the finite values' sum, max, min and sum of |x| in long double.
    long double finite_sum = 0, finite_abs = 0;
    T finite_max = -inf, finite_min = inf;
    for (T v : in.x) {
      if (!std::isfinite(v)) continue;
      finite_sum += v, finite_abs += std::fabs(v);
      finite_max = std::max(finite_max, v), finite_min = std::min(finite_min, v);
    }
    const Reference sum = cpu_reference(in.x.data(), n), max = cpu_reference(in.x.data(), n, Op::Max),
                    min = cpu_reference(in.x.data(), n, Op::Min);
    SCOPED_TRACE(std::string(c.name) + " at " + std::to_string(in.a) + ", " + std::to_string(in.b));
    if (std::isnan(c.sum)) {
      EXPECT_TRUE(std::isnan(sum.value)) << sum.value;
    } else {
      EXPECT_EQ(sum.value, c.sum);
    }
    EXPECT_EQ(sum.nans, std::size_t(std::isnan(c.at_a)) + std::size_t(std::isnan(c.at_b)));
    EXPECT_EQ(sum.pos_infs, std::size_t(c.at_a == inf) + std::size_t(c.at_b == inf));
    EXPECT_EQ(sum.neg_infs, std::size_t(c.at_a == -inf) + std::size_t(c.at_b == -inf));
    EXPECT_TRUE(sum.non_finite());
    EXPECT_NEAR(sum.sum_abs, static_cast<double>(finite_abs), 1e-12 * static_cast<double>(finite_abs));
    if (c.max_min_nan) {  // max and min propagate NaN
      EXPECT_TRUE(std::isnan(max.value)) << max.value;
      EXPECT_TRUE(std::isnan(min.value)) << min.value;
    } else {
      EXPECT_EQ(max.value, c.max_is_inf ? kInf : static_cast<double>(finite_max));
      EXPECT_EQ(min.value, c.min_is_minus_inf ? -kInf : static_cast<double>(finite_min));
    }
    // A GPU result equal to the reference passes; the finite sum, or the other infinity, does not.
    const T same = static_cast<T>(sum.value);
    const Verdict ok = verify(same, sum, 20);
    EXPECT_TRUE(ok.ok) << ok.note;
    EXPECT_EQ(ok.error, 0.0);
    const Verdict finite = verify(static_cast<T>(finite_sum), sum, 20);
    EXPECT_FALSE(finite.ok);
    EXPECT_TRUE(std::isinf(finite.error));
    EXPECT_NE(finite.note.find("the input holds"), std::string::npos) << finite.note;
    EXPECT_FALSE(verify(-same, sum, 20).ok && !std::isnan(same));
    EXPECT_TRUE(verify(static_cast<T>(max.value), max, 0).ok);
    EXPECT_TRUE(verify(static_cast<T>(min.value), min, 0).ok);
    // The references of two parts combine to the whole array's (chapter 11).
    const std::size_t half = n / 2;
    for (const Reference* whole : {&sum, &max, &min}) {
      const Reference parts = combine(cpu_reference(in.x.data(), half, whole->op),
                                      cpu_reference(in.x.data() + half, n - half, whole->op));
      EXPECT_TRUE(same_non_finite(parts.value, whole->value) ||
                  std::fabs(parts.value - whole->value) <= 1e-12 * whole->sum_abs)
          << op_name(whole->op) << ": " << parts.value << " vs " << whole->value;
      EXPECT_EQ(parts.nans + parts.pos_infs + parts.neg_infs, whole->nans + whole->pos_infs + whole->neg_infs);
    }
  }
}

TEST(Reference, NonFiniteFloatsFollowNumPysRule) { check_non_finite_rule<float>(); }
TEST(Reference, NonFiniteDoublesFollowNumPysRule) { check_non_finite_rule<double>(); }

TEST(Reference, NonFiniteNoteCountsAndNamesTheResult) {
  std::vector<double> x(1000, 0.25);
  EXPECT_EQ(non_finite_note(cpu_reference(x.data(), x.size())), "");
  x[3] = std::nan("");
  x[7] = -kInf;
  x[9] = -kInf;
  EXPECT_EQ(non_finite_note(cpu_reference(x.data(), x.size())),
            "the input holds 1 NaN, 2 -inf, so its sum is nan (as in NumPy: NaN propagates, +inf with -inf gives "
            "NaN)");
  x[3] = 1.0;
  EXPECT_EQ(non_finite_note(cpu_reference(x.data(), x.size(), Op::Max)),
            "the input holds 2 -inf, so its max is 1 (as in NumPy: NaN propagates, +inf with -inf gives NaN)");
}

TEST(Verify, NonFiniteResultsForFiniteInputsAreWrong) {
  const auto x = generate_input<double>(1000, std::random_device{}());
  const Reference ref = cpu_reference(x.data(), x.size());
  for (double bad : {std::nan(""), kInf, -kInf}) {
    const Verdict v = verify(bad, ref, 10);
    EXPECT_FALSE(v.ok) << bad;
    EXPECT_TRUE(std::isinf(v.error));
    EXPECT_NE(v.note.find("every input is finite"), std::string::npos) << v.note;
  }
}

TEST(Format, NonFiniteValuesPrintTheSameWhateverTheirSign) {
  EXPECT_EQ(format_value(std::nanf("")), "nan");
  EXPECT_EQ(format_value(-std::nan("")), "nan");  // x86 makes negative NaNs: still "nan"
  EXPECT_EQ(format_value(std::numeric_limits<float>::infinity()), "inf");
  EXPECT_EQ(format_value(-kInf), "-inf");
  EXPECT_EQ(format_value(0.1f), "0.100000001");
  EXPECT_EQ(format_value(-7), "-7");
}

}  // namespace
}  // namespace reduction
