// The rows chapters (13_rows, 14_row_stats, 15_lane_groups, 16_short_rows, 18_split_rows): every method
// of each copy unit and both CUB yardsticks, for every operator and input type each
// offers, against a CPU reference in double at awkward shapes (K = 0, 1, 3, 31, 33, 1000,
// 4097; M = 1, 2, 3, 65537; input 16-byte aligned and not); NaN, infinities and ties;
// indices past 2^31 and more than 2^32 rows; bad arguments; the programs' command lines;
// 18's rows split over 1 to 1000 blocks, at M = 1, 2, 3, 7, and rows past 2^31 elements; 18's
// scratch refused when too small for the call's plan; MeanVar of rows with infinities as numpy;
// one spelling of the result types in 14-18 (the typed whole rule: tests/copy_test.py).
// The GPU tests report SKIPPED without a device; the rules, the argument checks and the
// command lines that stop before the device run anywhere.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "cub_rows.h"
#include "gpu_test.h"
#include "lane_groups.cuh"
#include "program_runner.h"
#include "reference.h"
#include "row_stats.cuh"
#include "rows.cuh"
#include "rows_harness.h"
#include "short_rows.cuh"
#include "split_rows.cuh"

namespace reduction {
rows_harness::RowsProgram rows_program();         // 13_rows/main.cu
rows_harness::RowsProgram row_stats_program();    // 14_row_stats/main.cu
rows_harness::RowsProgram lane_groups_program();  // 15_lane_groups/main.cu
rows_harness::RowsProgram short_rows_program();   // 16_short_rows/main.cu
rows_harness::RowsProgram split_rows_program();   // 18_split_rows/main.cu
}

namespace reduction::testing {
namespace {

using namespace rows_harness;

// A program and the methods its tests run: each chapter's own kernels once (16's group,
// warp and block are 15's and 14's, run there; previous is the chapter before; 18's auto
// runs 16's for short rows), and the CUB yardsticks with 16, the last in this list.
struct Tested {
  RowsProgram program;
  std::vector<RowMethod> methods;
};

const std::vector<Tested>& tested() {
  static const std::vector<Tested> list = {
      {rows_program(), {RowMethod::Auto, RowMethod::Warp, RowMethod::Block}},
      {row_stats_program(), {RowMethod::Auto, RowMethod::Warp, RowMethod::Block}},
      {lane_groups_program(), {RowMethod::Auto, RowMethod::Group, RowMethod::Warp}},
      {split_rows_program(), {RowMethod::Split, RowMethod::Cluster, RowMethod::Auto, RowMethod::SinglePass}},
      {short_rows_program(), {RowMethod::Thread, RowMethod::Auto, RowMethod::CubSegmented, RowMethod::CubBlock}},
  };
  return list;
}

const RowsProgram& last_program() { return tested().back().program; }

constexpr RowOp kAllOps[] = {RowOp::Sum, RowOp::Max, RowOp::ArgMax, RowOp::MeanVar};
constexpr ElementType kAllTypes[] = {ElementType::Float, ElementType::Half, ElementType::BFloat16};
constexpr double kFloatU = 0x1.0p-24, kDoubleU = 0x1.0p-53;

// ---------------------------------------------------------------- matrices

// A matrix whose element i is value(i), rounded to `type` (the reference reads the
// rounded values).
template <typename Value>
HostMatrix make_matrix(std::size_t rows, std::size_t cols, ElementType type, Value value) {
  HostMatrix m;
  m.rows = rows;
  m.cols = cols;
  m.type = type;
  m.values.resize(rows * cols);
  m.bytes.resize(rows * cols * element_bytes(type));
  for (std::size_t i = 0; i < rows * cols; ++i) {
    const float x = value(i);
    if (type == ElementType::Float) {
      m.values[i] = x;
      std::memcpy(&m.bytes[4 * i], &x, 4);
    } else if (type == ElementType::Half) {
      const __half h = __float2half_rn(x);
      const std::uint16_t bits = __half_as_ushort(h);
      m.values[i] = __half2float(h);
      std::memcpy(&m.bytes[2 * i], &bits, 2);
    } else {
      const __nv_bfloat16 b = __float2bfloat16_rn(x);
      const std::uint16_t bits = __bfloat16_as_ushort(b);
      m.values[i] = __bfloat162float(b);
      std::memcpy(&m.bytes[2 * i], &bits, 2);
    }
  }
  return m;
}

// Fresh random values in [-1, 1): both signs, so sums cancel.
HostMatrix random_rows(std::size_t rows, std::size_t cols, ElementType type, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  return make_matrix(rows, cols, type, [&](std::size_t) { return uniform(random); });
}

// ---------------------------------------------------------------- the reference, written here again

// The result a row must have, in double, with its tolerance (0: exact), computed
// without the harness's reference.
struct Expected {
  double value = 0, second = 0;           // sum / max / argmax value / mean; variance
  std::int64_t index = -1;                // argmax
  double tolerance = 0, second_tolerance = 0;
};

Expected expected_row(const float* x, std::size_t cols, RowOp op, std::size_t depth) {
  Expected e;
  std::size_t nans = 0, pos = 0, neg = 0;
  double sum = 0, sum_abs = 0, max_abs = 0;
  float best = -std::numeric_limits<float>::infinity();
  std::int64_t first_nan = -1, best_index = -1;
  for (std::size_t j = 0; j < cols; ++j) {
    const float v = x[j];
    if (std::isnan(v)) {
      if (nans++ == 0) first_nan = std::int64_t(j);
      continue;
    }
    if (std::isinf(v)) ++(v > 0 ? pos : neg);
    if (best_index < 0 || v > best) {
      best = v;
      best_index = std::int64_t(j);
    }
    if (std::isfinite(v)) {
      sum += v;
      sum_abs += std::fabs(v);
      max_abs = std::max(max_abs, double(std::fabs(v)));
    }
  }
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  switch (op) {
    case RowOp::Sum:
      e.value = nans || (pos && neg) ? nan : pos ? inf : neg ? -inf : sum;
      // The float bound of reference.h, plus this plain double sum's own error.
      e.tolerance = sum_error_bound(kFloatU, kFloatU, depth, sum_abs, sum) + double(cols) * kDoubleU * sum_abs;
      break;
    case RowOp::Max: e.value = nans ? nan : best; break;
    case RowOp::ArgMax:
      e.index = nans ? first_nan : best_index;
      e.value = nans ? nan : cols ? double(best) : -inf;
      break;
    case RowOp::MeanVar: {
      if (cols == 0 || nans) {
        e.value = e.second = nan;
        break;
      }
      if (pos || neg) {  // numpy: the mean is the infinity (NaN for both signs), the variance NaN
        e.value = pos && neg ? nan : pos ? inf : -inf;
        e.second = nan;
        break;
      }
      e.value = sum / double(cols);
      double m2 = 0;
      for (std::size_t j = 0; j < cols; ++j) m2 += (x[j] - e.value) * (x[j] - e.value);
      e.second = m2 / double(cols);
      // The bounds derived in rows_check.cpp, plus this reference's own error (plain
      // double sums: K*u of each).
      e.tolerance = mean_error_bound(depth, max_abs) + double(cols) * kDoubleU * max_abs;
      e.second_tolerance = variance_error_bound(depth, max_abs, e.second) + double(cols + 3) * kDoubleU * e.second +
                           std::pow(double(cols) * kDoubleU * max_abs, 2);
      break;
    }
  }
  return e;
}

bool same_or_within(double got, double want, double tolerance) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::isfinite(got) && std::fabs(got - want) <= tolerance;
}

// Checks every row of `results` (as the device wrote them); returns the number of
// wrong rows, reporting the first few.
std::size_t count_wrong_rows(const HostMatrix& m, RowOp op, const std::vector<unsigned char>& results,
                             std::size_t depth, const std::string& where) {
  std::size_t wrong = 0;
  const std::size_t stride = result_bytes(op);
  for (std::size_t r = 0; r < m.rows; ++r) {
    const unsigned char* result = results.data() + r * stride;
    const Expected e = expected_row(m.values.data() + r * m.cols, m.cols, op, depth);
    bool ok = false;
    std::string got;
    if (op == RowOp::Sum || op == RowOp::Max) {
      float value = 0;
      std::memcpy(&value, result, 4);
      ok = same_or_within(value, e.value, e.tolerance);
      got = std::to_string(value);
    } else if (op == RowOp::ArgMax) {
      cub_rows::ValueIndex found{};
      std::memcpy(&found, result, sizeof found);
      ok = found.index == e.index && same_or_within(found.value, e.value, 0.0);
      got = std::to_string(found.value) + " at " + std::to_string(found.index) + ", expected column " +
            std::to_string(e.index);
    } else {
      cub_rows::MeanVariance found{};
      std::memcpy(&found, result, sizeof found);
      ok = same_or_within(found.mean, e.value, e.tolerance) && same_or_within(found.variance, e.second,
                                                                               e.second_tolerance);
      got = "mean " + std::to_string(found.mean) + " variance " + std::to_string(found.variance);
    }
    if (!ok && wrong++ < 3) {
      ADD_FAILURE() << where << ": row " << r << " of " << m.rows << ": got " << got << ", reference " << e.value
                    << " / " << e.second << " (tolerance " << e.tolerance << " / " << e.second_tolerance << ")";
    }
  }
  return wrong;
}

// ---------------------------------------------------------------- running a method

// The input on the device, `offset` elements past a 256-byte-aligned allocation.
class DeviceInput {
 public:
  DeviceInput(const HostMatrix& m, std::size_t offset)
      : offset_bytes_(offset * element_bytes(m.type)), buffer_(m.bytes.size() + offset_bytes_ + 1) {
    if (!m.bytes.empty()) {
      CUDA_CHECK(cudaMemcpy(buffer_.get() + offset_bytes_, m.bytes.data(), m.bytes.size(), cudaMemcpyHostToDevice));
    }
  }
  const void* data() const { return buffer_.get() + offset_bytes_; }

