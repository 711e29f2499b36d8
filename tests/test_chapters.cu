// Every chapter (its own kernel and its step variants, not the pitfall variants) against
// the CPU reference: every type, awkward sizes, every block size and grid the chapter
// accepts from the lists below, fresh random data for each size, a poisoned result
// before each run, and each launcher called twice on the same scratch (it must leave it
// reusable).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <tuple>

#include "chapter_list.h"
#include "gpu_test.h"
#include "harness.h"
#include "random.h"
#include "reference.h"

namespace reduction::testing {
namespace {

const std::vector<std::size_t> kSizes = {0,    1,     2,     3,     31,   32,   33,
                                         255,  256,   257,   1000,  4097, 65537, (std::size_t(1) << 20) + 13,
                                         std::size_t(1) << 24};
// Powers of two for every chapter; the others only where the chapter accepts them (01 and
// 02 take 2 to 1024, 05 on 1 to 1024): one thread, part of a warp, a warp and one lane, a
// warp and a part of one (06's sub-warp __syncwarp mask), several warps and a part.
const std::vector<int> kBlocks = {32, 128, 512, 1024, 96, 100, 270, 1000, 1, 5, 31, 33, 40};
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

// Expects `got` (from `run`) to pass the harness's check against `ref`.
template <typename T>
void expect_verified(T got, const Reference& ref, const DeviceRun<T>& run, std::uint64_t seed,
                     const std::string& what = "") {
  const Verdict verdict = verify(got, ref, run.chain_length());
  EXPECT_TRUE(verdict.ok) << run.where() << what << " seed=" << seed << ": got " << format_value(got)
                          << ", expected " << format_value(ref.value) << " (error " << verdict.error
                          << ", tolerance " << verdict.tolerance << ") " << verdict.note;
}

// Whether a float sum along chains of `chain` additions has an error bound at all. One
// thread summing 2^24 floats (--block 1 --grid 1) has none (chain x u reaches 1: verify
// says "no error bound"), so such a shape is checked for ints and doubles only.
template <typename T>
bool has_error_bound(std::size_t chain) {
  return std::is_same_v<T, int> ||
         std::isfinite(sum_error_bound(unit_roundoff<T>(), unit_roundoff<T>(), chain, 1.0, 1.0));
}

template <typename T>
void check_chapter(const Variant& v) {
  for (std::size_t n : kSizes) {
    const std::uint64_t seed = fresh_seed();
    const std::vector<T> host = generate_input<T>(n, seed);
    const Reference ref = cpu_reference(host.data(), n);
    DeviceRun<T> run(v, host);
    for (Shape s : shapes_for(v)) {
      run.set_shape(s.block, s.grid);
      if (!has_error_bound<T>(run.chain_length())) continue;
      for (unsigned char poison : {0xCD, 0xAB}) {  // twice: the second call reuses the scratch
        expect_verified(run.run(Op::Sum, poison), ref, run, seed);
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
      DeviceRun<T> run(v, host);
      const T got = run.run(Op::Sum, 0xCD);
      EXPECT_EQ(static_cast<double>(got), ref.value) << run.where() << " exact data, seed=" << seed;
    }
  }
}

// Calls check(T{}) with the element type T of the test's parameter.
template <typename Check>
void for_type(DType type, Check check) {
  switch (type) {
    case DType::Int: check(int{}); break;
    case DType::Float: check(float{}); break;
    case DType::Double: check(double{}); break;
  }
}

TEST_P(ChapterTest, MatchesReferenceAtAwkwardSizes) {
  REQUIRE_GPU();
  const Variant& v = chapters()[std::get<0>(GetParam())].main();
  for_type(std::get<1>(GetParam()), [&](auto zero) { check_chapter<decltype(zero)>(v); });
}

// A shape the harness refuses is refused by the copy unit too, without a launch: a
// student calling reduce() with it gets cudaErrorInvalidValue, not a wrong sum.
TEST_P(ChapterTest, RefusedShapesReturnInvalidValue) {
  REQUIRE_GPU();
  const Variant& v = chapters()[std::get<0>(GetParam())].main();
  if (v.chooses_shape) GTEST_SKIP() << v.chapter << " takes no launch shape";
  for_type(std::get<1>(GetParam()), [&](auto zero) {
    using T = decltype(zero);
    DeviceBuffer<T> input(1000), result(1);
    DeviceBuffer<unsigned char> scratch(1 << 20);
    for (int block : {-1, 0, 1, 2000, 100, 48}) {
      if (v.check_shape(block, 0).empty() && block > 0) continue;  // a block this chapter runs
      EXPECT_EQ(v.launcher<T>(Op::Sum)(input.get(), 1000, result.get(), scratch.get(), scratch.bytes(), block, 4, nullptr),
                cudaErrorInvalidValue)
          << v.chapter << " block " << block;
    }
    if (!v.in_place) {  // 01-03 derive the grid from n: a grid argument is ignored
      EXPECT_EQ(v.launcher<T>(Op::Sum)(input.get(), 1000, result.get(), scratch.get(), scratch.bytes(), v.default_block, 0, nullptr),
                cudaErrorInvalidValue)
          << v.chapter << " grid 0";
    }
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << v.chapter << ": a refused shape must not launch";
  });
}

// Scratch in CUB's convention: a launcher is told the scratch's size and refuses one too
// small for the call (cudaErrorInvalidValue) before any launch, so a scratch sized for a
// smaller shape cannot be written past. The cases: one byte short of what the call needs;
// sized for a smaller grid (04-09, 12, 17), or for a smaller n (01-03, whose grid follows
// n), reused for a larger call. The result slot is poisoned and must stay untouched.
template <typename T>
void check_scratch_refused(const Variant& v) {
  const std::size_t n = 1000003;
  int block = 0, grid = 0;  // CUB (10) chooses its own shape: block and grid stay 0
  if (!v.chooses_shape) resolve_shape(v, n, block, grid);
  const std::size_t need = v.scratch_bytes(n, block, grid);
  struct Case {
    int grid;
    std::size_t bytes;
    const char* what;
  };
  std::vector<Case> cases;
  if (need > 0) cases.push_back({grid, need - 1, "one byte short"});
  if (!v.chooses_shape && v.check_shape(block, 2 * grid).empty() && v.scratch_bytes(n, block, 2 * grid) > need) {
    cases.push_back({2 * grid, need, "sized for half the grid"});
  }
  int small_block = block, small_grid = 0;
  if (v.in_place) resolve_shape(v, 1000, small_block, small_grid);
  if (v.in_place && v.scratch_bytes(1000, block, small_grid) < need) {
    cases.push_back({grid, v.scratch_bytes(1000, block, small_grid), "sized for n = 1000"});
  }
  ASSERT_FALSE(cases.empty()) << v.label() << ": no scratch size to refuse (needs " << need << " bytes)";
  DeviceBuffer<T> input(n), result(1);
  DeviceBuffer<unsigned char> scratch(need * 2 + 16);
  CUDA_CHECK(cudaMemset(input.get(), 0, n * sizeof(T)));
  for (const Case& c : cases) {
    CUDA_CHECK(cudaMemset(result.get(), 0xCD, sizeof(T)));
    EXPECT_EQ(v.launcher<T>(Op::Sum)(input.get(), n, result.get(), scratch.get(), c.bytes, block, c.grid, nullptr),
              cudaErrorInvalidValue)
        << v.label() << ": a scratch " << c.what << " (" << c.bytes << " bytes, block " << block << ", grid "
        << c.grid << ")";
    CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << v.label() << ": a refused call must not launch";
    unsigned char untouched[sizeof(T)];
    CUDA_CHECK(cudaMemcpy(untouched, result.get(), sizeof(T), cudaMemcpyDeviceToHost));
    for (unsigned char byte : untouched) EXPECT_EQ(byte, 0xCD) << v.label() << ": the result was written";
  }
}

TEST_P(ChapterTest, ScratchTooSmallIsRefused) {
  REQUIRE_GPU();
  const Variant& v = chapters()[std::get<0>(GetParam())].main();
  for_type(std::get<1>(GetParam()), [&](auto zero) { check_scratch_refused<decltype(zero)>(v); });
}

// Start addresses 1, 2 and 3 elements past an aligned allocation (08's vector loads
// must peel the unaligned head; every other chapter must not care), also with n
// smaller than the unaligned head.
template <typename T>
void check_offsets(const Variant& v) {
  for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(1000), std::size_t(65537),
                        (std::size_t(1) << 20) + 13}) {
    for (std::size_t offset : {1, 2, 3}) {
      const std::uint64_t seed = fresh_seed();
      const std::vector<T> host = generate_input<T>(n, seed);
      const Reference ref = cpu_reference(host.data(), n);
      DeviceRun<T> run(v, host, offset);
      expect_verified(run.run(Op::Sum, 0xCD), ref, run, seed);
    }
  }
}

TEST_P(ChapterTest, UnalignedStart) {
  REQUIRE_GPU();
  const Variant& v = chapters()[std::get<0>(GetParam())].main();
  for_type(std::get<1>(GetParam()), [&](auto zero) { check_offsets<decltype(zero)>(v); });
}

// max and min for the chapters generic over the operator (exact in any order).
template <typename T>
void check_ops(const Variant& v) {
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
      DeviceRun<T> run(v, host);
      for (unsigned char poison : {0xCD, 0xAB}) {
        expect_verified(run.run(op, poison), ref, run, seed, std::string(" --op ") + op_name(op));
      }
    }
  }
}

