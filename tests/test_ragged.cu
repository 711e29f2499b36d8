// 19_ragged_segments: reduce_segments against the CPU reference of every segment
// (rows_check.h's facts_of and verdict_of) for every operator, element type and offset type, over
// lengths from all empty to one segment of n/2 beside millions of short ones, Pareto, segments that
// end exactly on a tile's last path item, NaN and ties across tiles; one scratch over repeated calls; bad
// offsets kept in bounds; past 2^31 elements (the program); a scratch one byte too small and inconsistent
// offsets' counts refused. Fresh data every run: the seed
// is in every failure message. GPU tests report SKIPPED without a device; the refusals run anywhere.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gpu_test.h"
#include "program_runner.h"
#include "ragged_segments.cuh"
#include "rows_check.h"
#include "rows_harness.h"

namespace reduction::testing {
namespace {

using namespace rows_harness;
namespace rs = ::ragged_segments;

constexpr RowOp kAllOps[] = {RowOp::Sum, RowOp::Max, RowOp::ArgMax, RowOp::MeanVar};
constexpr ElementType kAllTypes[] = {ElementType::Float, ElementType::Half, ElementType::BFloat16};
constexpr std::size_t kTile = 4096;       // ragged_segments.cu: 256 threads x 16 path items
constexpr std::size_t kRange = 8 * kTile;  // and a block's range of 8 tiles

// The most combining steps an element's state passes through on the way to its segment's result
// (ragged_segments.cu, the chain length of verdict_of's bounds):
//  30  at most, its thread's walk (16 path items, each element one combine into the open segment's state; Sum
//      and Max its 16 elements from registers, and thread 255 up to 7 past the tile's 4096 slots);
//   5  the warp's segmented scan of the carries (offsets 1, 2, 4, 8, 16);
//   3  the scan of the 8 warps' totals (offsets 1, 2, 4), then 1 to add the warps before to a lane;
//   1  the thread's first closed segment: the carry of the threads before it, then its own piece;
//   8  a segment open across tiles of ends in one block's range (8 tiles): the tile's carry-out takes the
//      previous one's carry (one combine a tile after the first, at most 7), and the closer takes it (1);
//  21  a segment open across tiles of no end (a span of at most 8 tiles): each thread's share (8: a combine a
//      run of 16, at most 8, and one each for the span's head and rest; with the run's own tree of 4 that is 14,
//      within the walk's 30 and these 8), the warp's tree (5), the 8 warps' shares into the carry in turn (8); where
//      the span ends the range, the carry (1) and the block's tree (5 + 3) instead;
// then, for a segment cut between ranges, its pieces (one per range it covers, at most `ranges`) combined by
// the block that draws its last ticket: over at most 8 ranges (MeanVar: 4), that thread alone in order (7
// combines at most, fewer than the block's P + 8), else the block:
//   P  thread t combines pieces t, t + 256, ... in turn: at most P = ceil(ranges / 256) combines;
//   5  the warp's tree (lane l takes lane l + 16, 8, 4, 2, 1);
//   3  warp 0's tree over the 8 warps' totals (5 steps, but the first 2 add only identities, exactly).
// A segment closed inside one thread's walk takes only the first 30; a segment inside one tile the first 40.
std::size_t ragged_depth(std::size_t n, std::size_t segments) {
  const std::size_t ranges = (n + segments + kRange - 1) / kRange;
  return 30 + 5 + 3 + 1 + 1 + 8 + 8 + 5 + 8 + (ranges + 255) / 256 + 5 + 3;
}

// Element bytes of `type` for the float values (rounded in place to what the device reads).
std::vector<unsigned char> to_bytes(std::vector<float>& values, ElementType type) {
  std::vector<unsigned char> bytes(values.size() * element_bytes(type));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (type == ElementType::Float) {
      std::memcpy(&bytes[4 * i], &values[i], 4);
    } else if (type == ElementType::Half) {
      const __half h = __float2half_rn(values[i]);
      const std::uint16_t bits = __half_as_ushort(h);
      values[i] = __half2float(h);
      std::memcpy(&bytes[2 * i], &bits, 2);
    } else {
      const __nv_bfloat16 b = __float2bfloat16_rn(values[i]);
      const std::uint16_t bits = __bfloat16_as_ushort(b);
      values[i] = __bfloat162float(b);
      std::memcpy(&bytes[2 * i], &bits, 2);
    }
  }
  return bytes;
}

// A device allocation of `bytes` (at least 1), freed at scope exit.
struct DeviceBytes {
  void* p = nullptr;
  explicit DeviceBytes(std::size_t bytes) { EXPECT_EQ(cudaMalloc(&p, bytes ? bytes : 1), cudaSuccess); }
  ~DeviceBytes() { cudaFree(p); }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
};

// Offsets to the device as int64, or as int32 when not wide (device holds at least that many bytes).
cudaError_t upload_offsets(const std::vector<std::int64_t>& offsets, bool wide, void* device) {
  const std::vector<std::int32_t> narrow(offsets.begin(), offsets.end());
  return cudaMemcpy(device, wide ? static_cast<const void*>(offsets.data()) : narrow.data(),
                    offsets.size() * (wide ? 8 : 4), cudaMemcpyHostToDevice);
}

template <typename In, typename Offset, typename Op>
cudaError_t launch(const void* input, std::size_t n, const void* offsets, std::size_t segments, void* output,
                   void* scratch, std::size_t bytes) {
  return rs::reduce_segments<In, Offset, Op>(static_cast<const In*>(input), n, static_cast<const Offset*>(offsets),
                                             segments, static_cast<typename Op::Result*>(output), scratch, bytes);
}
template <typename In, typename Offset>
cudaError_t launch_op(RowOp op, const void* input, std::size_t n, const void* offsets, std::size_t segments,
                      void* output, void* scratch, std::size_t bytes) {
  switch (op) {
    case RowOp::Sum: return launch<In, Offset, rs::Sum>(input, n, offsets, segments, output, scratch, bytes);
    case RowOp::Max: return launch<In, Offset, rs::Max>(input, n, offsets, segments, output, scratch, bytes);
    case RowOp::ArgMax: return launch<In, Offset, rs::ArgMax>(input, n, offsets, segments, output, scratch, bytes);
    default: return launch<In, Offset, rs::MeanVar>(input, n, offsets, segments, output, scratch, bytes);
  }
}
cudaError_t launch_any(ElementType type, bool wide_offsets, RowOp op, const void* input, std::size_t n,
                       const void* offsets, std::size_t segments, void* output, void* scratch, std::size_t bytes) {
  return by_element_type(type, [&](auto tag) {
    using In = typename decltype(tag)::type;
    return wide_offsets ? launch_op<In, std::int64_t>(op, input, n, offsets, segments, output, scratch, bytes)
                        : launch_op<In, std::int32_t>(op, input, n, offsets, segments, output, scratch, bytes);
  });
}

// Segments given by their lengths; values fresh in [-1, 1) (both signs, so sums cancel) unless set.
struct Ragged {
  std::vector<std::int64_t> offsets{0};
  std::vector<float> values;
  std::uint64_t seed = 0;
  std::string name;
  std::size_t n() const { return std::size_t(offsets.back()); }
  std::size_t segments() const { return offsets.size() - 1; }
};
Ragged ragged(const std::string& name, const std::vector<std::size_t>& lengths, std::uint64_t seed) {
  Ragged r;
  r.name = name, r.seed = seed;
  for (std::size_t length : lengths) r.offsets.push_back(r.offsets.back() + std::int64_t(length));
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  r.values.resize(r.n());
  for (float& v : r.values) v = uniform(random);
  return r;
}

// One case's data as `type` (the values rounded to it, and its bytes) and, per operator, the facts of
// every segment: computed once, checked with both offset types.
struct Prepared {
  std::vector<float> values;
  std::vector<unsigned char> bytes;
};
Prepared prepare(const Ragged& r, ElementType type) {
  Prepared p{r.values, {}};
  p.bytes = to_bytes(p.values, type);
  return p;
}
std::vector<RowFacts> facts_of_segments(const Ragged& r, const Prepared& p, RowOp op) {
  std::vector<RowFacts> facts(r.segments());
  for (std::size_t s = 0; s < r.segments(); ++s) {
    const std::size_t begin = std::size_t(r.offsets[s]);
    facts[s] = facts_of(p.values.data() + begin, std::size_t(r.offsets[s + 1]) - begin, op);
  }
  return facts;
}

// Runs one case on a scratch (a fresh one when null) and checks every segment; the failures name the
// case, the seed and the first wrong segments.
void check(const Ragged& r, const Prepared& p, const std::vector<RowFacts>& facts, ElementType type,
           bool wide_offsets, RowOp op, void* scratch = nullptr, std::size_t scratch_bytes = 0) {
  const std::string at = r.name + " (n " + std::to_string(r.n()) + ", segments " + std::to_string(r.segments()) +
                         ", " + element_name(type) + ", " + op_name(op) + ", int" + (wide_offsets ? "64" : "32") +
                         " offsets, seed " + std::to_string(r.seed) + ")";
  const std::size_t result = result_bytes(op), segments = r.segments();
  DeviceBytes input(p.bytes.size()), offsets(r.offsets.size() * (wide_offsets ? 8 : 4)), output(segments * result);
  std::unique_ptr<DeviceBytes> own;
  if (!scratch) {
    scratch_bytes = rs::ragged_temp_bytes(r.n(), segments);
    own = std::make_unique<DeviceBytes>(scratch_bytes);
    scratch = own->p;
    ASSERT_EQ(cudaMemset(scratch, 0, scratch_bytes), cudaSuccess);
  }
  ASSERT_EQ(cudaMemcpy(input.p, p.bytes.data(), p.bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(upload_offsets(r.offsets, wide_offsets, offsets.p), cudaSuccess);
  ASSERT_EQ(cudaMemset(output.p, 0xCD, segments * result), cudaSuccess);  // poison: an unwritten result fails
  ASSERT_EQ(launch_any(type, wide_offsets, op, input.p, r.n(), offsets.p, segments, output.p, scratch, scratch_bytes),
            cudaSuccess) << at;
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << at;
  std::vector<unsigned char> got(segments * result);
  ASSERT_EQ(cudaMemcpy(got.data(), output.p, got.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  const std::size_t depth = ragged_depth(r.n(), segments);
  std::size_t wrong = 0;
  for (std::size_t s = 0; s < segments; ++s) {
    const std::size_t begin = std::size_t(r.offsets[s]), cols = std::size_t(r.offsets[s + 1]) - begin;
    const RowVerdict v = verdict_of(facts[s], cols, op, got.data() + s * result, depth);
    if (!v.ok && wrong++ < 3) {
      ADD_FAILURE() << at << ": segment " << s << " [" << begin << ", " << begin + cols << "): " << v.result
                    << " but the reference is " << v.reference << " (" << v.why << ")";
    }
  }
  EXPECT_EQ(wrong, 0u) << at;
}
void check(const Ragged& r, ElementType type, bool wide_offsets, RowOp op, void* scratch = nullptr,
           std::size_t scratch_bytes = 0) {
  const Prepared p = prepare(r, type);
  check(r, p, facts_of_segments(r, p, op), type, wide_offsets, op, scratch, scratch_bytes);
}

// Every type, offset type and operator on one set of lengths (the reference once per type and operator).
void check_everything(const Ragged& r, const std::vector<RowOp>& ops = {std::begin(kAllOps), std::end(kAllOps)}) {
  for (ElementType type : kAllTypes) {
    const Prepared p = prepare(r, type);
    for (RowOp op : ops) {
      const std::vector<RowFacts> facts = facts_of_segments(r, p, op);
      for (bool wide : {false, true}) check(r, p, facts, type, wide, op);
    }
  }
}

std::vector<std::size_t> uniform_lengths(std::size_t segments, std::size_t low, std::size_t high, std::mt19937_64& g) {
  std::uniform_int_distribution<std::size_t> length(low, high);
  std::vector<std::size_t> lengths(segments);
  for (std::size_t& l : lengths) l = length(g);
  return lengths;
}

// ---------------------------------------------------------------- refusals (no device needed)

TEST(RaggedSegments, RefusesATooSmallScratchAndInconsistentCounts) {
  // Fake device pointers: every refusal returns before any CUDA call.
  auto* input = reinterpret_cast<const float*>(std::uintptr_t(256));
  auto* offsets = reinterpret_cast<const std::int32_t*>(std::uintptr_t(512));
  auto* output = reinterpret_cast<float*>(std::uintptr_t(1024));
  void* scratch = reinterpret_cast<void*>(std::uintptr_t(4096));
  for (std::size_t n : {std::size_t(1), std::size_t(1000003), std::size_t(1) << 24}) {
    for (std::size_t segments : {std::size_t(1), std::size_t(7), std::size_t(3000)}) {
      const std::size_t bytes = rs::ragged_temp_bytes(n, segments);
      EXPECT_EQ((rs::reduce_segments<float, std::int32_t, rs::Sum>(input, n, offsets, segments, output, scratch,
                                                                   bytes - 1)),
                cudaErrorInvalidValue) << n << " " << segments;
      EXPECT_EQ((rs::reduce_segments<float, std::int32_t, rs::ArgMax>(
                    input, n, offsets, segments, reinterpret_cast<rs::ValueIndex*>(output), nullptr, bytes)),
                cudaErrorInvalidValue);
    }
  }
  const std::size_t bytes = rs::ragged_temp_bytes(10, 0);
  EXPECT_EQ((rs::reduce_segments<float, std::int32_t, rs::Sum>(input, 10, offsets, 0, output, scratch, bytes)),
            cudaErrorInvalidValue);  // elements but no segment
  EXPECT_EQ((rs::reduce_segments<float, std::int32_t, rs::Sum>(input, 0, offsets, 0, output, scratch, bytes)),
            cudaSuccess);  // nothing to do
  EXPECT_EQ((rs::reduce_segments<float, std::int32_t, rs::Sum>(input, 10, nullptr, 2, output, scratch, 1 << 20)),
            cudaErrorInvalidValue);  // no offsets
  const std::size_t past_int32 = std::size_t(INT32_MAX) + 1;  // int32 offsets cannot reach n
  EXPECT_EQ((rs::reduce_segments<float, std::int32_t, rs::Sum>(input, past_int32, offsets, 2, output, scratch,
                                                               rs::ragged_temp_bytes(past_int32, 2))),
            cudaErrorInvalidValue);
}

// ---------------------------------------------------------------- on the GPU

TEST(RaggedSegmentsGpu, EveryDistributionTypeOffsetAndOperator) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 g(seed);
  std::vector<Ragged> cases;
  cases.push_back(ragged("all empty", std::vector<std::size_t>(100003, 0), seed));
  cases.push_back(ragged("one element each", std::vector<std::size_t>(300007, 1), seed + 1));
  for (std::size_t k : {1, 7, 1024, 4099}) {
    cases.push_back(ragged("equal K=" + std::to_string(k), std::vector<std::size_t>(k >= 1024 ? 257 : 70001, k), seed + k));
  }
  cases.push_back(ragged("n = 1", {1}, seed + 2));
  cases.push_back(ragged("n = 3, an empty one", {0, 2, 0, 1, 0}, seed + 3));
  cases.push_back(ragged("uniform 1..2048", uniform_lengths(500, 1, 2048, g), seed + 4));
  cases.push_back(ragged("0..3, many empty", uniform_lengths(200001, 0, 3, g), seed + 5));
  {  // Pareto, alpha 1.1, x_min 1, capped at 2^18: most short, a few very long
    std::vector<std::size_t> lengths;
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::size_t n = 0;
    while (n < 1000003) {
      const double x = std::floor(std::pow(1.0 - u(g), -1.0 / 1.1));
      lengths.push_back(std::min<std::size_t>(std::size_t(x), std::size_t(1) << 18));
      n += lengths.back();
    }
    cases.push_back(ragged("Pareto 1.1", lengths, seed + 6));
  }
  {  // one of n/2 between many of 1..8
    std::vector<std::size_t> lengths = uniform_lengths(100000, 1, 8, g), more = uniform_lengths(100000, 1, 8, g);
    lengths.push_back(900001);
    lengths.insert(lengths.end(), more.begin(), more.end());
    cases.push_back(ragged("one of n/2, many 1..8", lengths, seed + 7));
  }
  {  // four of n/8 among many of 1..64
    std::vector<std::size_t> lengths;
    for (int k = 0; k < 4; ++k) {
      const std::vector<std::size_t> few = uniform_lengths(4000, 1, 64, g);
      lengths.insert(lengths.end(), few.begin(), few.end());
      lengths.push_back(131075);
    }
    cases.push_back(ragged("four of n/8, many 1..64", lengths, seed + 8));
  }
  cases.push_back(ragged("n = 1000003, 0..50", [&] {
    std::vector<std::size_t> lengths;
    std::size_t n = 0;
    std::uniform_int_distribution<std::size_t> length(0, 50);
    while (n < 1000003) lengths.push_back(std::min(length(g), 1000003 - n)), n += lengths.back();
    return lengths;
  }(), seed + 9));
  for (const Ragged& r : cases) check_everything(r);
}

// 2^24 + 5 elements: the float sum and argmax, the bf16 mean and variance (the rest as above, smaller).
TEST(RaggedSegmentsGpu, SixteenMillionAndFive) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 g(seed);
  std::vector<std::size_t> lengths = uniform_lengths(20000, 0, 64, g);
  std::size_t n = 0;
  for (std::size_t l : lengths) n += l;
  lengths.push_back((std::size_t(1) << 24) + 5 - n);  // one long segment at the end, cut over thousands of tiles
  const Ragged r = ragged("2^24 + 5", lengths, seed);
  check(r, ElementType::Float, true, RowOp::Sum);
  check(r, ElementType::Float, false, RowOp::ArgMax);
  check(r, ElementType::BFloat16, true, RowOp::MeanVar);
  check(r, ElementType::Half, false, RowOp::Max);
}

// A segment over many tiles whose end is a tile's last path item (items: its elements, then its end), one
// item short and one past; behind it short segments, so that the next tile starts with a fresh segment.
TEST(RaggedSegmentsGpu, SegmentsEndingOnTileBoundaries) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 g(seed);
  for (std::size_t boundary : {7 * kTile, kRange}) {  // a tile's last item, and a range's (8 tiles)
    for (int delta : {-1, 0, 1}) {
      std::vector<std::size_t> lengths = {std::size_t(int(boundary - 1) + delta)};  // its end: item boundary - 1
      const std::vector<std::size_t> more = uniform_lengths(5000, 0, 9, g);
      lengths.insert(lengths.end(), more.begin(), more.end());
      lengths.push_back(3 * kTile - 1);  // another long one, wherever it falls
      check_everything(ragged("ends on item " + std::to_string(boundary) + " - 1, delta " + std::to_string(delta),
                              lengths, seed + boundary + delta + 1));
    }
  }
}

// Ties of the maximum and NaNs on both sides of tile boundaries: ArgMax keeps the first, Max the NaN.
TEST(RaggedSegmentsGpu, NaNAndTiesAcrossTiles) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Segment 0: 10 tiles long, 2.0 (the max) at the last element of tiles 3, 4 and 7 and the first of 5.
  // Segment 1: short ones first, then a long one with NaNs at tile edges after ties.
  std::vector<std::size_t> lengths = {10 * kTile};
  for (int k = 0; k < 3000; ++k) lengths.push_back(k % 5);
  lengths.push_back(6 * kTile + 3);
  Ragged r = ragged("NaN and ties across tiles", lengths, seed);
  for (std::size_t t : {3, 4, 7}) r.values[t * kTile - 1] = 2.0f;
  r.values[5 * kTile] = 2.0f;
  const std::size_t last = std::size_t(r.offsets[r.segments() - 1]);
  r.values[last + kTile] = 2.0f, r.values[last + 2 * kTile - 1] = nan, r.values[last + 2 * kTile] = nan;
  r.values[last + 4 * kTile + 1] = nan;
  check_everything(r, {RowOp::Max, RowOp::ArgMax});
}

// Ties and NaNs inside one run of 16 that a span reads (ArgMax's run: Max's tree, then the first element equal
// to the top): segment 0's tiles 0 and 1 and segment 1's tiles 4 and 5 hold no end.
TEST(RaggedSegmentsGpu, NaNAndTiesInsideOneRun) {
  REQUIRE_GPU();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Ragged r = ragged("NaN and ties inside one run", {3 * kTile, 3 * kTile}, fresh_seed());
  r.values[kTile + 7] = r.values[kTile + 3] = 2.0f;  // elements 4096 to 4111: one run
  r.values[17290] = 2.0f, r.values[17292] = r.values[17294] = nan;  // 17280 to 17295: one run, after the head
  check_everything(r, {RowOp::Max, RowOp::ArgMax});
}

// Small enough for compute-sanitizer (sanitize.19_ragged_segments.<tool>.library runs it, with the two tests
// below): 17 tiles or so of short segments, empty ones, one over 4 tiles (2 ranges at most: its last drawer
// combines alone), one over 6 ranges (the drawer alone, but for MeanVar, which gathers 4 pieces at a time: the
// block) and one over 10 ranges (the block combines), every operator, float and half, both offsets.
TEST(RaggedSegmentsGpu, SmallForTheSanitizers) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 g(seed);
  std::vector<std::size_t> lengths = uniform_lengths(700, 0, 40, g);
  lengths.push_back(3 * kTile + 3);
  lengths.push_back(5 * kRange + 3);
  lengths.push_back(9 * kRange + 3);
  const std::vector<std::size_t> more = uniform_lengths(300, 0, 9, g);
  lengths.insert(lengths.end(), more.begin(), more.end());
  const Ragged r = ragged("small", lengths, seed);
  for (ElementType type : {ElementType::Float, ElementType::Half})
    for (bool wide : {false, true})
      for (RowOp op : kAllOps) check(r, type, wide, op);
}