 private:
  std::size_t offset_bytes_;
  DeviceBuffer<unsigned char> buffer_;
};

// Runs the launcher of `method` once on `input`, with the output array poisoned first;
// returns what it wrote.
std::vector<unsigned char> run_method(const RowsProgram& program, const HostMatrix& m, const DeviceInput& input,
                                      RowMethod method, RowOp op, unsigned char poison) {
  const RowLaunch launch = launcher_of(program, method, m.type, op);
  EXPECT_NE(launch.launch, nullptr);
  std::size_t temp_bytes = 0;
  if (launch.temp_bytes_for) CUDA_CHECK(launch.temp_bytes_for(m.rows, m.cols, &temp_bytes));
  DeviceBuffer<unsigned char> temp(temp_bytes), output(m.rows * result_bytes(op));
  if (temp_bytes) CUDA_CHECK(cudaMemset(temp.get(), 0, temp_bytes));  // as the harness: 18's tickets start at 0
  if (output.bytes()) CUDA_CHECK(cudaMemset(output.get(), poison, output.bytes()));
  CUDA_CHECK(launch.launch(input.data(), m.rows, m.cols, output.get(), temp.get(), temp_bytes, nullptr));
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned char> results(output.bytes());
  if (!results.empty()) CUDA_CHECK(cudaMemcpy(results.data(), output.get(), results.size(), cudaMemcpyDeviceToHost));
  return results;
}

bool offered(const RowsProgram& program, RowMethod method, RowOp op, const HostMatrix& m) {
  return refusal(program, method, op, m.rows, m.cols, m.type).empty();
}

std::string where(const RowsProgram& program, RowMethod method, RowOp op, const HostMatrix& m, std::size_t offset) {
  return program.id + " " + method_name(method) + " --op " + op_name(op) + " --type " + element_name(m.type) + " " +
         std::to_string(m.rows) + " x " + std::to_string(m.cols) + (offset ? " (input 1 element past alignment)" : "") +
         ", " + describe_of(program, method, m.rows, m.cols, m.type);
}

// Every tested method of every program on one matrix: checked against the reference,
// twice (two poison patterns), and the two runs must agree to the bit (every result type
// is packed: a ValueIndex is a float and an int32, a MeanVariance two floats).
void check_every_method(const HostMatrix& m, RowOp op, std::size_t offset) {
  const DeviceInput input(m, offset);
  for (const Tested& t : tested()) {
    for (RowMethod method : t.methods) {
      if (!offered(t.program, method, op, m)) continue;
      const std::string at = where(t.program, method, op, m, offset);
      const std::vector<unsigned char> first = run_method(t.program, m, input, method, op, 0xCD);
      const std::size_t depth = depth_of(t.program, method, m.rows, m.cols, m.type);
      EXPECT_EQ(count_wrong_rows(m, op, first, depth, at), 0u) << at;
      EXPECT_TRUE(first == run_method(t.program, m, input, method, op, 0xAB))
          << at << ": a second run wrote another result";
    }
  }
}

// ---------------------------------------------------------------- the rule (no device needed)

TEST(RowsRule, EachChapterFollowsItsDocumentedRule) {
  // 13 and 14 (a warp, or a block of the fewest threads giving each about four vectors).
  struct Case {
    std::size_t rows, cols, bytes;
    bool block;
    int threads;
  };
  const Case long_rows[] = {{1u << 19, 128, 4, false, 32},  {67109, 1000, 4, false, 32}, {65536, 1024, 4, false, 32},
                            {8192, 2048, 4, false, 32},     {1000, 2048, 4, true, 128},  {1000, 512, 4, false, 32},
                            {8192, 8192, 4, true, 256},     {1024, 65536, 4, true, 256}, {5, 0, 4, false, 32},
                            {67109, 1000, 2, false, 32},    {1u << 20, 2048, 2, false, 32}, {1000, 2048, 2, true, 64},
                            {8192, 8192, 2, true, 256}};
  for (const Case& c : long_rows) {
    SCOPED_TRACE(std::to_string(c.rows) + " x " + std::to_string(c.cols) + " of " + std::to_string(c.bytes) + " bytes");
    const row_stats::Plan plan = row_stats::plan_rows(c.rows, c.cols, c.bytes);
    EXPECT_EQ(plan.method == row_stats::Method::Block, c.block);
    EXPECT_EQ(plan.threads_per_row, c.threads);
    if (c.bytes == 4) {
      const rows::Plan same = rows::plan_rows(c.rows, c.cols);
      EXPECT_EQ(same.method == rows::Method::Block, c.block);
      EXPECT_EQ(same.threads_per_row, c.threads);
    }
  }
  EXPECT_EQ(rows::plan_rows(100, 8, rows::Method::Block).threads_per_row, 32);
  EXPECT_EQ(rows::plan_rows(100, 65536, rows::Method::Warp).threads_per_row, 32);
  EXPECT_EQ(row_stats::plan_rows(100, 65536, 2, row_stats::Method::Block).threads_per_row, 256);

  // 15: a group of the fewest lanes (2 to 16) giving each about four vectors, up to 1 KiB.
  const std::size_t group_cases[][4] = {{0, 4, 2, 0},  {1, 4, 2, 0},   {8, 4, 2, 0},   {33, 4, 4, 0},  {128, 4, 8, 0},
                                        {256, 4, 16, 0}, {257, 4, 32, 1}, {65, 2, 4, 0}, {128, 2, 4, 0}, {512, 2, 16, 0},
                                        {513, 2, 32, 1}, {1000, 4, 32, 1}};
  for (const auto& c : group_cases) {
    SCOPED_TRACE(std::to_string(c[0]) + " columns of " + std::to_string(c[1]) + " bytes");
    const lane_groups::Plan plan = lane_groups::plan_rows(c[0], c[1]);
    EXPECT_EQ(plan.threads_per_row, int(c[2]));
    EXPECT_EQ(plan.method == lane_groups::Method::Warp, c[3] == 1);
  }
  EXPECT_EQ(lane_groups::plan_rows(65536, 4, lane_groups::Method::Group).threads_per_row, 16);
  EXPECT_EQ(lane_groups::plan_rows(3, 4, lane_groups::Method::Warp).threads_per_row, 32);

  // 16: tiles of 256 threads x (64 / row bytes) rows up to 64 bytes; above, 16 KiB of rows.
  const std::size_t tile_cases[][4] = {{1, 4, 16, 4096}, {3, 4, 5, 1280},  {8, 4, 2, 512},   {16, 4, 1, 256},
                                       {17, 4, 1, 240},  {32, 4, 1, 128},  {1, 2, 32, 8192}, {7, 2, 4, 1024},
                                       {33, 2, 1, 248},  {61, 2, 1, 134},  {0, 4, 32, 8192}};
  for (const auto& c : tile_cases) {
    SCOPED_TRACE(std::to_string(c[0]) + " columns of " + std::to_string(c[1]) + " bytes");
    const short_rows::Plan plan = short_rows::plan_rows(c[0], c[1]);
    EXPECT_EQ(plan.rows_per_thread, int(c[2]));
    EXPECT_EQ(plan.tile_rows, c[3]);
  }

  // 16's whole rule, as its --method auto says it: the shapes of its README's sweep.
  const RowsProgram& whole = last_program();
  const struct {
    std::size_t cols;
    ElementType type;
    const char* picks;
  } rule[] = {{1, ElementType::Float, "one thread per row, 16 rows per thread"},
              {32, ElementType::Float, "one thread per row, 1 row per thread"},
              {33, ElementType::Float, "a group of 4 lanes per row"},
              {128, ElementType::Float, "a group of 8 lanes per row"},
              {1000, ElementType::Float, "one warp (32 lanes) per row"},
              {8192, ElementType::Float, "one block of 256 threads per row"},
              {33, ElementType::BFloat16, "one thread per row, 1 row per thread"},
              {128, ElementType::BFloat16, "a group of 4 lanes per row"},
              {1024, ElementType::BFloat16, "one warp (32 lanes) per row"}};
  for (const auto& r : rule) {
    const std::size_t rows = (std::size_t(1) << 26) / r.cols;
    const std::string said = describe_of(whole, RowMethod::Auto, rows, r.cols, r.type);
    EXPECT_EQ(said.rfind(std::string("chooses ") + r.picks, 0), 0u) << r.cols << " " << element_name(r.type) << ": "
                                                                     << said;
  }
  // 18: blocks per row = resident blocks / M, at most one per 4096 vectors, at least 1.
  const std::size_t split_cases[][5] = {{1, 1u << 26, 4, 1056, 1056}, {4096, 16384, 4, 1056, 1},
                                        {256, 262144, 4, 1056, 4},    {64, 1u << 20, 4, 1056, 16},
                                        {3, 4097, 4, 1056, 1},        {7, 65539, 4, 1056, 4},
                                        {1, 1u << 26, 2, 1056, 1056}, {1, 65536, 2, 1056, 2},
                                        {1, 65536, 4, 1056, 4},       {0, 100, 4, 1056, 1},
                                        {2, 1u << 26, 4, 0, 1},       {1, 1u << 26, 4, 160, 160}};
  for (const auto& c : split_cases) {
    SCOPED_TRACE(std::to_string(c[0]) + " x " + std::to_string(c[1]) + " of " + std::to_string(c[2]) + " bytes, " +
                 std::to_string(c[3]) + " resident blocks");
    EXPECT_EQ(split_rows::plan_rows(c[0], c[1], c[2], c[3]).blocks_per_row, c[4]);
  }

  // The CUB collective follows the same rule.
  EXPECT_EQ(cub_rows::threads_per_row(1u << 21, 32, 4), 1);
  EXPECT_EQ(cub_rows::threads_per_row(2033602, 33, 4), 4);
  EXPECT_EQ(cub_rows::threads_per_row(67109, 1000, 4), 32);
  EXPECT_EQ(cub_rows::threads_per_row(8192, 8192, 4), 256);
}

TEST(RowsApi, RefusesBadArgumentsBeforeAnyLaunch) {
  // Made-up addresses: every one of these calls must stop at its argument check.
  const auto* input = reinterpret_cast<const float*>(std::uintptr_t(0x10000));
  const auto* odd = reinterpret_cast<const float*>(std::uintptr_t(0x10002));
  const auto* half_input = reinterpret_cast<const __half*>(std::uintptr_t(0x10001));
  auto* sums = reinterpret_cast<float*>(std::uintptr_t(0x20000));
  const auto bad = cudaErrorInvalidValue;
  const std::size_t too_wide = std::size_t(INT_MAX) + 1;  // ArgMax's column, MeanVar's count: 32-bit

  EXPECT_EQ(rows::reduce_rows<rows::Sum>(nullptr, 3, 4, sums), bad);
  EXPECT_EQ(rows::reduce_rows<rows::Sum>(input, 3, 4, nullptr), bad);
  EXPECT_EQ(rows::reduce_rows<rows::Sum>(input, 3, 4, sums, static_cast<rows::Method>(99)), bad);
  EXPECT_EQ(rows::reduce_rows<rows::Max>(odd, 3, 4, sums), bad);
  EXPECT_EQ(rows::reduce_rows<rows::Sum>(input, SIZE_MAX / 2, 4, sums), bad);
  EXPECT_EQ(rows::reduce_rows<rows::Sum>(nullptr, 0, 4, nullptr), cudaSuccess);  // no rows: nothing to do

  using row_stats::reduce_rows;
  EXPECT_EQ((reduce_rows<float, row_stats::Sum>(nullptr, 3, 4, sums)), bad);
  EXPECT_EQ((reduce_rows<float, row_stats::Sum>(input, 3, 4, sums, static_cast<row_stats::Method>(99))), bad);
  EXPECT_EQ((reduce_rows<__half, row_stats::Max>(half_input, 3, 4, sums)), bad);
  EXPECT_EQ((reduce_rows<float, row_stats::ArgMax>(input, 3, 4, reinterpret_cast<row_stats::ValueIndex*>(0x20002))),
            bad);
  EXPECT_EQ((reduce_rows<float, row_stats::ArgMax>(input, 1, too_wide, reinterpret_cast<row_stats::ValueIndex*>(sums))),
            bad);
  EXPECT_EQ((reduce_rows<float, row_stats::MeanVar>(input, 1, too_wide,
                                                    reinterpret_cast<row_stats::MeanVariance*>(sums))),
            bad);

  EXPECT_EQ((lane_groups::reduce_rows<float, lane_groups::Sum>(input, 3, 4, sums, static_cast<lane_groups::Method>(3))),
            bad);
  EXPECT_EQ((lane_groups::reduce_rows<__half, lane_groups::Sum>(half_input, 3, 4, sums)), bad);
  EXPECT_EQ((lane_groups::reduce_rows<float, lane_groups::ArgMax>(
                input, 1, too_wide, reinterpret_cast<lane_groups::ValueIndex*>(sums))),
            bad);
  EXPECT_EQ((lane_groups::reduce_rows<float, lane_groups::Sum>(input, SIZE_MAX / 2, 4, sums)), bad);

  // 16 takes rows of at most 128 bytes: 32 floats, 64 halves.
  EXPECT_EQ((short_rows::reduce_rows<float, short_rows::Sum>(input, 3, 33, sums)), bad);
  EXPECT_EQ((short_rows::reduce_rows<__half, short_rows::Sum>(reinterpret_cast<const __half*>(input), 3, 65, sums)),
            bad);
  EXPECT_EQ((short_rows::reduce_rows<float, short_rows::Sum>(odd, 3, 4, sums)), bad);
  EXPECT_EQ((short_rows::reduce_rows<float, short_rows::Sum>(input, 3, 4, nullptr)), bad);
  EXPECT_EQ((short_rows::reduce_rows<float, short_rows::Sum>(nullptr, 0, 4, nullptr)), cudaSuccess);

  // 18: no blocks; a split plan without scratch, with misaligned scratch or with scratch too small for
  // its plan (one byte short, or sized for a plan of fewer blocks); too many columns.
  using split_rows::Plan;
  void* scratch = reinterpret_cast<void*>(std::uintptr_t(0x30000));
  const std::size_t enough = split_rows::scratch_bytes(3, {2});
  EXPECT_EQ((split_rows::reduce_rows<float, split_rows::Sum>(input, 3, 4, sums, scratch, enough, Plan{0})), bad);
  EXPECT_EQ((split_rows::reduce_rows<float, split_rows::Sum>(input, 3, 1u << 20, sums, nullptr, enough, Plan{2})), bad);
  EXPECT_EQ((split_rows::reduce_rows<float, split_rows::Sum>(input, 3, 1u << 20, sums,
                                                              static_cast<char*>(scratch) + 4, enough, Plan{2})),
            bad);
  EXPECT_EQ((split_rows::reduce_rows<float, split_rows::Sum>(input, 3, 1u << 20, sums, scratch, enough - 1, Plan{2})),
            bad);
  EXPECT_EQ((split_rows::reduce_rows<float, split_rows::Sum>(input, 3, 1u << 20, sums, scratch, enough, Plan{3})),
            bad);
  EXPECT_EQ((split_rows::reduce_rows<float, split_rows::Sum>(input, 3, 1u << 20, sums, scratch, 0, Plan{2})), bad);
  auto* pairs18 = reinterpret_cast<split_rows::ValueIndex*>(sums);
  EXPECT_EQ((split_rows::reduce_rows<float, split_rows::ArgMax>(input, 1, too_wide, pairs18, scratch, enough, Plan{2})),
            bad);
  EXPECT_EQ((split_rows::reduce_rows<float, split_rows::Sum>(odd, 3, 4, sums, nullptr, 0, Plan{1})), bad);
  EXPECT_EQ((split_rows::reduce_rows<float, split_rows::Sum>(input, SIZE_MAX / 2, 4, sums, nullptr, 0, Plan{1})), bad);
  EXPECT_EQ((split_rows::reduce_rows<float, split_rows::Sum>(nullptr, 0, 4, nullptr, nullptr, 0, Plan{1})),
            cudaSuccess);
  EXPECT_EQ(split_rows::scratch_bytes(1000, {1}), 0u);
  EXPECT_EQ(split_rows::scratch_bytes(3, {5}), 16u + 3u * 5u * 16u);  // the tickets, then a 16-byte state per block
  EXPECT_EQ(enough, 16u + 3u * 2u * 16u);

  auto* pairs = reinterpret_cast<cub_rows::ValueIndex*>(std::uintptr_t(0x20000));
  EXPECT_EQ((cub_rows::collective_reduce<__nv_bfloat16, cub_rows::ArgMax>(
                reinterpret_cast<const __nv_bfloat16*>(std::uintptr_t(0x10000)), 1, too_wide, pairs)),
            bad);
  EXPECT_EQ((cub_rows::collective_reduce<float, cub_rows::ArgMax>(input, 3, 4, nullptr)), bad);
  EXPECT_EQ((cub_rows::segmented_reduce<float, cub_rows::Sum>(input, 3, 0, sums, sums, 64)), bad);     // K = 0
  EXPECT_EQ((cub_rows::segmented_reduce<float, cub_rows::Sum>(input, 3, 4, sums, nullptr, 64)), bad);  // no storage
  EXPECT_EQ((cub_rows::segmented_reduce<float, cub_rows::ArgMax>(input, 1u << 20, 1u << 12, pairs, sums, 64)), bad);
  std::size_t bytes = 0;
  EXPECT_EQ((cub_rows::segmented_temp_bytes<float, cub_rows::ArgMax>(1u << 20, 1u << 12, &bytes)), bad);
}

// ---------------------------------------------------------------- the harness's own checks (no device needed)

// Results as a correct kernel would write them: the reference rounded to float.
std::vector<unsigned char> rounded_results(const HostMatrix& m, RowOp op) {
  std::vector<unsigned char> results(m.rows * result_bytes(op));
  for (std::size_t r = 0; r < m.rows; ++r) {
    const Expected e = expected_row(m.values.data() + r * m.cols, m.cols, op, 1);
    unsigned char* slot = results.data() + r * result_bytes(op);
    if (op == RowOp::ArgMax) {
      const cub_rows::ValueIndex found{float(e.value), static_cast<std::int32_t>(e.index)};
      std::memcpy(slot, &found, sizeof found);
    } else if (op == RowOp::MeanVar) {
      const cub_rows::MeanVariance found{float(e.value), float(e.second)};
      std::memcpy(slot, &found, sizeof found);
    } else {
      const float value = float(e.value);
      std::memcpy(slot, &value, 4);
    }
  }
  return results;
}

TEST(RowsHarness, CheckRowsTakesRightResultsAndFlagsWrongOnes) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  HostMatrix m = random_rows(50, 37, ElementType::Float, fresh_seed());
  m.values[3 * 37 + 5] = nan;  // row 3 holds a NaN at column 5
  m.values[4 * 37 + 9] = m.values[4 * 37 + 30] = 7.0f;  // row 4: its largest value twice
  for (RowOp op : kAllOps) {
    SCOPED_TRACE(op_name(op));
    std::vector<unsigned char> results = rounded_results(m, op);
    const RowsCheck right = check_rows(m, op, results.data(), 12);
    EXPECT_TRUE(right.ok) << right.first_wrong;
    EXPECT_EQ(right.wrong_rows, 0u);
    // Row 17 made wrong: by 1% for the float results, by one column for argmax.
    unsigned char* slot = results.data() + 17 * result_bytes(op);
    if (op == RowOp::ArgMax) {
      cub_rows::ValueIndex found{};
      std::memcpy(&found, slot, sizeof found);
      found.index = (found.index + 1) % 37;
      std::memcpy(slot, &found, sizeof found);
    } else {
      const std::size_t at = op == RowOp::MeanVar ? 4 : 0;  // the variance
      float value = 0;
      std::memcpy(&value, slot + at, 4);
      value = value * 1.01f + (op == RowOp::Max ? 0.001f : 0.0f);
      std::memcpy(slot + at, &value, 4);
    }
    const RowsCheck wrong = check_rows(m, op, results.data(), 12);
    EXPECT_FALSE(wrong.ok);
    EXPECT_EQ(wrong.wrong_rows, 1u);
    EXPECT_EQ(wrong.first_wrong.rfind("row 17:", 0), 0u) << wrong.first_wrong;
  }
  // The NaN row: numpy's rules, and a finite answer is wrong.
  std::vector<unsigned char> pairs = rounded_results(m, RowOp::ArgMax);
  cub_rows::ValueIndex row3{}, row4{};
  std::memcpy(&row3, pairs.data() + 3 * sizeof row3, sizeof row3);
  std::memcpy(&row4, pairs.data() + 4 * sizeof row4, sizeof row4);
  EXPECT_EQ(row3.index, 5);
  EXPECT_TRUE(std::isnan(row3.value));
  EXPECT_EQ(row4.index, 9);
  std::vector<unsigned char> sums = rounded_results(m, RowOp::Sum);
  const float finite = 1.0f;
  std::memcpy(sums.data() + 3 * 4, &finite, 4);
  EXPECT_EQ(check_rows(m, RowOp::Sum, sums.data(), 12).wrong_rows, 1u);
}

