// Odd data on every chapter's own kernel: NaN and inf in float and double inputs must
// give NumPy's answer (reference.h states the rule), an int sum that overflows must
// wrap exactly as int addition does, and the chapters with operators must get max and
// min right on all-negative data, on INT_MIN and INT_MAX, and with NaN and inf. Each
// expected value is worked out here, apart from the CPU reference; the harness's verdict
// (verify) must then agree that the GPU's result is right.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "chapter_list.h"
#include "gpu_test.h"
#include "harness.h"
#include "program_runner.h"
#include "reference.h"

namespace reduction::testing {
namespace {

// One element, one block's worth, several blocks, and more than one grid covers.
const std::vector<std::size_t> kSizes = {1, 1000, 65537, (std::size_t(1) << 20) + 13};

std::mt19937_64& random_engine() {
  static std::mt19937_64 engine(fresh_seed());
  return engine;
}

// Fresh floats in [-1, 1): mixed signs, so that max and min are not pinned to an end.
template <typename T>
std::vector<T> mixed_signs(std::size_t n) {
  std::vector<T> x = generate_input<T>(n, fresh_seed());
  for (T& v : x) v = T(2) * v - T(1);
  return x;
}

// Distinct positions for k special values: random ones, or the last element first (the
// tail that vectorized and unrolled loads treat apart).
std::vector<std::size_t> positions(std::size_t n, std::size_t k, bool last_first) {
  std::vector<std::size_t> at;
  if (last_first) at.push_back(n - 1);
  while (at.size() < k) {
    const std::size_t i = random_engine()() % n;
    if (std::find(at.begin(), at.end(), i) == at.end()) at.push_back(i);
  }
  return at;
}

// Runs the chapter once (poisoned result slot) and checks got against `expected`
// (NaN: any NaN) and the harness's verdict against the CPU reference.
template <typename T>
void expect_result(const Variant& v, const std::vector<T>& host, Op op, double expected, const std::string& what) {
  DeviceRun<T> run(v, host);
  const T got = run.run(op, 0xCD);
  const std::string where = run.where() + " --op " + op_name(op) + " " + what;
  if (std::isnan(expected)) {
    EXPECT_TRUE(std::isnan(static_cast<double>(got))) << where << ": got " << format_value(got) << ", expected nan";
  } else {
    EXPECT_EQ(static_cast<double>(got), expected) << where << ": got " << format_value(got);
  }
  const Verdict verdict = verify(got, cpu_reference(host.data(), host.size(), op), run.chain_length());
  EXPECT_TRUE(verdict.ok) << where << ": the harness says " << verdict.note;
}

struct SpecialCase {
  const char* name;
  std::vector<double> values;  // put into the input at distinct positions
};

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

const std::vector<SpecialCase> kSpecialCases = {
    {"one NaN", {kNaN}}, {"one +inf", {kInf}}, {"one -inf", {-kInf}}, {"+inf and -inf", {kInf, -kInf}}};

// NumPy's answer for sum, max or min: NaN propagates; +inf with -inf sums to NaN.
double expected_with_specials(Op op, const std::vector<double>& specials, double finite_max, double finite_min) {
  const bool nan = std::any_of(specials.begin(), specials.end(), [](double s) { return std::isnan(s); });
  const bool pos = std::count(specials.begin(), specials.end(), kInf) > 0;
  const bool neg = std::count(specials.begin(), specials.end(), -kInf) > 0;
  if (nan) return kNaN;
  if (op == Op::Sum) return pos && neg ? kNaN : (pos ? kInf : -kInf);
  if (op == Op::Max) return pos ? kInf : finite_max;
  return neg ? -kInf : finite_min;
}

template <typename T>
void check_specials(const Variant& v, Op op) {
  for (std::size_t n : kSizes) {
    for (const SpecialCase& c : kSpecialCases) {
      if (c.values.size() > n) continue;
      for (bool last_first : {false, true}) {
        std::vector<T> host = mixed_signs<T>(n);
        const std::vector<std::size_t> at = positions(n, c.values.size(), last_first);
        for (std::size_t k = 0; k < at.size(); ++k) host[at[k]] = static_cast<T>(c.values[k]);
        double finite_max = -kInf, finite_min = kInf;
        for (T x : host) {
          if (std::isfinite(x)) finite_max = std::max<double>(finite_max, x), finite_min = std::min<double>(finite_min, x);
        }
        expect_result(v, host, op, expected_with_specials(op, c.values, finite_max, finite_min),
                      std::string(c.name) + " at " + std::to_string(at[0]));
      }
    }
  }
}

class SpecialValues : public ::testing::TestWithParam<int> {
 protected:
  const Variant& variant() const { return chapters()[GetParam()].main(); }
};

TEST_P(SpecialValues, FloatSumWithNaNAndInf) {
  REQUIRE_GPU();
  check_specials<float>(variant(), Op::Sum);
}

TEST_P(SpecialValues, DoubleSumWithNaNAndInf) {
  REQUIRE_GPU();
  check_specials<double>(variant(), Op::Sum);
}

// Fresh ints in [lo, lo + 2^30): their sum leaves the int range for n >= 2 or 3.
std::vector<int> large_ints(std::size_t n, long long lo) {
  std::vector<int> x(n);
  for (int& v : x) v = static_cast<int>(lo + static_cast<long long>(random_engine()() % (1u << 30)));
  return x;
}

TEST_P(SpecialValues, IntSumThatOverflowsWrapsModulo2To32) {
  REQUIRE_GPU();
  for (std::size_t n : kSizes) {
    for (long long lo : {1LL << 30, -(1LL << 31)}) {  // past INT_MAX, past INT_MIN
      const std::vector<int> host = large_ints(n, lo);
      std::uint32_t wrapped = 0;  // two's-complement addition, in any order
      long long exact = 0;
      for (int x : host) wrapped += static_cast<std::uint32_t>(x), exact += x;
      expect_result(variant(), host, Op::Sum, static_cast<int>(wrapped), "ints from " + std::to_string(lo));
      const Reference ref = cpu_reference(host.data(), n);
      EXPECT_EQ(ref.overflows_int(), exact > INT_MAX || exact < INT_MIN) << n;
      if (ref.overflows_int()) {
        EXPECT_NE(verify(static_cast<int>(wrapped), ref, 1).note.find("true sum " + std::to_string(exact)),
                  std::string::npos);
      }
    }
  }
}

// Only the chapters with operators (09, 10) are instantiated below.
class OperatorSpecialValues : public SpecialValues {};

TEST_P(OperatorSpecialValues, MaxAndMinWithNaNAndInf) {
  REQUIRE_GPU();
  ASSERT_TRUE(variant().has_operators()) << variant().chapter;
  for (Op op : {Op::Max, Op::Min}) {
    check_specials<float>(variant(), op);
    check_specials<double>(variant(), op);
  }
}

// All values negative: an operator whose identity or padding were 0 would return 0.
template <typename T>
void check_all_negative(const Variant& v) {
  for (std::size_t n : kSizes) {
    std::vector<T> host(n);
    if constexpr (std::is_same_v<T, int>) {
      for (int& x : host) x = -1 - static_cast<int>(random_engine()() % 1000000);
    } else {
      host = generate_input<T>(n, fresh_seed());
      for (T& x : host) x = -(x + T(1));  // (-2, -1]
    }
    const T largest = *std::max_element(host.begin(), host.end());
    const T smallest = *std::min_element(host.begin(), host.end());
    expect_result(v, host, Op::Max, static_cast<double>(largest), "all negative");
    expect_result(v, host, Op::Min, static_cast<double>(smallest), "all negative");
  }
}

TEST_P(OperatorSpecialValues, MaxAndMinOfAllNegativeData) {
  REQUIRE_GPU();
  ASSERT_TRUE(variant().has_operators()) << variant().chapter;
  check_all_negative<int>(variant());
  check_all_negative<float>(variant());
  check_all_negative<double>(variant());
}

TEST_P(OperatorSpecialValues, MaxAndMinReachIntMinAndIntMax) {
  REQUIRE_GPU();
  ASSERT_TRUE(variant().has_operators()) << variant().chapter;
  for (std::size_t n : kSizes) {
    // INT_MAX and INT_MIN among small random values (max and min must find them)...
    std::vector<int> host(n);
    for (int& x : host) x = static_cast<int>(random_engine()() % 2001) - 1000;
    const std::vector<std::size_t> at = positions(n, std::min<std::size_t>(n, 2), n % 2 == 1);
    host[at[0]] = INT_MAX;
    if (at.size() > 1) host[at[1]] = INT_MIN;
    expect_result(variant(), host, Op::Max, INT_MAX, "INT_MAX at " + std::to_string(at[0]));
    expect_result(variant(), host, Op::Min, at.size() > 1 ? INT_MIN : INT_MAX, "INT_MIN among small values");
    // ...and arrays made only of the operator's identity: the identity is the answer.
    expect_result(variant(), std::vector<int>(n, INT_MIN), Op::Max, INT_MIN, "all INT_MIN");
    expect_result(variant(), std::vector<int>(n, INT_MAX), Op::Min, INT_MAX, "all INT_MAX");
  }
}

// The programs: the report says what the input holds and the verdict is ok; --json
// stays valid (non-finite numbers are strings).
TEST_P(SpecialValues, ProgramReportsNonFiniteInputsAndIntOverflow) {
  REQUIRE_GPU();
  const std::string id = chapters()[GetParam()].id;
  std::vector<float> floats = mixed_signs<float>(100003);
  const std::vector<std::size_t> at = positions(floats.size(), 2, false);
  floats[at[0]] = INFINITY;
  floats[at[1]] = INFINITY;
  const std::string float_path = ::testing::TempDir() + "special_values_" + id + ".npy";
  save_npy(float_path, floats);
  const ProgramRun json = run_program(id, "--type float --reps 2 --json --input " + float_path);
  EXPECT_EQ(json.exit_code, 0) << json.output;
  for (const char* key : {"\"result\": \"inf\"", "\"reference\": \"inf\"", "\"error\": 0,", "\"ok\": true",
                          "\"non_finite\": {\"nan\": 0, \"inf\": 2, \"-inf\": 0}"}) {
    EXPECT_NE(json.output.find(key), std::string::npos) << key << " not in " << json.output;
  }
  const ProgramRun text = run_program(id, "--type float --reps 2 --input " + float_path);
  EXPECT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("non-finite the input holds 2 +inf, so its sum is inf"), std::string::npos)
      << text.output;

