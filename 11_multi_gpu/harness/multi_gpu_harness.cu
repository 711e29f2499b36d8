// multi_gpu_harness.cu: chapter 11's programs around its copy unit (multi_gpu_harness.h).
#include "multi_gpu_harness.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "harness.h"
#include "random.h"
#include "run_head.h"

namespace reduction {
Chapter single_pass_chapter();  // 09_single_pass/main.cu
}

namespace reduction::multi_gpu_harness {

GpuChoice gpu_choice(const std::vector<std::string>& visible, int local_rank) {
  GpuChoice choice;
  for (int r = 0; r < static_cast<int>(visible.size()); ++r) {
    if (visible[r] != visible[local_rank]) continue;
    ++choice.sharing;
    if (r < local_rank) ++choice.index;
  }
  return choice;
}

void nccl_check(ncclResult_t status, const char* call, const char* file, int line) {
  if (status != ncclSuccess && status != ncclInProgress) {
    throw NcclError(std::string("NCCL error: ") + call + " failed at " + file + ":" + std::to_string(line) + ": " +
                    ncclGetErrorString(status));
  }
}

void throw_if_failed(cudaError_t status, const std::string& step) {
  if (status != cudaSuccess) {
    throw CudaError("CUDA error: " + step + " failed: " + cudaGetErrorName(status) + " (" +
                    cudaGetErrorString(status) + ")");
  }
}

void throw_if_failed(const multi_gpu::Status& status, const std::string& step) {
  throw_if_failed(status.cuda, step);
  if (status.nccl != ncclSuccess) throw NcclError(step + " failed: NCCL reports " + ncclGetErrorString(status.nccl));
}

double nccl_timeout_s() {
  const char* text = std::getenv("REDUCTION_NCCL_TIMEOUT");
  if (!text || !*text) return 120.0;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  if (*end != '\0' || !std::isfinite(seconds) || seconds <= 0) {
    throw reduction::UsageError(std::string("REDUCTION_NCCL_TIMEOUT expects a positive number of seconds, not '") +
                                text + "'");
  }
  return seconds;
}

const Variant& single_pass_variant() {
  static const Chapter chapter = single_pass_chapter();
  return chapter.main();
}

template <typename T>
GpuState<T>::~GpuState() {
  multi_gpu::release(&part);  // the communicators are Communicators' to end
}

std::size_t bytes_needed(std::size_t count, std::size_t element_bytes, const DeviceInfo& device) {
  // 2^20 blocks: more than any default grid, so the scratch estimate is an upper bound.
  return count * element_bytes + 2 * device.l2_bytes + single_pass::scratch_bytes(count, 1024, 1 << 20) + (64u << 20);
}

namespace {

// Element i of this GPU's shard is element shard.begin + i of the whole array: the same
// value the CPU reference computes for that index.
template <typename T>
__global__ void fill_random(T* out, std::size_t count, std::size_t begin, std::size_t n, std::uint64_t seed) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    out[i] = reduction::random_value<T>(seed, begin + i, n);
  }
}

}  // namespace

template <typename T>
void setup(GpuState<T>& g, int device, int ranks, Shard shard, std::size_t n, const Options& options,
           const std::vector<T>* host) {
  g.shard = shard;
  throw_if_failed(multi_gpu::prepare(device, ranks, shard.count, &g.part, options.block, options.grid),
                  "setting up GPU " + std::to_string(device));
  CUDA_CHECK(cudaSetDevice(device));  // prepare() leaves the current device as it found it
  const DeviceInfo info = query_device();
  g.timer = std::make_unique<GpuTimer>();
  g.data = DeviceBuffer<T>(shard.count);
  g.flush = std::make_unique<L2Flusher>(info.l2_bytes);
  // The flusher zeroes its buffer with cudaMemset, on the legacy default stream, which a
  // non-blocking stream does not wait for: let it finish before our stream starts.
  CUDA_CHECK(cudaDeviceSynchronize());
  // From here on every copy goes to the GPU's own stream, in order with its work.
  const cudaStream_t stream = g.part.stream;
  if (shard.count && host) {
    CUDA_CHECK(cudaMemcpyAsync(g.data.get(), host->data() + shard.begin, shard.count * sizeof(T),
                               cudaMemcpyHostToDevice, stream));
  } else if (shard.count) {
    fill_random<T><<<info.sm_count * 8, 256, 0, stream>>>(g.data.get(), shard.count, shard.begin, n, options.seed);
    CUDA_CHECK_LAUNCH();
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));  // no NCCL work yet: this cannot hang on a peer
}

