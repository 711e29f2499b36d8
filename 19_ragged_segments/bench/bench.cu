// bench_ragged: 19's merge path against CUB's DeviceSegmentedReduce and the read-only
// floor, on ragged segments given by int32 CSR offsets, n = 2^26 elements.
//
// For each distribution of the segment lengths (below) and each input type (float, bf16), these jobs are
// timed interleaved (time_in_turns, common/timer.h: one checked run and one warm-up each, then 20
// repetitions in each of which every job runs once, in turn, behind an L2 flush; median, min and IQR):
//   merge_path     ragged_segments::reduce_segments, Sum, Max, ArgMax and MeanVar (one scratch, zeroed once)
//   staged         the same with every tile of ends staged, none reduced from registers (staged.cu: the step table)
//   tile_per_block the same with a block per tile, no ranges of 8 (tile_per_block.cu: the step table)
//   binary_search  the same with a binary search in the partition, not 4-way (binary_search.cu: the step table)
//   three_blocks   MeanVar only, at 3 blocks an SM gathering 8 pieces at a time, not 4 and 4 (three_blocks.cu:
//                  docs/tuning.md)
//   cub_segmented  cub::DeviceSegmentedReduce on the same offsets: Reduce for Sum and Max (widening to float
//                  as common/cub_rows.cu does), ArgMax; CUB has no mean and variance (temp storage
//                  allocated once, outside the timing)
//   floor          common/read_floor.cu's kernel over the input's bytes (rows_harness::floor_launch, as the rows
//                  programs run it)
// Every result of merge_path, the four other builds of its unit and CUB is checked after its first run and after its
// last repetition, on a sample of segments (the first and last 64, the longest, 256 others drawn from the seed)
// against the CPU reference of each (common/rows_check.h: facts_of in double, verdict_of).
//
// Distributions (segments_harness.cu's generators, which 19_ragged_segments shares; lengths from
// splitmix64 of the seed; element values uniform in [-1, 1), the same array for every distribution,
// rounded to bf16 for the bf16 runs):
//   uniform 1..2048          lengths uniform in 1..2048 until n elements are used (the last one trimmed)
//   pareto 1.1               floor(x_m / U^(1/1.1)), x_m = 1, U uniform in (0, 1], capped at what is left
//   one n/2, rest 1..8       1..8 over the first n/4 elements, one segment of n/2, 1..8 over the last n/4
//   four n/8, rest 1..64     four times: 1..64 over n/8 elements, then one segment of n/8
//   equal rows M=1, 64, 4096 M segments of K = n / M
//
// Bytes: input + offsets ((segments + 1) x 4) + outputs (segments x the result's size) for merge_path, its other
// builds and CUB (merge_path's counters, pieces and tile boundaries in scratch, about 44 bytes per 4096 path
// items, are not counted); the input only for the floor. percent_of_read_floor = floor_ms / median_ms x 100; percent_of_bound =
// (floor_ms x bytes / input_bytes) / median_ms x 100: the floor's time scaled to the method's own bytes.
//
//   cmake --build build/release --target bench_ragged        (19_ragged_segments/bench/, out of the default build)
//   build/release/bin/bench_ragged > ragged_bench.jsonl        (--quick: n = 2^18, 3 repetitions)
//
// Output: JSON lines, the run head first, then one per (distribution, type, op, method). Exit code 0 when
// every checked result is right, 1 when one is wrong, 2 on a bad argument, 3 without a GPU or on a CUDA error.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda_check.h"
#include "device_buffer.h"
#include "device_info.h"
#include "json.h"
#include "l2_flush.h"
#include "parallel.h"
#include "ragged_segments.cuh"
#include "random.h"
#include "rows_check.h"
#include "rows_harness.h"
#include "run_head.h"
#include "segments_harness.h"
#include "timer.h"
#include "variants.h"