  const std::vector<int> ints = large_ints(4097, 1LL << 30);
  long long exact = 0;
  for (int x : ints) exact += x;
  const std::string int_path = ::testing::TempDir() + "special_values_ints_" + id + ".npy";
  save_npy(int_path, ints);
  const ProgramRun overflow = run_program(id, "--type int --reps 2 --input " + int_path);
  EXPECT_EQ(overflow.exit_code, 0) << overflow.output;
  EXPECT_NE(overflow.output.find("the true sum " + std::to_string(exact) + " overflows int"), std::string::npos)
      << overflow.output;
  // The way out the note names: --type double reads the int32 file exactly and sums it.
  const ProgramRun wide = run_program(id, "--type double --reps 2 --json --input " + int_path);
  EXPECT_EQ(wide.exit_code, 0) << wide.output;
  EXPECT_NE(wide.output.find("\"reference\": " + std::to_string(exact) + ","), std::string::npos) << wide.output;
  EXPECT_NE(wide.output.find("\"converted_from\": \"int32\""), std::string::npos) << wide.output;
}

std::string param_name(const ::testing::TestParamInfo<int>& info) {
  return "ch" + chapters()[info.param].id.substr(0, 2);
}

INSTANTIATE_TEST_SUITE_P(Chapters, SpecialValues, ::testing::Range(0, static_cast<int>(chapters().size())),
                         param_name);

INSTANTIATE_TEST_SUITE_P(OperatorChapters, OperatorSpecialValues, ::testing::ValuesIn(operator_chapters()),
                         param_name);

}  // namespace
}  // namespace reduction::testing
