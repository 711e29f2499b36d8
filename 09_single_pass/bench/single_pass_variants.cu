// single_pass_variants: the tuning bench behind chapters 08 and 09's launch shape
// (docs/tuning.md). It times single-pass int sums in several layouts and shapes next to
// cub::DeviceReduce::Sum, L2 flushed by a read before each run, median of 30:
//   gs      grid-stride over 16-byte vectors, K vectors in flight a grid apart (08/09)
//   chunk   each block reads one contiguous chunk (CUB-like even share)
//   cs      streaming loads (__ldcs) instead of __ldg; L2::256B: the L2 prefetch hint
//   bB      block size B; N/sm blocks per SM at most; eptE grid sized for E ints per thread
// It checks nothing (the chapters' tests do): it is a stopwatch, not a chapter.
//
//   cmake --build --preset release --target tune_single_pass && build/release/bin/tune_single_pass
#include <cub/device/device_reduce.cuh>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cstdint>
#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { printf("err %s line %d\n", cudaGetErrorString(err_), __LINE__); exit(1);} } while (0)

__global__ void flushk(const uint4* b, size_t c, unsigned* s) { unsigned bits = 0; for (size_t i = blockIdx.x*(size_t)blockDim.x+threadIdx.x; i < c; i += (size_t)gridDim.x*blockDim.x) { uint4 v = b[i]; bits |= v.x|v.y|v.z|v.w; } if (bits == 0xFFFFFFFFu) *s = bits; }

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

struct Env { uint4* fb; size_t fc; unsigned* sink; cudaEvent_t a, b; };
template <class F> double timeit(Env& e, F f, int reps = 30) {
  f(); f(); std::vector<double> t;
  for (int r = 0; r < reps; ++r) { flushk<<<1024,256>>>(e.fb, e.fc, e.sink); CK(cudaEventRecord(e.a)); f(); CK(cudaEventRecord(e.b)); CK(cudaEventSynchronize(e.b)); float ms; CK(cudaEventElapsedTime(&ms, e.a, e.b)); t.push_back(ms); }
  std::sort(t.begin(), t.end()); return t[t.size()/2] * 1000; }

int main() {
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  Env e; e.fc = 100u << 20; CK(cudaMalloc(&e.fb, e.fc)); CK(cudaMemset(e.fb, 0, e.fc)); e.fc /= 16; CK(cudaMalloc(&e.sink, 4));
  CK(cudaEventCreate(&e.a)); CK(cudaEventCreate(&e.b));
  size_t maxn = size_t(1) << 30; int* in; CK(cudaMalloc(&in, maxn * 4)); CK(cudaMemset(in, 1, maxn * 4));
  int *res, *part; unsigned* ticket; CK(cudaMalloc(&res, 4)); CK(cudaMalloc(&part, 1 << 20)); CK(cudaMalloc(&ticket, 4)); CK(cudaMemset(ticket, 0, 4));
  void* temp; size_t tb = 0; cub::DeviceReduce::Sum(nullptr, tb, in, res, (long long)maxn); CK(cudaMalloc(&temp, tb));
  int ns[] = {16, 20, 22, 24, 26, 28, 30};
  printf("%-34s", "variant / log2(n):"); for (int k : ns) printf("%9d", k); printf("\n");
  auto row = [&](const char* name, auto launch) { printf("%-34s", name); for (int k : ns) printf("%9.2f", timeit(e, [&] { launch(size_t(1) << k); })); printf("\n"); fflush(stdout); };
  row("cub", [&](size_t n) { size_t b = tb; cub::DeviceReduce::Sum(temp, b, in, res, (long long)n); });
  auto grid_for = [&](size_t n, int block, int per_sm, int epb) { size_t need = (n + (size_t)block*epb - 1) / ((size_t)block*epb); return (int)std::min<size_t>((size_t)per_sm*sms, std::max<size_t>(need, 1)); };
#define V(NAME, K, L, CS, BLOCK, PERSM, EPT) row(NAME, [&](size_t n) { int g = grid_for(n, BLOCK, PERSM, EPT); sp<K, L, CS><<<g, BLOCK>>>(in, n, res, part, ticket); });
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
  return 0;
}
