// 17_reproducible against the exact sum (common/exact_sum.h) rounded once: the
// result must be that float to the bit, for every launch shape, alignment and split of
// the array, on fresh random data of several kinds. Label gpu: skipped without a device,
// except the command-line checks that stop before it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "exact_sum.h"
#include "gpu_test.h"
#include "program_runner.h"
#include "reproducible_sum.cuh"

namespace {

using reduction::DeviceBuffer;
using reduction::testing::fresh_seed;
using reduction::testing::run_program;

unsigned bits_of(float x) {
  unsigned bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

// The kinds of input: plain values, a range of 2^200 (many windows), sums that cancel to
// a tiny fraction of sum|x| (12's hard case), and subnormals with zeros among them.
enum class Kind { Uniform, WideRange, Cancelling, Tiny };

std::vector<float> make_input(Kind kind, std::size_t n, std::mt19937_64& random) {
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-100, 100);
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (kind) {
      case Kind::Uniform: x[i] = unit(random); break;
      case Kind::WideRange: x[i] = std::ldexp(unit(random), exponent(random)); break;
      case Kind::Cancelling: x[i] = (i % 2) ? -x[i - 1] * (1 + 0x1p-20f * unit(random)) : unit(random) * 1e6f; break;
      case Kind::Tiny: x[i] = (i % 3 == 0) ? 0.0f : unit(random) * 0x1p-130f; break;
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
  if (!host.empty()) CUDA_CHECK(cudaMemcpy(input.get(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  DeviceBuffer<unsigned char> scratch(reproducible_sum::scratch_bytes(n, block, grid));
  CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
  DeviceBuffer<float> result(1);
  CUDA_CHECK(cudaMemset(result.get(), 0xff, sizeof(float)));  // poison: a NaN that no path writes
  EXPECT_EQ(reproducible_sum::reduce(input.get() + offset, n, result.get(), scratch.get(), block, grid), cudaSuccess);
  CUDA_CHECK(cudaDeviceSynchronize());
  float value = 0;
  CUDA_CHECK(cudaMemcpy(&value, result.get(), sizeof value, cudaMemcpyDeviceToHost));
  return value;
}

TEST(Reproducible, IsTheCorrectlyRoundedSum) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 random(seed);
  for (Kind kind : {Kind::Uniform, Kind::WideRange, Kind::Cancelling, Kind::Tiny}) {
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
  for (Kind kind : {Kind::Uniform, Kind::WideRange, Kind::Cancelling}) {
    const std::vector<float> x = make_input(kind, n + 3, random);
    for (std::size_t offset : {0ul, 1ul, 2ul, 3ul}) {  // 16-byte aligned, then 4, 8 and 12 bytes past
      const unsigned expected = bits_of(exact_float(x.data() + offset, n));
      const int shapes[][2] = {{0, 0}, {1, 1}, {5, 3}, {31, 7}, {33, 2}, {40, 1000}, {128, 7}, {256, 5000}, {1024, 264}};
      for (const auto& shape : shapes) {
        EXPECT_EQ(bits_of(gpu_sum(x, offset, n, shape[0], shape[1])), expected)
            << "kind " << int(kind) << ", offset " << offset << ", block " << shape[0] << ", grid " << shape[1]
            << ", seed " << seed;
      }
    }
  }
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
  DeviceBuffer<float> input(n);
  CUDA_CHECK(cudaMemcpy(input.get(), x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  for (int k : {1, 2, 3, 4, 8}) {
    DeviceBuffer<reproducible_sum::State> states(k);
    std::size_t begin = 0;
    for (int piece = 0; piece < k; ++piece) {
      const std::size_t end = piece + 1 == k ? n : begin + n / k + 5 * piece + 1;  // uneven lengths
      int block = 0, grid = 0;
      ASSERT_EQ(reproducible_sum::default_shape(end - begin, &block, &grid), cudaSuccess);
      DeviceBuffer<unsigned char> scratch(reproducible_sum::scratch_bytes(end - begin, block, grid));
      CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
      ASSERT_EQ(reproducible_sum::reduce_state(input.get() + begin, end - begin, states.get() + piece, scratch.get(),
                                               block, grid),
                cudaSuccess);
      CUDA_CHECK(cudaDeviceSynchronize());
      begin = end;
    }
    DeviceBuffer<float> result(1);
    CUDA_CHECK(cudaMemset(result.get(), 0xff, sizeof(float)));
    ASSERT_EQ(reproducible_sum::round_states(states.get(), k, result.get()), cudaSuccess);
    float value = 0;
    CUDA_CHECK(cudaMemcpy(&value, result.get(), sizeof value, cudaMemcpyDeviceToHost));
    EXPECT_EQ(bits_of(value), expected) << k << " pieces, seed " << seed;
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
    ASSERT_EQ(reproducible_sum::reduce(input.get(), n, result.get(), scratch.get(), block, grid), cudaSuccess);
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

TEST(ReproducibleProgram, OffersFloatOnly) {
  const auto run = run_program("17_reproducible", "--type int --n 10");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("--type float"), std::string::npos) << run.output;
  const auto help = run_program("17_reproducible", "--help");
  EXPECT_EQ(help.exit_code, 0) << help.output;
  EXPECT_NE(help.output.find("[--type float]"), std::string::npos) << help.output;
}

}  // namespace