template <typename T>
Reference shard_reference(Shard shard, std::size_t n, const Options& options, const std::vector<T>* host) {
  if (host) return reduction::cpu_reference(host->data() + shard.begin, shard.count, options.op);
  const std::uint64_t seed = options.seed;
  return reduction::reference_of<T>(shard.count, options.op, [&](std::size_t i) {
    return reduction::random_value<T>(seed, shard.begin + i, n);
  });
}

// ---------------------------------------------------------------- one run

namespace {

// multi_gpu::gather_all or combine_all with the operator the run asks for.
template <typename Step>
auto with_op(Op op, Step step) {
  switch (op) {
    case Op::Max: return step(single_pass::Max());
    case Op::Min: return step(single_pass::Min());
    case Op::Sum:
    default: return step(single_pass::Sum());
  }
}

}  // namespace

template <typename T>
double run_once(std::vector<GpuState<T>>& gpus, Communicators& comms, Op op, bool flush) {
  std::vector<multi_gpu::Part<T>> parts;
  std::vector<const T*> shards;
  std::vector<std::size_t> counts;
  std::vector<std::pair<int, cudaStream_t>> streams;
  for (GpuState<T>& g : gpus) {  // each GPU: flush its L2, poison its totals, start its timer
    CUDA_CHECK(cudaSetDevice(g.part.device));
    if (flush) g.flush->flush(g.part.stream);
    CUDA_CHECK(cudaMemsetAsync(g.part.totals, 0xCD, g.part.ranks * sizeof(T), g.part.stream));
    CUDA_CHECK(cudaMemsetAsync(g.part.total, 0xCD, sizeof(T), g.part.stream));
    g.timer->start(g.part.stream);
    parts.push_back(g.part);
    shards.push_back(g.data.get());
    counts.push_back(g.shard.count);
    streams.emplace_back(g.part.device, g.part.stream);
  }
  // Each GPU reduces its shard, then one grouped all-gather of the K totals; once the
  // non-blocking communicators have enqueued the all-gathers, each GPU combines the totals.
  // The stop events follow all of it on the streams.
  const int k = static_cast<int>(gpus.size());
  throw_if_failed(with_op(op, [&](auto o) {
                    return multi_gpu::gather_all<T, decltype(o)>(shards.data(), counts.data(), parts.data(),
                                                                 comms.data(), k);
                  }),
                  "the all-reduce (09 on each GPU, then ncclAllGather)");
  comms.wait_enqueued("enqueueing the all-reduce");
  throw_if_failed(with_op(op, [&](auto o) { return multi_gpu::combine_all<T, decltype(o)>(parts.data(), k); }),
                  "combining the totals");
  for (GpuState<T>& g : gpus) {
    CUDA_CHECK(cudaSetDevice(g.part.device));
    g.timer->stop(g.part.stream);
  }
  comms.wait(streams, "the reduction and its all-reduce");
  double slowest = 0;
  for (GpuState<T>& g : gpus) {
    CUDA_CHECK(cudaSetDevice(g.part.device));
    slowest = std::max<double>(slowest, g.timer->elapsed_ms());  // the stop event is done: no wait
  }
  return slowest;
}

