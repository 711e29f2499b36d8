// single_pass_variants: the tuning bench behind chapters 08 and 09's launch shape
// (docs/tuning.md). It times single-pass int sums in several layouts and shapes next to
// cub::DeviceReduce::Sum:
//   gs      grid-stride over 16-byte vectors, K vectors in flight a grid apart (08/09)
//   chunk   each block reads one contiguous chunk (CUB-like even share)
//   cs      streaming loads (__ldcs) instead of __ldg; L2::256B: the L2 prefetch hint
//   bB      block size B; N/sm blocks per SM at most; eptE grid sized for E ints per thread
// Timed as every measurement is (time_in_turns, common/timer.h): at each n, every variant
// and CUB take turns in each of 30 repetitions, the L2 flushed before each run; the median.
// The input is all 0x01 bytes; each variant's first and last results are checked against
// n * 0x01010101 (mod 2^32).
//
//   cmake --build --preset release --target tune_single_pass && build/release/bin/tune_single_pass
//
// Output: JSON lines: the run head (common/run_head.h), then one per variant and size:
// {"variant", "n", "median_ms", "min_ms", "iqr_ms", "ok"}.
// Exit code 0, 1 when a result was wrong, 3 on a CUDA error.
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.h"
#include "device_buffer.h"
#include "device_info.h"
#include "json.h"
#include "l2_flush.h"
#include "run_head.h"
#include "timer.h"

__device__ int warp_sum(int v) { for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o); return v; }
__device__ int block_sum(int v) {
  __shared__ int w[32]; int lane = threadIdx.x % 32, wid = threadIdx.x / 32;
  v = warp_sum(v); if (lane == 0) w[wid] = v; __syncthreads();
  if (wid == 0) { v = lane < (blockDim.x+31)/32 ? w[lane] : 0; v = warp_sum(v); } return v; }

// MODE 0: __ldg; 1: __ldcs (streaming); 2: ld.global.nc with the L2::256B prefetch hint
// (the L2 fetches the whole 256-byte block around each access from DRAM).
template <int MODE>
__device__ int4 load_vector(const int4* p) {
  if (MODE == 1) return __ldcs(p);
#if __CUDA_ARCH__ >= 800  // the hint exists from sm_80 on; older GPUs take the plain load
  if (MODE == 2) {
    int4 v;
    asm volatile("ld.global.nc.L2::256B.v4.s32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    return v;
  }
#endif
  return __ldg(p);
}

// LAYOUT 0: grid-stride over vectors, K in flight a grid apart. LAYOUT 1: block-contiguous chunk.
template <int K, int LAYOUT, int CS>
__global__ void __launch_bounds__(1024) sp(const int* __restrict__ in, size_t n, int* result, int* partials, unsigned* ticket) {
  __shared__ bool last;
  const int4* vec = reinterpret_cast<const int4*>(in);
  size_t nv = n / 4; int sum = 0;
  if (LAYOUT == 0) {
    size_t threads = (size_t)gridDim.x * blockDim.x, v = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; v + (K-1)*threads < nv; v += K*threads) {
      int4 l[K];
#pragma unroll
      for (int k = 0; k < K; ++k) l[k] = load_vector<CS>(vec + v + k*threads);
#pragma unroll
      for (int k = 0; k < K; ++k) sum += (l[k].x + l[k].y) + (l[k].z + l[k].w);
    }
    for (; v < nv; v += threads) { int4 a = __ldg(vec + v); sum += a.x + a.y + a.z + a.w; }
  } else {
    size_t per = (nv + gridDim.x - 1) / gridDim.x; size_t begin = blockIdx.x * per, end = min(nv, begin + per);
    size_t v = begin + threadIdx.x; size_t bt = blockDim.x;
    for (; v + (K-1)*bt < end; v += K*bt) {
      int4 l[K];
#pragma unroll
      for (int k = 0; k < K; ++k) l[k] = load_vector<CS>(vec + v + k*bt);
#pragma unroll
      for (int k = 0; k < K; ++k) sum += (l[k].x + l[k].y) + (l[k].z + l[k].w);
    }
    for (; v < end; v += bt) { int4 a = __ldg(vec + v); sum += a.x + a.y + a.z + a.w; }
  }
  for (size_t i = nv*4 + blockIdx.x*(size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x*blockDim.x) sum += in[i];
  int bv = block_sum(sum);
  if (threadIdx.x == 0) { partials[blockIdx.x] = bv; __threadfence(); unsigned t = atomicInc(ticket, gridDim.x - 1); last = t == gridDim.x - 1; if (last) __threadfence(); }
  __syncthreads();
  if (last) { int v = 0; for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) v += __ldcg(partials + b); v = block_sum(v); if (threadIdx.x == 0) *result = v; }
}

