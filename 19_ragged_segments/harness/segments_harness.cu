// segments_harness.cu: chapter 19's harness (segments_harness.h): the distributions, CUB's
// DeviceSegmentedReduce as the yardstick, the command line, the check of the segments, the
// timing with the read-only floor, the report and run_segments_program.
#include "segments_harness.h"

#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/std/limits>
#include <thrust/iterator/tabulate_output_iterator.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <sstream>
#include <type_traits>

#include "cli.h"
#include "cub_operators.cuh"
#include "cuda_check.h"
#include "device_buffer.h"
#include "device_info.h"
#include "harness.h"
#include "input.h"
#include "json.h"
#include "l2_flush.h"
#include "parallel.h"
#include "random.h"
#include "rows_check.h"
#include "run_head.h"
#include "timer.h"

namespace reduction::segments_harness {

using namespace rows_harness;

// ---------------------------------------------------------------- the distributions

const char* lengths_name(Lengths lengths) {
  switch (lengths) {
    case Lengths::Uniform: return "uniform";
    case Lengths::Pareto: return "pareto";
    case Lengths::OneHalf: return "one_half";
    case Lengths::FourEighths: return "four_eighths";
    case Lengths::Equal: return "equal";
  }
  return "?";
}

namespace {

// A counter-based stream of 64-bit draws (splitmix64 of the seed and a counter).
struct Draws {
  std::uint64_t seed, i = 0;
  std::uint64_t next() { return splitmix64(seed * 0xD1B54A32D192ED03ull + i++); }
  std::size_t in(std::size_t low, std::size_t high) { return low + std::size_t(next() % (high - low + 1)); }
};

// Segments of 1..max_length until `budget` elements are used, the last one trimmed to fit.
void fill_uniform(Distribution& d, std::size_t budget, std::size_t max_length, Draws& draws) {
  while (budget > 0) {
    const std::size_t length = std::min(draws.in(1, max_length), budget);
    d.add(length);
    budget -= length;
  }
}

}  // namespace

Distribution make_distribution(Lengths lengths, std::size_t n, std::uint64_t seed, std::size_t rows) {
  Distribution d;
  switch (lengths) {
    case Lengths::Uniform: {
      d.name = "uniform 1..2048";
      Draws draws{seed + 1};
      fill_uniform(d, n, 2048, draws);
      break;
    }
    case Lengths::Pareto: {
      d.name = "pareto 1.1";
      Draws draws{seed + 2};
      for (std::size_t left = n; left > 0;) {
        const double u = double((draws.next() >> 11) + 1) * 0x1.0p-53;  // (0, 1]
        const double x = std::floor(std::pow(u, -1.0 / 1.1));           // x_m = 1: at least 1
        const std::size_t length = x >= double(left) ? left : std::size_t(x);
        d.add(length);
        left -= length;
      }
      break;
    }
    case Lengths::OneHalf: {
      d.name = "one n/2, rest 1..8";
      Draws draws{seed + 3};
      fill_uniform(d, n / 4, 8, draws);
      if (n / 2 > 0) d.add(n / 2);
      fill_uniform(d, n - n / 4 - n / 2, 8, draws);
      break;
    }
    case Lengths::FourEighths: {
      d.name = "four n/8, rest 1..64";
      Draws draws{seed + 4};
      for (int k = 0; k < 4; ++k) {
        fill_uniform(d, n / 8, 64, draws);
        if (n / 8 > 0) d.add(n / 8);
      }
      fill_uniform(d, n - 8 * (n / 8), 64, draws);  // nothing for n a multiple of 8
      break;
    }
    case Lengths::Equal: {
      d.name = "equal rows M=" + std::to_string(rows);
      d.offsets.reserve(rows + 1);
      for (std::size_t r = 0; r < rows; ++r) d.add(n / rows + (r < n % rows ? 1 : 0));
      break;
    }
  }
  return d;
}

// ---------------------------------------------------------------- CUB, the yardstick

const char* method_name(Method method) {
  switch (method) {
    case Method::Auto: return "auto";
    case Method::MergePath: return "merge_path";
    case Method::CubSegmented: return "cub_segmented";
  }
  return "?";
}

std::size_t cub_depth(std::size_t length) { return std::max<std::size_t>(1, std::min(length, length / 128 + 64)); }

namespace {

using cub_operators::MaxInFloat;  // CUB's operators, as common/cub_rows.cu gives them (cub_operators.cuh)
using cub_operators::SumInFloat;
using cub_operators::WriteValueIndex;
using cub_rows::ValueIndex;  // row_results::ValueIndex of the copy units (ragged_segments.cuh)

template <typename In, typename Offset>
cudaError_t cub_typed(RowOp op, void* temp, std::size_t& temp_bytes, const In* input, const Offset* offsets,
                      std::size_t segments, void* output, cudaStream_t stream) {
  const auto count = static_cast<std::int64_t>(segments);
  switch (op) {
    case RowOp::Sum:
      return cub::DeviceSegmentedReduce::Reduce(temp, temp_bytes, input, static_cast<float*>(output), count, offsets,
                                                offsets + 1, SumInFloat{}, 0.0f, stream);
    case RowOp::Max:
      return cub::DeviceSegmentedReduce::Reduce(temp, temp_bytes, input, static_cast<float*>(output), count, offsets,
                                                offsets + 1, MaxInFloat{},
                                                -cuda::std::numeric_limits<float>::infinity(), stream);
    case RowOp::ArgMax: {
      const auto out = thrust::make_tabulate_output_iterator(
          WriteValueIndex{static_cast<ValueIndex*>(output)});
      return cub::DeviceSegmentedReduce::ArgMax(temp, temp_bytes, input, out, count, offsets, offsets + 1, stream);
    }
    default: return cudaErrorInvalidValue;  // no mean and variance in CUB
  }
}

}  // namespace

cudaError_t cub_segmented_call(ElementType type, RowOp op, void* temp, std::size_t* temp_bytes, const void* input,
                               const void* offsets, bool wide_offsets, std::size_t segments, void* output,
                               cudaStream_t stream) {
  if (op == RowOp::MeanVar) return cudaErrorInvalidValue;
  return by_element_type(type, [&](auto tag) {
    using In = typename decltype(tag)::type;
    const In* typed = static_cast<const In*>(input);
    return wide_offsets ? cub_typed<In>(op, temp, *temp_bytes, typed, static_cast<const std::int64_t*>(offsets),
                                        segments, output, stream)
                        : cub_typed<In>(op, temp, *temp_bytes, typed, static_cast<const std::int32_t*>(offsets),
                                        segments, output, stream);
  });
}

SegmentsLaunch cub_segmented_launch() {
  SegmentsLaunch launch;
  launch.launch = [](ElementType type, RowOp op, const void* input, std::size_t, const void* offsets,
                     bool wide_offsets, std::size_t segments, void* output, void* temp, std::size_t temp_bytes,
                     cudaStream_t stream) {
    return cub_segmented_call(type, op, temp, &temp_bytes, input, offsets, wide_offsets, segments, output, stream);
  };
  launch.temp_bytes_for = [](ElementType type, RowOp op, std::size_t, bool wide_offsets, std::size_t segments,
                             std::size_t* bytes) {
    *bytes = 0;
    return cub_segmented_call(type, op, nullptr, bytes, nullptr, nullptr, wide_offsets, segments, nullptr, nullptr);
  };
  return launch;
}

// ---------------------------------------------------------------- the command line

namespace {

constexpr std::uint64_t kMaxElements = std::uint64_t(1) << 40;
constexpr std::size_t kCheckAll = std::size_t(1) << 21;  // past this many segments, a sample is checked
constexpr std::size_t kSampleDrawn = std::size_t(1) << 20;

const char* offsets_name(bool wide) { return wide ? "int64" : "int32"; }

}  // namespace

std::string segments_usage(const std::string& program) {
  std::ostringstream out;
  out << "usage: " << program << " [--n N] [--lengths uniform|pareto|one_half|four_eighths|equal] [--rows M]\n"
      << "       [--type float|half|bf16] [--offsets int32|int64] [--op sum|max|argmax|meanvar]\n"
      << "       [--method auto|merge_path|cub_segmented] [--reps R] [--seed S] [--no-flush] [--json] [--help]\n\n"
      << "  --n N          elements in all the segments together (default 2^26 = 67108864); 2^K+C is accepted\n"
      << "  --lengths D    how the segment lengths are drawn (default uniform):\n"
      << "                 uniform       1..2048 each\n"
      << "                 pareto        floor(1 / U^(1/1.1)): 70 % of length 1 or 2, a heavy tail of long ones\n"
      << "                 one_half      one segment of n/2 among segments of 1..8\n"
      << "                 four_eighths  four segments of n/8 among segments of 1..64\n"
      << "                 equal         M segments of n / M (--rows)\n"
      << "  --rows M       the number of segments of --lengths equal (default 4096)\n"
      << "  --type T       element type (default float); results are float either way\n"
      << "  --offsets O    the CSR offsets' type (default int32, which holds n up to 2^31 - 1)\n"
      << "  --op OP        sum (default), max, argmax (value and first index in the segment),\n"
      << "                 meanvar (mean and population variance)\n"
      << "  --method X     auto (the chapter's rule: merge path at every shape), merge_path (the copy unit),\n"
      << "                 cub_segmented (cub::DeviceSegmentedReduce, the yardstick; no meanvar)\n"
      << "  --reps R       timed repetitions; the median is reported (default 30)\n"
      << "  --seed S       seed of the lengths and the values (uniform in [-1, 1)), any 64-bit value\n"
      << "                 (default: a fresh one, printed)\n"
      << "  --no-flush     do not flush the L2 cache before each timed repetition\n"
      << "  --json         print the run head and one JSON object instead of the report\n"
      << "  --help         this text\n"
      << "\nEvery segment is checked against a CPU reference in double (max and argmax exactly, sum, mean and\n"
      << "variance within the float error bound of the method's depth) when there are at most 2^21 segments;\n"
      << "past that, a sample: the first and last 4096, the longest, and 2^20 others drawn from the seed.\n"
      << "The read-only floor (a kernel that only reads the input) is timed in the same run; the bound is the\n"
      << "floor's time scaled to the bytes the method must move (input, offsets and results).\n"
      << "\nexit codes: 0 verified, 1 wrong result, 2 bad usage or input, 3 no CUDA device or a CUDA error\n";
  return out.str();
}

SegmentsOptions parse_segments_options(const std::string& program, int argc, const char* const* argv) {
  SegmentsOptions options;
  const std::vector<Lengths> all_lengths = {Lengths::Uniform, Lengths::Pareto, Lengths::OneHalf,
                                            Lengths::FourEighths, Lengths::Equal};
  const std::vector<ElementType> types = {ElementType::Float, ElementType::Half, ElementType::BFloat16};
  const std::vector<RowOp> ops = {RowOp::Sum, RowOp::Max, RowOp::ArgMax, RowOp::MeanVar};
  const std::vector<Method> methods = {Method::Auto, Method::MergePath, Method::CubSegmented};
  const std::vector<bool> widths = {false, true};
  bool lengths_given = false;
  parse_flags(argc, argv, options, [&](const std::string& arg, const std::function<std::string()>& value) {
    if (arg == "--n") {
      options.n = parse_count(arg, value(), kMaxElements);
    } else if (arg == "--lengths") {
      options.lengths = pick(program, arg, value(), all_lengths, lengths_name);
      lengths_given = true;
    } else if (arg == "--rows") {
      options.rows = parse_count(arg, value(), kMaxElements);
      if (options.rows == 0) throw UsageError("--rows must be at least 1");
      options.rows_given = true;
    } else if (arg == "--type") {
      options.type = pick(program, arg, value(), types, element_name);
    } else if (arg == "--offsets") {
      options.wide_offsets = pick(program, arg, value(), widths, offsets_name);
    } else if (arg == "--op") {
      options.op = pick(program, arg, value(), ops, rows_harness::op_name);
    } else if (arg == "--method") {
      options.method = pick(program, arg, value(), methods, method_name);
    } else if (arg == "--cols" || arg == "--block" || arg == "--grid" || arg == "--variant" || arg == "--input" ||
               arg == "--sweep") {
      throw UsageError(arg + " does not apply: " + program +
                       " takes --n and --lengths (and picks its launch with --method)");
    } else {
      return false;
    }
    return true;
  });
  if (options.rows_given && options.lengths != Lengths::Equal) {
    throw UsageError(std::string("--rows applies to --lengths equal only") +
                     (lengths_given ? std::string(", not ") + lengths_name(options.lengths) : " (the default is uniform)"));
  }
  if (!options.wide_offsets && options.n > std::size_t(INT32_MAX)) {
    throw UsageError("--n " + std::to_string(options.n) +
                     " does not fit int32 offsets (at most 2^31 - 1 = 2147483647): add --offsets int64");
  }
  if (options.method == Method::CubSegmented && options.op == RowOp::MeanVar) {
    throw UsageError("--method cub_segmented does not offer --op meanvar (CUB has no mean and variance): "
                     "use sum, max or argmax, or --method auto");
  }
  return options;
}

// ---------------------------------------------------------------- the check

namespace {

struct SegmentsCheck {
  bool ok = true;
  std::size_t checked = 0, wrong = 0;
  std::string first_wrong;
  std::size_t first_wrong_at = SIZE_MAX;
  double worst = 0;
  std::string segment0_result, segment0_reference;
};

// The segments checked: all of them up to kCheckAll, else the first and last 4096, the longest
// and kSampleDrawn others drawn from the seed.
std::vector<std::size_t> checked_segments(const Distribution& d, std::uint64_t seed) {
  const std::size_t segments = d.segments();
  std::vector<std::size_t> list;
  if (segments <= kCheckAll) {
    list.resize(segments);
    for (std::size_t s = 0; s < segments; ++s) list[s] = s;
    return list;
  }
  for (std::size_t s = 0; s < 4096; ++s) list.push_back(s), list.push_back(segments - 1 - s);
  list.push_back(d.longest_at);
  Draws draws{seed + 5};
  for (std::size_t k = 0; k < kSampleDrawn; ++k) list.push_back(std::size_t(draws.next() % segments));
  std::sort(list.begin(), list.end());
  list.erase(std::unique(list.begin(), list.end()), list.end());
  return list;
}

// Each listed segment's result against the facts of its values (facts_of in double, verdict_of),
// every element through at most depth(length) combining steps.
template <typename Depth>
SegmentsCheck check_segments(const Distribution& d, const std::vector<float>& values, RowOp op,
                             const unsigned char* results, const std::vector<std::size_t>& list, Depth depth) {
  SegmentsCheck check;
  check.checked = list.size();
  const std::size_t stride = result_bytes(op);
  std::mutex mutex;
  parallel_chunks(list.size(), [&](unsigned, std::size_t begin, std::size_t end) {
    SegmentsCheck mine;
    for (std::size_t k = begin; k < end; ++k) {
      const std::size_t s = list[k], length = d.length(s);
      const RowFacts facts = facts_of(values.data() + d.offsets[s], length, op);
      const RowVerdict v = verdict_of(facts, length, op, results + s * stride, depth(length));
      mine.worst = std::max(mine.worst, v.ratio);
      if (s == 0) mine.segment0_result = v.result, mine.segment0_reference = v.reference;
      if (!v.ok) {
        ++mine.wrong;
        if (s < mine.first_wrong_at) {
          mine.first_wrong_at = s;
          mine.first_wrong = "segment " + std::to_string(s) + " (length " + std::to_string(length) + "): " + v.result +
                             " but the reference is " + v.reference + " (" + v.why + ")";
        }
      }
    }
    std::lock_guard<std::mutex> lock(mutex);
    check.worst = std::max(check.worst, mine.worst);
    check.wrong += mine.wrong;
    if (!mine.segment0_result.empty()) {
      check.segment0_result = mine.segment0_result;
      check.segment0_reference = mine.segment0_reference;
    }
    if (mine.first_wrong_at < check.first_wrong_at) {
      check.first_wrong_at = mine.first_wrong_at;
      check.first_wrong = mine.first_wrong;
    }
  });
  check.ok = check.wrong == 0;
  return check;
}

double mib(double bytes) { return bytes / 1048576.0; }

std::string number_text(double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.3g", x);
  return buffer;
}

// The values (uniform in [-1, 1) from the seed) rounded to `type`: the bytes the device reads,
// and `values` holds the same elements as float (what the reference reads).
std::vector<unsigned char> make_values(std::size_t n, ElementType type, std::uint64_t seed, std::vector<float>* values) {
  values->resize(n);
  std::vector<unsigned char> bytes(n * element_bytes(type));
  parallel_chunks(n, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      float x = 2.0f * random_value<float>(seed, i, n) - 1.0f;
      if (type == ElementType::Half) {
        const __half h = __float2half_rn(x);
        x = __half2float(h);
        std::memcpy(&bytes[2 * i], &h, 2);
      } else if (type == ElementType::BFloat16) {
        const __nv_bfloat16 b = __float2bfloat16_rn(x);
        x = __bfloat162float(b);
        std::memcpy(&bytes[2 * i], &b, 2);
      } else {
        std::memcpy(&bytes[4 * i], &x, 4);
      }
      (*values)[i] = x;
    }
  });
  return bytes;
}

