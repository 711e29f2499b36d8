// 11_multi_gpu: shards, the per-GPU reduction (chapter 09's launcher, called as is),
// the NCCL all-reduce that combines the partial results on the GPUs, and the waits
// with a deadline that keep a dead peer from hanging the run.
#include "multi_gpu.cuh"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "harness.h"
#include "random.h"
#include "single_pass.cuh"

namespace reduction {
Chapter single_pass_chapter();  // 09_single_pass/main.cu
}

namespace multi_gpu {

void nccl_check(ncclResult_t status, const char* call, const char* file, int line) {
  if (status != ncclSuccess && status != ncclInProgress) {
    throw NcclError(std::string("NCCL error: ") + call + " failed at " + file + ":" + std::to_string(line) + ": " +
                    ncclGetErrorString(status));
  }
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

const reduction::Variant& single_pass_variant() {
  static const reduction::Chapter chapter = reduction::single_pass_chapter();
  return chapter.main();
}

Shard shard_of(std::size_t n, int parts, int index) {
  const std::size_t base = n / parts, extra = n % parts;  // the first `extra` shards get one more
  Shard s;
  s.begin = index * base + std::min<std::size_t>(index, extra);
  s.count = base + (static_cast<std::size_t>(index) < extra ? 1 : 0);
  return s;
}

GpuChoice gpu_choice(const std::vector<std::string>& visible, int local_rank) {
  GpuChoice choice;
  for (int r = 0; r < static_cast<int>(visible.size()); ++r) {
    if (visible[r] != visible[local_rank]) continue;
    ++choice.sharing;
    if (r < local_rank) ++choice.index;
  }
  return choice;
}

template <typename T>
GpuState<T>::~GpuState() {
  if (stream) {
    cudaSetDevice(device);
    cudaStreamDestroy(stream);
  }
}

std::size_t bytes_needed(std::size_t count, std::size_t element_bytes, const reduction::DeviceInfo& device) {
  // 2^20 blocks: more than any default grid, so the scratch estimate is an upper bound.
  return count * element_bytes + 2 * device.l2_bytes + single_pass::scratch_bytes(count, 1024, 1 << 20) +
         (64u << 20);
}

namespace {

using Clock = std::chrono::steady_clock;

// Between two polls: spin (yield) for the first 20 ms, so that a wait that ends
// quickly (an all-reduce being enqueued) costs microseconds, then sleep 1 ms a time.
void pause_between_polls(Clock::time_point since) {
  if (Clock::now() - since < std::chrono::milliseconds(20)) {
    std::this_thread::yield();
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", s);
  return text;
}

NcclError timed_out(const std::string& what, double timeout_s) {
  return NcclError(what + " did not finish within " + seconds_text(timeout_s) +
                   " s (REDUCTION_NCCL_TIMEOUT): a peer rank is dead, stuck or unreachable, so this rank gives up "
                   "instead of waiting forever");
}

// Element i of this GPU's shard is element shard.begin + i of the whole array: the same
// value the CPU reference computes for that index.
template <typename T>
__global__ void fill_random(T* out, std::size_t count, std::size_t begin, std::size_t n, std::uint64_t seed) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    out[i] = reduction::random_value<T>(seed, begin + i, n);
  }
}

template <typename T> ncclDataType_t nccl_type();
template <> ncclDataType_t nccl_type<int>() { return ncclInt32; }
template <> ncclDataType_t nccl_type<float>() { return ncclFloat32; }
template <> ncclDataType_t nccl_type<double>() { return ncclFloat64; }

ncclRedOp_t nccl_op(Op op) { return op == Op::Max ? ncclMax : op == Op::Min ? ncclMin : ncclSum; }

template <typename T>
cudaError_t reduce_shard(GpuState<T>& g, Op op) {
  const T* in = g.data.get();
  switch (op) {
    case Op::Max:
      return single_pass::reduce<T, single_pass::Max>(in, g.shard.count, g.partial.get(), g.scratch.get(), g.block,
                                                      g.grid, g.stream);
    case Op::Min:
      return single_pass::reduce<T, single_pass::Min>(in, g.shard.count, g.partial.get(), g.scratch.get(), g.block,
                                                      g.grid, g.stream);
    case Op::Sum:
    default:
      return single_pass::reduce<T, single_pass::Sum>(in, g.shard.count, g.partial.get(), g.scratch.get(), g.block,
                                                      g.grid, g.stream);
  }
}

// Waits until every GPU's stream is idle: polls the streams (cudaStreamQuery) and the
// communicators' error state, so that an NCCL kernel waiting for a dead peer ends the
// wait with a message (after the timeout, or at once when NCCL reports an error)
// instead of blocking in cudaStreamSynchronize forever.
template <typename T>
void wait_for_gpus(std::vector<GpuState<T>>& gpus, Communicators& comms, const std::string& what) {
  const Clock::time_point start = Clock::now();
  const auto deadline = start + std::chrono::duration<double>(comms.timeout_s());
  for (;;) {
    bool busy = false;
    for (GpuState<T>& g : gpus) {
      CUDA_CHECK(cudaSetDevice(g.device));
      const cudaError_t status = cudaStreamQuery(g.stream);
      if (status == cudaErrorNotReady) {
        busy = true;
        cudaGetLastError();  // "not ready" is an answer, not an error: clear it
      } else {
        CUDA_CHECK(status);
      }
    }
    comms.poll(what);
    if (!busy) return;
    if (Clock::now() > deadline) throw timed_out(what, comms.timeout_s());
    pause_between_polls(start);
  }
}

}  // namespace

// ---------------------------------------------------------------- communicators

void Communicators::init_local(int k) {
  ncclUniqueId id;
  NCCL_CHECK(ncclGetUniqueId(&id));
  comms_.assign(k, nullptr);
  // One thread creates k communicators of one clique: inside a group, so that NCCL
  // starts them together (one call alone would wait for the others' ranks).
  NCCL_CHECK(ncclGroupStart());
  for (int d = 0; d < k; ++d) {
    const cudaError_t status = cudaSetDevice(d);
    if (status != cudaSuccess) {
      ncclGroupEnd();
      CUDA_CHECK(status);
    }
    NCCL_CHECK(ncclCommInitRankConfig(&comms_[d], k, id, d, &config_));
  }
  NCCL_CHECK(ncclGroupEnd());
  wait("creating the NCCL communicators (ncclCommInitRankConfig, " + std::to_string(k) + " GPUs)");
}

void Communicators::init_rank(int ranks, const ncclUniqueId& id, int rank) {
  comms_.assign(1, nullptr);
  NCCL_CHECK(ncclCommInitRankConfig(&comms_[0], ranks, id, rank, &config_));
  wait("creating the NCCL communicator (ncclCommInitRankConfig, rank " + std::to_string(rank) + " of " +
       std::to_string(ranks) + ")");
}

bool Communicators::poll(const std::string& what) {
  bool pending = false;
  for (ncclComm_t c : comms_) {
    if (!c) continue;
    ncclResult_t state = ncclSuccess;
    NCCL_CHECK(ncclCommGetAsyncError(c, &state));
    if (state == ncclInProgress) {
      pending = true;
    } else if (state != ncclSuccess) {
      const char* detail = ncclGetLastError(c);
      throw NcclError(what + " failed: NCCL reports " + ncclGetErrorString(state) +
                      (detail && *detail ? std::string(" (") + detail + ")" : std::string()) +
                      (state == ncclRemoteError ? "; a peer rank failed or its connection broke" : ""));
    }
  }
  return pending;
}

void Communicators::wait(const std::string& what) {
  const Clock::time_point start = Clock::now();
  const auto deadline = start + std::chrono::duration<double>(timeout_s_);
  while (poll(what)) {
    if (Clock::now() > deadline) throw timed_out(what, timeout_s_);
    pause_between_polls(start);
  }
}

void Communicators::finish() {
  for (ncclComm_t c : comms_) {
    if (c) NCCL_CHECK(ncclCommFinalize(c));  // non-blocking: flushes pending work
  }
  wait("finalizing the NCCL communicators");
  for (ncclComm_t& c : comms_) {
    if (c) ncclCommDestroy(c);
    c = nullptr;
  }
}

void Communicators::abort() {
  for (ncclComm_t& c : comms_) {
    if (c) ncclCommAbort(c);  // also stops NCCL kernels that still wait for a peer
    c = nullptr;
  }
}

// ---------------------------------------------------------------- one GPU

template <typename T>
void setup(GpuState<T>& g, int device, Shard shard, std::size_t n, const Options& options, const std::vector<T>* host) {
  g.device = device;
  g.shard = shard;
  CUDA_CHECK(cudaSetDevice(device));
  const reduction::DeviceInfo info = reduction::query_device();
  // 09's shape for this GPU's shard (09_single_pass/single_pass.cuh), unless given.
  g.block = options.block;
  g.grid = options.grid;
  if (!g.block && !g.grid) CUDA_CHECK(single_pass::default_shape(shard.count, &g.block, &g.grid));
  if (!g.block) g.block = single_pass::kDefaultBlock;
  if (!g.grid) CUDA_CHECK(single_pass::default_grid(shard.count, g.block, &g.grid));
  CUDA_CHECK(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
  g.timer = std::make_unique<reduction::GpuTimer>();
  g.data = DeviceBuffer<T>(shard.count);
  g.partial = DeviceBuffer<T>(1);
  g.total = DeviceBuffer<T>(1);
  g.scratch = DeviceBuffer<unsigned char>(single_pass::scratch_bytes(shard.count, g.block, g.grid));
  g.flush = std::make_unique<reduction::L2Flusher>(info.l2_bytes);
  // The flusher zeroes its buffer with cudaMemset, on the legacy default stream, which a
  // non-blocking stream does not wait for: let it finish before our stream starts.
  CUDA_CHECK(cudaDeviceSynchronize());
  // From here on every copy goes to the GPU's own stream, in order with its work.
  if (g.scratch.bytes()) CUDA_CHECK(cudaMemsetAsync(g.scratch.get(), 0, g.scratch.bytes(), g.stream));
  if (shard.count && host) {
    CUDA_CHECK(cudaMemcpyAsync(g.data.get(), host->data() + shard.begin, shard.count * sizeof(T),
                               cudaMemcpyHostToDevice, g.stream));
  } else if (shard.count) {
    fill_random<T><<<info.sm_count * 8, 256, 0, g.stream>>>(g.data.get(), shard.count, shard.begin, n, options.seed);
    CUDA_CHECK_LAUNCH();
  }
  CUDA_CHECK(cudaStreamSynchronize(g.stream));  // no NCCL work yet: this cannot hang on a peer
}

template <typename T>
Reference shard_reference(Shard shard, std::size_t n, const Options& options, const std::vector<T>* host) {
  if (host) return reduction::cpu_reference(host->data() + shard.begin, shard.count, options.op);
  const std::uint64_t seed = options.seed;
  return reduction::reference_of<T>(shard.count, options.op, [&](std::size_t i) {
    return reduction::random_value<T>(seed, shard.begin + i, n);
  });
}

template <typename T>
double run_once(std::vector<GpuState<T>>& gpus, Communicators& comms, Op op, bool flush) {
  for (GpuState<T>& g : gpus) {  // 1. every GPU reduces its own shard
    CUDA_CHECK(cudaSetDevice(g.device));
    if (flush) g.flush->flush(g.stream);
    CUDA_CHECK(cudaMemsetAsync(g.total.get(), 0xCD, sizeof(T), g.stream));  // poison
    g.timer->start(g.stream);
    CUDA_CHECK(reduce_shard(g, op));
  }
  // 2. One all-reduce over the K partials. Grouped, because a single process issues the
  //    calls of several ranks: NCCL must see them together to start them together.
  NCCL_CHECK(ncclGroupStart());
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    NCCL_CHECK(ncclAllReduce(gpus[i].partial.get(), gpus[i].total.get(), 1, nccl_type<T>(), nccl_op(op), comms[i],
                             gpus[i].stream));
  }
  NCCL_CHECK(ncclGroupEnd());
  // Non-blocking communicators may still be enqueueing the all-reduce: it is on the
  // streams once no communicator is in progress. Only then can the stop events follow it.
  comms.wait("enqueueing the all-reduce");
  for (GpuState<T>& g : gpus) {
    CUDA_CHECK(cudaSetDevice(g.device));
    g.timer->stop(g.stream);
  }
  wait_for_gpus(gpus, comms, "the reduction and its all-reduce");
  double slowest = 0;
  for (GpuState<T>& g : gpus) {
    CUDA_CHECK(cudaSetDevice(g.device));
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
    CUDA_CHECK(cudaSetDevice(g.device));
    T total{};
    // The stream is idle (run_once waited for it): this copy cannot wait on a peer.
    CUDA_CHECK(cudaMemcpyAsync(&total, g.total.get(), sizeof(T), cudaMemcpyDeviceToHost, g.stream));
    CUDA_CHECK(cudaStreamSynchronize(g.stream));
    reduction::Verdict verdict = reduction::verify(total, ref, chain_length(n, k, g.block, g.grid));
    if (result_text && result_text->empty()) *result_text = reduction::format_value(total);
    if (!verdict.ok && worst.ok) {
      verdict.note = "GPU " + std::to_string(g.device) + " holds " + reduction::format_value(total) +
               (verdict.note.empty() ? "" : "; " + verdict.note);
      worst = verdict;
    } else if (worst.ok) {
      worst.error = std::max(worst.error, verdict.error);
      worst.tolerance = verdict.tolerance;
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
  if (options.json) {
    std::string devices = "[";
    for (std::size_t i = 0; i < participants.size(); ++i) {
      const Participant& p = participants[i];
      char entry[1024];
      std::snprintf(entry, sizeof entry,
                    "%s{\"rank\": %d, \"host\": \"%s\", \"local_rank\": %d, \"local_size\": %d, \"gpu\": %d, "
                    "\"bus_id\": \"%s\", \"name\": \"%s\", \"peak_gbps\": %.3f}",
                    i ? ", " : "", p.rank, reduction::json_escape(p.host).c_str(), p.local_rank, p.local_size,
                    p.device.id, reduction::json_escape(p.bus_id).c_str(),
                    reduction::json_escape(p.device.name).c_str(), p.device.peak_gbps());
      devices += entry;
    }
    devices += "]";
    std::printf("{\"chapter\": \"11_multi_gpu\", \"mode\": \"%s\", \"gpus\": %d, \"type\": \"%s\", \"op\": \"%s\", "
                "\"n\": %zu, \"result\": %s, \"reference\": %s, \"error\": %s, \"ok\": %s, \"ms\": %.6f, "
                "\"gbps\": %.3f, \"peak_gbps\": %.3f, \"device\": \"%s\", \"devices\": %s, \"cuda\": \"%s\"}\n",
                mode.c_str(), k, reduction::dtype_name(options.type), reduction::op_name(options.op), n,
                reduction::json_number(result_text).c_str(), reduction::json_number(ref_text).c_str(),
                reduction::json_number(reduction::format_value(verdict.error)).c_str(), verdict.ok ? "true" : "false",
                ms, gbps, peak,
                reduction::json_escape(participants.empty() ? "" : participants[0].device.name).c_str(),
                devices.c_str(), reduction::cuda_version_string().c_str());
    return;
  }
  std::printf("11_multi_gpu (%s): %zu %s values in %d shards, one per GPU; 09 on each, then ncclAllReduce\n",
              mode.c_str(), n, reduction::dtype_name(options.type), k);
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
  std::printf("%-10s %s on every GPU\nreference  %s\n", reduction::op_name(options.op), result_text.c_str(), ref_text.c_str());
  std::printf("error      %.3g (tolerance %.3g)  %s\n", verdict.error, verdict.tolerance, verdict.ok ? "ok" : "WRONG");
  for (const std::string& note : {reduction::non_finite_note(ref), verdict.note}) {
    if (!note.empty()) std::printf("note       %s\n", note.c_str());
  }
  std::printf("time       %s ms (median of %d, L2 %s)  %.1f GB/s aggregate  %.1f%% of the GPUs' summed peak\n",
              reduction::format_ms(ms).c_str(), options.reps, options.flush ? "flushed" : "not flushed", gbps, 100 * gbps / peak);
}

reduction::CliSpec cli_spec(const std::string& program, bool gpus_flag) {
  reduction::CliSpec spec;
  spec.program = program;
  spec.ops = true;
  spec.multi_gpu = gpus_flag;
  return spec;
}

#define MULTI_GPU_INSTANTIATE(T)                                                                                 \
  template struct GpuState<T>;                                                                                   \
  template void setup<T>(GpuState<T>&, int, Shard, std::size_t, const Options&, const std::vector<T>*);         \
  template Reference shard_reference<T>(Shard, std::size_t, const Options&, const std::vector<T>*);             \
  template double run_once<T>(std::vector<GpuState<T>>&, Communicators&, Op, bool);                            \
  template reduction::Verdict check_totals<T>(std::vector<GpuState<T>>&, const Reference&, std::size_t, int,    \
                                              std::string*);
MULTI_GPU_INSTANTIATE(int)
MULTI_GPU_INSTANTIATE(float)
MULTI_GPU_INSTANTIATE(double)

}  // namespace multi_gpu