// The programs' check of MeanVar for rows with infinities, as numpy: mean +inf, -inf or NaN
// (both signs), variance NaN; a NaN mean where numpy's is +inf is wrong.
TEST(RowsHarness, MeanVarOfInfinitiesIsNumpys) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  HostMatrix m = random_rows(3, 10, ElementType::Float, fresh_seed());
  m.values[0 * 10 + 2] = inf;                               // row 0: mean +inf
  m.values[1 * 10 + 0] = -inf;                              // row 1: mean -inf
  m.values[2 * 10 + 1] = inf, m.values[2 * 10 + 9] = -inf;  // row 2: mean NaN
  const cub_rows::MeanVariance right[] = {{inf, nan}, {-inf, nan}, {nan, nan}};
  std::vector<unsigned char> results(sizeof right);
  std::memcpy(results.data(), right, sizeof right);
  const RowsCheck ok = check_rows(m, RowOp::MeanVar, results.data(), 12);
  EXPECT_TRUE(ok.ok) << ok.first_wrong;
  for (const cub_rows::MeanVariance wrong : {cub_rows::MeanVariance{nan, nan}, cub_rows::MeanVariance{inf, inf},
                                             cub_rows::MeanVariance{-inf, nan}}) {
    std::memcpy(results.data(), &wrong, sizeof wrong);  // row 0
    const RowsCheck bad = check_rows(m, RowOp::MeanVar, results.data(), 12);
    EXPECT_EQ(bad.wrong_rows, 1u) << wrong.mean << " " << wrong.variance;
    EXPECT_EQ(bad.first_wrong.rfind("row 0:", 0), 0u) << bad.first_wrong;
  }
}

