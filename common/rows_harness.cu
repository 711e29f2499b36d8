// rows_harness.cu: the parts of the rows harness (rows_harness.h) that need the GPU: every
// method timed in turns with the read-only floor, the report of one run, the sweep, and
// run_rows_program. The command line is in rows_cli.cpp, the host matrix in
// rows_input.cpp, the reference and the checks in rows_check.cpp.
#include "rows_harness.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "cuda_check.h"
#include "device_buffer.h"
#include "device_info.h"
#include "harness.h"
#include "input.h"
#include "l2_flush.h"
#include "read_floor.h"
#include "rows_internal.h"
#include "run_head.h"
#include "timer.h"

namespace reduction::rows_harness {

using internal::kDefaultElements;
using internal::partner_dimension;
using internal::text;

// ---------------------------------------------------------------- timing, interleaved

cudaError_t floor_launch(const void* data, std::size_t bytes, void* scratch, cudaStream_t stream) {
  static const Variant floor = read_floor_variant();
  static std::size_t grid_for_floats = SIZE_MAX;
  static int grid = 0;
  const std::size_t floats = bytes / sizeof(float);
  if (floats != grid_for_floats) {
    const cudaError_t status = floor.default_grid(floats, floor.default_block, &grid);
    if (status != cudaSuccess) return status;
    grid_for_floats = floats;
  }
  float* input = static_cast<float*>(const_cast<void*>(data));  // only read
  return floor.launcher<float>(Op::Sum)(input, floats, nullptr, scratch, sizeof(unsigned), floor.default_block, grid, stream);
}

namespace {

struct Job {
  RowMethod method = RowMethod::Auto;
  RowOp op = RowOp::Sum;
  bool floor = false;  // the read-only floor: timed, not checked
  std::string label, plan;
  std::size_t depth = 0;
  RowLaunch launch;
};

struct Measurement {
  Job job;
  Spread times;
  double gbps = 0, traffic_gbps = 0;
  RowsCheck check;
  bool ok = false;
};

double mib(double bytes) { return bytes / 1048576.0; }


// Device memory a run of these jobs needs besides the flush buffer: the input, one
// output array of the widest result, each job's CUB storage.
std::size_t device_bytes(const HostMatrix& m, std::size_t widest_result, std::size_t temp) {
  return m.bytes.size() + m.rows * widest_result + temp;
}

// Times every job on one matrix as every measurement is (time_in_turns, timer.h), its
// output poisoned first; the last repetition of each job is checked again before the next
// job overwrites the shared output array.
std::vector<Measurement> run_jobs(const RowsProgram& program, const HostMatrix& m, const std::vector<Job>& jobs,
                                  int reps, bool flush, const DeviceInfo& device) {
  cudaStream_t stream = nullptr;
  std::size_t widest = 4;
  for (const Job& job : jobs) widest = std::max(widest, job.floor ? 0 : result_bytes(job.op));
  std::vector<DeviceBuffer<unsigned char>> temps;
  std::size_t temp_total = 0;
  for (const Job& job : jobs) {
    std::size_t bytes = job.floor ? sizeof(unsigned) : 0;  // the floor's sink
    if (!job.floor && job.launch.temp_bytes_for) CUDA_CHECK(job.launch.temp_bytes_for(m.rows, m.cols, &bytes));
    temps.emplace_back(bytes);
    temp_total += bytes;
    if (bytes) CUDA_CHECK(cudaMemset(temps.back().get(), 0, bytes));
  }
  const double need = double(device_bytes(m, widest, temp_total)) + 2.0 * device.l2_bytes;
  if (need > double(device.free_bytes) - 64.0 * 1048576.0) {
    char message[256];
    std::snprintf(message, sizeof message,
                  "%zu x %zu %s needs %.2f GiB of device memory (input, results, L2 flush buffer) but %s has %.2f GiB free",
                  m.rows, m.cols, element_name(m.type), need / 1073741824.0, device.name.c_str(),
                  device.free_bytes / 1073741824.0);
    throw UsageError(message);
  }
  DeviceBuffer<uint4> input((m.bytes.size() + 15) / 16);  // 16-byte aligned, as cudaMalloc's pointers are
  if (!m.bytes.empty()) CUDA_CHECK(cudaMemcpy(input.get(), m.bytes.data(), m.bytes.size(), cudaMemcpyHostToDevice));
  DeviceBuffer<unsigned char> output(m.rows * widest);
  L2Flusher flusher(device.l2_bytes);
  std::vector<unsigned char> host_results(m.rows * widest);

  auto prepare = [&](std::size_t j, unsigned char poison) {
    if (!jobs[j].floor && output.bytes()) CUDA_CHECK(cudaMemsetAsync(output.get(), poison, output.bytes(), stream));
  };
  auto launch = [&](std::size_t j) {
    const Job& job = jobs[j];
    if (job.floor) CUDA_CHECK(floor_launch(input.get(), m.bytes.size(), temps[j].get(), stream));
    else CUDA_CHECK(job.launch.launch(input.get(), m.rows, m.cols, output.get(), temps[j].get(), temps[j].bytes(), stream));
  };
  std::vector<Measurement> measurements(jobs.size());
  auto checked = [&](std::size_t j, bool after_last) {
    Measurement& mm = measurements[j];
    if (jobs[j].floor || (after_last && !mm.check.ok)) return;
    const std::size_t bytes = m.rows * result_bytes(jobs[j].op);
    if (bytes) CUDA_CHECK(cudaMemcpy(host_results.data(), output.get(), bytes, cudaMemcpyDeviceToHost));
    const RowsCheck check = check_rows(m, jobs[j].op, host_results.data(), jobs[j].depth);
    if (!after_last) {
      mm.check = check;
    } else if (!check.ok) {
      mm.check = check;
      mm.check.first_wrong = "the first run was right but the last timed one was not: " + check.first_wrong;
    }
  };
  for (std::size_t j = 0; j < jobs.size(); ++j) measurements[j].job = jobs[j];
  const std::vector<std::vector<double>> times =
      time_in_turns(jobs.size(), reps, flush ? &flusher : nullptr, prepare, launch, checked);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    Measurement& mm = measurements[j];
    mm.times = summarize(times[j]);
    const double seconds = mm.times.median * 1e-3;
    const double out_bytes = jobs[j].floor ? 0.0 : double(m.rows * result_bytes(jobs[j].op));
    mm.gbps = seconds > 0 ? double(m.bytes.size()) / seconds / 1e9 : 0.0;
    mm.traffic_gbps = seconds > 0 ? (double(m.bytes.size()) + out_bytes) / seconds / 1e9 : 0.0;
    mm.ok = jobs[j].floor || mm.check.ok;
  }
  return measurements;
}

Job make_job(const RowsProgram& program, RowMethod method, RowOp op, const HostMatrix& m) {
  Job job;
  job.method = method;
  job.op = op;
  job.label = method_name(method);
  job.plan = describe_of(program, method, m.rows, m.cols, m.type);
  job.depth = depth_of(program, method, m.rows, m.cols, m.type);
  job.launch = launcher_of(program, method, m.type, op);
  return job;
}

Job floor_job() {
  Job job;
  job.floor = true;
  job.label = "floor";
  job.plan = "the read-only floor: reads the input with 16-byte loads, computes nothing";
  return job;
}

// ---------------------------------------------------------------- the report of one run

void print_report(const RowsProgram& program, const RowsOptions& options, const DeviceInfo& device, const HostMatrix& m,
                  const Measurement& run, const Measurement& floor) {
  const double peak = device.peak_gbps();
  const double of_floor = run.times.median > 0 ? 100.0 * floor.times.median / run.times.median : 0.0;
  const std::string wrong = run.check.ok ? "" : std::to_string(run.check.wrong_rows) + " of " + std::to_string(m.rows);
  if (options.json) {
    std::printf("%s\n", run_head(&device, options.reps, options.flush).c_str());
    JsonObject json;
    json.str("chapter", program.id).num("rows", m.rows).num("cols", m.cols).str("type", element_name(m.type))
        .str("op", op_name(run.job.op)).str("method", method_name(run.job.method)).str("plan", run.job.plan)
        .num("depth", run.job.depth).flag("ok", run.ok).num("wrong_rows", run.check.wrong_rows)
        .str("first_wrong", run.check.first_wrong).raw("worst_error_over_tolerance", json_number(text(run.check.worst)))
        .str("row0_result", run.check.row0_result).str("row0_reference", run.check.row0_reference)
        .num("median_ms", run.times.median, "%.6f").num("min_ms", run.times.min, "%.6f")
        .num("iqr_ms", run.times.iqr, "%.6f").num("gbps", run.gbps, "%.3f").num("traffic_gbps", run.traffic_gbps, "%.3f")
        .num("percent_of_peak", peak > 0 ? 100.0 * run.gbps / peak : 0.0, "%.2f")
        .num("floor_ms", floor.times.median, "%.6f").num("floor_gbps", floor.gbps, "%.3f")
        .num("percent_of_floor", of_floor, "%.2f").num("input_bytes", m.bytes.size())
        .num("output_bytes", m.rows * result_bytes(run.job.op)).num("seed", options.seed)
        .str("input", options.input);
    std::printf("%s\n", json.text().c_str());
    return;
  }
  std::printf("%s: %s\n", program.id.c_str(), program.summary.c_str());
  std::printf("device     %s, peak %.1f GB/s, CUDA %s\n", device.describe().c_str(), peak, cuda_version_string().c_str());
  std::printf("input      %zu x %zu %s (%s), %.1f MiB\n", m.rows, m.cols, element_name(m.type), m.source.c_str(),
              mib(double(m.bytes.size())));
  std::printf("operator   %s, one result per row\n", op_name(run.job.op));
  std::printf("method     %s: %s\n", method_name(run.job.method), run.job.plan.c_str());
  if (m.rows > 0) {
    std::printf("row 0      %s (reference %s)\n", run.check.row0_result.c_str(), run.check.row0_reference.c_str());
  }
  const char* kind = run.job.op == RowOp::Max || run.job.op == RowOp::ArgMax ? "exact match required"
                                                                               : "float bounds, depth";
  if (run.job.op == RowOp::Max || run.job.op == RowOp::ArgMax) {
    std::printf("check      every row against the CPU reference (%s): %s\n", kind,
                run.check.ok ? "ok" : ("WRONG in " + wrong + " rows").c_str());
  } else {
    std::printf("check      every row against the CPU reference (%s %zu; largest error %.2f of its tolerance): %s\n",
                kind, run.job.depth, run.check.worst, run.check.ok ? "ok" : ("WRONG in " + wrong + " rows").c_str());
  }
  if (!run.check.ok) std::printf("first      %s\n", run.check.first_wrong.c_str());
  std::printf("time       %s ms (median of %d, min %s, spread %.1f%%, L2 %s)  %.1f GB/s  %.1f%% of peak\n",
              format_ms(run.times.median).c_str(), options.reps, format_ms(run.times.min).c_str(),
              run.times.median > 0 ? 100.0 * run.times.iqr / run.times.median : 0.0,
              options.flush ? "flushed" : "not flushed", run.gbps, peak > 0 ? 100.0 * run.gbps / peak : 0.0);
  std::printf("floor      %s ms, %.1f GB/s: a kernel that only reads the input; this run takes %.1f%% of the floor's "
              "bandwidth\n",
              format_ms(floor.times.median).c_str(), floor.gbps, of_floor);
  std::printf("output     %.1f MiB of results written (%.1f GB/s counting them with the input)\n",
              mib(double(m.rows * result_bytes(run.job.op))), run.traffic_gbps);
}

// ---------------------------------------------------------------- the sweep

constexpr ElementType kSweepTypes[] = {ElementType::Float, ElementType::BFloat16};

int sweep(const RowsProgram& program, const RowsOptions& options, const DeviceInfo& device) {
  const std::string dir = sweep_folder(options.out_dir);
  std::ofstream csv(dir + "/rows_sweep.csv"), json(dir + "/rows_sweep.json");
  if (!csv || !json) throw UsageError("cannot write the sweep files in '" + dir + "'");
  csv << "type,k,m,op,method,plan,median_ms,min_ms,iqr_ms,gbps,traffic_gbps,percent_of_peak,percent_of_floor,ok\n";
  JsonObject head;
  head.raw("head", run_head(&device, options.reps, options.flush)).str("chapter", program.id)
      .num("elements", kDefaultElements).num("seed", options.seed);
  std::vector<std::string> items;  // the rows, one line each
  bool all_ok = true;
  for (ElementType type : kSweepTypes) {
    if (std::find(program.types.begin(), program.types.end(), type) == program.types.end()) continue;
    for (std::size_t k : program.sweep_cols) {
      const std::size_t m_rows = partner_dimension(k, 1);
      const HostMatrix m = random_matrix(m_rows, k, type, options.seed + 1000 * std::size_t(type) + k);
      std::vector<Job> jobs;
      for (RowMethod method : methods_of(program)) {
        if (refusal(program, method, RowOp::Sum, m.rows, m.cols, m.type).empty()) {
          jobs.push_back(make_job(program, method, RowOp::Sum, m));
        }
      }
      if (std::find(program.ops_cols.begin(), program.ops_cols.end(), k) != program.ops_cols.end()) {
        for (RowOp op : program.ops) {
          if (op != RowOp::Sum) jobs.push_back(make_job(program, RowMethod::Auto, op, m));
        }
      }
      jobs.push_back(floor_job());
      const std::vector<Measurement> results = run_jobs(program, m, jobs, options.reps, options.flush, device);
      const double floor_ms = results.back().times.median;
      for (const Measurement& r : results) {
        const double percent_of_floor = r.times.median > 0 ? 100.0 * floor_ms / r.times.median : 0.0;
        const double percent_of_peak = device.peak_gbps() > 0 ? 100.0 * r.gbps / device.peak_gbps() : 0.0;
        const std::string op = r.job.floor ? "-" : op_name(r.job.op);
        csv << element_name(type) << ',' << k << ',' << m_rows << ',' << op << ',' << r.job.label << ",\""
            << r.job.plan << "\"," << r.times.median << ',' << r.times.min << ',' << r.times.iqr << ',' << r.gbps << ','
            << r.traffic_gbps << ',' << percent_of_peak << ',' << percent_of_floor << ',' << (r.ok ? "ok" : "WRONG")
            << '\n';
        items.push_back(JsonObject().str("type", element_name(type)).num("k", k).num("m", m_rows).str("op", op)
                            .str("method", r.job.label).str("plan", r.job.plan)
                            .num("median_ms", r.times.median, "%.6f").num("min_ms", r.times.min, "%.6f")
                            .num("iqr_ms", r.times.iqr, "%.6f").num("gbps", r.gbps)
                            .num("traffic_gbps", r.traffic_gbps).num("percent_of_peak", percent_of_peak)
                            .num("percent_of_floor", percent_of_floor).flag("ok", r.ok).text());
        if (!r.ok) {
          all_ok = false;
          std::fprintf(stderr, "%s: %s --op %s WRONG at %s K = %zu: %s\n", program.id.c_str(), r.job.label.c_str(),
                       op.c_str(), element_name(type), k, r.check.first_wrong.c_str());
        }
      }
      std::fprintf(stderr, "%s: %s K = %zu done\n", program.id.c_str(), element_name(type), k);
    }
  }
  json << head.raw("rows", json_list(items, ",\n  ")).text() << "\n";
  if (!csv || !json) throw UsageError("cannot write the sweep files in '" + dir + "'");
  std::printf("wrote %s/rows_sweep.csv and %s/rows_sweep.json\n", dir.c_str(), dir.c_str());
  return all_ok ? 0 : 1;
}

}  // namespace

