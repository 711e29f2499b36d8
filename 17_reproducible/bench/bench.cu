// bench_reproducible: the yardstick table of 17_reproducible (tools/fill_reproducible.py
// writes it into 17's README).
//
// For each kind of data (below) and each n (2^16, 2^20, 2^24, 2^28, 2^30), the harness
// times these jobs interleaved (each repetition runs every job once, in turn; L2 flushed
// before each; median, min and IQR), and checks every result but the floor's:
//   09_single_pass   the chapter 17 changes
//   17_reproducible  also checked bit for bit against the exact sum rounded once
//   cub_gpu_to_gpu   DeviceReduce::Reduce with determinism::gpu_to_gpu (only when built
//                    against CCCL 3.1 or later: -DREDUCTION_CCCL_INCLUDE=...)
//   read-only floor  the tour's kernel that only reads the input
// On the uniform data, 17 is also timed at blocks of 256, 512 and 1024 (its default grid;
// "block_sweep": docs/tuning.md), and up to 2^24 09 and 17 are timed at n's shapes over one
// float a thread ("fixed_cost": what every call pays, docs/tuning.md). Then 09 and 17 run
// once more at four other launch shapes, and the bench counts the distinct bit patterns of
// each one's result over the five shapes.
//
//   cmake --build --preset release --target bench_reproducible
//   build/release/bin/bench_reproducible > run.jsonl     (30 repetitions; no options)
//
// Output: one JSON object per line: the device line first, then one per data, n and job.
// Exit code 0 when every check of 09 and 17 passed, 1 otherwise, 3 on a CUDA error.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "chapter.h"
#include "device_info.h"
#include "exact_sum.h"
#include "harness.h"
#include "json.h"
#include "run_head.h"
#include "parallel.h"
#include "random.h"
#include "read_floor.h"
#include "reference.h"
#ifdef REDUCTION_HAVE_GPU_TO_GPU
#include "gpu_to_gpu.h"
#endif

namespace reduction {
Chapter single_pass_chapter();
Chapter reproducible_chapter();
}  // namespace reduction

namespace {

using namespace reduction;

// The kinds of data: the chapters' default, the commonest float data, mostly zeros (ReLU
// outputs, padding), a few zeros and subnormals, and exponents over 2^200 with both signs.
enum class Data { Uniform, Normal, HalfZeros, ZerosOrSubnormals, WideRange };
const Data kData[] = {Data::Uniform, Data::Normal, Data::HalfZeros, Data::ZerosOrSubnormals, Data::WideRange};

const char* data_name(Data d) {
  switch (d) {
    case Data::Uniform: return "uniform [0, 1)";
    case Data::Normal: return "normal(0, 1)";
    case Data::HalfZeros: return "50 % zeros, rest uniform";
    case Data::ZerosOrSubnormals: return "1 % zeros or subnormals, rest uniform";
    case Data::WideRange: return "random sign, exponents 2^-100..2^100";
  }
  return "";
}

float from_bits(std::uint32_t bits) {
  float x = 0;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// Element i: a function of (seed, i), so all CPU cores make the input at once.
float data_value(Data d, std::uint64_t seed, std::size_t i, std::size_t n) {
  const float u = random_value<float>(seed, i, n);  // the chapters' uniform [0, 1)
  const std::uint64_t r = splitmix64(seed * 0x2545F4914F6CDD1Dull + i);
  switch (d) {
    case Data::Uniform: return u;
    case Data::Normal:  // Box-Muller
      return static_cast<float>(std::sqrt(-2.0 * std::log(1.0 - u)) * std::cos(0x1p-52 * M_PI * double(r >> 12)));
    case Data::HalfZeros: return (r & 1) ? u : 0.0f;
    case Data::ZerosOrSubnormals:
      if (r % 100 != 0) return u;
      return (r >> 32) & 1 ? from_bits(static_cast<std::uint32_t>(r >> 40) & 0x807fffffu) : 0.0f;
    case Data::WideRange: {
      const int exponent = static_cast<int>((r >> 8) % 201) - 100;
      return std::ldexp((r & 1) ? -(1.0f + u) : 1.0f + u, exponent);
    }
  }
  return 0;
}

// The exact sum of x rounded once (common/exact_sum.h), on all CPU cores.
float exact_sum(const std::vector<float>& x) {
  std::vector<accuracy::ExactSum> parts(cpu_threads());
  parallel_chunks(x.size(), [&](unsigned t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) parts[t].add(x[i]);
  });
  for (std::size_t t = 1; t < parts.size(); ++t) parts[0].add(parts[t]);
  return parts[0].to_float();
}

#ifdef REDUCTION_HAVE_GPU_TO_GPU
Variant gpu_to_gpu_variant() {
  Variant v;
  v.chapter = "cub_gpu_to_gpu";
  v.summary = "cub::DeviceReduce::Reduce with cuda::execution::determinism::gpu_to_gpu";
  v.chooses_shape = true;
  v.default_block = 1;
  v.check_shape = [](int, int) { return std::string(); };
  v.default_grid = [](std::size_t, int, int* grid) {
    *grid = 1;
    return cudaSuccess;
  };
  v.scratch_bytes = [](std::size_t, int, int) { return std::size_t(0); };
  v.chain_length = [](std::size_t, int, int) { return std::size_t(1024); };  // CUB states no bound: a loose one
  v.float_launchers[static_cast<int>(Op::Sum)] = [](float* input, std::size_t n, float* result, void*, std::size_t,
                                                    int, int, cudaStream_t) {
    return cub_gpu_to_gpu_sum(input, n, result);
  };
  return v;
}
#endif

}  // namespace