TEST(RowsHarness, BoundsGrowWithTheDepth) {
  EXPECT_LT(mean_error_bound(1, 1.0), mean_error_bound(20, 1.0));
  EXPECT_LT(variance_error_bound(1, 1.0, 0.25), variance_error_bound(20, 1.0, 0.25));
  // First order: (5 + 7D) u A for the mean.
  EXPECT_NEAR(mean_error_bound(10, 2.0) / (75 * kFloatU * 2.0), 1.0, 1e-5);
  EXPECT_TRUE(std::isinf(mean_error_bound(std::size_t(1) << 22, 1.0)));  // (5 + 7D) u >= 1: no bound
}

TEST(RowsHarness, NpyFilesRoundTrip) {
  std::mt19937_64 random(fresh_seed());
  std::uniform_real_distribution<float> uniform(-3.0f, 3.0f);
  std::vector<float> values(7 * 13);
  for (float& v : values) v = uniform(random);
  const std::string path = ::testing::TempDir() + "rows_round_trip.npy";
  save_matrix_npy(path, 7, 13, values);
  const HostMatrix as_float = load_matrix(path, ElementType::Float);
  EXPECT_EQ(as_float.rows, 7u);
  EXPECT_EQ(as_float.cols, 13u);
  EXPECT_TRUE(as_float.values == values);
  const HostMatrix as_bf16 = load_matrix(path, ElementType::BFloat16);
  EXPECT_NE(as_bf16.source.find("rounded to bf16"), std::string::npos) << as_bf16.source;
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(as_bf16.values[i], __bfloat162float(__float2bfloat16_rn(values[i])));
  }
  save_matrix_npy(path, 7, 13, values, true);  // float16: exact as half, and as float
  const HostMatrix as_half = load_matrix(path, ElementType::Half);
  const HostMatrix widened = load_matrix(path, ElementType::Float);
  EXPECT_EQ(as_half.source.find("rounded"), std::string::npos) << as_half.source;
  EXPECT_NE(widened.source.find("converted exactly"), std::string::npos) << widened.source;
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(as_half.values[i], __half2float(__float2half_rn(values[i])));
    EXPECT_EQ(widened.values[i], as_half.values[i]);
  }
  std::uint16_t bits = 0;
  std::memcpy(&bits, as_half.bytes.data() + 2 * 5, 2);
  EXPECT_EQ(bits, __half_as_ushort(__float2half_rn(values[5])));
}

// ---------------------------------------------------------------- on the GPU

TEST(RowsGpu, EveryMethodOperatorAndTypeAtAwkwardShapes) {
  REQUIRE_GPU();
  struct Shape {
    std::size_t rows, cols;
  };
  // K = 8 and 16 fill 16's rows up to 64 bytes (several rows per thread and one), K = 31,
  // 33 and 61 its longer rows (one per thread, tiles of fewer rows than threads; 61 halves
  // are the 122-byte rows with 5 spare words per 64); 1001, 4099 and 65537 rows end in a
  // part of a tile; K = 33 and 1000 give 15 groups of 4 and 16 lanes, 4097 a block in 14.
  const Shape shapes[] = {{1, 1},      {65537, 1},  {2, 3},    {3, 31},     {65537, 31}, {1001, 8},
                          {65537, 16}, {1, 33},     {65537, 33}, {4099, 61}, {3, 1000},  {1, 4097}, {3, 4097}};
  for (ElementType type : kAllTypes) {
    for (RowOp op : kAllOps) {
      for (const Shape& shape : shapes) {
        const HostMatrix m = random_rows(shape.rows, shape.cols, type, fresh_seed());
        check_every_method(m, op, 0);
        // Rows start at other alignments; for the staged kernel every tile of rows up to
        // 64 bytes then starts at that alignment too (such a tile is a multiple of 16
        // bytes long; tiles of longer rows start at every alignment anyway).
        if (shape.rows <= 3 || shape.cols <= 16 || shape.cols == 61) check_every_method(m, op, 1);
      }
    }
  }
}

// Every tested method of every program that takes the type and operator, on one matrix.
template <typename Check>
void for_every_method(const HostMatrix& m, RowOp op, std::size_t offset, Check check) {
  const DeviceInput input(m, offset);
  for (const Tested& t : tested()) {
    for (RowMethod method : t.methods) {
      if (!offered(t.program, method, op, m)) continue;
      const std::string at = where(t.program, method, op, m, offset);
      check(t.program, method, at, run_method(t.program, m, input, method, op, 0xCD));
    }
  }
}

TEST(RowsGpu, NaNAndInfinityFollowNumpy) {
  REQUIRE_GPU();
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (std::size_t cols : {1, 3, 33, 1000, 4097}) {
    // Row 0: a NaN first. Row 1: NaNs in the middle and at the end (the first wins).
    // Row 2: every value -inf. Row 3: +inf twice. Row 4: one NaN at the end.
    std::mt19937_64 random(fresh_seed());
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    auto value = [&](std::size_t i) {
      const std::size_t r = i / cols, j = i % cols;
      if (r == 0 && j == 0) return nan;
      if (r == 1 && (j == cols / 2 || j == cols - 1)) return nan;
      if (r == 2) return -inf;
      if (r == 3 && (j == cols / 3 || j == cols - 1)) return inf;
      if (r == 4 && j == cols - 1) return nan;
      return uniform(random);
    };
    for (ElementType type : kAllTypes) {
      const HostMatrix m = make_matrix(5, cols, type, value);
      for (RowOp op : kAllOps) {
        for_every_method(m, op, 0, [&](const RowsProgram& program, RowMethod method, const std::string& at,
                                       const std::vector<unsigned char>& results) {
          // CUB's DeviceSegmentedReduce::ArgMax follows its own NaN rule (cub_rows.h).
          if (method == RowMethod::CubSegmented && op == RowOp::ArgMax) return;
          EXPECT_EQ(count_wrong_rows(m, op, results, depth_of(program, method, m.rows, m.cols, type), at), 0u) << at;
        });
      }
    }
  }
}

