// tour: every chapter side by side, on the same input, in one process.
//
//   tour                      one table for N = 2^24 ints (the README's first command)
//   tour --n 2^28 --type float
//   tour --sweep --out docs/data   N = 2^10 .. 2^30, every chapter: sweep.csv and sweep.json
//
// Each GPU chapter runs at its own default launch shape and is checked against the
// CPU reference; CUB (chapter 10) is the last row, as the production yardstick.
// Exit codes as for the chapters: 1 if any chapter is WRONG.
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "cpu_sums.h"
#include "harness.h"
#include "timer.h"

namespace {

using namespace reduction;

struct Row {
  std::string chapter;
  double ms = 0, gbps = 0;
  bool ok = false;
  std::string note;
};

CliSpec tour_spec() {
  CliSpec spec;
  spec.program = "tour";
  spec.tour = true;
  return spec;
}

std::string today() {
  char text[16];
  std::time_t now = std::time(nullptr);
  std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&now));
  return text;
}

// Runs 00 (threaded CPU sum) and every GPU chapter on one input.
template <typename T>
std::vector<Row> run_all(const std::vector<T>& host, const Options& o, const DeviceInfo* device,
                         const std::vector<Chapter>& chapters) {
  std::vector<Row> rows;
  const cpu_baseline::MethodResult cpu = cpu_baseline::run_methods(host, std::min(o.reps, 5), true).front();
  rows.push_back({"00_cpu_baseline", cpu.median_ms, cpu.gbps, cpu.ok, "threaded CPU sum"});
  if (!device) return rows;

  const std::size_t n = host.size();
  std::size_t scratch = 0;
  for (const Chapter& c : chapters) {
    int block = 0, grid = 0;
    resolve_shape(c.main(), n, device->sm_count, block, grid);
    scratch = std::max(scratch, c.main().scratch_bytes(n, block, grid));
  }
  const std::size_t others = Bench<T>::bytes_needed(n, true, *device) + scratch;
  check_fits(chapters.front().main(), n, sizeof(T), others, 1, 1, *device);

  const Reference ref = cpu_reference(host.data(), n);
  Bench<T> bench(host, *device, true);
  for (const Chapter& c : chapters) {
    int block = 0, grid = 0;
    resolve_shape(c.main(), n, device->sm_count, block, grid);
    const Measurement m = bench.run(c.main(), Op::Sum, block, grid, o.reps, o.flush, ref);
    rows.push_back({c.id, m.median_ms, m.gbps, m.verdict.ok, m.verdict.note});
  }
  return rows;
}

void print_table(const std::vector<Row>& rows, const DeviceInfo* device, std::size_t n, DType type) {
  const double peak = device ? device->peak_gbps() : 0;
  double first_gpu_ms = 0;
  for (const Row& r : rows) {
    if (r.chapter.rfind("01", 0) == 0) first_gpu_ms = r.ms;
  }
  std::printf("\n%-20s %10s %9s %8s %9s %9s  %s\n", "chapter", "time ms", "GB/s", "% peak", "step", "vs 01",
              "check");
  double previous_ms = 0;
  for (const Row& r : rows) {
    char step[16] = "", cumulative[16] = "", percent[16] = "";
    if (previous_ms > 0 && r.ms > 0) std::snprintf(step, sizeof step, "%.2fx", previous_ms / r.ms);
    if (first_gpu_ms > 0 && r.ms > 0) std::snprintf(cumulative, sizeof cumulative, "%.2fx", first_gpu_ms / r.ms);
    if (peak > 0 && r.chapter != "00_cpu_baseline") std::snprintf(percent, sizeof percent, "%.1f", 100 * r.gbps / peak);
    const bool cub = r.chapter == "10_cub";
    std::printf("%-20s %10s %9.1f %8s %9s %9s  %s%s%s\n", (cub ? "10_cub (yardstick)" : r.chapter.c_str()),
                format_ms(r.ms).c_str(), r.gbps, percent, step, cumulative, r.ok ? "ok" : "WRONG",
                r.ok || r.note.empty() ? "" : ": ", r.ok ? "" : r.note.c_str());
    previous_ms = r.ms;
  }
  std::printf("\nn = %zu %s; median of the timed runs, L2 flushed before each; GB/s = input bytes / time.\n", n,
              dtype_name(type));
  std::printf("00 is the multi-threaded CPU sum; \"step\" is the speed-up over the row above, \"vs 01\" over 01.\n");
}

template <typename T>
int tour_one(const Options& o, const DeviceInfo* device, const std::vector<Chapter>& chapters) {
  std::vector<T> host = make_input<T>(o);
  const std::vector<Row> rows = run_all(host, o, device, chapters);
  print_table(rows, device, host.size(), o.type);
  bool ok = true;
  for (const Row& r : rows) ok = ok && r.ok;
  return ok ? 0 : 1;
}

