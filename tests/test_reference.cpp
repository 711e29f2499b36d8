// The CPU reference and the tolerance: checked against independent computations
// (long double sums, hand-made cases whose exact answers are known) and shown to
// reject results just outside the bound.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstring>
#include <random>

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
}

TEST(Tolerance, FollowsTheBound) {
  const double u = unit_roundoff<float>();
  EXPECT_EQ(u, std::ldexp(1.0, -24));
  // L additions: gamma(L) * sum|x| + u*|s| + 4 u_double * sum|x|.
  const double bound = sum_error_bound(u, u, 100, 1000.0, 500.0);
  EXPECT_DOUBLE_EQ(bound, (100 * u / (1 - 100 * u)) * 1000.0 + u * 500.0 + 4 * 0x1.0p-53 * 1000.0);
  EXPECT_TRUE(std::isinf(sum_error_bound(u, u, std::size_t(1) << 24, 1.0, 1.0)));
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

TEST(Verify, IntsMustBeExactAndFitInInt) {
  const std::vector<int> x = {1, 2, 3};
  const Reference ref = cpu_reference(x.data(), x.size());
  EXPECT_TRUE(verify(6, ref, 2).ok);
  EXPECT_FALSE(verify(7, ref, 2).ok);
  const std::vector<int> big(2, INT_MAX);
  const Verdict overflow = verify(-2, cpu_reference(big.data(), big.size()), 1);  // what int arithmetic gives
  EXPECT_FALSE(overflow.ok);
  EXPECT_NE(overflow.note.find("does not fit in a 32-bit int"), std::string::npos);
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
  const std::vector<float> with_inf = {1.0f, INFINITY};
  EXPECT_FALSE(verify(INFINITY, cpu_reference(with_inf.data(), 2), 1).ok);
}

TEST(Verify, NoBoundMeansNotVerified) {
  const std::vector<float> x = {1.0f};
  const Verdict v = verify(1.0f, cpu_reference(x.data(), 1), std::size_t(1) << 25);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.note.find("no error bound"), std::string::npos);
}

}  // namespace
}  // namespace reduction