// ---------------------------------------------------------------- main

int run_rows_program(const RowsProgram& program, int argc, char** argv) {
  try {
    const RowsOptions options = parse_rows_options(program, argc, argv);
    if (options.help) {
      std::printf("%s: %s\n\n%s", program.id.c_str(), program.summary.c_str(), rows_usage(program).c_str());
      return 0;
    }
    std::string why;
    if (options.sweep) {
      if (!cuda_device_available(&why)) throw CudaError(why);
      const DeviceInfo device = query_device();
      std::printf("device %s, peak %.1f GB/s, CUDA %s\n", device.describe().c_str(), device.peak_gbps(),
                  cuda_version_string().c_str());
      return sweep(program, options, device);
    }
    // Everything about the command line and the input is checked before the device.
    HostMatrix m;
    if (!options.input.empty()) {
      m = load_matrix(options.input, options.type);
    } else {
      m.rows = options.rows;
      m.cols = options.cols;
      m.type = options.type;
    }
    const std::string refused = refusal(program, options.method, options.op, m.rows, m.cols, m.type);
    if (!refused.empty()) throw UsageError(refused);
    if (!cuda_device_available(&why)) throw CudaError(why);
    const DeviceInfo device = query_device();
    const double need = double(m.rows) * double(m.cols) * double(element_bytes(m.type)) +
                        double(m.rows) * double(result_bytes(options.op)) + 2.0 * device.l2_bytes;
    if (need > double(device.free_bytes) - 64.0 * 1048576.0) {  // before allocating the host copy
      char message[256];
      std::snprintf(message, sizeof message,
                    "--rows %zu --cols %zu needs %.2f GiB of device memory (input, results, L2 flush buffer) but %s "
                    "has %.2f GiB free",
                    m.rows, m.cols, need / 1073741824.0, device.name.c_str(), device.free_bytes / 1073741824.0);
      throw UsageError(message);
    }
    if (options.input.empty()) m = random_matrix(options.rows, options.cols, options.type, options.seed);
    const std::vector<Job> jobs = {make_job(program, options.method, options.op, m), floor_job()};
    const std::vector<Measurement> results = run_jobs(program, m, jobs, options.reps, options.flush, device);
    print_report(program, options, device, m, results[0], results[1]);
    return results[0].ok ? 0 : 1;
  } catch (const std::exception& error) {
    return report_exception(program.id, error);
  }
}

}  // namespace reduction::rows_harness