int main() {
  using namespace reduction;
  try {
    const DeviceInfo device = query_device();
    int sms = 0, l2 = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    L2Flusher flusher(static_cast<std::size_t>(l2));
    const std::size_t maxn = std::size_t(1) << 30;
    DeviceBuffer<int> in(maxn), res(1), part(1 << 18);
    DeviceBuffer<unsigned> ticket(1);
    CUDA_CHECK(cudaMemset(in.get(), 1, maxn * sizeof(int)));
    CUDA_CHECK(cudaMemset(ticket.get(), 0, sizeof(unsigned)));
    std::size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in.get(), res.get(), (long long)maxn));
    DeviceBuffer<unsigned char> temp(temp_bytes);

    std::vector<std::pair<std::string, std::function<void(std::size_t)>>> jobs;
    jobs.push_back({"cub", [&](std::size_t n) {
                      std::size_t b = temp_bytes;
                      CUDA_CHECK(cub::DeviceReduce::Sum(temp.get(), b, in.get(), res.get(), (long long)n));
                    }});
    auto grid_for = [&](std::size_t n, int block, int per_sm, int epb) {
      const std::size_t need = (n + (std::size_t)block * epb - 1) / ((std::size_t)block * epb);
      return (int)std::min<std::size_t>((std::size_t)per_sm * sms, std::max<std::size_t>(need, 1));
    };
#define V(NAME, K, L, CS, BLOCK, PERSM, EPT)                                                   \
  jobs.push_back({NAME, [&](std::size_t n) {                                                  \
                    sp<K, L, CS><<<grid_for(n, BLOCK, PERSM, EPT), BLOCK>>>(in.get(), n, res.get(), \
                                                                           part.get(), ticket.get()); \
                    CUDA_CHECK(cudaGetLastError());                                           \
                  }});
    V("gs K4 b256 8/sm ept16", 4, 0, 0, 256, 8, 16)
    V("gs K4 b256 8/sm ept8", 4, 0, 0, 256, 8, 8)
    V("gs K4 b256 8/sm ept4", 4, 0, 0, 256, 8, 4)
    V("gs K8 b256 8/sm ept32", 8, 0, 0, 256, 8, 32)
    V("gs K8 b256 8/sm ept16", 8, 0, 0, 256, 8, 16)
    V("gs K4 b512 4/sm ept16", 4, 0, 0, 512, 4, 16)
    V("gs K4 b1024 2/sm ept16", 4, 0, 0, 1024, 2, 16)
    V("gs K4 b256 16/sm ept16 (2 waves)", 4, 0, 0, 256, 16, 16)
    V("gs K8 b1024 2/sm ept16", 8, 0, 0, 1024, 2, 16)
    V("gs K2 b1024 2/sm ept16", 2, 0, 0, 1024, 2, 16)
    V("gs K4 L2::256B b1024 2/sm ept16", 4, 0, 2, 1024, 2, 16)
    V("gs K4 L2::256B b256 8/sm ept16", 4, 0, 2, 256, 8, 16)
    V("gs K4 b1024 2/sm ept4", 4, 0, 0, 1024, 2, 4)
    V("gs K4 L2::256B b1024 2/sm ept4", 4, 0, 2, 1024, 2, 4)
    V("gs K4 cs b256 8/sm ept16", 4, 0, 1, 256, 8, 16)
    V("chunk K4 b256 8/sm ept16", 4, 1, 0, 256, 8, 16)
    V("chunk K8 b256 8/sm ept32", 8, 1, 0, 256, 8, 32)
    V("chunk K4 b512 4/sm ept16", 4, 1, 0, 512, 4, 16)
    V("chunk K4 b256 16/sm ept16", 4, 1, 0, 256, 16, 16)
    V("chunk K4 b256 30/sm ept16", 4, 1, 0, 256, 30, 16)
#undef V

    const int reps = 30;
    std::printf("%s\n", run_head(&device, reps, true).c_str());
    bool all_ok = true;
    for (int k : {16, 20, 22, 24, 26, 28, 30}) {
      const std::size_t n = std::size_t(1) << k;
      const int expected = static_cast<int>(static_cast<std::uint32_t>(n * 0x01010101ull));
      std::vector<bool> ok(jobs.size(), true);
      auto prepare = [&](std::size_t, unsigned char poison) {
        CUDA_CHECK(cudaMemsetAsync(res.get(), poison, sizeof(int), nullptr));
      };
      auto checked = [&](std::size_t j, bool) {
        int got = 0;
        CUDA_CHECK(cudaMemcpy(&got, res.get(), sizeof got, cudaMemcpyDeviceToHost));
        if (got != expected) {
          ok[j] = false;
          std::fprintf(stderr, "tune_single_pass: %s WRONG at n = 2^%d: %d, expected %d\n", jobs[j].first.c_str(), k,
                       got, expected);
        }
      };
      const std::vector<std::vector<double>> ms = time_in_turns(
          jobs.size(), reps, &flusher, prepare, [&](std::size_t j) { jobs[j].second(n); }, checked);
      for (std::size_t j = 0; j < jobs.size(); ++j) {
        all_ok = all_ok && ok[j];
        const Spread spread = summarize(ms[j]);
        std::printf("%s\n", JsonObject()
                                .str("variant", jobs[j].first)
                                .num("n", n)
                                .num("median_ms", spread.median, "%.6f")
                                .num("min_ms", spread.min, "%.6f")
                                .num("iqr_ms", spread.iqr, "%.6f")
                                .flag("ok", ok[j])
                                .text()
                                .c_str());
      }
    }
    return all_ok ? 0 : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "tune_single_pass: %s\n", error.what());
    return 3;
  }
}
