// 11_multi_gpu: shards, the per-GPU reduction (chapter 09's launcher, called as is) and
// the NCCL all-reduce that combines the partial results on the GPUs.
#include "multi_gpu.cuh"

#include <algorithm>
#include <cstdio>

#include "cuda_check.h"
#include "harness.h"
#include "ops.cuh"
#include "random.h"
#include "single_pass.cuh"

namespace multi_gpu {

void nccl_check(ncclResult_t status, const char* call, const char* file, int line) {
  if (status != ncclSuccess) {
    throw reduction::CudaError(std::string("NCCL error: ") + call + " failed at " + file + ":" +
                               std::to_string(line) + ": " + ncclGetErrorString(status));
  }
}

Shard shard_of(std::size_t n, int parts, int index) {
  const std::size_t base = n / parts, extra = n % parts;  // the first `extra` shards get one more
  Shard s;
  s.begin = index * base + std::min<std::size_t>(index, extra);
  s.count = base + (static_cast<std::size_t>(index) < extra ? 1 : 0);
  return s;
}

template <typename T>
GpuState<T>::~GpuState() {
  if (stream) {
    cudaSetDevice(device);
    cudaStreamDestroy(stream);
  }
}

std::size_t bytes_needed(std::size_t count, std::size_t element_bytes, const reduction::DeviceInfo& device) {
  return count * element_bytes + 2 * device.l2_bytes + SinglePass::scratch_bytes(count, 1024, 1 << 20) + (64u << 20);
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

template <typename T> ncclDataType_t nccl_type();
template <> ncclDataType_t nccl_type<int>() { return ncclInt32; }
template <> ncclDataType_t nccl_type<float>() { return ncclFloat32; }
template <> ncclDataType_t nccl_type<double>() { return ncclFloat64; }

ncclRedOp_t nccl_op(Op op) { return op == Op::Max ? ncclMax : op == Op::Min ? ncclMin : ncclSum; }

template <typename T>
void reduce_shard(GpuState<T>& g, Op op) {
  const T* in = g.data.get();
  switch (op) {
    case Op::Sum:
      SinglePass::reduce<T, reduction::SumOp>(in, g.shard.count, g.partial.get(), g.scratch.get(), g.block, g.grid, g.stream);
      break;
    case Op::Max:
      SinglePass::reduce<T, reduction::MaxOp>(in, g.shard.count, g.partial.get(), g.scratch.get(), g.block, g.grid, g.stream);
      break;
    case Op::Min:
      SinglePass::reduce<T, reduction::MinOp>(in, g.shard.count, g.partial.get(), g.scratch.get(), g.block, g.grid, g.stream);
      break;
  }
}

}  // namespace

template <typename T>
void setup(GpuState<T>& g, int device, Shard shard, std::size_t n, const Options& o, const std::vector<T>* host) {
  g.device = device;
  g.shard = shard;
  CUDA_CHECK(cudaSetDevice(device));
  const reduction::DeviceInfo info = reduction::query_device();
  g.block = o.block ? o.block : SinglePass::kDefaultBlock;
  g.grid = o.grid ? o.grid : SinglePass::default_grid(shard.count, g.block, info.sm_count);
  CUDA_CHECK(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
  g.timer = std::make_unique<reduction::GpuTimer>();
  g.data = DeviceBuffer<T>(shard.count);
  g.partial = DeviceBuffer<T>(1);
  g.total = DeviceBuffer<T>(1);
  g.scratch = DeviceBuffer<unsigned char>(SinglePass::scratch_bytes(shard.count, g.block, g.grid));
  g.flush = std::make_unique<reduction::L2Flusher>(info.l2_bytes);
  CUDA_CHECK(cudaMemset(g.scratch.get(), 0, g.scratch.bytes()));
  if (host) {
    CUDA_CHECK(cudaMemcpy(g.data.get(), host->data() + shard.begin, shard.count * sizeof(T), cudaMemcpyHostToDevice));
  } else if (shard.count) {
    fill_random<T><<<info.sm_count * 8, 256, 0, g.stream>>>(g.data.get(), shard.count, shard.begin, n, o.seed);
    CUDA_CHECK_LAUNCH();
  }
  CUDA_CHECK(cudaStreamSynchronize(g.stream));
}

template <typename T>
Reference shard_reference(Shard shard, std::size_t n, const Options& o, const std::vector<T>* host) {
  if (host) return reduction::cpu_reference(host->data() + shard.begin, shard.count, o.op);
  const std::uint64_t seed = o.seed;
  return reduction::reference_of<T>(shard.count, o.op, [&](std::size_t i) {
    return reduction::random_value<T>(seed, shard.begin + i, n);
  });
}

template <typename T>
double run_once(std::vector<GpuState<T>>& gpus, const std::vector<ncclComm_t>& comms, Op op, bool flush) {
  for (GpuState<T>& g : gpus) {  // 1. every GPU reduces its own shard
    CUDA_CHECK(cudaSetDevice(g.device));
    if (flush) g.flush->flush(g.stream);
    CUDA_CHECK(cudaMemsetAsync(g.total.get(), 0xCD, sizeof(T), g.stream));  // poison
    g.timer->start(g.stream);
    reduce_shard(g, op);
  }
  // 2. One all-reduce over the K partials. Grouped, because a single process issues the
  //    calls of several ranks: NCCL must see them together to start them together.
  NCCL_CHECK(ncclGroupStart());
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    NCCL_CHECK(ncclAllReduce(gpus[i].partial.get(), gpus[i].total.get(), 1, nccl_type<T>(), nccl_op(op), comms[i],
                             gpus[i].stream));
  }
  NCCL_CHECK(ncclGroupEnd());
  double slowest = 0;
  for (GpuState<T>& g : gpus) {
    CUDA_CHECK(cudaSetDevice(g.device));
    g.timer->stop(g.stream);
  }
  for (GpuState<T>& g : gpus) {
    CUDA_CHECK(cudaSetDevice(g.device));
    slowest = std::max<double>(slowest, g.timer->elapsed_ms());
  }
  return slowest;
}

std::size_t chain_length(std::size_t n, int k, int block, int grid) {
  const Shard largest = shard_of(n, k, 0);
  return SinglePass::chain_length(largest.count, block, grid) + static_cast<std::size_t>(k);
}

template <typename T>
reduction::Verdict check_totals(std::vector<GpuState<T>>& gpus, const Reference& ref, std::size_t n, int k,
                                std::string* result_text) {
  reduction::Verdict worst;
  worst.ok = true;
  for (GpuState<T>& g : gpus) {
    CUDA_CHECK(cudaSetDevice(g.device));
    T total{};
    CUDA_CHECK(cudaMemcpy(&total, g.total.get(), sizeof(T), cudaMemcpyDeviceToHost));
    reduction::Verdict v = reduction::verify(total, ref, chain_length(n, k, g.block, g.grid));
    if (result_text && result_text->empty()) *result_text = reduction::format_value(total);
    if (!v.ok && worst.ok) {
      v.note = "GPU " + std::to_string(g.device) + " holds " + reduction::format_value(total) +
               (v.note.empty() ? "" : "; " + v.note);
      worst = v;
    } else if (worst.ok) {
      worst.error = std::max(worst.error, v.error);
      worst.tolerance = v.tolerance;
    }
  }
  return worst;
}

void print_report(const Options& o, std::size_t n, int k, const std::string& mode, const Reference& ref,
                  const reduction::Verdict& verdict, const std::string& result_text, double ms,
                  const std::vector<reduction::DeviceInfo>& devices) {
  double peak = 0;
  for (const auto& d : devices) peak += d.peak_gbps();
  const std::size_t bytes = n * (o.type == reduction::DType::Double ? 8 : 4);
  const double gbps = ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0;
  const std::string ref_text =
      o.type == reduction::DType::Int ? std::to_string(ref.int_value) : reduction::format_value(ref.value);
  if (o.json) {
    std::printf("{\"chapter\": \"11_multi_gpu\", \"mode\": \"%s\", \"gpus\": %d, \"type\": \"%s\", \"op\": \"%s\", "
                "\"n\": %zu, \"result\": %s, \"reference\": %s, \"error\": %.17g, \"ok\": %s, \"ms\": %.6f, "
                "\"gbps\": %.3f, \"peak_gbps\": %.3f, \"device\": \"%s\", \"cuda\": \"%s\"}\n",
                mode.c_str(), k, reduction::dtype_name(o.type), reduction::op_name(o.op), n, result_text.c_str(),
                ref_text.c_str(), verdict.error, verdict.ok ? "true" : "false", ms, gbps, peak,
                reduction::json_escape(devices.empty() ? "" : devices[0].name).c_str(),
                reduction::cuda_version_string().c_str());
    return;
  }
  std::printf("11_multi_gpu (%s): %zu %s values in %d shards, one per GPU; 09 on each, then ncclAllReduce\n",
              mode.c_str(), n, reduction::dtype_name(o.type), k);
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const Shard s = shard_of(n, k, static_cast<int>(i));
    std::printf("gpu %zu      %s, shard [%zu, %zu)\n", i, devices[i].describe().c_str(), s.begin, s.begin + s.count);
  }
  std::printf("%-10s %s on every GPU\nreference  %s\n", reduction::op_name(o.op), result_text.c_str(), ref_text.c_str());
  std::printf("error      %.3g (tolerance %.3g)  %s\n", verdict.error, verdict.tolerance, verdict.ok ? "ok" : "WRONG");
  if (!verdict.note.empty()) std::printf("note       %s\n", verdict.note.c_str());
  std::printf("time       %s ms (median of %d, L2 %s)  %.1f GB/s aggregate  %.1f%% of the GPUs' summed peak\n",
              reduction::format_ms(ms).c_str(), o.reps, o.flush ? "flushed" : "not flushed", gbps, 100 * gbps / peak);
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
  template double run_once<T>(std::vector<GpuState<T>>&, const std::vector<ncclComm_t>&, Op, bool);             \
  template reduction::Verdict check_totals<T>(std::vector<GpuState<T>>&, const Reference&, std::size_t, int,    \
                                              std::string*);
MULTI_GPU_INSTANTIATE(int)
MULTI_GPU_INSTANTIATE(float)
MULTI_GPU_INSTANTIATE(double)

}  // namespace multi_gpu