TEST(RowsGpu, TiesGoToTheFirstColumn) {
  REQUIRE_GPU();
  for (std::size_t cols : {3, 31, 33, 1000, 4097}) {
    std::mt19937_64 random(fresh_seed());
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    // Row 0 all equal; rows 1..: the largest value 5 at three columns, in no order.
    auto value = [&](std::size_t i) {
      const std::size_t r = i / cols, j = i % cols;
      if (r == 0) return 0.5f;
      if (j == cols - 1 || j == (cols / 2 + r) % cols || j == (7 * r) % cols) return 5.0f;
      return uniform(random);
    };
    for (ElementType type : kAllTypes) {
      const HostMatrix m = make_matrix(7, cols, type, value);
      for_every_method(m, RowOp::ArgMax, 1, [&](const RowsProgram&, RowMethod, const std::string& at,
                                               const std::vector<unsigned char>& results) {
        EXPECT_EQ(count_wrong_rows(m, RowOp::ArgMax, results, 0, at), 0u) << at;
      });
    }
  }
}

// Rows with infinities for MeanVar: kind r % 5 (+inf; -inf; +inf and -inf; +inf and NaN; +inf
// twice) at position r / 5 (the first column, the last, the middle, then columns that move
// with the row), so that the infinity falls into the head, the tail, every lane, trip and
// vector position. numpy: the mean +inf, -inf, or NaN (both signs, or a NaN), the variance
// NaN. Before, a merge with an infinite mean on its left gave NaN (inf - inf) for the mean.
HostMatrix infinity_rows(std::size_t rows, std::size_t cols, ElementType type, std::uint64_t seed) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  return make_matrix(rows, cols, type, [&](std::size_t i) {
    const std::size_t r = i / cols, j = i % cols, where = r / 5;
    const std::size_t p = where == 0 ? 0 : where == 1 ? cols - 1 : where == 2 ? cols / 2 : (r * 7919 + where) % cols;
    const std::size_t q = cols - 1 - p;  // the second special value, where there is one (the same cell for K = 1)
    const float second[] = {uniform(random), uniform(random), -inf, nan, inf};
    if (j == p) return (r % 5 == 1) ? -inf : inf;
    if (j == q && q != p) return second[r % 5];
    return uniform(random);
  });
}

TEST(RowsGpu, MeanVarWithInfinitiesFollowsNumpy) {
  REQUIRE_GPU();
  for (std::size_t cols : {1, 2, 5, 8, 17, 33, 100, 1000, 4097}) {
    for (ElementType type : kAllTypes) {
      const HostMatrix m = infinity_rows(40, cols, type, fresh_seed());
      for (std::size_t offset : {0, 1}) {
        auto check = [&](const RowsProgram& program, RowMethod method, const std::string& at,
                         const std::vector<unsigned char>& results) {
          const std::size_t depth = depth_of(program, method, m.rows, m.cols, type);
          EXPECT_EQ(count_wrong_rows(m, RowOp::MeanVar, results, depth, at), 0u) << at;
        };
        for_every_method(m, RowOp::MeanVar, offset, check);
      }
    }
  }
}

TEST(RowsGpu, RowsOfNoColumnsAndNoRows) {
  REQUIRE_GPU();
  const HostMatrix empty_rows = make_matrix(3, 0, ElementType::Float, [](std::size_t) { return 0.0f; });
  for (RowOp op : kAllOps) {
    for_every_method(empty_rows, op, 0, [&](const RowsProgram&, RowMethod, const std::string& at,
                                            const std::vector<unsigned char>& results) {
      for (std::size_t r = 0; r < 3; ++r) {
        SCOPED_TRACE(at + ", row " + std::to_string(r));
        const unsigned char* slot = results.data() + r * result_bytes(op);
        float value = 1;
        cub_rows::ValueIndex pair{};
        cub_rows::MeanVariance stat{};
        std::memcpy(&value, slot, 4);
        std::memcpy(&pair, slot, op == RowOp::ArgMax ? sizeof pair : 0);
        std::memcpy(&stat, slot, op == RowOp::MeanVar ? sizeof stat : 0);
        if (op == RowOp::Sum) EXPECT_EQ(value, 0.0f);
        if (op == RowOp::Max) EXPECT_EQ(value, -std::numeric_limits<float>::infinity());
        if (op == RowOp::ArgMax) EXPECT_TRUE(pair.index == -1 && pair.value == -std::numeric_limits<float>::infinity());
        if (op == RowOp::MeanVar) EXPECT_TRUE(std::isnan(stat.mean) && std::isnan(stat.variance));
      }
    });
  }
  // No rows: success, and the output is not touched.
  DeviceBuffer<float> untouched(1);
  CUDA_CHECK(cudaMemset(untouched.get(), 0xCD, sizeof(float)));
  const float* nothing = nullptr;
  EXPECT_EQ(rows::reduce_rows<rows::Sum>(nothing, 0, 1000, untouched.get()), cudaSuccess);
  EXPECT_EQ((row_stats::reduce_rows<float, row_stats::Sum>(nothing, 0, 1000, untouched.get())), cudaSuccess);
  EXPECT_EQ((lane_groups::reduce_rows<float, lane_groups::Sum>(nothing, 0, 100, untouched.get())), cudaSuccess);
  EXPECT_EQ((short_rows::reduce_rows<float, short_rows::Sum>(nothing, 0, 10, untouched.get())), cudaSuccess);
  EXPECT_EQ((cub_rows::collective_reduce<float, cub_rows::Sum>(nothing, 0, 1000, untouched.get())), cudaSuccess);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::uint32_t bits = 0;
  CUDA_CHECK(cudaMemcpy(&bits, untouched.get(), 4, cudaMemcpyDeviceToHost));
  EXPECT_EQ(bits, 0xCDCDCDCDu);
}

// A pattern whose every row differs: the largest value, 2, at column (7919 r) mod K; the
// others 0.25 * (r mod 3). Its sums are multiples of 0.25 below 2^10: exact in float.
__host__ __device__ std::size_t peak_column(std::size_t row, std::size_t cols) { return (row * 7919) % cols; }
__host__ __device__ float pattern(std::size_t row, std::size_t col, std::size_t cols) {
  return col == peak_column(row, cols) ? 2.0f : 0.25f * float(row % 3);
}

__global__ void fill_pattern(__nv_bfloat16* x, std::size_t rows, std::size_t cols) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < rows * cols; i += stride) {
    x[i] = __float2bfloat16(pattern(i / cols, i % cols, cols));
  }
}

// Counts the rows whose sum or argmax differs from the pattern's (on the device: there may
// be more rows than the host wants to copy).
__global__ void count_wrong(const float* sums, const cub_rows::ValueIndex* pairs, std::size_t rows, std::size_t cols,
                            unsigned long long* wrong, unsigned long long* first) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t r = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; r < rows; r += stride) {
    const float expected = 2.0f + float(cols - 1) * 0.25f * float(r % 3);  // exact in float
    const bool sum_ok = sums[r] == expected;
    const bool pair_ok = pairs == nullptr || (pairs[r].value == 2.0f && pairs[r].index == int(peak_column(r, cols)));
    if (!sum_ok || !pair_ok) {
      atomicAdd(wrong, 1ull);
      atomicMin(first, static_cast<unsigned long long>(r));
    }
  }
}

// Runs the sum (and argmax, where pairs is given) of `method` over the pattern on the
// device and returns "" or what was wrong.
std::string pattern_check(const RowsProgram& program, RowMethod method, const __nv_bfloat16* input, std::size_t rows,
                          std::size_t cols, float* sums, cub_rows::ValueIndex* pairs) {
  CUDA_CHECK(cudaMemset(sums, 0xCD, rows * sizeof(float)));
  const RowLaunch sum = launcher_of(program, method, ElementType::BFloat16, RowOp::Sum);
  CUDA_CHECK(sum.launch(input, rows, cols, sums, nullptr, 0, nullptr));
  if (pairs) {
    CUDA_CHECK(cudaMemset(pairs, 0xCD, rows * sizeof *pairs));
    const RowLaunch argmax = launcher_of(program, method, ElementType::BFloat16, RowOp::ArgMax);
    CUDA_CHECK(argmax.launch(input, rows, cols, pairs, nullptr, 0, nullptr));
  }
  DeviceBuffer<unsigned long long> counts(2);
  const unsigned long long start[2] = {0, ~0ull};
  CUDA_CHECK(cudaMemcpy(counts.get(), start, sizeof start, cudaMemcpyHostToDevice));
  count_wrong<<<1024, 256>>>(sums, pairs, rows, cols, counts.get(), counts.get() + 1);
  CUDA_CHECK_LAUNCH();
  unsigned long long found[2] = {0, 0};
  CUDA_CHECK(cudaMemcpy(found, counts.get(), sizeof found, cudaMemcpyDeviceToHost));
  if (found[0] == 0) return "";
  return std::to_string(found[0]) + " wrong rows, the first " + std::to_string(found[1]);
}

bool enough_memory(std::size_t bytes) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes >= bytes + (std::size_t(1) << 30);
}

TEST(RowsGpu, IndicesPast2To31) {
  REQUIRE_GPU();
  const std::size_t row_count = (std::size_t(1) << 20) + 1, col_count = 2049;  // 2^31 + 1,051,137 elements
  const std::size_t bytes = row_count * col_count * sizeof(__nv_bfloat16);      // 4.3 GB
  if (!enough_memory(bytes + row_count * (sizeof(float) + sizeof(cub_rows::ValueIndex)))) {
    GTEST_SKIP() << "needs " << (bytes >> 20) << " MiB of free device memory and 1 GiB more";
  }
  DeviceBuffer<__nv_bfloat16> input(row_count * col_count);
  fill_pattern<<<1024, 256>>>(input.get(), row_count, col_count);
  CUDA_CHECK_LAUNCH();
  DeviceBuffer<float> sums(row_count);
  DeviceBuffer<cub_rows::ValueIndex> pairs(row_count);
  for (const Tested& t : tested()) {
    for (RowMethod method : t.methods) {
      if (!refusal(t.program, method, RowOp::Sum, row_count, col_count, ElementType::BFloat16).empty()) continue;
      if (method == RowMethod::CubSegmented) continue;  // int offsets: fewer than 2^31 elements
      SCOPED_TRACE(t.program.id + " " + method_name(method) + ": " +
                   describe_of(t.program, method, row_count, col_count, ElementType::BFloat16));
      EXPECT_EQ(pattern_check(t.program, method, input.get(), row_count, col_count, sums.get(), pairs.get()), "");
    }
  }
}