namespace reduction {
segments_harness::SegmentsProgram ragged_segments_program();  // 19_ragged_segments/main.cu: its launch and depth
}  // namespace reduction

namespace {

using namespace reduction;
using namespace reduction::rows_harness;
namespace rs = ::ragged_segments;
using segments_harness::Distribution;
using segments_harness::Lengths;

constexpr std::uint64_t kSeed = 20260046;  // the lengths' and the values' seed, in every line

// ---------------------------------------------------------------- the distributions

// The distributions of the lengths (segments_harness.cu's generators, which 19_ragged_segments
// draws from too), every one from kSeed.
std::vector<Distribution> distributions(std::size_t n) {
  std::vector<Distribution> all;
  for (Lengths lengths : {Lengths::Uniform, Lengths::Pareto, Lengths::OneHalf, Lengths::FourEighths}) {
    all.push_back(segments_harness::make_distribution(lengths, n, kSeed));
  }
  for (std::size_t m : {1, 64, 4096}) all.push_back(segments_harness::make_distribution(Lengths::Equal, n, kSeed, m));
  return all;
}

// The segments whose results are checked: the first and last 64, the longest, 256 drawn from the seed.
std::vector<std::size_t> sample_of(const Distribution& d) {
  const std::size_t segments = d.segments();
  std::vector<std::size_t> sample;
  for (std::size_t s = 0; s < std::min<std::size_t>(64, segments); ++s) sample.push_back(s), sample.push_back(segments - 1 - s);
  sample.push_back(d.longest_at);
  for (std::uint64_t k = 0; k < 256; ++k) {  // splitmix64 draws of kSeed + 5
    sample.push_back(std::size_t(splitmix64((kSeed + 5) * 0xD1B54A32D192ED03ull + k) % segments));
  }
  std::sort(sample.begin(), sample.end());
  sample.erase(std::unique(sample.begin(), sample.end()), sample.end());
  return sample;
}

// ---------------------------------------------------------------- the methods

enum class Method { MergePath, Staged, TilePerBlock, BinarySearch, ThreeBlocks, CubSegmented, Floor };
const char* method_text(Method m) {
  return m == Method::MergePath      ? "merge_path"
         : m == Method::Staged       ? "staged"
         : m == Method::TilePerBlock ? "tile_per_block"
         : m == Method::BinarySearch ? "binary_search"
         : m == Method::ThreeBlocks  ? "three_blocks"
         : m == Method::CubSegmented ? "cub_segmented"
                                     : "floor";
}

using segments_harness::cub_depth;  // CUB's order is its own: the depth assumed (segments_harness.h)

struct Job {
  Method method;
  RowOp op;
};

// One input type on the device, with its values as float (what the reference reads).
struct Input {
  ElementType type;
  std::vector<float> values;
  DeviceBuffer<unsigned char> device;
};

// ---------------------------------------------------------------- the command line

struct BenchOptions {
  bool quick = false, help = false;
  int reps = 20;
};

const char* kUsage =
    "usage: bench_ragged [--quick] [--reps R] [--help]\n"
    "  19's merge path (Sum, Max, ArgMax, MeanVar; also with every tile of ends staged, with a block per tile,\n"
    "  with a binary search in the partition, and MeanVar at 3 blocks an SM),\n"
    "  CUB's DeviceSegmentedReduce (Sum, Max, ArgMax) and the read-only floor over ragged segments (int32\n"
    "  offsets), float and bf16,\n"
    "  n = 2^26; L2 flushed, the median of R repetitions (20). --quick: n = 2^18 and 3 repetitions (a smoke\n"
    "  test). JSON lines on stdout.\n";

bool parse(int argc, char** argv, BenchOptions* options, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      options->quick = true;
    } else if (arg == "--help" || arg == "-h") {
      options->help = true;
    } else if (arg == "--reps") {
      char* end = nullptr;
      const long reps = i + 1 < argc ? std::strtol(argv[i + 1], &end, 10) : 0;
      if (i + 1 >= argc || *end != '\0' || reps < 1 || reps > 1000) {
        *error = "--reps takes a whole number from 1 to 1000";
        return false;
      }
      options->reps = int(reps);
      ++i;
    } else {
      *error = "unknown argument '" + arg + "'";
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  BenchOptions options;
  std::string error;
  if (!parse(argc, argv, &options, &error)) {
    std::fprintf(stderr, "bench_ragged: %s\n%s", error.c_str(), kUsage);
    return 2;
  }
  if (options.help) {
    std::printf("%s", kUsage);
    return 0;
  }
  std::string why;
  if (!cuda_device_available(&why)) {
    std::fprintf(stderr, "bench_ragged: needs a CUDA GPU: %s\n", why.c_str());
    return 3;
  }
  const int reps = options.quick ? std::min(options.reps, 3) : options.reps;
  // Merge path as the program launches it (main.cu's switch over the operators and types), and its error bound:
  // the most combining steps an element's state takes.
  const segments_harness::SegmentsProgram program = reduction::ragged_segments_program();
  const auto merge_path_depth = program.depth;
  const std::size_t n = options.quick ? std::size_t(1) << 18 : std::size_t(1) << 26;
  try {
    const DeviceInfo device = query_device();
    std::printf("%s\n", run_head(&device, reps, true).c_str());
    std::fflush(stdout);
    L2Flusher flusher(device.l2_bytes);

    // The values, uniform in [-1, 1), once; then rounded to bf16 for the bf16 input.
    std::vector<float> values(n);
    parallel_chunks(n, [&](unsigned, std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) values[i] = 2.0f * random_value<float>(kSeed, i, n) - 1.0f;
    });
    std::vector<Input> inputs;
    for (ElementType type : {ElementType::Float, ElementType::BFloat16}) {
      Input in{type, values, DeviceBuffer<unsigned char>(n * element_bytes(type))};
      if (type == ElementType::Float) {
        CUDA_CHECK(cudaMemcpy(in.device.get(), values.data(), n * 4, cudaMemcpyHostToDevice));
      } else {
        std::vector<__nv_bfloat16> bits(n);
        parallel_chunks(n, [&](unsigned, std::size_t begin, std::size_t end) {
          for (std::size_t i = begin; i < end; ++i) {
            bits[i] = __float2bfloat16_rn(values[i]);
            in.values[i] = __bfloat162float(bits[i]);
          }
        });
        CUDA_CHECK(cudaMemcpy(in.device.get(), bits.data(), n * 2, cudaMemcpyHostToDevice));
      }
      inputs.push_back(std::move(in));
    }
    values = {};

    const std::vector<Job> jobs = {{Method::MergePath, RowOp::Sum},    {Method::MergePath, RowOp::Max},
                                   {Method::MergePath, RowOp::ArgMax}, {Method::MergePath, RowOp::MeanVar},
                                   {Method::Staged, RowOp::Sum},       {Method::Staged, RowOp::Max},
                                   {Method::Staged, RowOp::ArgMax},    {Method::Staged, RowOp::MeanVar},
                                   {Method::TilePerBlock, RowOp::Sum}, {Method::TilePerBlock, RowOp::Max},
                                   {Method::TilePerBlock, RowOp::ArgMax}, {Method::TilePerBlock, RowOp::MeanVar},
                                   {Method::BinarySearch, RowOp::Sum}, {Method::BinarySearch, RowOp::Max},
                                   {Method::BinarySearch, RowOp::ArgMax}, {Method::BinarySearch, RowOp::MeanVar},
                                   {Method::ThreeBlocks, RowOp::MeanVar},
                                   {Method::CubSegmented, RowOp::Sum}, {Method::CubSegmented, RowOp::Max},
                                   {Method::CubSegmented, RowOp::ArgMax}, {Method::Floor, RowOp::Sum}};
    DeviceBuffer<unsigned> sink(1);
    bool all_ok = true;
    for (const Distribution& d : distributions(n)) {
      const std::size_t segments = d.segments();
      DeviceBuffer<std::int32_t> offsets(segments + 1);
      const std::vector<std::int32_t> narrow(d.offsets.begin(), d.offsets.end());  // n = 2^26: int32 offsets
      CUDA_CHECK(cudaMemcpy(offsets.get(), narrow.data(), (segments + 1) * 4, cudaMemcpyHostToDevice));
      DeviceBuffer<unsigned char> output(segments * 8);  // the widest result: 8 bytes
      std::vector<unsigned char> host_output(segments * 8);
      const std::size_t scratch_bytes = rs::ragged_temp_bytes(n, segments);
      DeviceBuffer<unsigned char> scratch(scratch_bytes);
      CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch_bytes));  // once: every call puts its counters back to 0
      const std::vector<std::size_t> sample = sample_of(d);

