// bench_reproducible: the yardstick table of 17_reproducible (tools/fill_reproducible.py
// writes it into 17's README and docs/tuning.md).
//
// For each n (default 2^16, 2^20, 2^24, 2^26, 2^28, 2^30), on one random float input, the
// harness times these jobs interleaved (each repetition runs every job once, in turn; L2
// flushed before each; median, min and IQR), and checks every result but the floor's:
//   09_single_pass, 10_cub (DeviceReduce::Sum), 12_accuracy, 17_reproducible,
//   cub_gpu_to_gpu   DeviceReduce::Reduce with determinism::gpu_to_gpu (only when built
//                    against CCCL 3.1 or later: -DREDUCTION_CCCL_INCLUDE=...)
//   read-only floor  the tour's kernel that only reads the input
// Then 09, 12 and 17 run once more at four other launch shapes, and the bench counts the
// distinct bit patterns of each one's result over the five shapes.
//
//   cmake --build --preset release --target bench_reproducible
//   build/release/bin/bench_reproducible > run.jsonl     (30 repetitions; no options)
//
// Output: one JSON object per line: the device line first, then one per job and n.
// Exit code 0 when every check passed, 1 otherwise, 3 on a CUDA error.
#include <cstdio>
#include <ctime>
#include <set>
#include <string>
#include <vector>

#include "chapter.h"
#include "device_info.h"
#include "harness.h"
#include "input.h"
#include "read_floor.h"
#include "reference.h"
#ifdef REDUCTION_HAVE_GPU_TO_GPU
#include "gpu_to_gpu.h"
#endif

namespace reduction {
Chapter single_pass_chapter();
Chapter cub_chapter();
Chapter accuracy_chapter();
Chapter reproducible_chapter();
}  // namespace reduction

namespace {

using namespace reduction;

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
    int runtime = 0;
    cudaRuntimeGetVersion(&runtime);
    std::printf("%s\n", JsonObject().str("device", device.name).num("cuda_runtime", runtime).str("date", utc_date())
                           .num("peak_gbps", device.peak_gbps(), "%.1f").num("reps", reps).text().c_str());
    const Chapter chapters[] = {single_pass_chapter(), cub_chapter(), accuracy_chapter(), reproducible_chapter()};
    static const Variant floor = read_floor_variant();
#ifdef REDUCTION_HAVE_GPU_TO_GPU
    static const Variant gpu_to_gpu = gpu_to_gpu_variant();
#endif
    bool all_ok = true;
    for (int k : {16, 20, 24, 26, 28, 30}) {
      const std::size_t n = std::size_t(1) << k;
      const std::vector<float> host = generate_input<float>(n, 20261125u + k);
      const Reference ref = cpu_reference(host.data(), n);
      std::vector<Bench<float>::Job> jobs;
      for (const Chapter& c : chapters) jobs.push_back({&c.main(), Op::Sum, 0, 0});
#ifdef REDUCTION_HAVE_GPU_TO_GPU
      jobs.push_back({&gpu_to_gpu, Op::Sum, 0, 0});
#endif
      jobs.push_back({&floor, Op::Sum, 0, 0, false});
      for (auto& job : jobs) resolve_shape(*job.variant, n, job.block, job.grid);
      Bench<float> bench(host, device, false);
      for (const Measurement& m : bench.run_interleaved(jobs, reps, true, ref)) {
        const bool floor_row = m.label == kReadFloor;
        all_ok = all_ok && (floor_row || m.verdict.ok);
        std::printf("%s\n", JsonObject().num("n", n).str("job", m.label).num("block", m.block).num("grid", m.grid)
                               .num("median_us", 1e3 * m.median_ms, "%.3f").num("min_us", 1e3 * m.times.min, "%.3f")
                               .num("iqr_us", 1e3 * m.times.iqr, "%.3f").num("gbps", m.gbps, "%.1f")
                               .str("result", m.result_text).raw("ok", floor_row ? "null" : m.verdict.ok ? "true" : "false")
                               .text().c_str());
      }
      // Bits over launch shapes (the default and four others), on this input and on one
      // whose pairs cancel to a tiny fraction of sum|x| (12's hard case).
      std::vector<float> hard(host);
      for (std::size_t i = 1; i < n; i += 2) hard[i] = -hard[i - 1] * (1.0f + 0x1p-20f * host[i]);
      const Reference hard_ref = cpu_reference(hard.data(), n);
      Bench<float> hard_bench(hard, device, false);
      for (int c : {0, 2, 3}) {
        const Variant& v = chapters[c].main();
        std::set<std::string> results, hard_results;
        int block = 0, grid = 0;
        resolve_shape(v, n, block, grid);
        const int shapes[][2] = {{block, grid}, {256, 1000}, {128, 77}, {1024, 132}, {64, 4001}};
        for (const auto& shape : shapes) {
          const Measurement m = bench.run(v, Op::Sum, shape[0], shape[1], 1, true, ref);
          const Measurement h = hard_bench.run(v, Op::Sum, shape[0], shape[1], 1, true, hard_ref);
          all_ok = all_ok && m.verdict.ok && h.verdict.ok;
          results.insert(m.result_text);
          hard_results.insert(h.result_text);
        }
        std::printf("%s\n", JsonObject().num("n", n).str("job", v.label()).num("shapes", 5)
                               .num("distinct_results", results.size())
                               .num("distinct_results_cancelling", hard_results.size()).text().c_str());
      }
      std::fflush(stdout);
    }
    return all_ok ? 0 : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_reproducible: %s\n", error.what());
    return 3;
  }
}
