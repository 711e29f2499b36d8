// bench_reproducible_gpus: 17 on one and two GPUs (on_gpus/reproducible_on_gpus.cuh) beside
// 11 (09 on each GPU, then the all-gather) on the same data, for 17's README
// (tools/fill_reproducible.py writes the table).
//
// For each kind of data (uniform [0, 1), the chapters' default; normal(0, 1)), each n (2^30,
// 2^32) and k = 1, 2 GPUs (fewer if fewer are visible): each GPU fills its shard itself
// (element i of the whole array is a function of (seed, i), as in 11), then 20 timed runs of
// each method, interleaved, as 11 times them: on every GPU an L2 flush and GpuTimer's busy
// start, the run, a stop event; a run's time is the slowest GPU's; the median is printed.
// Every GPU's 17 total must have the same bits, and the same as with k = 1 on that data.
//
//   cmake --build --preset release --target bench_reproducible_gpus
//   build/release/bin/bench_reproducible_gpus > gpus.jsonl
//
// Output: one JSON object per line (the device line first). Exit 0 when every check held,
// 1 otherwise, 3 on a CUDA or NCCL error.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "device_buffer.h"
#include "device_info.h"
#include "json.h"
#include "run_head.h"
#include "l2_flush.h"
#include "multi_gpu.cuh"
#include "random.h"
#include "reproducible_on_gpus.cuh"
#include "timer.h"

namespace {

using namespace reduction;

constexpr int kReps = 20;

// Element i of the whole array: uniform [0, 1) as every chapter's default input (random_value),
// or normal(0, 1) by Box-Muller from two such values.
__global__ void fill(float* out, std::size_t count, std::size_t begin, std::size_t n, std::uint64_t seed,
                     bool normal) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const std::size_t j = begin + i;
    float x = random_value<float>(seed, j, n);
    if (normal) {
      const float u1 = 1.0f - x;  // (0, 1]
      const float u2 = random_value<float>(seed ^ 0x5DEECE66Dull, j, n);
      x = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
    }
    out[i] = x;
  }
}

void check(const multi_gpu::Status& s, const char* what) {
  if (!s.ok()) throw CudaError(std::string(what) + ": " + s.message());
}

struct Gpu {
  DeviceBuffer<float> data;
  std::unique_ptr<L2Flusher> flush;
  std::unique_ptr<GpuTimer> timer;
  reproducible_on_gpus::Part r17;
  multi_gpu::Part<float> p11;
  ~Gpu() {
    reproducible_on_gpus::release(&r17);
    multi_gpu::release(&p11);
  }
};

}  // namespace

