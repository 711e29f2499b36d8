#include "harness.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "run_head.h"
#include "timer.h"

namespace reduction {

// ---------------------------------------------------------------- shapes and memory

void fill_shape(const Variant& variant, std::size_t n, int& block, int& grid) {
  if (block == 0 && grid == 0 && variant.default_shape) {
    CUDA_CHECK(variant.default_shape(n, &block, &grid));
    return;
  }
  if (block == 0) block = variant.default_block;
  if (variant.check_n) {
    const std::string too_large = variant.check_n(n, block);
    if (!too_large.empty()) throw UsageError(variant.chapter + ": " + too_large);
  }
  if (grid == 0) CUDA_CHECK(variant.default_grid(n, block, &grid));
}

void resolve_shape(const Variant& variant, std::size_t n, int& block, int& grid) {
  // Only what was asked for is checked: the defaults are the chapter's own choice.
  const std::string why = variant.check_shape(block, grid);
  if (!why.empty()) throw UsageError(variant.chapter + ": " + why);
  fill_shape(variant, n, block, grid);
}

void check_fits(const Variant& variant, std::size_t n, std::size_t element_bytes, std::size_t other_bytes,
                int block, int grid, const DeviceInfo& device) {
  const double need = static_cast<double>(n) * element_bytes + other_bytes + variant.scratch_bytes(n, block, grid);
  // Leave a little room for the CUDA context's own allocations.
  const double usable = static_cast<double>(device.free_bytes) - 64.0 * 1048576.0;
  if (need > usable) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "--n %zu needs %.2f GiB of device memory (input, scratch, L2 flush buffer%s) but %s has "
                  "%.2f GiB free",
                  n, need / 1073741824.0, variant.in_place ? ", saved copy of the input" : "",
                  device.name.c_str(), device.free_bytes / 1073741824.0);
    throw UsageError(text);
  }
}

template <typename T>
std::size_t Bench<T>::bytes_needed(std::size_t n, bool keep_pristine, const DeviceInfo& device) {
  return n * sizeof(T) * (keep_pristine ? 1 : 0) + 2 * device.l2_bytes + sizeof(T);
}

// ---------------------------------------------------------------- Bench