// 16's staged kernel with more than 2^32 rows (one bf16 each): tiles start past 2^32 rows,
// so the first row of a tile must be computed in 64 bits. 8 GiB of input, 16 GiB of sums.
TEST(RowsGpu, MoreThan2To32ShortRows) {
  REQUIRE_GPU();
  const std::size_t row_count = (std::size_t(1) << 32) + 3, col_count = 1;
  const std::size_t bytes = row_count * sizeof(__nv_bfloat16) + row_count * sizeof(float);
  if (!enough_memory(bytes)) GTEST_SKIP() << "needs " << (bytes >> 20) << " MiB of free device memory and 1 GiB more";
  DeviceBuffer<__nv_bfloat16> input(row_count);
  fill_pattern<<<4096, 256>>>(input.get(), row_count, col_count);
  CUDA_CHECK_LAUNCH();
  DeviceBuffer<float> sums(row_count);
  const RowsProgram& program = last_program();
  ASSERT_NE(describe_of(program, RowMethod::Auto, row_count, col_count, ElementType::BFloat16).find("staged"),
            std::string::npos);
  EXPECT_EQ(pattern_check(program, RowMethod::Thread, input.get(), row_count, col_count, sums.get(), nullptr), "");
  float last[3] = {};
  CUDA_CHECK(cudaMemcpy(last, sums.get() + row_count - 3, sizeof last, cudaMemcpyDeviceToHost));
  for (std::size_t k = 0; k < 3; ++k) EXPECT_EQ(last[k], 2.0f) << "row " << row_count - 3 + k;  // K = 1: the peak
}

// ---------------------------------------------------------------- 18: a row over several blocks

// split_rows::reduce_rows for a type and operator given at run time, with a plan and scratch given.
cudaError_t split_launch(ElementType type, RowOp op, const void* input, std::size_t rows, std::size_t cols,
                         void* output, void* scratch, std::size_t scratch_bytes, split_rows::Plan plan) {
  return by_element_type(type, [&](auto tag) {
    using In = typename decltype(tag)::type;
    const In* in = static_cast<const In*>(input);
    switch (op) {
      case RowOp::Sum:
        return split_rows::reduce_rows<In, split_rows::Sum>(in, rows, cols, static_cast<float*>(output), scratch,
                                                            scratch_bytes, plan);
      case RowOp::Max:
        return split_rows::reduce_rows<In, split_rows::Max>(in, rows, cols, static_cast<float*>(output), scratch,
                                                            scratch_bytes, plan);
      case RowOp::ArgMax:
        return split_rows::reduce_rows<In, split_rows::ArgMax>(
            in, rows, cols, static_cast<split_rows::ValueIndex*>(output), scratch, scratch_bytes, plan);
      default:
        return split_rows::reduce_rows<In, split_rows::MeanVar>(
            in, rows, cols, static_cast<split_rows::MeanVariance*>(output), scratch, scratch_bytes, plan);
    }
  });
}

// Plans the device's rule would not pick at these shapes: 1 to 1000 blocks per row (more
// blocks than vectors too), at M = 1, 2, 3, 7, every operator and type, the input at two
// alignments, against the reference. One scratch serves every call of a shape (the same rows):
// each call must leave its tickets at 0 for the next, and a second run with another poison
// must give the same bits.
TEST(SplitRows, EveryPlanOperatorAndTypeAtAwkwardShapes) {
  REQUIRE_GPU();
  const std::size_t shapes[][2] = {{1, 5}, {2, 33}, {3, 4097}, {7, 65539}, {1, 1048583}};
  const unsigned plans[] = {1, 2, 3, 7, 64, 1000};
  for (const auto& shape : shapes) {
    DeviceBuffer<unsigned char> scratch(split_rows::scratch_bytes(shape[0], {1000}));
    CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
    for (ElementType type : kAllTypes) {
      const HostMatrix m = random_rows(shape[0], shape[1], type, fresh_seed());
      for (std::size_t offset : {0, 1}) {
        const DeviceInput input(m, offset);
        for (RowOp op : kAllOps) {
          DeviceBuffer<unsigned char> output(m.rows * result_bytes(op));
          for (unsigned blocks : plans) {
            const std::string at = "split_rows " + std::to_string(blocks) + " blocks per row, --op " + op_name(op) +
                                   " --type " + element_name(type) + " " + std::to_string(m.rows) + " x " +
                                   std::to_string(m.cols) + (offset ? " (input 1 element past alignment)" : "");
            std::vector<unsigned char> runs[2];
            for (int run = 0; run < 2; ++run) {
              CUDA_CHECK(cudaMemset(output.get(), run ? 0xAB : 0xCD, output.bytes()));
              CUDA_CHECK(split_launch(type, op, input.data(), m.rows, m.cols, output.get(), scratch.get(),
                                      scratch.bytes(), {blocks}));
              CUDA_CHECK(cudaDeviceSynchronize());
              runs[run].resize(output.bytes());
              CUDA_CHECK(cudaMemcpy(runs[run].data(), output.get(), output.bytes(), cudaMemcpyDeviceToHost));
            }
            const std::size_t depth = lanes_depth(m.cols, type, 256, true) + (blocks + 255) / 256 + 10;
            EXPECT_EQ(count_wrong_rows(m, op, runs[0], depth, at), 0u) << at;
            EXPECT_TRUE(runs[0] == runs[1]) << at << ": a second run wrote another result";
          }
        }
      }
    }
    std::vector<unsigned> tickets(shape[0]);
    CUDA_CHECK(cudaMemcpy(tickets.data(), scratch.get(), sizeof(unsigned) * shape[0], cudaMemcpyDeviceToHost));
    EXPECT_EQ(tickets, std::vector<unsigned>(shape[0], 0u)) << "the tickets are back at 0 after the last call";
  }
}

// NaN and ties where a row is split: the first NaN and the first of equal maxima may lie in
// any piece. The device's own plan (18's auto) at M = 1, 2, 3 with rows of 2^20 + 3.
TEST(SplitRows, NaNAndTiesAcrossPieces) {
  REQUIRE_GPU();
  const std::size_t cols = (std::size_t(1) << 20) + 3;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::size_t rows : {1, 2, 3}) {
    std::mt19937_64 random(fresh_seed());
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    // Row 0: 5 at three columns in three pieces (the first wins). Row 1: NaN late, then
    // early (the first NaN wins). Row 2: an infinity.
    auto value = [&](std::size_t i) {
      const std::size_t r = i / cols, j = i % cols;
      if (r == 0 && (j == cols - 2 || j == cols / 2 + 7 || j == 300007)) return 5.0f;
      if (r == 1 && (j == cols - 1 || j == 700001)) return nan;
      if (r == 2 && j == 12345) return std::numeric_limits<float>::infinity();
      return uniform(random);
    };
    const RowsProgram program = split_rows_program();
    for (ElementType type : kAllTypes) {
      const HostMatrix m = make_matrix(rows, cols, type, value);
      ASSERT_NE(describe_of(program, RowMethod::Auto, rows, cols, type).find("blocks of 256 threads per row"),
                std::string::npos);
      const DeviceInput input(m, 1);
      for (RowOp op : kAllOps) {
        const std::string at = where(program, RowMethod::Auto, op, m, 1);
        const std::vector<unsigned char> results = run_method(program, m, input, RowMethod::Auto, op, 0xCD);
        EXPECT_EQ(count_wrong_rows(m, op, results, depth_of(program, RowMethod::Auto, rows, cols, type), at), 0u) << at;
      }
    }
  }
}

// MeanVar with infinities where a row is split: the infinity in the first piece (column 0), the
// last (K - 1) or one between (K / 2), with plans of 2 to 64 blocks per row (infinity_rows).
TEST(SplitRows, MeanVarWithInfinitiesAcrossPieces) {
  REQUIRE_GPU();
  const std::size_t rows = 15, cols = 65539;
  const unsigned plans[] = {1, 2, 3, 7, 64};
  DeviceBuffer<unsigned char> scratch(split_rows::scratch_bytes(rows, {64}));
  CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
  for (ElementType type : kAllTypes) {
    const HostMatrix m = infinity_rows(rows, cols, type, fresh_seed());
    const DeviceInput input(m, 1);
    DeviceBuffer<unsigned char> output(rows * result_bytes(RowOp::MeanVar));
    for (unsigned blocks : plans) {
      const std::string at = "split_rows " + std::to_string(blocks) + " blocks per row, --op meanvar --type " +
                             element_name(type) + " " + std::to_string(rows) + " x " + std::to_string(cols);
      CUDA_CHECK(cudaMemset(output.get(), 0xCD, output.bytes()));
      CUDA_CHECK(split_launch(type, RowOp::MeanVar, input.data(), rows, cols, output.get(), scratch.get(),
                              scratch.bytes(), {blocks}));
      CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<unsigned char> results(output.bytes());
      CUDA_CHECK(cudaMemcpy(results.data(), output.get(), results.size(), cudaMemcpyDeviceToHost));
      const std::size_t depth = lanes_depth(cols, type, 256, true) + (blocks + 255) / 256 + 10;
      EXPECT_EQ(count_wrong_rows(m, RowOp::MeanVar, results, depth, at), 0u) << at;
    }
  }
}

// Element i is (i mod 7) - 3: every partial sum of a row is a small integer, exact in float.
__global__ void fill_small_integers(float* x, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    x[i] = float(int(i % 7) - 3);
  }
}