std::string plan_of(Method method, std::size_t n, std::size_t segments) {
  if (method == Method::CubSegmented) return "cub::DeviceSegmentedReduce, its own launch shape";
  const std::size_t tiles = (n + segments + 4095) / 4096, blocks = (tiles + 7) / 8;
  return std::string(method == Method::Auto ? "merge path (the chapter's rule): " : "merge path: ") +
         std::to_string(tiles) + " tiles of 4096 path items (elements + segment ends), " + std::to_string(blocks) +
         (blocks == 1 ? " block" : " blocks") + " of 256 threads, 8 tiles each";
}

}  // namespace

// ---------------------------------------------------------------- main

int run_segments_program(const SegmentsProgram& program, int argc, char** argv) {
  try {
    const SegmentsOptions options = parse_segments_options(program.id, argc, argv);
    if (options.help) {
      std::printf("%s: %s\n\n%s", program.id.c_str(), program.summary.c_str(), segments_usage(program.id).c_str());
      return 0;
    }
    std::string why;
    if (!cuda_device_available(&why)) throw CudaError(why);
    const DeviceInfo device = query_device();
    const std::size_t n = options.n;
    const bool cub = options.method == Method::CubSegmented;
    const SegmentsLaunch launch = cub ? cub_segmented_launch() : program.merge_path;

    // Device memory, at most: the input, the offsets and results of at most n (or M) segments,
    // the flush buffer (the method's temp storage is checked when its size is known).
    const std::size_t most_segments = options.lengths == Lengths::Equal ? options.rows : n;
    const std::size_t offset_bytes = options.wide_offsets ? 8 : 4;
    const double need = double(n) * double(element_bytes(options.type)) +
                        double(most_segments + 1) * double(offset_bytes + result_bytes(options.op)) +
                        2.0 * double(device.l2_bytes);
    if (need > double(device.free_bytes) - 64.0 * 1048576.0) {
      char message[256];
      std::snprintf(message, sizeof message,
                    "--n %zu needs up to %.2f GiB of device memory (input, offsets, results, L2 flush buffer) but %s "
                    "has %.2f GiB free",
                    n, need / 1073741824.0, device.name.c_str(), device.free_bytes / 1073741824.0);
      throw UsageError(message);
    }
    const Distribution d = make_distribution(options.lengths, n, options.seed, options.rows);
    const std::size_t segments = d.segments();
    if ((options.op == RowOp::ArgMax || options.op == RowOp::MeanVar) && d.longest > std::size_t(INT32_MAX)) {
      throw UsageError(std::string("--op ") + op_name(options.op) + " takes segments of at most 2^31 - 1 elements (a " +
                       "32-bit index or count); the longest here has " + std::to_string(d.longest));
    }
    std::vector<float> values;
    const std::vector<unsigned char> host_input = make_values(n, options.type, options.seed, &values);

    DeviceBuffer<uint4> input((host_input.size() + 15) / 16);
    if (!host_input.empty()) {
      CUDA_CHECK(cudaMemcpy(input.get(), host_input.data(), host_input.size(), cudaMemcpyHostToDevice));
    }
    DeviceBuffer<unsigned char> offsets((segments + 1) * offset_bytes);
    if (options.wide_offsets) {
      CUDA_CHECK(cudaMemcpy(offsets.get(), d.offsets.data(), (segments + 1) * 8, cudaMemcpyHostToDevice));
    } else {
      std::vector<std::int32_t> narrow(d.offsets.begin(), d.offsets.end());
      CUDA_CHECK(cudaMemcpy(offsets.get(), narrow.data(), (segments + 1) * 4, cudaMemcpyHostToDevice));
    }
    const std::size_t out_bytes = segments * result_bytes(options.op);
    DeviceBuffer<unsigned char> output(out_bytes);
    std::vector<unsigned char> host_output(out_bytes);
    std::size_t temp_bytes = 0;
    CUDA_CHECK(launch.temp_bytes_for(options.type, options.op, n, options.wide_offsets, segments, &temp_bytes));
    DeviceBuffer<unsigned char> temp(temp_bytes);
    if (temp_bytes) CUDA_CHECK(cudaMemset(temp.get(), 0, temp_bytes));  // once: every call leaves its counters at 0
    DeviceBuffer<unsigned> sink(1);
    L2Flusher flusher(device.l2_bytes);

    const std::vector<std::size_t> list = checked_segments(d, options.seed);
    const std::size_t path_depth = program.depth(n, segments);
    auto depth = [&](std::size_t length) { return cub ? cub_depth(length) : path_depth; };
    SegmentsCheck check;
    auto prepare = [&](std::size_t j, unsigned char poison) {  // an unwritten result fails its check
      if (j == 0 && out_bytes) CUDA_CHECK(cudaMemset(output.get(), poison, out_bytes));
    };
    auto run = [&](std::size_t j) {
      if (j == 1) {
        CUDA_CHECK(rows_harness::floor_launch(input.get(), host_input.size(), sink.get()));
      } else {
        CUDA_CHECK(launch.launch(options.type, options.op, input.get(), n, offsets.get(), options.wide_offsets, segments,
                                 output.get(), temp.get(), temp_bytes, nullptr));
      }
    };
    auto checked = [&](std::size_t j, bool after_last) {
      if (j != 0 || (after_last && !check.ok)) return;
      if (out_bytes) CUDA_CHECK(cudaMemcpy(host_output.data(), output.get(), out_bytes, cudaMemcpyDeviceToHost));
      const SegmentsCheck now = check_segments(d, values, options.op, host_output.data(), list, depth);
      if (!after_last) {
        check = now;
      } else if (!now.ok) {
        check = now;
        check.first_wrong = "the first run was right but the last timed one was not: " + now.first_wrong;
      }
    };
    const std::vector<std::vector<double>> times =
        time_in_turns(2, options.reps, options.flush ? &flusher : nullptr, prepare, run, checked);
    const Spread t = summarize(times[0]), floor = summarize(times[1]);

    const double input_bytes = double(host_input.size());
    const double bytes = input_bytes + double(segments + 1) * double(offset_bytes) + double(out_bytes);
    const double peak = device.peak_gbps();
    const double gbps = t.median > 0 ? bytes / t.median / 1e6 : 0.0;
    const double floor_gbps = floor.median > 0 ? input_bytes / floor.median / 1e6 : 0.0;
    const double of_floor = t.median > 0 ? 100.0 * floor.median / t.median : 0.0;
    const double bound_ms = input_bytes > 0 ? floor.median * bytes / input_bytes : 0.0;
    const double of_bound = t.median > 0 ? 100.0 * bound_ms / t.median : 0.0;
    const std::string plan = plan_of(options.method, n, segments);
    const std::string depth_text = cub ? "per segment: min(length, length / 128 + 64)" : std::to_string(path_depth);
    const std::string source = "random in [-1, 1), --seed " + std::to_string(options.seed);

    if (options.json) {
      std::printf("%s\n", run_head(&device, options.reps, options.flush).c_str());
      JsonObject json;
      json.str("chapter", program.id).num("n", n).str("lengths", lengths_name(options.lengths)).str("distribution", d.name);
      if (options.lengths == Lengths::Equal) json.num("rows", options.rows);
      json.num("segments", segments).num("longest", d.longest).str("type", element_name(options.type))
          .str("offsets", offsets_name(options.wide_offsets)).str("op", op_name(options.op))
          .str("method", method_name(options.method)).str("plan", plan);
      if (cub) json.raw("depth", "null"); else json.num("depth", path_depth);
      json.flag("ok", check.ok).num("checked_segments", check.checked).num("wrong_segments", check.wrong)
          .str("first_wrong", check.first_wrong).raw("worst_error_over_tolerance", json_number(number_text(check.worst)))
          .str("segment0_result", check.segment0_result).str("segment0_reference", check.segment0_reference)
          .num("median_ms", t.median, "%.6f").num("min_ms", t.min, "%.6f").num("iqr_ms", t.iqr, "%.6f")
          .num("gbps", gbps, "%.3f").num("percent_of_peak", peak > 0 ? 100.0 * gbps / peak : 0.0, "%.2f")
          .num("floor_ms", floor.median, "%.6f").num("floor_gbps", floor_gbps, "%.3f")
          .num("percent_of_floor", of_floor, "%.2f").num("bound_ms", bound_ms, "%.6f")
          .num("percent_of_bound", of_bound, "%.2f").num("input_bytes", host_input.size())
          .num("bytes", std::size_t(bytes)).num("seed", options.seed);
      std::printf("%s\n", json.text().c_str());
      return check.ok ? 0 : 1;
    }
    std::printf("%s: %s\n", program.id.c_str(), program.summary.c_str());
    std::printf("device     %s, peak %.1f GB/s, CUDA %s\n", device.describe().c_str(), peak, cuda_version_string().c_str());
    std::printf("input      %zu %s (%s), %.1f MiB, in %zu segment%s (%s, longest %zu), %s offsets\n", n,
                element_name(options.type), source.c_str(), mib(input_bytes), segments, segments == 1 ? "" : "s",
                d.name.c_str(), d.longest, offsets_name(options.wide_offsets));
    std::printf("operator   %s, one result per segment\n", op_name(options.op));
    std::printf("method     %s: %s\n", method_name(options.method), plan.c_str());
    if (segments > 0) {
      std::printf("segment 0  %s (reference %s)\n", check.segment0_result.c_str(), check.segment0_reference.c_str());
    }
    const std::string which = check.checked == segments ? "every segment" : std::to_string(check.checked) + " of " +
                                                                                std::to_string(segments) + " segments";
    const std::string verdict = check.ok ? "ok" : "WRONG in " + std::to_string(check.wrong) + " segments";
    if (options.op == RowOp::Max || options.op == RowOp::ArgMax) {
      std::printf("check      %s against the CPU reference (exact match required): %s\n", which.c_str(), verdict.c_str());
    } else {
      std::printf("check      %s against the CPU reference (float bounds, depth %s; largest error %.2f of its "
                  "tolerance): %s\n", which.c_str(), depth_text.c_str(), check.worst, verdict.c_str());
    }
    if (!check.ok) std::printf("first      %s\n", check.first_wrong.c_str());
    std::printf("time       %s ms (median of %d, min %s, spread %.1f%%, L2 %s)  %.1f GB/s  %.1f%% of peak\n",
                format_ms(t.median).c_str(), options.reps, format_ms(t.min).c_str(),
                t.median > 0 ? 100.0 * t.iqr / t.median : 0.0, options.flush ? "flushed" : "not flushed", gbps,
                peak > 0 ? 100.0 * gbps / peak : 0.0);
    std::printf("floor      %s ms, %.1f GB/s: a kernel that only reads the input; this run takes %.1f%% of the "
                "floor's bandwidth\n", format_ms(floor.median).c_str(), floor_gbps, of_floor);
    std::printf("bound      %.1f MiB read and written (input, offsets, results): %s ms at the floor's speed; this run "
                "reaches %.1f%% of that bound\n", mib(bytes), format_ms(bound_ms).c_str(), of_bound);
    return check.ok ? 0 : 1;
  } catch (const std::exception& error) {
    return report_exception(program.id, error);
  }
}

}  // namespace reduction::segments_harness
