// Every chapter (its own kernel, not the pitfall variants) against the CPU reference:
// every type, awkward sizes, every block size and grid the chapter accepts from the
// lists below, fresh random data for each size, a poisoned result before each run,
// and each launcher called twice on the same scratch (it must leave it reusable).
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <tuple>

#include "gpu_test.h"
#include "harness.h"
#include "random.h"
#include "reference.h"

namespace reduction::testing {
namespace {

const std::vector<std::size_t> kSizes = {0,    1,     2,     3,     31,   32,   33,
                                         255,  256,   257,   1000,  4097, 65537, (std::size_t(1) << 20) + 13,
                                         std::size_t(1) << 24};
// Powers of two for every chapter; the others only where the chapter accepts them (05 on).
const std::vector<int> kBlocks = {32, 128, 512, 1024, 96, 100, 270, 1000};
// 0 is the chapter's default (read off the device); the others are small and odd.
const std::vector<int> kGrids = {0, 1, 3, 270};

std::string type_name(DType t) { return dtype_name(t); }

struct Shape {
  int block, grid;
};

// The shapes of `v` to test: every listed block and grid that its check_shape accepts.
std::vector<Shape> shapes_for(const Variant& v) {
  std::vector<Shape> shapes;
  for (int block : kBlocks) {
    if (!v.check_shape(block, 0).empty()) continue;
    for (int grid : kGrids) {
      if (grid && !v.check_shape(block, grid).empty()) continue;
      shapes.push_back({block, grid});
    }
  }
  if (shapes.empty()) shapes.push_back({0, 0});  // a chapter that picks its own shape (CUB)
  return shapes;
}

class ChapterTest : public ::testing::TestWithParam<std::tuple<int, DType>> {};

template <typename T>
void check_chapter(const Variant& v, const DeviceInfo& device) {
  for (std::size_t n : kSizes) {
    const std::uint64_t seed = fresh_seed();
    const std::vector<T> host = generate_input<T>(n, seed);
    const Reference ref = cpu_reference(host.data(), n);
    DeviceBuffer<T> input(n), pristine(n), result(1);
    if (n) {
      CUDA_CHECK(cudaMemcpy(pristine.get(), host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemcpy(input.get(), host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    }
    for (Shape s : shapes_for(v)) {
      int block = s.block, grid = s.grid;
      resolve_shape(v, n, device.sm_count, block, grid);
      DeviceBuffer<unsigned char> scratch(v.scratch_bytes(n, block, grid));
      if (scratch.bytes()) CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
      const std::size_t chain = v.chain_length(n, block, grid);
      for (unsigned char poison : {0xCD, 0xAB}) {  // twice: the second call reuses the scratch
        const T got = run_launcher<T>(v, Op::Sum, input.get(), pristine.get(), n, block, grid, scratch.get(),
                                      result.get(), poison);
        const Verdict verdict = verify(got, ref, chain);
        EXPECT_TRUE(verdict.ok) << v.label() << " n=" << n << " block=" << block << " grid=" << grid
                                << " seed=" << seed << ": got " << format_value(got) << ", expected "
                                << format_value(ref.value) << " (error " << verdict.error << ", tolerance "
                                << verdict.tolerance << ") " << verdict.note;
      }
    }
  }
  // Floats made of small integers: every order of additions is exact, so the result
  // must equal the exact sum bit for bit (this catches a dropped or doubled element
  // that a float tolerance could hide).
  if constexpr (!std::is_same_v<T, int>) {
    for (std::size_t n : kSizes) {
      if (exact_magnitude<T>(n) < 1) continue;
      const std::uint64_t seed = fresh_seed();
      const std::vector<T> host = generate_input<T>(n, seed, true);
      const Reference ref = cpu_reference(host.data(), n);
      DeviceBuffer<T> input(n), pristine(n), result(1);
      if (n) {
        CUDA_CHECK(cudaMemcpy(pristine.get(), host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(input.get(), host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
      }
      int block = 0, grid = 0;
      resolve_shape(v, n, device.sm_count, block, grid);
      DeviceBuffer<unsigned char> scratch(v.scratch_bytes(n, block, grid));
      if (scratch.bytes()) CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
      const T got = run_launcher<T>(v, Op::Sum, input.get(), pristine.get(), n, block, grid, scratch.get(),
                                    result.get(), 0xCD);
      EXPECT_EQ(static_cast<double>(got), ref.value) << v.label() << " exact data, n=" << n << " seed=" << seed;
    }
  }
}

TEST_P(ChapterTest, MatchesReferenceAtAwkwardSizes) {
  REQUIRE_GPU();
  const Variant& v = chapters()[std::get<0>(GetParam())].main();
  const DeviceInfo device = query_device();
  switch (std::get<1>(GetParam())) {
    case DType::Int: check_chapter<int>(v, device); break;
    case DType::Float: check_chapter<float>(v, device); break;
    case DType::Double: check_chapter<double>(v, device); break;
  }
}

// Start addresses 1, 2 and 3 elements past an aligned allocation (08's vector loads
// must peel the unaligned head; every other chapter must not care).
template <typename T>
void check_offsets(const Variant& v, const DeviceInfo& device) {
  for (std::size_t n : {std::size_t(1000), std::size_t(65537), (std::size_t(1) << 20) + 13}) {
    for (std::size_t offset : {1, 2, 3}) {
      const std::uint64_t seed = fresh_seed();
      const std::vector<T> host = generate_input<T>(n, seed);
      const Reference ref = cpu_reference(host.data(), n);
      DeviceBuffer<T> input(n + 3), pristine(n), result(1);
      CUDA_CHECK(cudaMemcpy(pristine.get(), host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemcpy(input.get() + offset, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
      int block = 0, grid = 0;
      resolve_shape(v, n, device.sm_count, block, grid);
      DeviceBuffer<unsigned char> scratch(v.scratch_bytes(n, block, grid));
      if (scratch.bytes()) CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
      const T got = run_launcher<T>(v, Op::Sum, input.get() + offset, pristine.get(), n, block, grid,
                                    scratch.get(), result.get(), 0xCD);
      const Verdict verdict = verify(got, ref, v.chain_length(n, block, grid));
      EXPECT_TRUE(verdict.ok) << v.label() << " n=" << n << " offset=" << offset << " seed=" << seed << ": got "
                              << format_value(got) << ", expected " << format_value(ref.value);
    }
  }
}

TEST_P(ChapterTest, UnalignedStart) {
  REQUIRE_GPU();
  const Variant& v = chapters()[std::get<0>(GetParam())].main();
  const DeviceInfo device = query_device();
  switch (std::get<1>(GetParam())) {
    case DType::Int: check_offsets<int>(v, device); break;
    case DType::Float: check_offsets<float>(v, device); break;
    case DType::Double: check_offsets<double>(v, device); break;
  }
}

// max and min for the chapters generic over the operator (exact in any order).
template <typename T>
void check_ops(const Variant& v, const DeviceInfo& device) {
  for (Op op : {Op::Max, Op::Min, Op::Sum}) {
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(33), std::size_t(4097),
                          (std::size_t(1) << 20) + 13}) {
      const std::uint64_t seed = fresh_seed();
      std::vector<T> host = generate_input<T>(n, seed);
      // Shift floats to mixed signs so that max and min are not pinned near 0 and 1.
      if constexpr (!std::is_same_v<T, int>) {
        for (T& x : host) x = T(2) * x - T(1);
      }
      const Reference ref = cpu_reference(host.data(), n, op);
      DeviceBuffer<T> input(n), result(1);
      if (n) CUDA_CHECK(cudaMemcpy(input.get(), host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
      int block = 0, grid = 0;
      resolve_shape(v, n, device.sm_count, block, grid);
      DeviceBuffer<unsigned char> scratch(v.scratch_bytes(n, block, grid));
      if (scratch.bytes()) CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
      for (unsigned char poison : {0xCD, 0xAB}) {
        const T got = run_launcher<T>(v, op, input.get(), input.get(), n, block, grid, scratch.get(),
                                      result.get(), poison);
        const Verdict verdict = verify(got, ref, v.chain_length(n, block, grid));
        EXPECT_TRUE(verdict.ok) << v.label() << " --op " << op_name(op) << " n=" << n << " seed=" << seed
                                << ": got " << format_value(got) << ", expected " << format_value(ref.value);
      }
    }
  }
}

// Only the chapters with operators are instantiated (see OperatorChapters below).
class OperatorTest : public ChapterTest {};

TEST_P(OperatorTest, EveryOperator) {
  REQUIRE_GPU();
  const Variant& v = chapters()[std::get<0>(GetParam())].main();
  ASSERT_TRUE(v.has_ops) << v.chapter;
  const DeviceInfo device = query_device();
  switch (std::get<1>(GetParam())) {
    case DType::Int: check_ops<int>(v, device); break;
    case DType::Float: check_ops<float>(v, device); break;
    case DType::Double: check_ops<double>(v, device); break;
  }
}

std::string param_name(const ::testing::TestParamInfo<std::tuple<int, DType>>& info) {
  return "ch" + chapters()[std::get<0>(info.param)].id.substr(0, 2) + "_" + type_name(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(All, ChapterTest,
                         ::testing::Combine(::testing::Range(0, static_cast<int>(chapters().size())),
                                            ::testing::Values(DType::Int, DType::Float, DType::Double)),
                         param_name);

std::vector<int> operator_chapters() {
  std::vector<int> indices;
  for (std::size_t i = 0; i < chapters().size(); ++i) {
    if (chapters()[i].main().has_ops) indices.push_back(static_cast<int>(i));
  }
  return indices;
}

INSTANTIATE_TEST_SUITE_P(OperatorChapters, OperatorTest,
                         ::testing::Combine(::testing::ValuesIn(operator_chapters()),
                                            ::testing::Values(DType::Int, DType::Float, DType::Double)),
                         param_name);

// 09 promises a float result that is the same bit for bit on every run: the partials
// are combined in a fixed order, never by atomics in arrival order.
TEST(SinglePass, FloatResultIdenticalOver100Runs) {
  REQUIRE_GPU();
  const Chapter* c = find_chapter("09");
  ASSERT_NE(c, nullptr) << "09_single_pass is not built";
  const Variant& v = c->main();
  const DeviceInfo device = query_device();
  const std::size_t n = (std::size_t(1) << 24) + 13;
  const std::vector<float> host = generate_input<float>(n, fresh_seed());
  DeviceBuffer<float> input(n), result(1);
  CUDA_CHECK(cudaMemcpy(input.get(), host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  int block = 0, grid = 0;
  resolve_shape(v, n, device.sm_count, block, grid);
  DeviceBuffer<unsigned char> scratch(v.scratch_bytes(n, block, grid));
  CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
  const float first = run_launcher<float>(v, Op::Sum, input.get(), input.get(), n, block, grid, scratch.get(),
                                          result.get(), 0xCD);
  for (int run = 1; run < 100; ++run) {
    const float again = run_launcher<float>(v, Op::Sum, input.get(), input.get(), n, block, grid, scratch.get(),
                                            result.get(), run % 2 ? 0xAB : 0xCD);
    ASSERT_EQ(std::memcmp(&first, &again, sizeof(float)), 0)
        << "run " << run << " gave " << format_value(again) << ", run 0 gave " << format_value(first);
  }
}

// Past 2^31 elements: the 64-bit indices must hold (06, 08 and 09).
class LargeN : public ::testing::TestWithParam<const char*> {};

TEST_P(LargeN, FloatsPast2To31) {
  REQUIRE_GPU();
  const Chapter* c = find_chapter(GetParam());
  ASSERT_NE(c, nullptr) << "chapter " << GetParam() << " is not built";
  const Variant& v = c->main();
  const DeviceInfo device = query_device();
  const std::size_t n = (std::size_t(1) << 31) + 7;
  int block = 0, grid = 0;
  resolve_shape(v, n, device.sm_count, block, grid);
  const double need = n * sizeof(float) + v.scratch_bytes(n, block, grid) + (256 << 20);
  if (need > static_cast<double>(device.free_bytes)) {
    GTEST_SKIP() << "needs " << need / 1073741824.0 << " GiB of device memory, " << device.name << " has "
                 << device.free_bytes / 1073741824.0 << " GiB free";
  }
  const std::uint64_t seed = fresh_seed();
  const std::vector<float> host = generate_input<float>(n, seed);
  const Reference ref = cpu_reference(host.data(), n);
  DeviceBuffer<float> input(n), result(1);
  CUDA_CHECK(cudaMemcpy(input.get(), host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  DeviceBuffer<unsigned char> scratch(v.scratch_bytes(n, block, grid));
  if (scratch.bytes()) CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
  const float got = run_launcher<float>(v, Op::Sum, input.get(), input.get(), n, block, grid, scratch.get(),
                                        result.get(), 0xCD);
  const Verdict verdict = verify(got, ref, v.chain_length(n, block, grid));
  EXPECT_TRUE(verdict.ok) << v.label() << " n=" << n << " seed=" << seed << ": got " << format_value(got)
                          << ", expected " << format_value(ref.value) << " (tolerance " << verdict.tolerance << ")";
}

INSTANTIATE_TEST_SUITE_P(Chapters, LargeN, ::testing::Values("06", "08", "09"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string("ch") + info.param;
                         });

}  // namespace
}  // namespace reduction::testing