// Runs split_rows's float sum of `rows` x `cols` small integers (fill_small_integers) with `plan`
// and scratch of `bytes`, the output poisoned first; returns the status and leaves the sums in `sums`.
cudaError_t split_sums(const float* input, std::size_t rows, std::size_t cols, split_rows::Plan plan, void* scratch,
                       std::size_t bytes, std::vector<float>& sums) {
  DeviceBuffer<float> output(rows);
  CUDA_CHECK(cudaMemset(output.get(), 0xCD, output.bytes()));
  const cudaError_t status =
      split_rows::reduce_rows<float, split_rows::Sum>(input, rows, cols, output.get(), scratch, bytes, plan);
  CUDA_CHECK(cudaDeviceSynchronize());
  sums.resize(rows);
  CUDA_CHECK(cudaMemcpy(sums.data(), output.get(), output.bytes(), cudaMemcpyDeviceToHost));
  return status;
}

// The exact row sums of fill_small_integers' matrix.
std::vector<float> small_integer_sums(std::size_t rows, std::size_t cols) {
  std::vector<float> sums(rows, 0.0f);
  for (std::size_t r = 0; r < rows; ++r) {
    long long sum = 0;
    for (std::size_t i = r * cols; i < (r + 1) * cols; ++i) sum += static_cast<long long>(i % 7) - 3;
    sums[r] = float(sum);
  }
  return sums;
}

// 18's scratch, in CUB's convention: a call is told the scratch's size and refuses, before any
// launch, a scratch too small for its plan (issue 41: a scratch sized for M = 4, K = 2^16 floats
// and reused at M = 4, K = 2^24 received 4 x 264 states on an H100 where it had room for 4 x 4).
// The device's own plans; nothing is written, neither the results nor the scratch.
TEST(SplitRows, RefusesScratchSizedForASmallerPlan) {
  REQUIRE_GPU();
  const std::size_t rows = 4, short_cols = std::size_t(1) << 16, long_cols = std::size_t(1) << 24;
  split_rows::Plan small{}, large{};
  CUDA_CHECK((split_rows::default_plan<float, split_rows::Sum>(rows, short_cols, &small)));
  CUDA_CHECK((split_rows::default_plan<float, split_rows::Sum>(rows, long_cols, &large)));
  ASSERT_GT(small.blocks_per_row, 1u);
  ASSERT_GT(large.blocks_per_row, small.blocks_per_row);
  const std::size_t small_bytes = split_rows::scratch_bytes(rows, small);
  const std::size_t large_bytes = split_rows::scratch_bytes(rows, large);
  ASSERT_LT(small_bytes, large_bytes);
  if (!enough_memory(rows * long_cols * sizeof(float))) GTEST_SKIP() << "needs 256 MiB of device memory and 1 GiB more";
  DeviceBuffer<float> input(rows * long_cols);
  fill_small_integers<<<1024, 256>>>(input.get(), input.bytes() / sizeof(float));
  CUDA_CHECK_LAUNCH();
  DeviceBuffer<unsigned char> scratch(large_bytes);  // room enough: each call is told less
  CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
  std::vector<float> sums;
  for (std::size_t told : {small_bytes, large_bytes - 1, std::size_t(0)}) {
    SCOPED_TRACE("a plan of " + std::to_string(large.blocks_per_row) + " blocks per row, which needs " +
                 std::to_string(large_bytes) + " bytes, told " + std::to_string(told));
    EXPECT_EQ(split_sums(input.get(), rows, long_cols, large, scratch.get(), told, sums), cudaErrorInvalidValue);
    std::uint32_t bits[rows] = {};
    std::memcpy(bits, sums.data(), sizeof bits);
    for (std::uint32_t b : bits) EXPECT_EQ(b, 0xCDCDCDCDu) << "a refused call wrote a result";
  }
  std::vector<unsigned char> after(scratch.bytes());
  CUDA_CHECK(cudaMemcpy(after.data(), scratch.get(), after.size(), cudaMemcpyDeviceToHost));
  EXPECT_EQ(after, std::vector<unsigned char>(after.size(), 0)) << "a refused call wrote to the scratch";
  // Told the size it needs, the same call runs.
  EXPECT_EQ(split_sums(input.get(), rows, long_cols, large, scratch.get(), large_bytes, sums), cudaSuccess);
  EXPECT_EQ(sums, small_integer_sums(rows, long_cols));
}

// The legal reuse: a scratch sized for the larger plan (M = 4, K = 2^24) serves calls with the
// smaller one (M = 4, K = 2^16) and with the larger one in turn, on the same rows, each call
// leaving its tickets at 0 for the next. Small enough to run under compute-sanitizer.
TEST(SplitRows, ScratchForALargerPlanServesASmallerOne) {
  REQUIRE_GPU();
  const std::size_t rows = 4, cols = std::size_t(1) << 16;
  split_rows::Plan small{}, large{};
  CUDA_CHECK((split_rows::default_plan<float, split_rows::Sum>(rows, cols, &small)));
  CUDA_CHECK((split_rows::default_plan<float, split_rows::Sum>(rows, std::size_t(1) << 24, &large)));
  ASSERT_GT(small.blocks_per_row, 1u);
  ASSERT_GT(large.blocks_per_row, small.blocks_per_row);
  DeviceBuffer<float> input(rows * cols);
  fill_small_integers<<<256, 256>>>(input.get(), rows * cols);
  CUDA_CHECK_LAUNCH();
  DeviceBuffer<unsigned char> scratch(split_rows::scratch_bytes(rows, large));
  CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));  // once
  const std::vector<float> exact = small_integer_sums(rows, cols);
  std::vector<float> sums;
  for (const split_rows::Plan plan : {small, large, small, small}) {
    SCOPED_TRACE(std::to_string(plan.blocks_per_row) + " blocks per row in a scratch of " +
                 std::to_string(scratch.bytes()) + " bytes");
    EXPECT_EQ(split_sums(input.get(), rows, cols, plan, scratch.get(), scratch.bytes(), sums), cudaSuccess);
    EXPECT_EQ(sums, exact);
  }
  std::vector<unsigned> tickets(rows);
  CUDA_CHECK(cudaMemcpy(tickets.data(), scratch.get(), sizeof(unsigned) * rows, cudaMemcpyDeviceToHost));
  EXPECT_EQ(tickets, std::vector<unsigned>(rows, 0u)) << "the tickets are back at 0 after the last call";
}

// ---------------------------------------------------------------- the whole rule as one typed call

// One spelling of the result types in 14, 15, 16 and 18, so that one output pointer serves every
// unit: the whole rule that 16's and 18's READMEs print type-checks only so (tests/copy_test.py
// builds it and runs it on a GPU).
static_assert(std::is_same_v<row_stats::ValueIndex, lane_groups::ValueIndex> &&
              std::is_same_v<row_stats::ValueIndex, short_rows::ValueIndex> &&
              std::is_same_v<row_stats::ValueIndex, split_rows::ValueIndex>);
static_assert(std::is_same_v<row_stats::MeanVariance, lane_groups::MeanVariance> &&
              std::is_same_v<row_stats::MeanVariance, short_rows::MeanVariance> &&
              std::is_same_v<row_stats::MeanVariance, split_rows::MeanVariance>);

// One row of 2^31 + 5 bf16 (4 GiB), and two rows of 2^30 + 3 (past 2^31 in all, so that the
// second row's offset needs 64 bits): zeros but for a few values, so that each sum is exact.
TEST(SplitRows, RowsPast2To31Elements) {
  REQUIRE_GPU();
  const RowsProgram program = split_rows_program();
  struct Case {
    std::size_t rows, cols;
  };
  for (const Case c : {Case{1, (std::size_t(1) << 31) + 5}, Case{2, (std::size_t(1) << 30) + 3}}) {
    const std::size_t n = c.rows * c.cols;
    if (!enough_memory(n * sizeof(__nv_bfloat16))) GTEST_SKIP() << "needs " << (n >> 19) << " MiB of device memory";
    DeviceBuffer<__nv_bfloat16> input(n);
    CUDA_CHECK(cudaMemset(input.get(), 0, n * sizeof(__nv_bfloat16)));
    // Row r holds 1, 2, 4 and 8 at its columns 0, K/2 - 1, K - 7 and K - 1 (8 the largest, the
    // last column), times r + 1: sum 15 (r + 1), max and argmax 8 (r + 1) at K - 1.
    for (std::size_t r = 0; r < c.rows; ++r) {
      const std::size_t columns[] = {0, c.cols / 2 - 1, c.cols - 7, c.cols - 1};
      for (int k = 0; k < 4; ++k) {
        const __nv_bfloat16 x = __float2bfloat16(float(1 << k) * float(r + 1));
        CUDA_CHECK(cudaMemcpy(input.get() + r * c.cols + columns[k], &x, sizeof x, cudaMemcpyHostToDevice));
      }
    }
    for (RowOp op : {RowOp::Sum, RowOp::Max, RowOp::ArgMax}) {
      if (!refusal(program, RowMethod::Auto, op, c.rows, c.cols, ElementType::BFloat16).empty()) continue;
      const RowLaunch launch = launcher_of(program, RowMethod::Auto, ElementType::BFloat16, op);
      std::size_t bytes = 0;
      CUDA_CHECK(launch.temp_bytes_for(c.rows, c.cols, &bytes));
      DeviceBuffer<unsigned char> scratch(bytes), output(c.rows * result_bytes(op));
      if (bytes) CUDA_CHECK(cudaMemset(scratch.get(), 0, bytes));
      CUDA_CHECK(cudaMemset(output.get(), 0xCD, output.bytes()));
      CUDA_CHECK(launch.launch(input.get(), c.rows, c.cols, output.get(), scratch.get(), bytes, nullptr));
      CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<unsigned char> results(output.bytes());
      CUDA_CHECK(cudaMemcpy(results.data(), output.get(), results.size(), cudaMemcpyDeviceToHost));
      for (std::size_t r = 0; r < c.rows; ++r) {
        SCOPED_TRACE(std::string(op_name(op)) + ", " + std::to_string(c.rows) + " x " + std::to_string(c.cols) +
                     ", row " + std::to_string(r));
        float value = 0;
        std::memcpy(&value, results.data() + r * result_bytes(op), 4);
        EXPECT_EQ(value, float((op == RowOp::Sum ? 15 : 8) * (r + 1)));
        if (op == RowOp::ArgMax) {
          std::int32_t index = 0;
          std::memcpy(&index, results.data() + r * result_bytes(op) + 4, 4);
          EXPECT_EQ(std::size_t(index), c.cols - 1);
        }
      }
    }
  }
}