std::size_t chain_length(std::size_t n, int k, int block, int grid) {
  const Shard largest = shard_of(n, k, 0);
  return single_pass_variant().chain_length(largest.count, block, grid) + static_cast<std::size_t>(k);
}

template <typename T>
reduction::Verdict check_totals(std::vector<GpuState<T>>& gpus, const Reference& ref, std::size_t n, int k,
                                std::string* result_text) {
  reduction::Verdict worst;
  worst.ok = true;
  for (GpuState<T>& g : gpus) {
    T total{};
    throw_if_failed(multi_gpu::read_total(g.part, &total),  // the stream is idle: cannot wait on a peer
                    "reading GPU " + std::to_string(g.part.device) + "'s total");
    reduction::Verdict verdict = reduction::verify(total, ref, chain_length(n, k, g.part.block, g.part.grid));
    if (result_text && result_text->empty()) *result_text = reduction::format_value(total);
    if (!verdict.ok && worst.ok) {
      verdict.note = "GPU " + std::to_string(g.part.device) + " holds " + reduction::format_value(total) +
                     (verdict.note.empty() ? "" : "; " + verdict.note);
      worst = verdict;
    } else if (worst.ok) {
      worst.error = std::max(worst.error, verdict.error);
      worst.tolerance = verdict.tolerance;
      worst.note = verdict.note;  // what verify says of a right result too (an int sum that wrapped)
    }
  }
  return worst;
}

// ---------------------------------------------------------------- the report

Participant describe_current_gpu(int rank, const std::string& host, int local_rank, int local_size) {
  Participant p;
  p.rank = rank;
  p.host = host;
  p.local_rank = local_rank;
  p.local_size = local_size;
  p.device = reduction::query_device();
  char bus_id[32] = "";
  CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, p.device.id));
  p.bus_id = bus_id;
  return p;
}

