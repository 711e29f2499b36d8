// 17_reproducible against the exact sum (common/exact_sum.h) rounded once: the
// result must be that float to the bit, for every launch shape, alignment and split of
// the array, on fresh random data of several kinds; tiny sums (subnormal inputs and
// results) bit for bit; and the calls the header says it refuses launch nothing. Label
// gpu: skipped without a device, except the command-line checks that stop before it.
// tests/CMakeLists.txt builds this file twice: reproducible_tests, and
// reproducible_fast_math_tests, with the copy unit compiled with --use_fast_math (flush
// to zero), which runs the ReproducibleTiny cases only.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "exact_sum.h"
#include "gpu_test.h"
#include "json.h"
#include "program_runner.h"
#include "reproducible_sum.cuh"

namespace {

using reduction::DeviceBuffer;
using reduction::float_bits;
using reduction::testing::fresh_seed;
using reduction::testing::run_program;

unsigned bits_of(float x) {
  unsigned bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

float from_bits(unsigned bits) {
  float x = 0;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// The kinds of input: plain values, the benchmark's kinds (normal, half zeros, a few zeros
// and subnormals, a range of 2^200 with both signs), sums that cancel to a tiny fraction
// of sum|x| (12's hard case), and subnormals with zeros among them.
enum class Kind { Uniform, Normal, HalfZeros, ZerosOrSubnormals, WideRange, Cancelling, Tiny };
const Kind kEveryKind[] = {Kind::Uniform,   Kind::Normal,     Kind::HalfZeros, Kind::ZerosOrSubnormals,
                           Kind::WideRange, Kind::Cancelling, Kind::Tiny};

std::vector<float> make_input(Kind kind, std::size_t n, std::mt19937_64& random) {
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-100, 100);
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float u = unit(random);
    switch (kind) {
      case Kind::Uniform: x[i] = u; break;
      case Kind::Normal: x[i] = normal(random); break;
      case Kind::HalfZeros: x[i] = random() % 2 ? std::fabs(u) : 0.0f; break;
      case Kind::ZerosOrSubnormals:
        x[i] = random() % 100 ? std::fabs(u) : random() % 2 ? 0.0f : u * 0x1p-127f;  // below 2^-127: subnormal
        break;
      case Kind::WideRange: x[i] = std::ldexp(u, exponent(random)); break;
      case Kind::Cancelling: x[i] = (i % 2) ? -x[i - 1] * (1 + 0x1p-20f * u) : u * 1e6f; break;
      case Kind::Tiny: x[i] = (i % 3 == 0) ? 0.0f : u * 0x1p-130f; break;
    }
  }
  return x;
}

float exact_float(const float* x, std::size_t n) {
  accuracy::ExactSum sum;
  for (std::size_t i = 0; i < n; ++i) sum.add(x[i]);
  return sum.to_float();
}

// One reduce() of host[offset, offset + n) at block x grid (0, 0: the default shape).
float gpu_sum(const std::vector<float>& host, std::size_t offset, std::size_t n, int block = 0, int grid = 0) {
  if (block == 0) EXPECT_EQ(reproducible_sum::default_shape(n, &block, &grid), cudaSuccess);
  DeviceBuffer<float> input(host.size() + 1);
  if (!host.empty()) {
    CUDA_CHECK(cudaMemcpy(input.get(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  DeviceBuffer<unsigned char> scratch(reproducible_sum::scratch_bytes(n, block, grid));
  CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
  DeviceBuffer<float> result(1);
  CUDA_CHECK(cudaMemset(result.get(), 0xff, sizeof(float)));  // poison: a NaN that no path writes
  EXPECT_EQ(reproducible_sum::reduce(input.get() + offset, n, result.get(), scratch.get(), scratch.bytes(), block,
                                     grid),
            cudaSuccess);
  CUDA_CHECK(cudaDeviceSynchronize());
  float value = 0;
  CUDA_CHECK(cudaMemcpy(&value, result.get(), sizeof value, cudaMemcpyDeviceToHost));
  return value;
}

TEST(Reproducible, IsTheCorrectlyRoundedSum) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 random(seed);
  for (Kind kind : kEveryKind) {
    for (std::size_t n : {0ul, 1ul, 2ul, 3ul, 5ul, 33ul, 1000ul, 4097ul, 65537ul, 1000003ul, (1ul << 24) + 13}) {
      const std::vector<float> x = make_input(kind, n, random);
      EXPECT_EQ(bits_of(gpu_sum(x, 0, n)), bits_of(exact_float(x.data(), n)))
          << "kind " << int(kind) << ", n = " << n << ", seed " << seed;
    }
  }
}

TEST(Reproducible, SameBitsForEveryShapeAndAlignment) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 random(seed);
  const std::size_t n = 1000003;
  for (Kind kind : kEveryKind) {
    const std::vector<float> x = make_input(kind, n + 3, random);
    for (std::size_t offset : {0ul, 1ul, 2ul, 3ul}) {  // 16-byte aligned, then 4, 8 and 12 bytes past
      const unsigned expected = bits_of(exact_float(x.data() + offset, n));
      // 288 threads: the most that launch without asking for shared memory; 289 and up ask.
      const int shapes[][2] = {{0, 0},   {1, 1},   {5, 3},    {31, 7},    {33, 2},     {40, 1000},
                               {128, 7}, {288, 9}, {289, 9}, {512, 300}, {256, 5000}, {1024, 264}};
      for (const auto& shape : shapes) {
        EXPECT_EQ(bits_of(gpu_sum(x, offset, n, shape[0], shape[1])), expected)
            << "kind " << int(kind) << ", offset " << offset << ", block " << shape[0] << ", grid " << shape[1]
            << ", seed " << seed;
      }
    }
  }
}

// reduce_state on `pieces` parts of host of uneven, misaligned lengths, round_states on their States.
float split_sum(const std::vector<float>& host, int pieces) {
  DeviceBuffer<float> input(host.size() + 1);
  if (!host.empty()) {
    CUDA_CHECK(cudaMemcpy(input.get(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  DeviceBuffer<reproducible_sum::State> states(pieces);
  std::size_t begin = 0;
  for (int piece = 0; piece < pieces; ++piece) {
    const std::size_t length = host.size() / pieces + 5 * piece + 1;
    const std::size_t end = piece + 1 == pieces ? host.size() : std::min(host.size(), begin + length);
    int block = 0, grid = 0;
    EXPECT_EQ(reproducible_sum::default_shape(end - begin, &block, &grid), cudaSuccess);
    DeviceBuffer<unsigned char> scratch(reproducible_sum::scratch_bytes(end - begin, block, grid));
    CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
    EXPECT_EQ(reproducible_sum::reduce_state(input.get() + begin, end - begin, states.get() + piece, scratch.get(),
                                             scratch.bytes(), block, grid),
              cudaSuccess);
    CUDA_CHECK(cudaDeviceSynchronize());
    begin = end;
  }
  DeviceBuffer<float> result(1);
  CUDA_CHECK(cudaMemset(result.get(), 0xff, sizeof(float)));
  EXPECT_EQ(reproducible_sum::round_states(states.get(), pieces, result.get()), cudaSuccess);
  float value = 0;
  CUDA_CHECK(cudaMemcpy(&value, result.get(), sizeof value, cudaMemcpyDeviceToHost));
  return value;
}

// The array in k pieces of uneven, misaligned lengths (shards of k GPUs, simulated on
// one): reduce_state on each, round_states on the k States, the same bits as the whole.
TEST(Reproducible, SplitsGiveTheSameBits) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 random(seed);
  const std::size_t n = 3000017;
  const std::vector<float> x = make_input(Kind::WideRange, n, random);
  const unsigned expected = bits_of(exact_float(x.data(), n));
  for (int k : {1, 2, 3, 4, 8}) {
    EXPECT_EQ(bits_of(split_sum(x, k)), expected) << k << " pieces, seed " << seed;
  }
}

// One thread (block 1, grid 1) adds every element into the top of one row: each float's
// 24 bits shifted by 31, the most a row takes; the carries every 16 trips must keep up,
// and block_sum must take a row as high as it gets (n = 4096 + 255: 255 floats after the
// last carry) whole.
TEST(Reproducible, OneThreadFillsARowToTheTop) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 random(seed);
  for (std::size_t n : {16ul * 16 * 16 + 5, 16ul * 16 * 16 + 255, 100003ul}) {
    std::vector<float> x(n);
    for (float& v : x) v = from_bits((random() % 2 ? 0x80000000u : 0u) | (159u << 23) | 0x7fffffu);  // +-(2^33 - 2^9)
    for (std::size_t i = 0; i < n; i += 7) x[i] = from_bits((159u << 23) | 0x7fffffu);  // more + than -
    EXPECT_EQ(bits_of(gpu_sum(x, 0, n, 1, 1)), bits_of(exact_float(x.data(), n))) << "n = " << n << ", seed " << seed;
    EXPECT_EQ(bits_of(gpu_sum(x, 0, n, 1024, 1)), bits_of(exact_float(x.data(), n))) << "n = " << n;
  }
}

// numpy's rules: a NaN, or both infinities, give NaN; one infinity gives it; a finite
// sum past the largest float rounds to infinity.
TEST(Reproducible, InfinityAndNanAsNumpy) {
  REQUIRE_GPU();
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::mt19937_64 random(fresh_seed());
  std::vector<float> x = make_input(Kind::Uniform, 100003, random);
  const std::size_t at = random() % x.size();
  auto with = [&](std::vector<std::pair<std::size_t, float>> changes) {
    std::vector<float> y = x;
    for (const auto& change : changes) y[change.first] = change.second;
    return gpu_sum(y, 0, y.size());
  };
  EXPECT_TRUE(std::isnan(with({{at, nan}})));
  EXPECT_TRUE(std::isnan(with({{at, -nan}}))) << "a NaN with its sign bit set";
  EXPECT_EQ(with({{at, inf}}), inf);
  EXPECT_EQ(with({{at, -inf}}), -inf);
  EXPECT_TRUE(std::isnan(with({{at, inf}, {x.size() - 1 - at / 2, -inf}})));
  EXPECT_TRUE(std::isnan(with({{at, inf}, {0, nan}})));
  const float big = std::numeric_limits<float>::max();
  EXPECT_EQ(with({{0, big}, {1, big}, {2, big}}), inf);
  EXPECT_EQ(with({{0, -big}, {1, -big}}), -inf);
  std::vector<float> y = x;  // cancels exactly: no overflow on the way
  y[0] = big;
  y[1] = big;
  y[2] = -big;
  y[3] = -big;
  EXPECT_EQ(bits_of(gpu_sum(y, 0, y.size())), bits_of(exact_float(y.data(), y.size())));
}

// The scratch is left at zero: calls in a row on the same scratch, other data each time.
TEST(Reproducible, ScratchStaysReusable) {
  REQUIRE_GPU();
  std::mt19937_64 random(fresh_seed());
  const std::size_t n = 5000011;
  int block = 0, grid = 0;
  ASSERT_EQ(reproducible_sum::default_shape(n, &block, &grid), cudaSuccess);
  ASSERT_GT(grid, 1);
  DeviceBuffer<float> input(n);
  DeviceBuffer<unsigned char> scratch(reproducible_sum::scratch_bytes(n, block, grid));
  CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
  DeviceBuffer<float> result(1);
  for (int call = 0; call < 3; ++call) {
    const std::vector<float> x = make_input(call == 1 ? Kind::WideRange : Kind::Uniform, n, random);
    CUDA_CHECK(cudaMemcpy(input.get(), x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    ASSERT_EQ(reproducible_sum::reduce(input.get(), n, result.get(), scratch.get(), scratch.bytes(), block, grid),
              cudaSuccess);
    float value = 0;
    CUDA_CHECK(cudaMemcpy(&value, result.get(), sizeof value, cudaMemcpyDeviceToHost));
    EXPECT_EQ(bits_of(value), bits_of(exact_float(x.data(), n))) << "call " << call;
  }
}

// Past 2^31 elements (8 GiB): small integers, whose exact sum the host keeps in 64 bits,
// and a last element of 2^-20 so that the tail counts.
TEST(Reproducible, PastTwoTo31Elements) {
  REQUIRE_GPU();
  const std::size_t n = (std::size_t(1) << 31) + 7;
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < n * sizeof(float) + (std::size_t(1) << 30)) GTEST_SKIP() << "needs 9 GiB of free device memory";
  std::mt19937_64 random(fresh_seed());
  std::vector<float> x(n);
  long long whole = 0;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const int v = static_cast<int>(random() % 7) - 3;
    x[i] = static_cast<float>(v);
    whole += v;
  }
  x[n - 1] = 0x1p-20f;
  const float expected = static_cast<float>(static_cast<double>(whole) + 0x1p-20);  // exact double, rounded once
  EXPECT_EQ(bits_of(gpu_sum(x, 0, n)), bits_of(expected));
  EXPECT_EQ(bits_of(gpu_sum(x, 0, n, 256, 7)), bits_of(expected));
}

// ---------------------------------------------------------------------------------------
// Tiny sums. Every float is an even number of 2^-150 (a subnormal is m * 2^-149), so a sum
// below 2^-126 is a subnormal float exactly, and above it the sum rounds like any other.
// reproducible_fast_math_tests runs these on the copy unit built with --use_fast_math:
// flush to zero must not turn a subnormal input or result into 0.

// x summed at several launch shapes and in three pieces, each result bit for bit the
// host's exact sum rounded once; `expected` (worked out by hand) checks that reference too.
void expect_sum_bits(const std::vector<float>& x, unsigned expected, const std::string& what,
                     std::vector<std::array<int, 2>> shapes = {{0, 0}, {1, 1}, {32, 3}, {256, 7}}) {
  ASSERT_EQ(float_bits(exact_float(x.data(), x.size())), float_bits(from_bits(expected)))
      << what << ": the host reference";
  for (const auto& shape : shapes) {
    EXPECT_EQ(float_bits(gpu_sum(x, 0, x.size(), shape[0], shape[1])), float_bits(from_bits(expected)))
        << what << ", block " << shape[0] << ", grid " << shape[1];
  }
  EXPECT_EQ(float_bits(split_sum(x, 3)), float_bits(from_bits(expected))) << what << ", in 3 pieces";
}

// n random subnormals of fraction fields below `below`, random signs, and the bits of their
// sum: an integer count of 2^-149 that the host adds exactly. Below 2^24 of them the sum
// is a float whose bits are that count (a subnormal, or a normal of exponent field 1).
std::vector<float> random_subnormals(std::size_t n, unsigned below, std::mt19937_64& random, unsigned* bits) {
  std::vector<float> x(n);
  long long total = 0;
  for (float& v : x) {
    const unsigned field = static_cast<unsigned>(random() % below);
    const bool negative = random() & 1;
    v = from_bits((negative ? 0x80000000u : 0u) | field);
    total += negative ? -static_cast<long long>(field) : field;
  }
  const unsigned long long magnitude = total < 0 ? -total : total;
  EXPECT_LT(magnitude, 1ull << 24) << "the sum left the range where its bits are its count";
  *bits = (total < 0 ? 0x80000000u : 0u) | static_cast<unsigned>(magnitude);
  return x;
}

const float kLeast = from_bits(0x00000001u);  // 2^-149, the smallest subnormal

TEST(ReproducibleTiny, SmallestSubnormal) {
  REQUIRE_GPU();
  expect_sum_bits({kLeast}, 0x00000001u, "2^-149");
  expect_sum_bits({-kLeast}, 0x80000001u, "-2^-149");
  expect_sum_bits({kLeast, 0.0f, kLeast, -0.0f}, 0x00000002u, "2^-149 twice, zeros between");
  expect_sum_bits({from_bits(0x00800001u), -0x1p-126f}, 0x00000001u, "(2^-126 + 2^-149) - 2^-126");
  expect_sum_bits({1.0f, kLeast, -1.0f}, 0x00000001u, "1 + 2^-149 - 1");
}

TEST(ReproducibleTiny, SubnormalInputs) {
  REQUIRE_GPU();
  expect_sum_bits({from_bits(0x200u), from_bits(0x10u), -kLeast}, 0x0000020fu, "2^-140 + 2^-145 - 2^-149");
  expect_sum_bits({from_bits(0x007fffffu), -from_bits(0x007ffffeu)}, 0x00000001u, "two subnormals, 2^-149 apart");
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 random(seed);
  for (std::size_t n : {2ul, 33ul, 4097ul, 1000003ul}) {
    unsigned expected = 0;
    const std::vector<float> x = random_subnormals(n, 1u << 8, random, &expected);
    expect_sum_bits(x, expected, "n = " + std::to_string(n) + " random subnormals, seed " + std::to_string(seed),
                    {{0, 0}, {40, 7}, {256, 1000}, {1024, 264}});
  }
}

TEST(ReproducibleTiny, CancelsToASubnormal) {
  REQUIRE_GPU();
  expect_sum_bits({from_bits(0x00c00000u), -0x1p-126f}, 0x00400000u, "1.5 * 2^-126 - 2^-126 = 2^-127");
  expect_sum_bits({1e30f, from_bits(0xabcu), -1e30f}, 0x00000abcu, "1e30 + a subnormal - 1e30");
  expect_sum_bits({-3.0f, 1.0f, 2.0f, -from_bits(0x00012345u)}, 0x80012345u, "-3 + 1 + 2 - a subnormal");
  // Pairs x, -x of every magnitude, shuffled, and a few subnormals: the sum is theirs alone.
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 random(seed);
  unsigned expected = 0;
  std::vector<float> x = random_subnormals(5, 1u << 20, random, &expected);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-120, 120);
  for (std::size_t i = 0; i < 500000; ++i) {
    const float v = std::ldexp(unit(random), exponent(random));
    x.push_back(v);
    x.push_back(-v);
  }
  std::shuffle(x.begin(), x.end(), random);
  expect_sum_bits(x, expected, "pairs that cancel, and 5 subnormals, seed " + std::to_string(seed),
                  {{0, 0}, {40, 7}, {256, 1000}, {1024, 264}});
}

// Out of the subnormals: sums that land on 2^-126 and above, and round there as IEEE does.
TEST(ReproducibleTiny, IntoTheNormalRange) {
  REQUIRE_GPU();
  expect_sum_bits({from_bits(0x007fffffu), kLeast}, 0x00800000u, "the largest subnormal + 2^-149 = 2^-126");
  expect_sum_bits(std::vector<float>(std::size_t(1) << 23, kLeast), 0x00800000u, "2^23 times 2^-149",
                  {{0, 0}, {256, 1000}, {1024, 264}});
  expect_sum_bits(std::vector<float>((std::size_t(1) << 23) + 5, kLeast), 0x00800005u, "2^23 + 5 times 2^-149",
                  {{0, 0}, {256, 1000}, {1024, 264}});
  expect_sum_bits({from_bits(0x00ffffffu), kLeast}, 0x01000000u, "2^-125 - 2^-149 + 2^-149: exponent carry");
  // From 2^-125 up, one ulp is 2^-148 or more: 2^-149 is half of one (a tie) or less.
  expect_sum_bits({0x1p-125f, kLeast}, 0x01000000u, "2^-125 + half an ulp: a tie, to even (down)");
  expect_sum_bits({from_bits(0x01000001u), kLeast}, 0x01000002u, "odd + half an ulp: a tie, to even (up)");
  expect_sum_bits({-0x1p-125f, -kLeast}, 0x81000000u, "-2^-125 - half an ulp: to even");
  expect_sum_bits({from_bits(0x01ffffffu), kLeast}, 0x01ffffffu, "a quarter ulp: down");
  expect_sum_bits({from_bits(0x01ffffffu), kLeast, kLeast}, 0x02000000u, "half an ulp on an odd one: up, a binade");
  expect_sum_bits({0x1p-102f, kLeast}, bits_of(0x1p-102f), "2^-102 + 2^-149: down");
  expect_sum_bits({0x1p-102f, -kLeast}, bits_of(0x1p-102f), "2^-102 - 2^-149: up");
}

// Random tiny input (make_input's Kind::Tiny: subnormals below 2^-130 and zeros), small n
// (subnormal sums) to large (normal sums that round), at every shape of the shape test.
TEST(ReproducibleTiny, RandomTinyInputEveryShape) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 random(seed);
  for (std::size_t n : {1ul, 2ul, 3ul, 5ul, 33ul, 4097ul, 1000003ul}) {
    const std::vector<float> x = make_input(Kind::Tiny, n, random);
    const unsigned expected = bits_of(exact_float(x.data(), n));
    const int shapes[][2] = {{0, 0}, {1, 1}, {5, 3}, {33, 2}, {40, 1000}, {256, 5000}, {1024, 264}};
    for (const auto& shape : shapes) {
      EXPECT_EQ(float_bits(gpu_sum(x, 0, n, shape[0], shape[1])), float_bits(from_bits(expected)))
          << "n = " << n << ", block " << shape[0] << ", grid " << shape[1] << ", seed " << seed;
    }
  }
}

// ---------------------------------------------------------------------------------------
// The refusals the header lists: each returns cudaErrorInvalidValue before any launch, so
// nothing is written and cudaGetLastError() has nothing to report.

// The scratch is the ticket and the slots the blocks add into: one size for every launch
// shape. One byte short is refused, and so is reduce_state's; nothing is written anywhere.
TEST(ReproducibleScratch, OneByteShortIsRefused) {
  REQUIRE_GPU();
  std::mt19937_64 random(fresh_seed());
  const std::size_t n = 1000003;
  const int block = 256, grid = 64;
  const std::size_t full = reproducible_sum::scratch_bytes(n, block, grid);
  EXPECT_EQ(full, reproducible_sum::scratch_bytes(1, 1, 1));
  EXPECT_EQ(full, reproducible_sum::scratch_bytes(std::size_t(1) << 40, 1024, 1 << 30));
  const std::vector<float> x = make_input(Kind::Uniform, n, random);
  DeviceBuffer<float> input(n);
  CUDA_CHECK(cudaMemcpy(input.get(), x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  DeviceBuffer<unsigned char> scratch(full);
  CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
  DeviceBuffer<float> result(1);
  DeviceBuffer<reproducible_sum::State> state(1);
  CUDA_CHECK(cudaMemset(result.get(), 0xff, sizeof(float)));  // poison
  CUDA_CHECK(cudaMemset(state.get(), 0xff, sizeof(reproducible_sum::State)));
  CUDA_CHECK(cudaDeviceSynchronize());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);

  EXPECT_EQ(reproducible_sum::reduce(input.get(), n, result.get(), scratch.get(), full - 1, block, grid),
            cudaErrorInvalidValue);
  EXPECT_EQ(reproducible_sum::reduce_state(input.get(), n, state.get(), scratch.get(), full - 1, block, grid),
            cudaErrorInvalidValue);
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "a refused call launched something";

  float value = 0;
  CUDA_CHECK(cudaMemcpy(&value, result.get(), sizeof value, cudaMemcpyDeviceToHost));
  EXPECT_EQ(float_bits(value), "0xffffffff") << "reduce wrote its result";
  std::vector<unsigned char> bytes(sizeof(reproducible_sum::State));
  CUDA_CHECK(cudaMemcpy(bytes.data(), state.get(), bytes.size(), cudaMemcpyDeviceToHost));
  EXPECT_EQ(std::count(bytes.begin(), bytes.end(), 0xff), static_cast<long>(bytes.size())) << "reduce_state wrote";
  bytes.resize(scratch.bytes());
  CUDA_CHECK(cudaMemcpy(bytes.data(), scratch.get(), bytes.size(), cudaMemcpyDeviceToHost));
  EXPECT_EQ(std::count(bytes.begin(), bytes.end(), 0), static_cast<long>(bytes.size())) << "the scratch was written";

  // The scratch is untouched: at its full size, the same call works.
  ASSERT_EQ(reproducible_sum::reduce(input.get(), n, result.get(), scratch.get(), full, block, grid), cudaSuccess);
  CUDA_CHECK(cudaMemcpy(&value, result.get(), sizeof value, cudaMemcpyDeviceToHost));
  EXPECT_EQ(bits_of(value), bits_of(exact_float(x.data(), n)));
}

TEST(ReproducibleScratch, EveryListedRefusalLaunchesNothing) {
  REQUIRE_GPU();
  const std::size_t n = 4097;
  const int block = 128, grid = 3;
  DeviceBuffer<float> input(n);
  CUDA_CHECK(cudaMemset(input.get(), 0, n * sizeof(float)));
  const std::size_t bytes = reproducible_sum::scratch_bytes(n, block, grid);
  DeviceBuffer<unsigned char> scratch(bytes + 16);
  CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
  DeviceBuffer<float> result(1);
  DeviceBuffer<reproducible_sum::State> state(1);
  CUDA_CHECK(cudaMemset(result.get(), 0xff, sizeof(float)));
  CUDA_CHECK(cudaDeviceSynchronize());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  auto refused = [](cudaError_t status, const char* what) {
    EXPECT_EQ(status, cudaErrorInvalidValue) << what;
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << what << ": launched something";
  };
  float* in = input.get();
  float* out = result.get();
  void* s = scratch.get();
  using reproducible_sum::reduce;
  refused(reduce(in, n, out, s, bytes, 0, grid), "block 0");
  refused(reduce(in, n, out, s, bytes, 1025, grid), "block 1025");
  refused(reduce(in, n, out, s, bytes, block, 0), "grid 0");
  refused(reduce(in, n, out, s, bytes, block, -1), "grid -1");
  refused(reduce(nullptr, n, out, s, bytes, block, grid), "no input");
  refused(reduce(in, n, nullptr, s, bytes, block, grid), "no result");
  refused(reduce(in, n, out, nullptr, bytes, block, grid), "no scratch");
  refused(reduce(in, n, out, nullptr, 0, block, 1), "no scratch, grid 1");
  refused(reduce(in, n, out, s, bytes - 1, block, grid), "one byte short");
  refused(reduce(in, n, out, static_cast<unsigned char*>(s) + 4, bytes, block, grid), "scratch not 8-byte aligned");
  refused(reproducible_sum::reduce_state(in, n, nullptr, s, bytes, block, grid), "no state");
  refused(reproducible_sum::reduce_state(in, n, state.get(), s, bytes - 1, block, grid), "state, one byte short");
  refused(reproducible_sum::round_states(state.get(), -1, out), "count -1");
  refused(reproducible_sum::round_states(nullptr, 2, out), "no states");
  refused(reproducible_sum::round_states(state.get(), 1, nullptr), "no result for round_states");
  CUDA_CHECK(cudaDeviceSynchronize());
  float value = 0;
  CUDA_CHECK(cudaMemcpy(&value, out, sizeof value, cudaMemcpyDeviceToHost));
  EXPECT_EQ(float_bits(value), "0xffffffff") << "a refused call wrote the result";
  // An empty input needs no pointer, only the scratch.
  EXPECT_EQ(reduce(nullptr, 0, out, s, bytes, block, grid), cudaSuccess);
  CUDA_CHECK(cudaMemcpy(&value, out, sizeof value, cudaMemcpyDeviceToHost));
  EXPECT_EQ(float_bits(value), "0x00000000");
}

TEST(ReproducibleProgram, OffersFloatOnly) {
  const auto run = run_program("17_reproducible", "--type int --n 10");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("--type float"), std::string::npos) << run.output;
  const auto help = run_program("17_reproducible", "--help");
  EXPECT_EQ(help.exit_code, 0) << help.output;
  EXPECT_NE(help.output.find("[--type float]"), std::string::npos) << help.output;
}

}  // namespace