int main(int argc, char** /*argv*/) {
  if (argc > 1) {
    std::fprintf(stderr, "bench_reproducible takes no options: it writes its JSON lines to standard output\n");
    return 2;
  }
  const int reps = 30;
  try {
    const DeviceInfo device = query_device();
    std::printf("%s\n", run_head(&device, reps, true).c_str());
    const Chapter single_pass = single_pass_chapter(), reproducible = reproducible_chapter();
    static const Variant floor = read_floor_variant();
#ifdef REDUCTION_HAVE_GPU_TO_GPU
    static const Variant gpu_to_gpu = gpu_to_gpu_variant();
#endif
    bool all_ok = true;
    for (Data data : kData) {
      for (int k : {16, 20, 24, 28, 30}) {
        const std::size_t n = std::size_t(1) << k;
        std::vector<float> host(n);
        parallel_chunks(n, [&](unsigned, std::size_t begin, std::size_t end) {
          for (std::size_t i = begin; i < end; ++i) host[i] = data_value(data, 20261127u + k, i, n);
        });
        const Reference ref = cpu_reference(host.data(), n);
        const std::string exact = float_bits(exact_sum(host));
        std::vector<Bench<float>::Job> jobs = {{&single_pass.main(), Op::Sum, 0, 0},
                                               {&reproducible.main(), Op::Sum, 0, 0}};
#ifdef REDUCTION_HAVE_GPU_TO_GPU
        jobs.push_back({&gpu_to_gpu, Op::Sum, 0, 0});
#endif
        jobs.push_back({&floor, Op::Sum, 0, 0, false});
        const std::size_t timed = jobs.size();  // then, on the default data, 17 at each block (docs/tuning.md)
        if (data == Data::Uniform) {
          for (int block : {256, 512, 1024}) jobs.push_back({&reproducible.main(), Op::Sum, block, 0});
        }
        for (auto& job : jobs) resolve_shape(*job.variant, n, job.block, job.grid);
        Bench<float> bench(host, device, false);
        const std::vector<Measurement> measured = bench.run_interleaved(jobs, reps, true, ref);
        for (std::size_t j = 0; j < measured.size(); ++j) {
          const Measurement& m = measured[j];
          const bool floor_row = m.label == kReadFloor, yardstick = floor_row || m.label == "cub_gpu_to_gpu";
          all_ok = all_ok && (yardstick || m.verdict.ok);  // CUB's own results are reported, not the bench's fault
          JsonObject line;
          line.str("data", data_name(data)).num("n", n).str("job", m.label).num("block", m.block).num("grid", m.grid)
              .num("median_ms", m.median_ms, "%.6f").num("min_ms", m.times.min, "%.6f")
              .num("iqr_ms", m.times.iqr, "%.6f").num("gbps", m.gbps, "%.1f").str("result", m.result_text)
              .raw("ok", floor_row ? "null" : m.verdict.ok ? "true" : "false");
          if (j >= timed) line.raw("block_sweep", "true");
          std::printf("%s\n", line.text().c_str());
        }
        // What every call pays whatever n (docs/tuning.md): 09 and 17 at n's shapes again, over
        // only as many floats as 17's shape has threads (one a thread).
        if (data == Data::Uniform && k <= 24) {
          const std::size_t few = std::size_t(jobs[1].block) * jobs[1].grid;
          const std::vector<float> head(host.begin(), host.begin() + few);
          Bench<float> small(head, device, false);
          const std::vector<Measurement> fixed =
              small.run_interleaved({jobs[0], jobs[1]}, reps, true, cpu_reference(head.data(), few));
          for (const Measurement& m : fixed) {
            all_ok = all_ok && m.verdict.ok;
            JsonObject line;
            line.str("data", data_name(data)).num("n", few).str("job", m.label).num("block", m.block)
                .num("grid", m.grid).num("median_ms", m.median_ms, "%.6f").num("shape_of_n", n)
                .raw("fixed_cost", "true").raw("ok", m.verdict.ok ? "true" : "false");
            std::printf("%s\n", line.text().c_str());
          }
        }
        // Bits over launch shapes (the default and four others); 17's against the exact sum.
        for (const Chapter* c : {&single_pass, &reproducible}) {
          const Variant& v = c->main();
          std::set<std::string> results;
          int block = 0, grid = 0;
          resolve_shape(v, n, block, grid);
          const int shapes[][2] = {{block, grid}, {256, 1000}, {128, 77}, {1024, 132}, {64, 4001}};
          bool exact_every_time = true;
          for (const auto& shape : shapes) {
            const Measurement m = bench.run(v, Op::Sum, shape[0], shape[1], 1, true, ref);
            const std::string bits = float_bits(std::strtof(m.result_text.c_str(), nullptr));  // %.9g: the float back
            all_ok = all_ok && m.verdict.ok;
            results.insert(m.result_text);
            exact_every_time = exact_every_time && bits == exact;
          }
          JsonObject line;
          line.str("data", data_name(data)).num("n", n).str("job", v.label()).num("shapes", 5)
              .num("distinct_results", results.size());
          if (c == &reproducible) {
            line.str("exact_bits", exact).raw("exact", exact_every_time ? "true" : "false");
            all_ok = all_ok && exact_every_time;
          }
          std::printf("%s\n", line.text().c_str());
        }
        std::fflush(stdout);
      }
    }
    return all_ok ? 0 : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_reproducible: %s\n", error.what());
    return 3;
  }
}