void print_report(const Options& options, std::size_t n, int k, const std::string& mode, const Reference& ref,
                  const reduction::Verdict& verdict, const std::string& result_text, double ms,
                  const std::vector<Participant>& participants) {
  double peak = 0;
  for (const Participant& p : participants) peak += p.device.peak_gbps();
  const std::size_t bytes = n * (options.type == reduction::DType::Double ? 8 : 4);
  const double gbps = ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0;
  const std::string ref_text = reduction::expected_text(ref);  // an overflowing int sum: modulo 2^32
  const bool mpi = !participants.empty() && !participants[0].host.empty();
  // The notes, in the text and in the JSON alike: NaN and inf in the input, then the verdict's.
  std::vector<std::string> notes;
  for (const std::string& note : {reduction::non_finite_note(ref), verdict.note}) {
    if (!note.empty()) notes.push_back(note);
  }
  if (options.json) {
    // The head describes the first GPU; "total_peak_gbps" is the sum of every GPU's peak.
    std::printf("%s\n", reduction::run_head(participants.empty() ? nullptr : &participants[0].device, options.reps,
                                             options.flush).c_str());
    std::vector<std::string> devices;
    for (const Participant& p : participants) {
      devices.push_back(JsonObject().num("rank", p.rank).str("host", p.host).num("local_rank", p.local_rank)
                            .num("local_size", p.local_size).num("gpu", p.device.id).str("bus_id", p.bus_id)
                            .str("name", p.device.name).num("peak_gbps", p.device.peak_gbps(), "%.3f").text());
    }
    std::string note;
    for (const std::string& each : notes) note += (note.empty() ? "" : "; ") + each;
    JsonObject json;
    json.str("chapter", "11_multi_gpu").str("mode", mode).num("gpus", k)
        .str("type", reduction::dtype_name(options.type)).str("op", reduction::op_name(options.op)).num("n", n)
        .raw("result", reduction::json_number(result_text)).raw("reference", reduction::json_number(ref_text));
    if (ref.overflows_int()) json.num("true_sum", ref.int_value);
    json.raw("error", reduction::json_number(reduction::format_value(verdict.error)))
        .raw("tolerance", reduction::json_number(reduction::format_value(verdict.tolerance))).flag("ok", verdict.ok)
        .str("note", note).raw("non_finite", reduction::json_non_finite(ref))
        .num("median_ms", ms, "%.6f").num("gbps", gbps, "%.3f").num("total_peak_gbps", peak, "%.3f")
        .raw("devices", reduction::json_list(devices));
    std::printf("%s\n", json.text().c_str());
    return;
  }
  std::printf("11_multi_gpu (%s): %zu %s values in %d shards, one per GPU; 09 on each, then an all-reduce "
              "(ncclAllGather, combined in rank order)\n", mode.c_str(), n, reduction::dtype_name(options.type), k);
  for (const Participant& p : participants) {
    const Shard s = shard_of(n, k, p.rank);
    if (mpi) {
      std::printf("rank %-5d  host %s, local rank %d of %d, GPU %d (%s): %s, peak %.0f GB/s, shard [%zu, %zu)\n",
                  p.rank, p.host.c_str(), p.local_rank, p.local_size, p.device.id, p.bus_id.c_str(),
                  p.device.describe().c_str(), p.device.peak_gbps(), s.begin, s.begin + s.count);
    } else {
      std::printf("gpu %-6d %s (%s), peak %.0f GB/s, shard [%zu, %zu)\n", p.rank, p.device.describe().c_str(),
                  p.bus_id.c_str(), p.device.peak_gbps(), s.begin, s.begin + s.count);
    }
  }
  std::printf("%-10s %s on every GPU\n", reduction::op_name(options.op), result_text.c_str());
  std::printf("reference  %s%s\n", ref_text.c_str(), ref.overflows_int() ? " (the true sum modulo 2^32)" : "");
  std::printf("error      %.3g (tolerance %.3g)  %s\n", verdict.error, verdict.tolerance, verdict.ok ? "ok" : "WRONG");
  for (const std::string& note : notes) std::printf("note       %s\n", note.c_str());
  std::printf("time       %s ms (median of %d, L2 %s)  %.1f GB/s aggregate  %.1f%% of the GPUs' summed peak\n",
              reduction::format_ms(ms).c_str(), options.reps, options.flush ? "flushed" : "not flushed", gbps,
              100 * gbps / peak);
}

reduction::CliSpec cli_spec(const std::string& program, bool gpus_flag) {
  reduction::CliSpec spec;
  spec.program = program;
  spec.ops = true;
  spec.multi_gpu = gpus_flag;
  return spec;
}

#define MULTI_GPU_HARNESS_INSTANTIATE(T)                                                                      \
  template struct GpuState<T>;                                                                                   \
  template void setup<T>(GpuState<T>&, int, int, Shard, std::size_t, const Options&, const std::vector<T>*);    \
  template Reference shard_reference<T>(Shard, std::size_t, const Options&, const std::vector<T>*);             \
  template double run_once<T>(std::vector<GpuState<T>>&, Communicators&, Op, bool);                            \
  template Verdict check_totals<T>(std::vector<GpuState<T>>&, const Reference&, std::size_t, int, std::string*);
MULTI_GPU_HARNESS_INSTANTIATE(int)
MULTI_GPU_HARNESS_INSTANTIATE(float)
MULTI_GPU_HARNESS_INSTANTIATE(double)

// ---------------------------------------------------------------- the one-process program

