// tour: every chapter side by side, on the same input, in one process.
//
//   tour                      one table for N = 2^24 ints (the README's first command)
//   tour --n 2^28 --type float
//   tour --json               the same as one JSON object: device, n, type, every row
//   tour --sweep --out build/sweep   N = 2^10 .. 2^30, every chapter: sweep_int.csv and sweep_int.json
//   tour --steps 04           one chapter's changes one at a time: 03, 04's step variants, 04
//   tour --steps 06 --n 2^28 --type float --json   (--steps takes 04, 05, 06, 08 or 09)
//
// Each GPU chapter runs at its own default launch shape and is checked against the
// CPU reference; CUB (chapter 10) is marked as the production yardstick; 12 (compensated
// sums) follows it.
// Exit codes as for the chapters: 1 if any chapter is WRONG.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "all_chapters.h"
#include "cpu_methods.h"
#include "harness.h"
#include "read_floor.h"
#include "run_head.h"
#include "timer.h"

namespace {

using namespace reduction;

struct Row {
  std::string chapter;
  std::string result;  // as format_value prints it
  double ms = 0, gbps = 0;  // median
  double min_ms = 0, iqr_ms = 0;  // the fastest repetition; the spread of the middle half
  bool ok = false;
  std::string note;
};

CliSpec tour_spec() {
  CliSpec spec;
  spec.program = "tour";
  spec.gpu = false;  // every chapter runs at its own default shape
  spec.tour = true;
  return spec;
}

// Runs 00 (threaded CPU sum) and every GPU chapter on one input (00 alone without a device).
template <typename T>
std::vector<Row> run_all(const std::vector<T>& host, const Reference& ref, const Options& options,
                         const DeviceInfo* device, const std::vector<Chapter>& chapters) {
  std::vector<Row> rows;
  const CpuMethodResult cpu = run_cpu_methods(host, options.reps, true).front();
  rows.push_back({"00_cpu_baseline", cpu.value_text, cpu.median_ms, cpu.gbps, cpu.min_ms, cpu.iqr_ms, cpu.ok,
                  cpu.ok ? "" : "the threaded CPU sum is outside its error bound"});
  if (!device) return rows;

  const std::size_t n = host.size();
  std::size_t scratch = 0;
  for (const Chapter& chapter : chapters) {
    int block = 0, grid = 0;
    resolve_shape(chapter.main(), n, block, grid);
    scratch = std::max(scratch, chapter.main().scratch_bytes(n, block, grid));
  }
  const std::size_t others = Bench<T>::bytes_needed(n, true, *device) + scratch;
  check_fits(chapters.front().main(), n, sizeof(T), others, 1, 1, *device);

  // Every chapter, then the read-only floor, their repetitions interleaved.
  static const Variant floor = read_floor_variant();
  std::vector<typename Bench<T>::Job> jobs;
  for (const Chapter& chapter : chapters) jobs.push_back({&chapter.main(), Op::Sum, 0, 0});
  jobs.push_back({&floor, Op::Sum, 0, 0, false});
  for (auto& job : jobs) resolve_shape(*job.variant, n, job.block, job.grid);
  Bench<T> bench(host, *device, true);
  for (const Measurement& m : bench.run_interleaved(jobs, options.reps, options.flush, ref)) {
    rows.push_back({m.label, m.result_text, m.median_ms, m.gbps, m.times.min, m.times.iqr, m.verdict.ok,
                    m.verdict.ok ? "" : m.verdict.note});
  }
  return rows;
}

// What the reader should know about the input: NaN and inf, an int sum that overflows.
std::vector<std::string> input_notes(const Reference& ref) {
  std::vector<std::string> notes;
  for (const std::string& note : {non_finite_note(ref), overflow_note(ref)}) {
    if (!note.empty()) notes.push_back(note);
  }
  return notes;
}

void print_table(const std::vector<Row>& rows, const DeviceInfo* device, const std::string& input,
                 const Reference& ref) {
  const double peak = device ? device->peak_gbps() : 0;
  double first_gpu_ms = 0, floor_gbps = 0;
  for (const Row& row : rows) {
    if (row.chapter.rfind("01", 0) == 0) first_gpu_ms = row.ms;
    if (row.chapter == kReadFloor) floor_gbps = row.gbps;
  }
  std::printf("\n%-20s %10s %9s %9s %8s %8s %9s %9s  %s\n", "chapter", "time ms", "spread", "GB/s", "% peak",
              "% floor", "step", "vs 01", "check");
  double previous_ms = 0;
  for (const Row& row : rows) {
    const bool cpu = row.chapter == "00_cpu_baseline", floor = row.chapter == kReadFloor;
    char step[16] = "", cumulative[16] = "", percent[16] = "", of_floor[16] = "", spread[16] = "";
    if (!floor && previous_ms > 0 && row.ms > 0) std::snprintf(step, sizeof step, "%.2fx", previous_ms / row.ms);
    if (!floor && first_gpu_ms > 0 && row.ms > 0) {
      std::snprintf(cumulative, sizeof cumulative, "%.2fx", first_gpu_ms / row.ms);
    }
    if (peak > 0 && !cpu) std::snprintf(percent, sizeof percent, "%.1f", 100 * row.gbps / peak);
    if (floor_gbps > 0 && !cpu) std::snprintf(of_floor, sizeof of_floor, "%.1f", 100 * row.gbps / floor_gbps);
    if (!cpu && row.ms > 0) std::snprintf(spread, sizeof spread, "%.1f%%", 100 * row.iqr_ms / row.ms);
    const bool cub = row.chapter == "10_cub";
    std::printf("%-20s %10s %9s %9.1f %8s %8s %9s %9s  %s%s%s\n", (cub ? "10_cub (yardstick)" : row.chapter.c_str()),
                format_ms(row.ms).c_str(), spread, row.gbps, percent, of_floor, step, cumulative,
                floor ? "(reads only)" : row.ok ? "ok" : "WRONG", row.ok || row.note.empty() ? "" : ": ",
                row.ok ? "" : row.note.c_str());
    if (!floor) previous_ms = row.ms;
  }
  std::printf("\n%s; sum %s; median of the timed runs (the chapters take turns in each), L2 flushed before each;\n"
              "GB/s = input bytes / time. \"spread\": the interquartile range of the runs, as a share of the median.\n",
              input.c_str(), expected_text(ref).c_str());
  std::printf("00 is the multi-threaded CPU sum; \"step\" is the speed-up over the row above, \"vs 01\" over 01.\n"
              "The read-only floor reads the input with 16-byte loads and adds nothing: \"%% floor\" is the share of\n"
              "its bandwidth a chapter reaches, beside \"%% peak\", the share of the datasheet bandwidth.\n");
  for (const std::string& note : input_notes(ref)) std::printf("note: %s\n", note.c_str());
}

// The --json form of the table: one object, every row in "rows".
void print_json(const std::vector<Row>& rows, const DeviceInfo* device, const Options& options, const Reference& ref,
                const std::string& converted_from) {
  bool all_ok = true;
  for (const Row& row : rows) all_ok = all_ok && row.ok;
  std::printf("%s\n", run_head(device, options.reps, options.flush).c_str());
  JsonObject json;
  json.str("type", dtype_name(options.type)).num("n", ref.n).num("seed", options.seed).str("input", options.input)
      .raw("converted_from", converted_from.empty() ? "null" : json_string(converted_from))
      .raw("reference", json_number(expected_text(ref)));
  std::vector<std::string> notes;
  for (const std::string& note : input_notes(ref)) notes.push_back(json_string(note));
  json.raw("notes", json_list(notes)).flag("ok", all_ok);
  std::vector<std::string> items;
  for (const Row& row : rows) {
    JsonObject item;
    item.str("chapter", row.chapter).raw("result", json_number(row.result == "-" ? "null" : row.result))
        .num("median_ms", row.ms, "%.6f").num("min_ms", row.min_ms, "%.6f").num("iqr_ms", row.iqr_ms, "%.6f")
        .num("gbps", row.gbps, "%.3f");
    if (device && row.chapter != "00_cpu_baseline") item.num("percent_of_peak", 100 * row.gbps / device->peak_gbps(), "%.2f");
    else item.raw("percent_of_peak", "null");
    items.push_back(item.flag("ok", row.ok).str("note", row.note).text());
  }
  std::printf("%s\n", json.raw("rows", json_list(items)).text().c_str());
}

template <typename T>
int tour_one(const std::vector<T>& host, const std::string& converted_from, const Options& options,
             const DeviceInfo* device, const std::vector<Chapter>& chapters) {
  const Reference ref = cpu_reference(host.data(), host.size());
  const std::vector<Row> rows = run_all(host, ref, options, device, chapters);
  if (options.json) print_json(rows, device, options, ref, converted_from);
  else print_table(rows, device, describe_input(options, host.size(), converted_from), ref);
  bool ok = true;
  for (const Row& row : rows) ok = ok && row.ok;
  return ok ? 0 : 1;
}

template <typename T>
int sweep(const Options& options, const DeviceInfo& device, const std::vector<Chapter>& chapters) {
  const std::string dir = sweep_folder(options.out_dir);
  std::ofstream csv(dir + "/sweep_" + dtype_name(options.type) + ".csv");
  std::ofstream json(dir + "/sweep_" + dtype_name(options.type) + ".json");
  if (!csv || !json) throw UsageError("cannot write the sweep files in '" + dir + "'");
  csv << "type,n,chapter,median_ms,min_ms,iqr_ms,gbps,percent_of_peak,ok\n";
  JsonObject head;
  head.raw("head", run_head(&device, options.reps, options.flush)).str("type", dtype_name(options.type));
  std::vector<std::string> items;  // the rows, one line each
  bool ok = true;
  for (int k = 10; k <= 30; ++k) {
    const std::size_t n = std::size_t(1) << k;
    // Input + saved copy + flush buffer + scratch: stop where the device runs out.
    if (2.2 * n * sizeof(T) + 4.0 * device.l2_bytes > static_cast<double>(device.free_bytes)) break;
    Options at = options;
    at.n = n;
    at.seed = options.seed + k;
    const std::vector<T> host = generate_input<T>(n, at.seed);
    const std::vector<Row> rows = run_all(host, cpu_reference(host.data(), n), at, &device, chapters);
    for (const Row& row : rows) {
      const double percent = row.chapter == "00_cpu_baseline" ? 0.0 : 100 * row.gbps / device.peak_gbps();
      csv << dtype_name(options.type) << ',' << n << ',' << row.chapter << ',' << row.ms << ',' << row.min_ms << ','
          << row.iqr_ms << ',' << row.gbps << ',' << percent << ',' << (row.ok ? "ok" : "WRONG") << '\n';
      items.push_back(JsonObject().num("n", n).str("chapter", row.chapter)
                          .num("median_ms", row.ms, "%.6f").num("min_ms", row.min_ms, "%.6f")
                          .num("iqr_ms", row.iqr_ms, "%.6f").num("gbps", row.gbps).num("percent_of_peak", percent)
                          .flag("ok", row.ok).text());
      ok = ok && row.ok;
      if (!row.ok) std::fprintf(stderr, "tour: %s WRONG at n = %zu: %s\n", row.chapter.c_str(), n, row.note.c_str());
    }
    std::fprintf(stderr, "tour: n = 2^%d done\n", k);
  }
  json << head.raw("rows", json_list(items, ",\n  ")).text() << "\n";
  std::printf("wrote %s/sweep_%s.csv and %s/sweep_%s.json\n", dir.c_str(), dtype_name(options.type), dir.c_str(),
              dtype_name(options.type));
  return ok ? 0 : 1;
}

void print_device(const DeviceInfo& device) {
  std::printf("device %s\npeak DRAM bandwidth %.1f GB/s (2 x %d MHz x %d-bit bus), CUDA %s, %s\n",
              device.describe().c_str(), device.peak_gbps(), device.memory_clock_khz / 1000, device.bus_width_bits,
              cuda_version_string().c_str(), utc_date().c_str());
}

// ---------------------------------------------------------------- --steps NN

bool has_steps(const Chapter& chapter) {
  return std::any_of(chapter.variants.begin(), chapter.variants.end(), [](const Variant& v) { return v.step; });
}

// The index of the chapter --steps names ("04" or "04_shared_tree"); UsageError when it
// names none, or one without step variants.
std::size_t steps_chapter(const std::vector<Chapter>& chapters, const std::string& name) {
  std::vector<std::string> ids;
  for (const Chapter& c : chapters) {
    if (has_steps(c)) ids.push_back(c.id.substr(0, 2));
  }
  std::string offered;  // "04, 05, 06, 08 or 09"
  for (std::size_t i = 0; i < ids.size(); ++i) {
    offered += (i == 0 ? "" : i + 1 == ids.size() ? " or " : ", ") + ids[i];
  }
  for (std::size_t i = 0; i < chapters.size(); ++i) {
    if (chapters[i].id != name && chapters[i].id.substr(0, 2) != name) continue;
    if (!has_steps(chapters[i]) || i == 0) {
      throw UsageError(chapters[i].id + " has no step variants: --steps takes " + offered);
    }
    return i;
  }
  throw UsageError("--steps expects a chapter with step variants, " + offered + ", not '" + name + "'");
}

// What `tour --steps NN` measured: the rows in order, and how their shapes relate.
struct StepsRun {
  std::vector<Measurement> rows;  // each with its own block and grid
  std::vector<const Variant*> variants;
  int block = 0;           // the chapter's own kernel's block: every row's when same_block
  bool same_block = false;  // every row at one block size
  bool same_grid = false;   // every row at one grid too (else each at its own default grid)
};

// The previous chapter's kernel, the chapter's step variants, the chapter's kernel:
// their repetitions interleaved by the harness (Bench::run_interleaved), every row
// checked against the reference. Each row runs at its own default shape, the one its
// program runs without --block and --grid. When every row has the same block and takes a
// --grid (06), the rows share one grid, the smallest of their default grids (each a full
// wave of its own kernel), so that they differ in the kernel alone. Each row keeps its
// own grid where a row derives it from n (03 and 04's one_each: one block per B
// elements), or where a step times a launch rule (05, 08, 09: Variant::times_shape),
// whose difference a shared grid would erase.
template <typename T>
StepsRun run_steps(const std::vector<T>& host, const Reference& ref, const Options& options, const DeviceInfo& device,
                   const std::vector<Chapter>& chapters, std::size_t index) {
  const Chapter& chapter = chapters[index];
  StepsRun run;
  run.variants.push_back(&chapters[index - 1].main());
  for (const Variant& v : chapter.variants) {
    if (v.step) run.variants.push_back(&v);
  }
  run.variants.push_back(&chapter.main());

  const std::size_t n = host.size();
  std::vector<typename Bench<T>::Job> jobs;
  int smallest_grid = INT_MAX;
  bool in_place = false, times_shape = false;
  for (const Variant* v : run.variants) {
    typename Bench<T>::Job job{v, Op::Sum, 0, 0};  // 0, 0: the variant's default shape
    resolve_shape(*v, n, job.block, job.grid);
    smallest_grid = std::min(smallest_grid, job.grid);
    in_place = in_place || v->in_place;
    times_shape = times_shape || v->times_shape;
    jobs.push_back(job);
  }
  run.block = jobs.back().block;
  run.same_block = std::all_of(jobs.begin(), jobs.end(), [&](const auto& job) { return job.block == run.block; });
  run.same_grid = run.same_block && !times_shape &&
                  std::all_of(jobs.begin(), jobs.end(), [&](const auto& job) {
                    return job.variant->check_shape(job.block, smallest_grid).empty();
                  });
  std::size_t scratch = 0;
  for (auto& job : jobs) {
    if (run.same_grid) job.grid = smallest_grid;
    scratch = std::max(scratch, job.variant->scratch_bytes(n, job.block, job.grid));
  }
  check_fits(chapter.main(), n, sizeof(T), Bench<T>::bytes_needed(n, in_place, device) + scratch, 1, 1, device);
  Bench<T> bench(host, device, in_place);
  run.rows = bench.run_interleaved(jobs, options.reps, options.flush, ref);
  return run;
}

// The launch shapes of a --steps run, in words.
std::string describe_shape(const StepsRun& run) {
  if (run.same_grid) {
    return "every row: " + std::to_string(run.block) + " threads, grid " + std::to_string(run.rows.front().grid) +
           " (the smallest of the rows' default grids, each a full wave of its own kernel), then one block over the "
           "partials";
  }
  if (run.same_block) {
    return "every row: " + std::to_string(run.block) + " threads and its own default grid (column \"grid\": for a "
           "row that launches one block per " + std::to_string(run.block) + " elements, that of its first pass)";
  }
  return "every row at its own default shape, the one its program runs without --block and --grid (columns "
         "\"block\" and \"grid\": that of the first launch)";
}

void print_steps_table(const StepsRun& run, const Chapter& chapter, const DeviceInfo& device, const std::string& input,
                       const Reference& ref) {
  const std::string first = run.rows.front().label.substr(0, 2);
  std::printf("\n%s, one change at a time\n\n", chapter.id.c_str());
  std::printf("%-34s %10s %8s %9s %7s %8s %8s %6s %8s  %s\n", "kernel", "time ms", "spread", "GB/s", "% peak",
              ("vs " + first).c_str(), "vs above", "block", "grid", "check");
  for (std::size_t i = 0; i < run.rows.size(); ++i) {
    const Measurement& m = run.rows[i];
    char spread[16] = "", vs_first[16] = "", vs_above[16] = "";
    if (m.median_ms > 0) std::snprintf(spread, sizeof spread, "%.1f%%", 100 * m.times.iqr / m.median_ms);
    if (i > 0 && m.median_ms > 0) {
      std::snprintf(vs_first, sizeof vs_first, "%.2fx", run.rows.front().median_ms / m.median_ms);
      std::snprintf(vs_above, sizeof vs_above, "%.2fx", run.rows[i - 1].median_ms / m.median_ms);
    }
    std::printf("%-34s %10s %8s %9.1f %7.1f %8s %8s %6d %8d  %s%s%s\n", m.label.c_str(), format_ms(m.median_ms).c_str(),
                spread, m.gbps, 100 * m.gbps / device.peak_gbps(), vs_first, vs_above, m.block, m.grid,
                m.verdict.ok ? "ok" : "WRONG", m.verdict.note.empty() ? "" : ": ", m.verdict.note.c_str());
  }
  std::printf("\n");
  for (const Variant* v : run.variants) std::printf("%s: %s\n", v->label().c_str(), v->summary.c_str());
  std::printf("\n%s; sum %s.\nLaunch: %s.\n", input.c_str(), expected_text(ref).c_str(), describe_shape(run).c_str());
  std::printf("Measured as the tour measures: the rows take turns in each repetition, L2 flushed before each, the\n"
              "median of the timed runs, every result checked against the CPU reference. \"spread\": the\n"
              "interquartile range of the runs, as a share of the median; \"vs %s\" and \"vs above\": the speed-up\n"
              "over the first row and over the row above.\n", first.c_str());
  for (const std::string& note : input_notes(ref)) std::printf("note: %s\n", note.c_str());
}

// The --json form: one object, the rows in "rows", written like the tour's.
void print_steps_json(const StepsRun& run, const Chapter& chapter, const DeviceInfo& device, const Options& options,
                      const Reference& ref, const std::string& converted_from) {
  bool all_ok = true;
  for (const Measurement& m : run.rows) all_ok = all_ok && m.verdict.ok;
  std::vector<std::string> notes, items;
  for (const std::string& note : input_notes(ref)) notes.push_back(json_string(note));
  for (std::size_t i = 0; i < run.rows.size(); ++i) {
    const Measurement& m = run.rows[i];
    const Variant& v = *run.variants[i];
    items.push_back(JsonObject().str("chapter", v.chapter).str("variant", v.name).str("summary", v.summary)
                        .num("block", m.block).num("grid", m.grid).raw("result", json_number(m.result_text))
                        .num("median_ms", m.median_ms, "%.6f").num("min_ms", m.times.min, "%.6f")
                        .num("iqr_ms", m.times.iqr, "%.6f").num("gbps", m.gbps, "%.3f")
                        .num("percent_of_peak", 100 * m.gbps / device.peak_gbps(), "%.2f").flag("ok", m.verdict.ok)
                        .str("note", m.verdict.note).text());
  }
  std::printf("%s\n", run_head(&device, options.reps, options.flush).c_str());
  JsonObject json;
  json.str("steps", chapter.id).str("type", dtype_name(options.type)).num("n", ref.n).num("seed", options.seed)
      .str("input", options.input).raw("converted_from", converted_from.empty() ? "null" : json_string(converted_from))
      .raw("reference", json_number(expected_text(ref))).num("block", run.block)
      .flag("same_block", run.same_block).flag("same_grid", run.same_grid).str("shape", describe_shape(run))
      .raw("notes", json_list(notes)).flag("ok", all_ok).raw("rows", json_list(items));
  std::printf("%s\n", json.text().c_str());
}

template <typename T>
int steps(const Options& options, const std::vector<Chapter>& chapters, std::size_t index) {
  // The input first: a bad --input file is exit 2 before anything is printed.
  std::string converted_from;
  const std::vector<T> host = make_input<T>(options, "tour", &converted_from);
  std::string why;
  if (!cuda_device_available(&why)) throw CudaError(why);
  const DeviceInfo device = query_device();
  if (!options.json) print_device(device);
  const Reference ref = cpu_reference(host.data(), host.size());
  const StepsRun run = run_steps(host, ref, options, device, chapters, index);
  if (options.json) print_steps_json(run, chapters[index], device, options, ref, converted_from);
  else print_steps_table(run, chapters[index], device, describe_input(options, host.size(), converted_from), ref);
  for (const Measurement& m : run.rows) {
    if (!m.verdict.ok) return 1;
  }
  return 0;
}

// ---------------------------------------------------------------- the program

template <typename T>
int run_typed(const Options& options, const std::vector<Chapter>& chapters) {
  std::string why;
  if (options.sweep) {
    if (!cuda_device_available(&why)) throw CudaError(why);
    const DeviceInfo device = query_device();
    print_device(device);
    return sweep<T>(options, device, chapters);
  }
  // The input first: a bad --input file is exit 2 before anything is printed.
  std::string converted_from;
  const std::vector<T> host = make_input<T>(options, "tour", &converted_from);
  if (!cuda_device_available(&why)) {
    tour_one<T>(host, converted_from, options, nullptr, chapters);
    std::fprintf(stderr, "tour: the GPU chapters (01-%s) need a CUDA GPU, and none is usable here: %s\n",
                 chapters.empty() ? "..." : chapters.back().id.substr(0, 2).c_str(), why.c_str());
    return 3;
  }
  const DeviceInfo device = query_device();
  if (!options.json) print_device(device);
  return tour_one<T>(host, converted_from, options, &device, chapters);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options options = parse_options(tour_spec(), argc, argv);
    if (options.help) {
      std::printf("tour: every chapter side by side on the same input\n\n%s", usage(tour_spec()).c_str());
      return 0;
    }
    if (options.sweep && !options.input.empty()) throw UsageError("--sweep generates its inputs: drop --input");
    if (options.sweep && options.json) throw UsageError("--json does not apply to --sweep: it writes sweep_T.json (see --help)");
    const std::vector<Chapter> chapters = all_gpu_chapters();
    if (!options.steps.empty()) {
      if (options.sweep) throw UsageError("--steps and --sweep do not go together: --steps times one chapter at one --n");
      if (!options.out_dir.empty()) throw UsageError("--out does not apply to --steps: it prints its table (--json: one object)");
      const std::size_t index = steps_chapter(chapters, options.steps);
      switch (options.type) {
        case DType::Int: return steps<int>(options, chapters, index);
        case DType::Float: return steps<float>(options, chapters, index);
        case DType::Double: return steps<double>(options, chapters, index);
      }
    }
    switch (options.type) {
      case DType::Int: return run_typed<int>(options, chapters);
      case DType::Float: return run_typed<float>(options, chapters);
      case DType::Double: return run_typed<double>(options, chapters);
    }
  } catch (const std::exception& error) {
    return report_exception("tour", error);
  }
  return 3;
}