// ---------------------------------------------------------------- the programs' command lines

void expect_usage_error(const std::string& program, const std::string& args, const std::string& message) {
  const ProgramRun run = run_program(program, args);
  EXPECT_EQ(run.exit_code, 2) << program << " " << args << "\n" << run.output;
  EXPECT_NE(run.output.find(message), std::string::npos)
      << program << " " << args << ": expected the message to mention '" << message << "', got:\n" << run.output;
}

// A .npy file with the given header dictionary and data bytes.
std::string write_npy(const std::string& name, const std::string& dict, std::size_t data_bytes) {
  const std::string path = ::testing::TempDir() + name;
  std::string header = dict;
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xFF),
                                static_cast<unsigned char>(header.size() >> 8)};
  out.write(reinterpret_cast<const char*>(len), 2);
  out << header << std::string(data_bytes, '\0');
  return path;
}

TEST(RowsProgram, HelpAndBadUsageExitBeforeTheDevice) {
  for (const Tested& t : tested()) {
    const std::string& id = t.program.id;
    const ProgramRun help = run_program(id, "--help");
    EXPECT_EQ(help.exit_code, 0) << help.output;
    EXPECT_NE(help.output.find("usage: " + id), std::string::npos) << help.output;
    for (const char* flag : {"--rows", "--cols", "--method", "--op", "--sweep", "--no-flush", "--json", "--input"}) {
      EXPECT_NE(help.output.find(flag), std::string::npos) << id << " " << flag;
    }
    expect_usage_error(id, "--frobnicate", "unknown option '--frobnicate'");
    expect_usage_error(id, "--rows", "--rows needs a value");
    expect_usage_error(id, "--cols 12abc", "--cols expects a whole number");
    expect_usage_error(id, "--rows 2^41 --cols 1", "--rows 2^41 is too large");
    expect_usage_error(id, "--rows 2^30 --cols 2^20", "is more than 2^40 elements");
    expect_usage_error(id, "--type double", "--type expects " + std::string(id == "13_rows" ? "float" : "float|half|bf16"));
    expect_usage_error(id, "--op min", "--op expects sum|max");
    expect_usage_error(id, "--method fast", "--method expects");
    expect_usage_error(id, "--reps 0", "--reps must be at least 1");
    expect_usage_error(id, "--rows 3 --rows 4", "--rows given twice");
    expect_usage_error(id, "--n 1000", "--n does not apply");
    expect_usage_error(id, "--out /tmp", "--out applies to --sweep only");
    expect_usage_error(id, "--sweep --json", "--json does not apply to --sweep");
    expect_usage_error(id, "--sweep --cols 8", "--sweep sets M and K itself");
    expect_usage_error(id, "--cols 8 --input x.npy", "--cols and --input both given");
    expect_usage_error(id, "--method cub_segmented --rows 5 --cols 0", "needs --cols of at least 1");
    expect_usage_error(id, "--input /nonexistent/m.npy", "cannot open input file '/nonexistent/m.npy'");
  }
  expect_usage_error("13_rows", "--type bf16", "--type expects float in 13_rows");
  expect_usage_error("13_rows", "--op argmax", "--op expects sum|max in 13_rows");
  expect_usage_error("13_rows", "--method group", "--method expects auto|warp|block|cub_segmented|cub_block");
  expect_usage_error("14_row_stats", "--method cub_segmented --op meanvar", "does not offer --op meanvar");
  expect_usage_error("14_row_stats", "--method cub_segmented --op argmax --rows 2^20 --cols 2^11",
                     "fewer than 2^31 elements");
  expect_usage_error("14_row_stats", "--method previous --type bf16", "does not offer --op sum --type bf16");
  expect_usage_error("15_lane_groups", "--method block", "--method expects auto|group|warp|previous");
  expect_usage_error("16_short_rows", "--method thread --cols 33", "--method thread takes rows of at most 128 bytes");
  expect_usage_error("16_short_rows", "--method split", "--method expects thread|group|warp|block|auto|cub_segmented");
  // 18's single_pass is 09's sum of one array: one row, float, the sum.
  expect_usage_error("18_split_rows", "--method single_pass --rows 3 --cols 100", "it takes --rows 1");
  expect_usage_error("18_split_rows", "--method single_pass --rows 1 --cols 100 --op max", "does not offer --op max");
  expect_usage_error("18_split_rows", "--method single_pass --rows 1 --cols 100 --type bf16",
                     "does not offer --op sum --type bf16");
}

TEST(RowsProgram, BadNpyFilesExitTwo) {
  const std::string id = last_program().id;
  const std::string one_d = write_npy("rows_1d.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (12,), }", 48);
  expect_usage_error(id, "--input " + one_d, "expects a 2-D array (M, K)");
  const std::string ints = write_npy("rows_ints.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (3, 4), }", 48);
  expect_usage_error(id, "--input " + ints, "holds dtype '<i4'");
  const std::string fortran =
      write_npy("rows_fortran.npy", "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 4), }", 48);
  expect_usage_error(id, "--input " + fortran, "Fortran-ordered arrays are not supported");
  const std::string big = write_npy("rows_big.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (3, 4), }", 48);
  expect_usage_error(id, "--input " + big, "big-endian");
  const std::string shortened =
      write_npy("rows_short.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", 47);
  expect_usage_error(id, "--input " + shortened, ".npy data truncated");
  const std::string raw = ::testing::TempDir() + "rows_raw.bin";
  std::ofstream(raw, std::ios::binary) << std::string(48, '\0');
  expect_usage_error(id, "--input " + raw, "not a .npy file");
}

TEST(RowsProgram, WithoutADeviceExitsThree) {
  for (const Tested& t : tested()) {
    const ProgramRun run = run_program(t.program.id, "--rows 100 --cols 10", "CUDA_VISIBLE_DEVICES= ");
    EXPECT_EQ(run.exit_code, 3) << run.output;
    EXPECT_NE(run.output.find("no CUDA device"), std::string::npos) << run.output;
  }
}

TEST(RowsProgramGpu, EveryMethodVerifiesAndPrintsJson) {
  REQUIRE_GPU();
  for (const Tested& t : tested()) {
    for (RowMethod method : methods_of(t.program)) {
      for (const char* op : {"sum", "argmax", "meanvar"}) {
        const RowOp row_op = op[0] == 's' ? RowOp::Sum : op[0] == 'a' ? RowOp::ArgMax : RowOp::MeanVar;
        const char* type = t.program.id == "13_rows" ? "float" : "bf16";
        if (std::find(t.program.ops.begin(), t.program.ops.end(), row_op) == t.program.ops.end()) continue;
        if (!refusal(t.program, method, row_op, 1001, 33,
                     t.program.id == "13_rows" ? ElementType::Float : ElementType::BFloat16)
                 .empty()) {
          continue;
        }
        const std::string args = std::string("--rows 1001 --cols 33 --reps 2 --json --type ") + type + " --method " +
                                 method_name(method) + " --op " + op;
        const ProgramRun run = run_program(t.program.id, args);
        EXPECT_EQ(run.exit_code, 0) << t.program.id << " " << args << "\n" << run.output;
        for (const std::string& key : {"\"chapter\": \"" + t.program.id + "\"", std::string("\"rows\": 1001"),
                                      std::string("\"cols\": 33"), std::string("\"ok\": true"),
                                      std::string("\"wrong_rows\": 0"), std::string("\"median_ms\": "),
                                      std::string("\"percent_of_floor\": "), std::string("\"plan\": ")}) {
          EXPECT_NE(run.output.find(key), std::string::npos) << args << ": no " << key << " in\n" << run.output;
        }
      }
    }
  }
  const ProgramRun report = run_program("13_rows", "--rows 3 --cols 4097 --op max --reps 2");
  EXPECT_EQ(report.exit_code, 0) << report.output;
  for (const char* line : {"device ", "input ", "method ", "check ", "time ", "floor "}) {
    EXPECT_NE(report.output.find(line), std::string::npos) << report.output;
  }
}

TEST(RowsProgramGpu, ReducesTheReadersNpyFile) {
  REQUIRE_GPU();
  std::mt19937_64 random(fresh_seed());
  std::uniform_real_distribution<float> uniform(-4.0f, 4.0f);
  std::vector<float> values(517 * 45);
  for (float& v : values) v = uniform(random);
  const std::string path = ::testing::TempDir() + "rows_input.npy";
  for (bool float16 : {false, true}) {
    save_matrix_npy(path, 517, 45, values, float16);
    for (const char* type : {"float", "half", "bf16"}) {
      const std::string args = std::string("--input ") + path + " --type " + type + " --op meanvar --reps 2 --json";
      const ProgramRun run = run_program(last_program().id, args);
      EXPECT_EQ(run.exit_code, 0) << args << "\n" << run.output;
      EXPECT_NE(run.output.find("\"rows\": 517, \"cols\": 45"), std::string::npos) << run.output;
      EXPECT_NE(run.output.find("\"ok\": true"), std::string::npos) << run.output;
    }
  }
}

}  // namespace
}  // namespace reduction::testing