template <typename T>
int sweep(const Options& o, const DeviceInfo& device, const std::vector<Chapter>& chapters) {
  const std::string dir = o.out_dir.empty() ? "." : o.out_dir;
  std::ofstream csv(dir + "/sweep_" + dtype_name(o.type) + ".csv");
  std::ofstream json(dir + "/sweep_" + dtype_name(o.type) + ".json");
  if (!csv || !json) throw UsageError("cannot write the sweep files in '" + dir + "'");
  csv << "type,n,chapter,ms,gbps,percent_of_peak,ok\n";
  json << "{\"device\": \"" << json_escape(device.name) << "\", \"cuda\": \"" << json_escape(cuda_version_string())
       << "\", \"date\": \"" << today() << "\", \"peak_gbps\": " << device.peak_gbps() << ", \"type\": \""
       << dtype_name(o.type) << "\", \"reps\": " << o.reps << ", \"flush\": " << (o.flush ? "true" : "false")
       << ", \"rows\": [";
  bool ok = true, first = true;
  for (int k = 10; k <= 30; ++k) {
    const std::size_t n = std::size_t(1) << k;
    // Input + saved copy + flush buffer + scratch: stop where the device runs out.
    if (2.2 * n * sizeof(T) + 4.0 * device.l2_bytes > static_cast<double>(device.free_bytes)) break;
    Options at = o;
    at.n = n;
    at.seed = o.seed + k;
    const std::vector<T> host = generate_input<T>(n, at.seed);
    const std::vector<Row> rows = run_all(host, at, &device, chapters);
    for (const Row& r : rows) {
      const double percent = r.chapter == "00_cpu_baseline" ? 0.0 : 100 * r.gbps / device.peak_gbps();
      csv << dtype_name(o.type) << ',' << n << ',' << r.chapter << ',' << r.ms << ',' << r.gbps << ',' << percent
          << ',' << (r.ok ? "ok" : "WRONG") << '\n';
      json << (first ? "" : ",") << "\n  {\"n\": " << n << ", \"chapter\": \"" << r.chapter << "\", \"ms\": " << r.ms
           << ", \"gbps\": " << r.gbps << ", \"percent_of_peak\": " << percent
           << ", \"ok\": " << (r.ok ? "true" : "false") << "}";
      first = false;
      ok = ok && r.ok;
      if (!r.ok) std::fprintf(stderr, "tour: %s WRONG at n = %zu: %s\n", r.chapter.c_str(), n, r.note.c_str());
    }
    std::printf("n = 2^%d done\n", k);
    std::fflush(stdout);
  }
  json << "\n]}\n";
  std::printf("wrote %s/sweep_%s.csv and .json\n", dir.c_str(), dtype_name(o.type));
  return ok ? 0 : 1;
}

template <typename T>
int run_typed(const Options& o, const std::vector<Chapter>& chapters) {
  std::string why;
  if (!cuda_device_available(&why)) {
    if (o.sweep) throw CudaError(why);
    tour_one<T>(o, nullptr, chapters);
    std::printf("\nThe GPU chapters (01-%s) need a CUDA GPU, and none is usable here: %s\n",
                chapters.empty() ? "..." : chapters.back().id.substr(0, 2).c_str(), why.c_str());
    return 3;
  }
  const DeviceInfo device = query_device();
  std::printf("device %s\npeak DRAM bandwidth %.1f GB/s (2 x %d MHz x %d-bit bus), CUDA %s, %s\n",
              device.describe().c_str(), device.peak_gbps(), device.memory_clock_khz / 1000, device.bus_width_bits,
              cuda_version_string().c_str(), today().c_str());
  if (o.sweep) return sweep<T>(o, device, chapters);
  return tour_one<T>(o, &device, chapters);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse_options(tour_spec(), argc, argv);
    if (o.help) {
      std::printf("tour: every chapter side by side on the same input\n\n%s", usage(tour_spec()).c_str());
      return 0;
    }
    if (o.block || o.grid) {
      throw UsageError("the tour runs every chapter at its own default shape; pass --block/--grid to a chapter");
    }
    if (o.sweep && !o.input.empty()) throw UsageError("--sweep generates its inputs: drop --input");
    const std::vector<Chapter> chapters = all_gpu_chapters();
    switch (o.type) {
      case DType::Int: return run_typed<int>(o, chapters);
      case DType::Float: return run_typed<float>(o, chapters);
      case DType::Double: return run_typed<double>(o, chapters);
    }
  } catch (const std::exception& error) {
    return report_exception("tour", error);
  }
  return 3;
}