int main(int argc, char**) {
  if (argc > 1) {
    std::fprintf(stderr, "bench_reproducible_gpus takes no options: it writes its JSON lines to standard output\n");
    return 2;
  }
  try {
    int visible = 0;
    CUDA_CHECK(cudaGetDeviceCount(&visible));
    const DeviceInfo device = query_device();
    std::printf("%s\n", run_head(&device, kReps, true).c_str());
    std::printf("%s\n", JsonObject().num("gpus_visible", visible).text().c_str());
    bool all_ok = true;
    std::map<std::string, std::string> one_gpu_bits;  // data and n -> 17's bits on one GPU
    for (bool normal : {false, true}) {
      for (int e : {30, 32}) {
        const std::size_t n = std::size_t(1) << e;
        for (int k = 1; k <= std::min(2, visible); ++k) {
          std::vector<ncclComm_t> comms(k);
          const ncclResult_t made = ncclCommInitAll(comms.data(), k, nullptr);
          if (made != ncclSuccess) throw CudaError(std::string("ncclCommInitAll: ") + ncclGetErrorString(made));
          std::vector<std::unique_ptr<Gpu>> gpus;
          std::vector<const float*> shards;
          std::vector<std::size_t> counts;
          for (int d = 0; d < k; ++d) {
            const multi_gpu::Shard s = multi_gpu::shard_of(n, k, d);
            auto g = std::make_unique<Gpu>();
            CUDA_CHECK(reproducible_on_gpus::prepare(d, k, s.count, &g->r17));
            CUDA_CHECK(multi_gpu::prepare(d, k, s.count, &g->p11));
            CUDA_CHECK(cudaSetDevice(d));
            g->data = DeviceBuffer<float>(s.count);
            g->flush = std::make_unique<L2Flusher>(device.l2_bytes);
            g->timer = std::make_unique<GpuTimer>();
            fill<<<device.sm_count * 8, 256>>>(g->data.get(), s.count, s.begin, n, 20261127u + e, normal);
            CUDA_CHECK_LAUNCH();
            CUDA_CHECK(cudaDeviceSynchronize());
            shards.push_back(g->data.get());
            counts.push_back(s.count);
            gpus.push_back(std::move(g));
          }
          std::vector<reproducible_on_gpus::Part> r17;
          std::vector<multi_gpu::Part<float>> p11;
          for (auto& g : gpus) r17.push_back(g->r17), p11.push_back(g->p11);
          // One run of a method on every GPU, timed as 11 times it: the slowest GPU's ms.
          auto run = [&](bool seventeen, bool timed) {
            for (int d = 0; d < k; ++d) {
              CUDA_CHECK(cudaSetDevice(d));
              const cudaStream_t stream = seventeen ? r17[d].stream : p11[d].stream;
              if (timed) gpus[d]->flush->flush(stream), gpus[d]->timer->start(stream);
            }
            if (seventeen) {
              check(reproducible_on_gpus::sum_all(shards.data(), counts.data(), r17.data(), comms.data(), k), "17");
            } else {
              check(multi_gpu::reduce_all<float, single_pass::Sum>(shards.data(), counts.data(), p11.data(),
                                                                   comms.data(), k), "11");
            }
            double slowest = 0;
            for (int d = 0; d < k; ++d) {
              CUDA_CHECK(cudaSetDevice(d));
              const cudaStream_t stream = seventeen ? r17[d].stream : p11[d].stream;
              if (timed) gpus[d]->timer->stop(stream);
              CUDA_CHECK(cudaStreamSynchronize(stream));
              if (timed) slowest = std::max<double>(slowest, gpus[d]->timer->elapsed_ms());
            }
            return slowest;
          };
          std::vector<double> times[2];
          run(true, false), run(false, false);  // warm-up
          for (int r = 0; r < kReps; ++r) {
            times[0].push_back(run(true, true));
            times[1].push_back(run(false, true));
          }
          const std::string data = normal ? "normal(0, 1)" : "uniform [0, 1)";
          for (int m = 0; m < 2; ++m) {
            std::vector<std::string> bits;
            for (int d = 0; d < k; ++d) {
              float total = 0;
              CUDA_CHECK(m == 0 ? reproducible_on_gpus::read_total(r17[d], &total)
                                : multi_gpu::read_total(p11[d], &total));
              bits.push_back(float_bits(total));
            }
            const bool same = std::all_of(bits.begin(), bits.end(), [&](const std::string& b) { return b == bits[0]; });
            JsonObject line;
            line.str("job", m == 0 ? "17_reproducible" : "11_multi_gpu").num("gpus", k).num("n", n).str("data", data)
                .num("median_ms", median(times[m]), "%.4f").num("min_ms", *std::min_element(times[m].begin(),
                                                                                          times[m].end()), "%.4f")
                .num("gbps", n * sizeof(float) / (median(times[m]) * 1e6), "%.1f").str("bits", bits[0])
                .raw("same_on_every_gpu", same ? "true" : "false");
            all_ok = all_ok && same;
            if (m == 0) {
              const std::string key = data + " " + std::to_string(n);
              if (k == 1) one_gpu_bits[key] = bits[0];
              const bool as_one = one_gpu_bits.count(key) && one_gpu_bits[key] == bits[0];
              line.raw("same_as_one_gpu", as_one ? "true" : "false");
              all_ok = all_ok && as_one;
            }
            std::printf("%s\n", line.text().c_str());
          }
          std::fflush(stdout);
          gpus.clear();
          for (ncclComm_t comm : comms) ncclCommDestroy(comm);
        }
      }
    }
    return all_ok ? 0 : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_reproducible_gpus: %s\n", error.what());
    return 3;
  }
}