namespace {

// How many GPUs to use: --gpus, or every visible one.
int gpu_count(const Options& options) {
  std::string why;
  if (!reduction::cuda_device_available(&why)) throw reduction::CudaError(why);
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  if (options.gpus > count) {
    throw reduction::UsageError("--gpus " + std::to_string(options.gpus) + " but only " + std::to_string(count) +
                                " CUDA device(s) are visible");
  }
  return options.gpus ? options.gpus : count;
}

template <typename T>
int run_local(const Options& options, double timeout_s) {
  // The input file is read first: a bad file is a usage error, with or without GPUs.
  const std::vector<T> host = options.input.empty()
                                  ? std::vector<T>()
                                  : reduction::read_input_file<T>("11_multi_gpu", options.input, nullptr);
  const std::size_t n = options.input.empty() ? options.n : host.size();
  const std::vector<T>* host_input = options.input.empty() ? nullptr : &host;
  const int k = gpu_count(options);

  std::vector<Participant> participants;
  for (int d = 0; d < k; ++d) {
    CUDA_CHECK(cudaSetDevice(d));
    participants.push_back(describe_current_gpu(d, "", d, k));
    const reduction::DeviceInfo& device = participants.back().device;
    const Shard s = shard_of(n, k, d);
    if (bytes_needed(s.count, sizeof(T), device) > device.free_bytes) {
      throw reduction::UsageError("--n " + std::to_string(n) + " does not fit: GPU " + std::to_string(d) +
                                  " would need " + std::to_string(bytes_needed(s.count, sizeof(T), device) >> 20) +
                                  " MiB for its shard and has " + std::to_string(device.free_bytes >> 20) +
                                  " MiB free (use more GPUs)");
    }
  }
  std::vector<GpuState<T>> gpus(k);  // constructed in place: a GpuState owns device memory
  for (int d = 0; d < k; ++d) setup(gpus[d], d, k, shard_of(n, k, d), n, options, host_input);

  // Declared after the GPUs, so destroyed before them: on an error the communicators
  // are aborted (which stops any NCCL kernel) before the GPU memory is freed.
  Communicators comms(timeout_s);
  comms.init_local(k);

  Reference ref = shard_reference<T>(shard_of(n, k, 0), n, options, host_input);
  for (int d = 1; d < k; ++d) {
    ref = reduction::combine(ref, shard_reference<T>(shard_of(n, k, d), n, options, host_input));
  }

  // Verified run (and warm-up), a second warm-up, then the timed runs.
  run_once(gpus, comms, options.op, options.flush);
  std::string result_text;
  reduction::Verdict verdict = check_totals(gpus, ref, n, k, &result_text);
  run_once(gpus, comms, options.op, options.flush);
  std::vector<double> times;
  for (int r = 0; r < options.reps; ++r) times.push_back(run_once(gpus, comms, options.op, options.flush));
  const reduction::Verdict last = check_totals(gpus, ref, n, k, nullptr);
  if (verdict.ok && !last.ok) verdict = last;

  comms.finish();
  print_report(options, n, k, "one process", ref, verdict, result_text, reduction::median(times), participants);
  return verdict.ok ? 0 : 1;
}

}  // namespace

int run_one_process(int argc, char** argv) {
  const reduction::CliSpec spec = cli_spec("11_multi_gpu", true);
  try {
    const Options options = reduction::parse_options(spec, argc, argv);
    if (options.help) {
      std::printf("11_multi_gpu: shards over GPUs, 09 on each, then ncclAllGather and a combine in rank order\n\n%s"
                  "\nEnvironment:\n  REDUCTION_NCCL_TIMEOUT=S  give up on an NCCL step after S seconds "
                  "(default 120)\n",
                  reduction::usage(spec).c_str());
      return 0;
    }
    const double timeout_s = nccl_timeout_s();
    const std::string why_shape = single_pass_variant().check_shape(options.block, options.grid);
    if (!why_shape.empty()) throw reduction::UsageError(why_shape);
    switch (options.type) {
      case reduction::DType::Int: return run_local<int>(options, timeout_s);
      case reduction::DType::Float: return run_local<float>(options, timeout_s);
      case reduction::DType::Double: return run_local<double>(options, timeout_s);
    }
  } catch (const std::exception& error) {
    return reduction::report_exception(spec.program, error);
  }
  return 3;
}

}  // namespace reduction::multi_gpu_harness