// Only the chapters with operators are instantiated (see OperatorChapters below).
class OperatorTest : public ChapterTest {};

TEST_P(OperatorTest, EveryOperator) {
  REQUIRE_GPU();
  const Variant& v = chapters()[std::get<0>(GetParam())].main();
  for_type(std::get<1>(GetParam()), [&](auto zero) { check_ops<decltype(zero)>(v); });
}

std::string param_name(const ::testing::TestParamInfo<std::tuple<int, DType>>& info) {
  return "ch" + chapters()[std::get<0>(info.param)].id.substr(0, 2) + "_" + type_name(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(All, ChapterTest,
                         ::testing::Combine(::testing::Range(0, static_cast<int>(chapters().size())),
                                            ::testing::Values(DType::Int, DType::Float, DType::Double)),
                         param_name);

INSTANTIATE_TEST_SUITE_P(OperatorChapters, OperatorTest,
                         ::testing::Combine(::testing::ValuesIn(operator_chapters()),
                                            ::testing::Values(DType::Int, DType::Float, DType::Double)),
                         param_name);

// The step variants (each change of the chapter made alone, for `tour --steps`: steps.cu
// beside 04's and 06's copy units; in 05, 08 and 09 an existing kernel at another chapter's
// launch rule), checked as the chapters' own kernels are: every type,
// the awkward sizes (odd, smaller than a block, 2^24), every shape they accept, the
// shapes they refuse, unaligned starts. Parameters: (chapter index, variant index, type).
class StepVariantTest : public ::testing::TestWithParam<std::tuple<int, int, DType>> {
 protected:
  const Variant& variant() const { return chapters()[std::get<0>(GetParam())].variants[std::get<1>(GetParam())]; }
};

std::vector<std::tuple<int, int, DType>> step_variants() {
  std::vector<std::tuple<int, int, DType>> found;
  for (std::size_t c = 0; c < chapters().size(); ++c) {
    for (std::size_t v = 0; v < chapters()[c].variants.size(); ++v) {
      if (!chapters()[c].variants[v].step) continue;
      for (DType type : {DType::Int, DType::Float, DType::Double}) found.emplace_back(int(c), int(v), type);
    }
  }
  return found;
}

TEST(StepVariants, TheChaptersOfTwoChangesHaveThem) {  // no GPU needed: the list the tests below run over
  std::vector<std::string> names;
  for (const auto& [c, v, type] : step_variants()) {
    if (type == DType::Int) names.push_back(chapters()[c].variants[v].label());
  }
  EXPECT_EQ(names, (std::vector<std::string>{
                       "04_shared_tree --variant one_each", "05_pow2ceil --variant tree_only",
                       "05_pow2ceil --variant grid_only", "06_warp_unroll --variant tree_only",
                       "06_warp_unroll --variant loop_only", "08_vectorized --variant block_only",
                       "08_vectorized --variant loads_only", "09_single_pass --variant ticket_only",
                       "09_single_pass --variant shape_only"}));
}

TEST_P(StepVariantTest, MatchesReferenceAtAwkwardSizes) {
  REQUIRE_GPU();
  for_type(std::get<2>(GetParam()), [&](auto zero) { check_chapter<decltype(zero)>(variant()); });
}

TEST_P(StepVariantTest, RefusedShapesReturnInvalidValue) {
  REQUIRE_GPU();
  const Variant& v = variant();
  for_type(std::get<2>(GetParam()), [&](auto zero) {
    using T = decltype(zero);
    DeviceBuffer<T> input(1000), result(1);
    DeviceBuffer<unsigned char> scratch(1 << 20);
    for (int block : {-1, 0, 1, 2000, 100, 48}) {
      if (v.check_shape(block, 0).empty() && block > 0) continue;  // a block this variant runs
      EXPECT_EQ(v.launcher<T>(Op::Sum)(input.get(), 1000, result.get(), scratch.get(), scratch.bytes(), block, 4, nullptr),
                cudaErrorInvalidValue)
          << v.label() << " block " << block;
    }
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << v.label() << ": a refused shape must not launch";
  });
}

TEST_P(StepVariantTest, ScratchTooSmallIsRefused) {
  REQUIRE_GPU();
  for_type(std::get<2>(GetParam()), [&](auto zero) { check_scratch_refused<decltype(zero)>(variant()); });
}

TEST_P(StepVariantTest, UnalignedStart) {
  REQUIRE_GPU();
  for_type(std::get<2>(GetParam()), [&](auto zero) { check_offsets<decltype(zero)>(variant()); });
}

INSTANTIATE_TEST_SUITE_P(Steps, StepVariantTest, ::testing::ValuesIn(step_variants()),
                         [](const ::testing::TestParamInfo<std::tuple<int, int, DType>>& info) {
                           const Variant& v = chapters()[std::get<0>(info.param)].variants[std::get<1>(info.param)];
                           return "ch" + v.chapter.substr(0, 2) + "_" + v.name + "_" + type_name(std::get<2>(info.param));
                         });

// 09 (and 12, which keeps its structure) promise a float result that is the same bit
// for bit on every run: the partials are combined in a fixed order, never by atomics in
// arrival order. At sizes in each of 09's default shapes: one block (no ticket), blocks
// of 256, a wave of 1024-thread blocks.
class IdenticalOver100Runs : public ::testing::TestWithParam<const char*> {};

TEST_P(IdenticalOver100Runs, FloatResultAtEveryShape) {
  REQUIRE_GPU();
  const Chapter* c = find_chapter(GetParam());
  ASSERT_NE(c, nullptr) << "chapter " << GetParam() << " is not built";
  for (std::size_t n : {std::size_t(1000), std::size_t(16385), std::size_t(65539), std::size_t(1048583),
                        std::size_t(2097157), (std::size_t(1) << 24) + 13}) {
    const std::uint64_t seed = fresh_seed();
    const std::vector<float> host = generate_input<float>(n, seed);
    DeviceRun<float> run(c->main(), host);
    const float first = run.run(Op::Sum, 0xCD);
    for (int repeat = 1; repeat < 100; ++repeat) {
      const float again = run.run(Op::Sum, repeat % 2 ? 0xAB : 0xCD);
      ASSERT_EQ(std::memcmp(&first, &again, sizeof(float)), 0)
          << run.where() << " n = " << n << " seed " << seed << ": run " << repeat << " gave " << format_value(again)
          << ", run 0 gave " << format_value(first);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SinglePass, IdenticalOver100Runs, ::testing::Values("09", "12"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string("ch") + info.param;
                         });

// n = 2^31 + 7 elements of T through chapter `id` at its default shape, checked against
// the reference; skipped where the device lacks the memory. In-place chapters keep a
// pristine copy of the input too. One input per T, made once (8 GiB, on all host cores).
template <typename T>
void check_past_2_to_31(const Variant& v) {
  const DeviceInfo device = query_device();
  const std::size_t n = (std::size_t(1) << 31) + 7;
  int block = 0, grid = 0;
  resolve_shape(v, n, block, grid);
  const double need = (v.in_place ? 2.0 : 1.0) * n * sizeof(T) + v.scratch_bytes(n, block, grid) + (256 << 20);
  if (need > static_cast<double>(device.free_bytes)) {
    GTEST_SKIP() << "needs " << need / 1073741824.0 << " GiB of device memory, " << device.name << " has "
                 << device.free_bytes / 1073741824.0 << " GiB free";
  }
  static const std::uint64_t seed = fresh_seed();
  static const std::vector<T> host = generate_input<T>(n, seed);
  static const Reference ref = cpu_reference(host.data(), n);
  DeviceRun<T> run(v, host);
  expect_verified(run.run(Op::Sum, 0xCD), ref, run, seed);
}

// Past 2^31 elements: the 64-bit indices must hold in every chapter that reads the
// input with a grid-stride loop (04 on; 01-03, which index by block: LargeNInPlace below).
class LargeN : public ::testing::TestWithParam<const char*> {};

TEST_P(LargeN, FloatsPast2To31) {
  REQUIRE_GPU();
  const Chapter* c = find_chapter(GetParam());
  ASSERT_NE(c, nullptr) << "chapter " << GetParam() << " is not built";
  check_past_2_to_31<float>(c->main());
}

// The step variants past 2^31 elements too (04's one_each indexes by block, as 03 does;
// 06's tree_only and loop_only keep 06's grid-stride loops; the steps of 05, 08 and 09 run
// the chapters' own kernels at other launch shapes).
TEST(LargeNSteps, FloatsPast2To31) {
  REQUIRE_GPU();
  int checked = 0;
  for (const Chapter& c : chapters()) {
    for (const Variant& v : c.variants) {
      if (!v.step) continue;
      SCOPED_TRACE(v.label());
      check_past_2_to_31<float>(v);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 9);
}

INSTANTIATE_TEST_SUITE_P(Chapters, LargeN, ::testing::Values("04", "05", "06", "07", "08", "09", "10", "12"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string("ch") + info.param;
                         });

// 01-03 past 2^31 elements, as ints: one block per B elements, so the block offsets
// b * B pass 2^31 (64-bit in the kernels) and the first pass launches more than 2^23
// blocks. The kernels work in place: the input and its pristine copy take 16 GiB.
class LargeNInPlace : public ::testing::TestWithParam<const char*> {};

TEST_P(LargeNInPlace, IntsPast2To31) {
  REQUIRE_GPU();
  ASSERT_TRUE(find_chapter(GetParam()) && find_chapter(GetParam())->main().in_place) << GetParam();
  check_past_2_to_31<int>(find_chapter(GetParam())->main());
}

INSTANTIATE_TEST_SUITE_P(Chapters, LargeNInPlace, ::testing::Values("01", "02", "03"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string("ch") + info.param;
                         });

// 01-03 launch one block per B elements: an n that needs more than 2^31 - 1 blocks (the
// most a grid holds) is refused with cudaErrorInvalidValue before any launch, never run
// on a grid whose size wrapped. Nothing is read: a small buffer stands for the input.
TEST(GridPast2To31Blocks, InPlaceChaptersReturnInvalidValue) {
  REQUIRE_GPU();
  DeviceBuffer<int> input(1024), result(1);
  DeviceBuffer<unsigned char> scratch(1 << 20);
  for (const char* id : {"01", "02", "03"}) {
    const Chapter* c = find_chapter(id);
    ASSERT_NE(c, nullptr) << "chapter " << id << " is not built";
    const Variant& v = c->main();
    for (int block : {32, 256, 1024}) {
      const std::size_t most = std::size_t(2147483647) * block;
      for (std::size_t n : {most + 1, most * 2 + 1, (std::size_t(1) << 32) * block + 5}) {
        CUDA_CHECK(cudaMemset(result.get(), 0xCD, sizeof(int)));
        EXPECT_EQ(v.launcher<int>(Op::Sum)(input.get(), n, result.get(), scratch.get(), scratch.bytes(), block, 0, nullptr),
                  cudaErrorInvalidValue)
            << v.chapter << " block " << block << " n " << n;
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << v.chapter << ": nothing may have been launched";
        int untouched = 0;
        CUDA_CHECK(cudaMemcpy(&untouched, result.get(), sizeof(int), cudaMemcpyDeviceToHost));
        EXPECT_EQ(untouched, static_cast<int>(0xCDCDCDCD)) << v.chapter << " block " << block << " n " << n;
      }
      EXPECT_FALSE(v.check_n(most + 1, block).empty()) << v.chapter;
    }
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << v.chapter << ": a refused n must not launch";
  }
}

// A kernel right on its first two runs and wrong from the third (a call counter in its
// scratch): the harness's timing protocol (time_in_turns) checks the last timed
// repetition too, so the measurement must say so, whatever the first run gave.
__global__ void right_twice(const int* data, int* result, unsigned* calls) {
  *result = (*calls)++ < 2 ? data[0] : data[0] + 1;
}

TEST(Harness, ATimedRepetitionThatGoesWrongFailsTheMeasurement) {
  REQUIRE_GPU();
  Variant v;
  v.chapter = "test_right_twice";
  v.scratch_bytes = [](std::size_t, int, int) { return sizeof(unsigned); };
  v.chain_length = [](std::size_t n, int, int) { return n; };
  v.int_launchers[static_cast<int>(Op::Sum)] = [](int* data, std::size_t, int* result, void* scratch, std::size_t,
                                                  int, int, cudaStream_t stream) {
    right_twice<<<1, 1, 0, stream>>>(data, result, static_cast<unsigned*>(scratch));
    return cudaGetLastError();
  };
  const std::vector<int> host = {41};
  const Reference ref = cpu_reference(host.data(), host.size());
  Bench<int> bench(host, query_device(), false);
  const Measurement m = bench.run(v, Op::Sum, 1, 1, 3, true, ref);
  EXPECT_FALSE(m.verdict.ok);
  EXPECT_EQ(m.result_text, "41") << "the first run was right";
  EXPECT_NE(m.verdict.note.find("a timed repetition gave 42"), std::string::npos) << m.verdict.note;
}

}  // namespace
}  // namespace reduction::testing