      for (Input& in : inputs) {
        const void* input = in.device.get();
        // CUB's temp storage: the largest of its three operators, allocated once.
        std::size_t temp_bytes = 0;
        for (RowOp op : {RowOp::Sum, RowOp::Max, RowOp::ArgMax}) {
          std::size_t bytes = 0;
          CUDA_CHECK(by_element_type(in.type, [&](auto tag) {
            using In = typename decltype(tag)::type;
            if constexpr (std::is_same_v<In, __half>) return cudaErrorInvalidValue;  // not benched
            else return segments_harness::cub_segmented_call(in.type, op, nullptr, &bytes, nullptr, offsets.get(), false,
                                                             segments, nullptr, nullptr);
          }));
          temp_bytes = std::max(temp_bytes, bytes);
        }
        DeviceBuffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));

        // The facts of the sampled segments (every operator's: MeanVar's are the widest).
        std::vector<RowFacts> facts(sample.size());
        parallel_chunks(sample.size(), [&](unsigned, std::size_t begin, std::size_t end) {
          for (std::size_t k = begin; k < end; ++k) {
            const std::size_t s = sample[k], first = std::size_t(d.offsets[s]);
            facts[k] = facts_of(in.values.data() + first, std::size_t(d.offsets[s + 1]) - first, RowOp::MeanVar);
          }
        });

        std::vector<bool> ok(jobs.size(), true);
        std::vector<double> worst(jobs.size(), 0.0);
        auto launch = [&](std::size_t j) {
          const Job& job = jobs[j];
          cudaError_t status = cudaSuccess;
          if (job.method == Method::Floor) {
            status = floor_launch(input, n * element_bytes(in.type), sink.get());
          } else if (job.method == Method::MergePath) {
            status = program.merge_path.launch(in.type, job.op, input, n, offsets.get(), false, segments, output.get(),
                                               scratch.get(), scratch_bytes, 0);
          } else {
            status = by_element_type(in.type, [&](auto tag) {
              using In = typename decltype(tag)::type;
              if constexpr (std::is_same_v<In, __half>) {
                return cudaErrorInvalidValue;  // not benched
              } else {
                const In* typed = static_cast<const In*>(input);
                if (job.method != Method::CubSegmented) {  // another build of 19's unit
                  using bench_variants::Operator;
                  const auto op = job.op == RowOp::Sum ? Operator::Sum
                                  : job.op == RowOp::Max ? Operator::Max
                                  : job.op == RowOp::ArgMax ? Operator::ArgMax
                                                            : Operator::MeanVar;
                  auto* reduce = job.method == Method::Staged         ? bench_variants::reduce_staged
                                 : job.method == Method::TilePerBlock ? bench_variants::reduce_tile_per_block
                                 : job.method == Method::BinarySearch ? bench_variants::reduce_binary_search
                                                                      : bench_variants::reduce_three_blocks;
                  return reduce(op, std::is_same_v<In, __nv_bfloat16>, typed, n, offsets.get(), segments, output.get(),
                                scratch.get(), scratch_bytes);
                }
                std::size_t bytes = temp_bytes;
                return segments_harness::cub_segmented_call(in.type, job.op, temp.get(), &bytes, typed, offsets.get(),
                                                            false, segments, output.get(), nullptr);
              }
            });
          }
          CUDA_CHECK(status);
        };
        auto prepare = [&](std::size_t j, int poison) {  // an unwritten result fails its check
          if (jobs[j].method != Method::Floor) {
            CUDA_CHECK(cudaMemset(output.get(), poison, segments * result_bytes(jobs[j].op)));
          }
        };
        auto checked = [&](std::size_t j, bool /*after_last*/) {
          const Job& job = jobs[j];
          if (job.method == Method::Floor) return;
          const std::size_t stride = result_bytes(job.op);
          CUDA_CHECK(cudaMemcpy(host_output.data(), output.get(), segments * stride, cudaMemcpyDeviceToHost));
          const std::size_t path_depth = merge_path_depth(n, segments);
          for (std::size_t k = 0; k < sample.size(); ++k) {
            const std::size_t s = sample[k], length = std::size_t(d.offsets[s + 1]) - std::size_t(d.offsets[s]);
            const std::size_t depth = job.method == Method::CubSegmented ? cub_depth(length) : path_depth;
            const RowVerdict v = verdict_of(facts[k], length, job.op, host_output.data() + s * stride, depth);
            worst[j] = std::max(worst[j], v.ratio);
            if (!v.ok && ok[j]) {
              std::fprintf(stderr, "bench_ragged: WRONG %s, %s, %s, %s: segment %zu (length %zu): %s but the "
                           "reference is %s (%s)\n", d.name.c_str(), element_name(in.type), op_name(job.op),
                           method_text(job.method), s, length, v.result.c_str(), v.reference.c_str(), v.why.c_str());
            }
            if (!v.ok) ok[j] = false;
          }
        };
        const std::vector<std::vector<double>> times = time_in_turns(jobs.size(), reps, &flusher, prepare, launch, checked);

        const Spread floor = summarize(times.back());
        const double input_bytes = double(n * element_bytes(in.type));
        for (std::size_t j = 0; j < jobs.size(); ++j) {
          const Job& job = jobs[j];
          const bool is_floor = job.method == Method::Floor;
          const Spread t = summarize(times[j]);
          const double bytes =
              is_floor ? input_bytes : input_bytes + double(segments + 1) * 4 + double(segments * result_bytes(job.op));
          const double of_floor = t.median > 0 ? 100.0 * floor.median / t.median : 0.0;
          all_ok = all_ok && ok[j];
          JsonObject line;
          line.str("dist", d.name).num("n", n).num("segments", segments).num("longest", d.longest)
              .str("type", element_name(in.type)).str("offsets", "int32").str("op", is_floor ? "-" : op_name(job.op))
              .str("method", method_text(job.method)).num("median_ms", t.median, "%.6f").num("min_ms", t.min, "%.6f")
              .num("iqr_ms", t.iqr, "%.6f").num("bytes", std::size_t(bytes)).num("input_bytes", std::size_t(input_bytes))
              .num("gbps", t.median > 0 ? bytes / t.median / 1e6 : 0.0, "%.1f").num("floor_ms", floor.median, "%.6f")
              .num("percent_of_read_floor", of_floor, "%.2f")
              .num("percent_of_bound", of_floor * bytes / input_bytes, "%.2f")
              .raw("ok", is_floor ? "null" : ok[j] ? "true" : "false");
          if (!is_floor) line.num("checked_segments", sample.size()).num("worst_ratio", worst[j], "%.3g");
          line.num("seed", kSeed);
          std::printf("%s\n", line.text().c_str());
        }
        std::fflush(stdout);
      }
    }
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_ragged: %s\n", e.what());
    return 3;
  }
}