template <typename T>
Bench<T>::Bench(const std::vector<T>& host, const DeviceInfo& device, bool keep_pristine)
    : n_(host.size()),
      device_(device),
      input_(host.size()),
      pristine_(keep_pristine ? host.size() : 0),
      flush_(device.l2_bytes) {
  if (n_) {
    CUDA_CHECK(cudaMemcpy(input_.get(), host.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
    if (keep_pristine) CUDA_CHECK(cudaMemcpy(pristine_.get(), input_.get(), n_ * sizeof(T), cudaMemcpyDeviceToDevice));
  }
}

template <typename T>
Measurement Bench<T>::run(const Variant& variant, Op op, int block, int grid, int reps, bool flush,
                          const Reference& ref) {
  return run_interleaved({{&variant, op, block, grid}}, reps, flush, ref).front();
}

template <typename T>
std::vector<Measurement> Bench<T>::run_interleaved(const std::vector<Job>& jobs, int reps, bool flush,
                                                   const Reference& ref) {
  cudaStream_t stream = nullptr;  // the default stream; every step below is ordered on it
  // What each job keeps for the whole run: its launcher, scratch and result slot.
  struct Slot {
    Launcher<T> launch;
    DeviceBuffer<unsigned char> scratch;
    DeviceBuffer<T> result;
  };
  std::vector<Slot> slots;
  for (const Job& job : jobs) {
    const std::size_t scratch_bytes = job.variant->scratch_bytes(n_, job.block, job.grid);
    Slot slot{job.variant->template launcher<T>(job.op), DeviceBuffer<unsigned char>(scratch_bytes), DeviceBuffer<T>(1)};
    if (!slot.launch) throw UsageError(job.variant->label() + " does not offer --op " + op_name(job.op));
    if (slot.scratch.bytes()) CUDA_CHECK(cudaMemset(slot.scratch.get(), 0, slot.scratch.bytes()));
    slots.push_back(std::move(slot));
  }

  // Timed as every measurement is (time_in_turns, timer.h). Before each run: an in-place
  // chapter gets its input back, the job's result slot is poisoned.
  auto prepare = [&](std::size_t j, unsigned char poison) {
    if (dirty_ && n_) {
      CUDA_CHECK(cudaMemcpyAsync(input_.get(), pristine_.get(), n_ * sizeof(T), cudaMemcpyDeviceToDevice, stream));
    }
    CUDA_CHECK(cudaMemsetAsync(slots[j].result.get(), poison, sizeof(T), stream));
  };
  auto launch = [&](std::size_t j) {
    CUDA_CHECK(slots[j].launch(input_.get(), n_, slots[j].result.get(), slots[j].scratch.get(),
                               slots[j].scratch.bytes(), jobs[j].block, jobs[j].grid, stream));
    dirty_ = jobs[j].variant->in_place;
  };
  // The result of each job's first run, and of its last repetition (written over the
  // second poison pattern, it proves that the launcher really wrote it).
  std::vector<T> first(jobs.size()), last(jobs.size());
  auto fetch = [&](std::size_t j, bool after_last) {
    T& value = after_last ? last[j] : first[j];
    CUDA_CHECK(cudaMemcpy(&value, slots[j].result.get(), sizeof(T), cudaMemcpyDeviceToHost));
  };
  const std::vector<std::vector<double>> times =
      time_in_turns(jobs.size(), reps, flush ? &flush_ : nullptr, prepare, launch, fetch);

  std::vector<Measurement> measurements(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    Measurement& m = measurements[j];
    m.label = jobs[j].variant->label();
    m.block = jobs[j].block;
    m.grid = jobs[j].grid;
    m.reps = reps;
    m.flush = flush;
    m.chain_length = jobs[j].variant->chain_length(n_, jobs[j].block, jobs[j].grid);
    m.times = summarize(times[j]);
    m.median_ms = m.times.median;
    m.gbps = m.median_ms > 0 ? n_ * sizeof(T) / (m.median_ms * 1e-3) / 1e9 : 0.0;
    if (!jobs[j].check) {  // nothing to check: only its time counts
      m.verdict.ok = true;
      m.result_text = "-";
      continue;
    }
    Verdict verdict = verify(first[j], ref, m.chain_length);
    const T last_value = reps > 0 ? last[j] : first[j];
    const Verdict last_verdict = verify(last_value, ref, m.chain_length);
    if (verdict.ok && !last_verdict.ok) {
      verdict = last_verdict;
      verdict.note = "the first run was right but a timed repetition gave " + format_value(last_value) +
                     (last_verdict.note.empty() ? "" : "; " + last_verdict.note);
    }
    m.verdict = verdict;
    m.result_text = format_value(first[j]);
  }
  return measurements;
}

template class Bench<int>;
template class Bench<float>;
template class Bench<double>;

// ---------------------------------------------------------------- variants

const Variant& select_variant(const Chapter& chapter, const std::string& name) {
  for (const auto& v : chapter.variants) {
    if (v.name == name) return v;
  }
  throw UsageError(chapter.id + " has no variant '" + name + "'");
}

// ---------------------------------------------------------------- the chapter program

namespace {

void print_report(const Chapter& chapter, const Variant& variant, const Options& options, const DeviceInfo& device,
                  const Reference& ref, const std::string& converted_from, const Measurement& measurement) {
  const double peak = device.peak_gbps();
  const std::string ref_text = expected_text(ref);
  // A shape the library chose (CUB) is not ours to report: null in JSON.
  auto shape = [&](int value) { return variant.chooses_shape ? std::string("null") : std::to_string(value); };
  if (options.json) {
    std::printf("%s\n", run_head(&device, measurement.reps, measurement.flush).c_str());
    JsonObject json;
    json.str("chapter", chapter.id).str("variant", variant.name).str("type", dtype_name(options.type))
        .str("op", op_name(options.op)).num("n", ref.n).raw("block", shape(measurement.block))
        .raw("grid", shape(measurement.grid)).raw("result", json_number(measurement.result_text))
        .raw("reference", json_number(ref_text));
    if (ref.overflows_int()) json.num("true_sum", ref.int_value);
    json.raw("error", json_number(format_value(measurement.verdict.error)))
        .raw("tolerance", json_number(format_value(measurement.verdict.tolerance))).flag("ok", measurement.verdict.ok)
        .str("note", measurement.verdict.note).raw("non_finite", json_non_finite(ref))
        .num("median_ms", measurement.median_ms, "%.6f").num("min_ms", measurement.times.min, "%.6f")
        .num("iqr_ms", measurement.times.iqr, "%.6f").num("gbps", measurement.gbps, "%.3f")
        .num("percent_of_peak", 100.0 * measurement.gbps / peak, "%.2f").num("seed", options.seed)
        .str("input", options.input).raw("converted_from", converted_from.empty() ? "null" : json_string(converted_from));
    std::printf("%s\n", json.text().c_str());
    return;
  }
  std::printf("%s: %s\n", variant.label().c_str(), variant.summary.c_str());
  std::printf("device     %s, peak %.1f GB/s, CUDA %s\n", device.describe().c_str(), peak,
              cuda_version_string().c_str());
  std::printf("input      %s\n", describe_input(options, ref.n, converted_from).c_str());
  if (ref.non_finite()) std::printf("non-finite %s\n", non_finite_note(ref).c_str());
  if (variant.chooses_shape) {
    std::printf("launch     chosen by the library (--block and --grid do not apply)\n");
  } else {
    std::printf("launch     block %d, grid %d\n", measurement.block, measurement.grid);
  }
  std::printf("%-10s %s\n", op_name(options.op), measurement.result_text.c_str());
  std::printf("reference  %s%s\n", ref_text.c_str(), ref.overflows_int() ? " (the true sum modulo 2^32)" : "");
  if (measurement.verdict.tolerance > 0) {
    std::printf("error      %.3g (tolerance %.3g for chains of %zu additions)  %s\n", measurement.verdict.error,
                measurement.verdict.tolerance, measurement.chain_length, measurement.verdict.ok ? "ok" : "WRONG");
  } else {
    std::printf("error      %.3g (exact match required)  %s\n", measurement.verdict.error, measurement.verdict.ok ? "ok" : "WRONG");
  }
  if (!measurement.verdict.note.empty()) std::printf("note       %s\n", measurement.verdict.note.c_str());
  std::printf("time       %s ms (median of %d, L2 %s)  %.1f GB/s  %.1f%% of peak\n", format_ms(measurement.median_ms).c_str(),
              measurement.reps, measurement.flush ? "flushed" : "not flushed", measurement.gbps, 100.0 * measurement.gbps / peak);
}

template <typename T>
int run_typed(const Chapter& chapter, const Variant& variant, const Options& options) {
  std::string converted_from;
  std::vector<T> host = options.input.empty() ? std::vector<T>() : read_input_file<T>(chapter.id, options.input, &converted_from);
  const std::size_t n = options.input.empty() ? options.n : host.size();

  std::string why;
  if (!cuda_device_available(&why)) throw CudaError(why);
  const DeviceInfo device = query_device();
  int block = options.block, grid = options.grid;
  fill_shape(variant, n, block, grid);  // the shape as given was checked by run_chapter
  check_fits(variant, n, sizeof(T), Bench<T>::bytes_needed(n, variant.in_place, device), block, grid, device);
  if (options.input.empty()) host = generate_input<T>(n, options.seed);

  const Reference ref = cpu_reference(host.data(), n, options.op);
  Bench<T> bench(host, device, variant.in_place);
  const Measurement measurement = bench.run(variant, options.op, block, grid, options.reps, options.flush, ref);
  print_report(chapter, variant, options, device, ref, converted_from, measurement);
  return measurement.verdict.ok ? 0 : 1;
}

}  // namespace

int run_chapter(const Chapter& chapter, int argc, char** argv) {
  CliSpec spec;
  spec.program = chapter.id;
  spec.ops = chapter.main().has_operators();
  spec.types.clear();  // the element types whose sum the chapter offers (17: float only)
  if (chapter.main().launcher<int>(Op::Sum)) spec.types.push_back(DType::Int);
  if (chapter.main().launcher<float>(Op::Sum)) spec.types.push_back(DType::Float);
  if (chapter.main().launcher<double>(Op::Sum)) spec.types.push_back(DType::Double);
  for (std::size_t i = 1; i < chapter.variants.size(); ++i) spec.variants.push_back(chapter.variants[i].name);
  try {
    const Options options = parse_options(spec, argc, argv);
    if (options.help) {
      std::printf("%s: %s\n\n%s", chapter.id.c_str(), chapter.main().summary.c_str(), usage(spec).c_str());
      return 0;
    }
    const Variant& variant = select_variant(chapter, options.variant);
    // The shape is checked before anything touches the device (block and grid as given).
    const std::string why = variant.check_shape(options.block, options.grid);
    if (!why.empty()) throw UsageError(why);
    switch (options.type) {
      case DType::Int: return run_typed<int>(chapter, variant, options);
      case DType::Float: return run_typed<float>(chapter, variant, options);
      case DType::Double: return run_typed<double>(chapter, variant, options);
    }
  } catch (const std::exception& error) {
    return report_exception(chapter.id, error);
  }
  return 3;
}

}  // namespace reduction