// One scratch, zeroed once, over calls of every size it was sized for (the counters back to 0 each time).
TEST(RaggedSegmentsGpu, RepeatedCallsOnOneScratch) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 g(seed);
  const Ragged big = ragged("reused scratch, large", uniform_lengths(3000, 0, 300, g), seed);
  const std::size_t bytes = rs::ragged_temp_bytes(big.n(), big.segments());
  DeviceBytes scratch(bytes);
  ASSERT_EQ(cudaMemset(scratch.p, 0, bytes), cudaSuccess);
  for (int call = 0; call < 3; ++call) {
    check(big, ElementType::Float, true, RowOp::Sum, scratch.p, bytes);
    check(ragged("reused scratch, small", uniform_lengths(100, 0, 20, g), seed + call), ElementType::Half, false,
          RowOp::ArgMax, scratch.p, bytes);
    check(ragged("reused scratch, one tile", {5}, seed + call), ElementType::BFloat16, true, RowOp::MeanVar,
          scratch.p, bytes);
  }
}

// Offsets the host cannot check (they live on the device): decreasing, negative, past n, drawn at random,
// shifted so that the first is not 0 and the last past n. The header promises wrong results but no access out
// of bounds (sanitize.19_ragged_segments.memcheck.library runs this test), and a scratch zeroed again serves
// the next good call.
TEST(RaggedSegmentsGpu, BadOffsetsStayInBounds) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 g(seed);
  const Ragged good = ragged("good offsets after bad ones", uniform_lengths(3000, 0, 60, g), seed);
  const std::int64_t n = std::int64_t(good.n());
  std::vector<std::vector<std::int64_t>> bad(4, good.offsets);
  std::reverse(bad[0].begin(), bad[0].end());                   // decreasing, n down to 0
  std::uniform_int_distribution<std::int64_t> anywhere(-n, 2 * n);
  for (std::int64_t& o : bad[1]) o = anywhere(g);               // at random, negative and past n among them
  for (std::int64_t& o : bad[2]) o += n / 2;                    // the first not 0, the last past n
  for (std::size_t s = 1; s < bad[3].size(); s += 2) bad[3][s] = s % 4 == 1 ? INT32_MAX : INT32_MIN;  // extremes
  const std::size_t segments = good.segments(), bytes = rs::ragged_temp_bytes(good.n(), segments);
  DeviceBytes input(good.n() * sizeof(float)), offsets(good.offsets.size() * 8), output(segments * 16), scratch(bytes);
  ASSERT_EQ(cudaMemcpy(input.p, good.values.data(), good.n() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  for (std::size_t b = 0; b < bad.size(); ++b) {
    for (bool wide : {false, true}) {
      ASSERT_EQ(upload_offsets(bad[b], wide, offsets.p), cudaSuccess);
      for (RowOp op : kAllOps) {
        ASSERT_EQ(cudaMemset(scratch.p, 0, bytes), cudaSuccess);
        const std::string at = "bad offsets " + std::to_string(b) + ", " + op_name(op) + ", int" + (wide ? "64" : "32") +
                               ", seed " + std::to_string(seed);
        EXPECT_EQ(launch_any(ElementType::Float, wide, op, input.p, good.n(), offsets.p, segments, output.p, scratch.p,
                             bytes), cudaSuccess) << at;
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << at;
      }
    }
    // The tickets bad offsets left off 0 are zeroed again; then good offsets on the same scratch.
    ASSERT_EQ(cudaMemset(scratch.p, 0, bytes), cudaSuccess);
    check(good, ElementType::Float, b % 2 == 1, kAllOps[b], scratch.p, bytes);
  }
}

// More than 2^31 elements (int64 offsets; 4 GiB of bf16, 8 GiB of float): the program, whose own check takes
// the facts of the first and last 4096 segments, the longest and a drawn sample. ArgMax's indices in the
// whole input pass 2^31; the long segments of four n/8 and Pareto span many ranges past it.
TEST(RaggedSegmentsGpu, PastTwoToThe31Elements) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  for (const char* args : {"--lengths four_eighths --type bf16 --op argmax", "--lengths pareto --type float --op meanvar"}) {
    const std::string command = std::string(args) + " --n 2^31+5 --offsets int64 --reps 1 --no-flush --seed " +
                                std::to_string(seed);
    const ProgramRun run = run_program("19_ragged_segments", command);
    if (run.exit_code == 2 && run.output.find("GiB of device memory") != std::string::npos) {
      GTEST_SKIP() << "too little device memory for " << command << ":\n" << run.output;
    }
    EXPECT_EQ(run.exit_code, 0) << command << "\n" << run.output;
    EXPECT_NE(run.output.find("input      2147483653 "), std::string::npos) << command << "\n" << run.output;
    EXPECT_NE(run.output.find("against the CPU reference"), std::string::npos) << command << "\n" << run.output;
    EXPECT_NE(run.output.find("): ok\n"), std::string::npos) << command << "\n" << run.output;
  }
}

}  // namespace
}  // namespace reduction::testing
