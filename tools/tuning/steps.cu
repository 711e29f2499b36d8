// steps: the bench behind the "one change at a time" tables of 04 and 06
// (<!-- results:04_steps --> and <!-- results:06_steps -->, filled by tools/fill_docs.py).
// Two chapters change two things at once; this bench times each change alone:
//   06 = 05 + four loads per grid-stride trip + the unrolled tree with a __syncwarp warp stage.
//     a_05        05's kernel: one load per trip, 05's pow2ceil loop tree
//     b_06tree    05's loop, 06's written-out tree and warp_fold_64
//     c_06loop    06's four-loads-per-trip loop, 05's tree
//     d_06        06's kernel (both)
//     All four: 256 threads, one full wave (the occupancy calculator's blocks per SM, the
//     smallest of the four, times the SM count), then one block over the partials.
//   04 = 03 + the tree in shared memory + the grid-stride loop (a fixed grid, two launches).
//     a_03        03: in place, one element per thread, the tree in global memory, passes
//     b_shared1   the step between: 04's shared-memory tree, one element per thread
//                 (grid ceil(n/256)), passes as in 03, the input only read
//     c_04        04: grid-stride loop in registers + shared tree, 04's default grid, two launches
// The kernels are copies of the chapters' (this is a standalone tool; it includes no
// chapter file). One random input per type and size (ints as the harness draws them, floats
// in [0, 1)); every variant's result is checked against a CPU sum (int64 for int, compensated
// double for float, with a tolerance from the chain of roundings), on the warm-up run and on
// the last timed run. Each repetition runs every variant once, in turn; before each timed run
// the in-place variant's input is restored, the result poisoned, and the L2 flushed by reading
// a buffer twice its size (the start event follows that flush kernel, so the launches are
// queued behind it). CUDA events; median and min of 30.
//
//   cmake --build --preset release --target tune_steps && build/release/bin/tune_steps
//   nvcc -std=c++17 -arch=sm_90 -O3 tools/tuning/steps.cu -o tune_steps   (alone)
//
// Output: "key: value" lines, then one line per (group, variant, type, n):
//   group variant type n median_us min_us gbps check
// Exit code 0 when every check passed, 1 otherwise, 3 on a CUDA error.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <limits>
#include <vector>

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t err_ = (x);                                                                        \
    if (err_ != cudaSuccess) {                                                                     \
      fprintf(stderr, "tune_steps: %s at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(3);                                                                                     \
    }                                                                                              \
  } while (0)
#define CK_LAUNCH() CK(cudaGetLastError())

constexpr int kBlock = 256;
constexpr int kReps = 30;

// ---------------------------------------------------------------------------------------
// The L2 flush: reads every 16-byte word of a zeroed buffer twice the L2's size.
__global__ void read_everything(const uint4* buffer, std::size_t count, unsigned* sink) {
  unsigned bits = 0;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const uint4 v = buffer[i];
    bits |= v.x | v.y | v.z | v.w;
  }
  if (bits == 0xFFFFFFFFu) *sink = bits;  // never true: keeps the loads
}

// ---------------------------------------------------------------------------------------
// 03: interleaved pairs in place in global memory (03_interleaved/interleaved.cu).
template <typename T>
__global__ void interleaved_pairs(T* data, std::size_t n, T* partials) {
  const unsigned tid = threadIdx.x;
  const std::size_t block_start = std::size_t(blockIdx.x) * blockDim.x;
  T* slice = data + block_start;
  const std::size_t values_left = n - block_start;
  const unsigned len = values_left < blockDim.x ? unsigned(values_left) : blockDim.x;
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (tid < stride && tid + stride < len) slice[tid] += slice[tid + stride];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = slice[0];
}

// The step between 03 and 04: one element per thread, as in 03, but each block copies its
// B elements into shared memory and runs 04's tree there; the input is only read.
template <typename T>
__global__ void shared_tree_one_each(const T* input, std::size_t n, T* out) {
  extern __shared__ unsigned char shared_bytes[];
  T* partial = reinterpret_cast<T*>(shared_bytes);
  const unsigned tid = threadIdx.x;
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + tid;
  partial[tid] = i < n ? input[i] : T(0);
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (tid < stride) partial[tid] += partial[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}

// 04: grid-stride loop in a register, then the shared-memory tree (04_shared_tree/shared_tree.cu).
template <typename T>
__global__ void block_sums(const T* input, std::size_t n, T* out) {
  extern __shared__ unsigned char shared_bytes[];
  T* partial = reinterpret_cast<T*>(shared_bytes);
  const unsigned tid = threadIdx.x;
  T sum = T(0);
  const std::size_t grid_stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + tid; i < n; i += grid_stride) sum += input[i];
  partial[tid] = sum;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (tid < stride) partial[tid] += partial[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}

// ---------------------------------------------------------------------------------------
// 05 and 06, taken apart: the loop (LOOP = 1: 05's, one load per trip; LOOP = 4: 06's
// grid_stride_sum) and the tree (TREE = 5: 05's pow2ceil loop; TREE = 6: 06's written-out
// steps and warp_fold_64) are chosen independently.
__device__ unsigned pow2ceil(unsigned x) { return 1u << (32 - __clz(static_cast<int>(x - 1))); }

std::size_t tree_slots(int block) {  // 06's padded shared array: a power of two, at least 64
  std::size_t slots = 64;
  while (slots < std::size_t(block)) slots *= 2;
  return slots;
}

template <int LOOP, typename T>
__device__ T grid_stride(const T* input, std::size_t n) {
  const std::size_t grid_stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (LOOP == 1) {  // 05
    T sum = T(0);
    for (; i < n; i += grid_stride) sum += input[i];
    return sum;
  }
  T sum0 = T(0), sum1 = T(0), sum2 = T(0), sum3 = T(0);  // 06
  for (; i + 3 * grid_stride < n; i += 4 * grid_stride) {
    sum0 += input[i];
    sum1 += input[i + grid_stride];
    sum2 += input[i + 2 * grid_stride];
    sum3 += input[i + 3 * grid_stride];
  }
  for (; i < n; i += grid_stride) sum0 += input[i];
  return (sum0 + sum1) + (sum2 + sum3);
}

template <typename T>
__device__ void warp_fold_64(T* partial, unsigned lane, unsigned lanes) {
  partial[lane] += partial[lane + 32];
  __syncwarp(lanes);
  if (lane < 16) partial[lane] += partial[lane + 16];
  __syncwarp(lanes);
  if (lane < 8) partial[lane] += partial[lane + 8];
  __syncwarp(lanes);
  if (lane < 4) partial[lane] += partial[lane + 4];
  __syncwarp(lanes);
  if (lane < 2) partial[lane] += partial[lane + 2];
  __syncwarp(lanes);
  if (lane == 0) partial[0] += partial[1];
}

template <int LOOP, int TREE, typename T>
__global__ void split06(const T* input, std::size_t n, T* out) {
  extern __shared__ unsigned char shared_bytes[];
  T* partial = reinterpret_cast<T*>(shared_bytes);
  const unsigned tid = threadIdx.x;
  partial[tid] = grid_stride<LOOP>(input, n);
  if (TREE == 6) {  // 06's zero padding up to tree_slots(blockDim.x)
    const unsigned slots = max(pow2ceil(blockDim.x), 64u);
    for (unsigned pad = blockDim.x + tid; pad < slots; pad += blockDim.x) partial[pad] = T(0);
    __syncthreads();
    if (slots >= 1024) { if (tid < 512) partial[tid] += partial[tid + 512]; __syncthreads(); }
    if (slots >= 512) { if (tid < 256) partial[tid] += partial[tid + 256]; __syncthreads(); }
    if (slots >= 256) { if (tid < 128) partial[tid] += partial[tid + 128]; __syncthreads(); }
    if (slots >= 128) { if (tid < 64) partial[tid] += partial[tid + 64]; __syncthreads(); }
    if (tid < 32) {
      const unsigned lanes = blockDim.x >= 32 ? 0xffffffffu : (1u << blockDim.x) - 1u;
      warp_fold_64(partial, tid, lanes);
    }
  } else {  // 05's tree over a block padded (in thought only) to a power of two
    __syncthreads();
    for (unsigned stride = pow2ceil(blockDim.x) / 2; stride > 0; stride /= 2) {
      if (tid < stride && tid + stride < blockDim.x) partial[tid] += partial[tid + stride];
      __syncthreads();
    }
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}

// ---------------------------------------------------------------------------------------
// Launchers, as the chapters launch them.
std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// 03's pass loop: in place, partials alternate between two scratch regions.
template <typename T>
void launch_03(T* data, std::size_t n, T* result, T* scratch) {
  T* const partials_a = scratch;
  T* values = data;
  std::size_t count = n, grid = ceil_div(count, kBlock);
  while (grid > 1) {
    T* partials = values == partials_a ? partials_a + ceil_div(n, kBlock) : partials_a;
    interleaved_pairs<<<static_cast<unsigned>(grid), kBlock>>>(values, count, partials);
    CK_LAUNCH();
    values = partials;
    count = grid;
    grid = ceil_div(count, kBlock);
  }
  interleaved_pairs<<<1, kBlock>>>(values, count, result);
  CK_LAUNCH();
}

// The step between: the same passes, each reading one region and writing the other.
template <typename T>
void launch_shared_one_each(const T* input, std::size_t n, T* result, T* scratch) {
  T* const partials_a = scratch;
  const T* values = input;
  const std::size_t shared = kBlock * sizeof(T);
  std::size_t count = n, grid = ceil_div(count, kBlock);
  while (grid > 1) {
    T* partials = values == partials_a ? partials_a + ceil_div(n, kBlock) : partials_a;
    shared_tree_one_each<<<static_cast<unsigned>(grid), kBlock, shared>>>(values, count, partials);
    CK_LAUNCH();
    values = partials;
    count = grid;
    grid = ceil_div(count, kBlock);
  }
  shared_tree_one_each<<<1, kBlock, shared>>>(values, count, result);
  CK_LAUNCH();
}

// 04's, 05's and 06's two launches: `grid` partials, then one block over them.
template <typename Kernel, typename T>
void launch_two(Kernel kernel, std::size_t shared, int grid, const T* input, std::size_t n, T* result, T* scratch) {
  kernel<<<grid, kBlock, shared>>>(input, n, scratch);
  CK_LAUNCH();
  kernel<<<1, kBlock, shared>>>(scratch, std::size_t(grid), result);
  CK_LAUNCH();
}

// How many passes 03's loop makes over n values (launches, the last one included).
int passes(std::size_t n) {
  int count = 1;
  for (std::size_t grid = ceil_div(n, kBlock); grid > 1; grid = ceil_div(grid, kBlock)) ++count;
  return count;
}

// ---------------------------------------------------------------------------------------
// Inputs and references.
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// ints: uniform in [-m, m], m = min(1000, INT_MAX / n), as the harness draws them: no
// partial sum can overflow in any order, so every variant must match the int64 sum exactly.
// floats: uniform in [0, 1).
void make_input(std::vector<int>& v, std::size_t n, std::uint64_t seed) {
  const std::int64_t m = std::max<std::int64_t>(1, std::min<std::int64_t>(1000, INT32_MAX / std::int64_t(n)));
  v.resize(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = int(std::int64_t(splitmix64(seed + i) % std::uint64_t(2 * m + 1)) - m);
}
void make_input(std::vector<float>& v, std::size_t n, std::uint64_t seed) {
  v.resize(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = float(splitmix64(seed + i) >> 40) * (1.0f / 16777216.0f);
}

struct Reference {
  double sum = 0, abs_sum = 0;
  std::int64_t exact = 0;
};
Reference reference(const std::vector<int>& v) {
  Reference r;
  for (int x : v) r.exact += x;
  r.sum = double(r.exact);
  return r;
}
Reference reference(const std::vector<float>& v) {  // Neumaier's compensated sum in double
  Reference r;
  double sum = 0, carry = 0;
  for (float f : v) {
    const double x = f, t = sum + x;
    carry += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
    r.abs_sum += std::fabs(x);
  }
  r.sum = sum + carry;
  return r;
}

// int: exact. float: a sum whose longest chain of roundings is `chain` additions is off
// by at most chain * eps * sum(|x|) (eps = 2^-24 for float's round-to-nearest).
bool check(int got, const Reference& r, double /*chain*/) { return std::int64_t(got) == r.exact; }
bool check(float got, const Reference& r, double chain) {
  return std::isfinite(got) && std::fabs(double(got) - r.sum) <= chain * std::ldexp(1.0, -24) * r.abs_sum;
}

// ---------------------------------------------------------------------------------------
struct Device {
  int sms = 0, threads_per_sm = 0, l2_bytes = 0;
  uint4* flush_buffer = nullptr;
  std::size_t flush_count = 0;
  unsigned* sink = nullptr;
  void flush() {
    read_everything<<<1024, 256>>>(flush_buffer, flush_count, sink);
    CK_LAUNCH();
  }
};

struct Variant {
  const char* group;
  const char* id;
  double chain;                  // longest chain of float roundings (the tolerance)
  bool in_place;                 // overwrites its input: restored before each run
  std::function<void()> run;     // the launches, on the default stream
};

int blocks_per_sm(const void* kernel, std::size_t shared) {
  int blocks = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kBlock, shared));
  return std::max(blocks, 1);
}

template <typename T>
bool bench(Device& dev, const char* type, std::size_t n, std::uint64_t seed) {
  std::vector<T> host;
  make_input(host, n, seed);
  const Reference ref = reference(host);
  const std::size_t bytes = n * sizeof(T);
  T *input, *work, *scratch, *result;
  CK(cudaMalloc(&input, bytes));
  CK(cudaMalloc(&work, bytes));
  const std::size_t scratch_slots = std::max<std::size_t>(ceil_div(n, kBlock) + ceil_div(n, kBlock * kBlock), 1 << 16);
  CK(cudaMalloc(&scratch, scratch_slots * sizeof(T)));
  CK(cudaMalloc(&result, sizeof(T)));
  CK(cudaMemcpy(input, host.data(), bytes, cudaMemcpyHostToDevice));
  host.clear();
  host.shrink_to_fit();

  // 06's group: one shape for all four, the smallest full wave of the four kernels.
  const std::size_t shared06 = tree_slots(kBlock) * sizeof(T);
  const int per_sm06 = std::min({blocks_per_sm((const void*)split06<1, 5, T>, shared06),
                                 blocks_per_sm((const void*)split06<1, 6, T>, shared06),
                                 blocks_per_sm((const void*)split06<4, 5, T>, shared06),
                                 blocks_per_sm((const void*)split06<4, 6, T>, shared06)});
  const int grid06 = dev.sms * per_sm06;
  // 04's default grid: SMs x (threads per SM / block).
  const int grid04 = dev.sms * std::max(dev.threads_per_sm / kBlock, 1);
  const std::size_t shared04 = kBlock * sizeof(T);
  const double tree = std::log2(double(kBlock));
  // Float chains: a thread's grid-stride sum, the first tree, the second launch's loop, its tree.
  auto chain_two_launches = [&](int grid) {
    return double(ceil_div(n, std::size_t(grid) * kBlock)) + tree + double(ceil_div(grid, kBlock)) + tree;
  };
  const double chain_06 = chain_two_launches(grid06), chain_04 = chain_two_launches(grid04);
  const double chain_passes = passes(n) * tree;
  printf("shape: %s 2^%d: 06's group %d x %d (%d per SM), then 1 x %d; c_04 %d x %d, then 1 x %d; "
         "a_03 and b_shared1 %zu x %d, %d launches\n", type, int(std::log2(double(n))), grid06, kBlock, per_sm06,
         kBlock, grid04, kBlock, kBlock, ceil_div(n, kBlock), kBlock, passes(n));

  std::vector<Variant> variants = {
      {"06", "a_05", chain_06, false, [&] { launch_two(split06<1, 5, T>, shared06, grid06, (const T*)input, n, result, scratch); }},
      {"06", "b_06tree", chain_06, false, [&] { launch_two(split06<1, 6, T>, shared06, grid06, (const T*)input, n, result, scratch); }},
      {"06", "c_06loop", chain_06, false, [&] { launch_two(split06<4, 5, T>, shared06, grid06, (const T*)input, n, result, scratch); }},
      {"06", "d_06", chain_06, false, [&] { launch_two(split06<4, 6, T>, shared06, grid06, (const T*)input, n, result, scratch); }},
      {"04", "a_03", chain_passes, true, [&] { launch_03(work, n, result, scratch); }},
      {"04", "b_shared1", chain_passes, false, [&] { launch_shared_one_each((const T*)input, n, result, scratch); }},
      {"04", "c_04", chain_04, false, [&] { launch_two(block_sums<T>, shared04, grid04, (const T*)input, n, result, scratch); }},
  };

  cudaEvent_t start, stop;
  CK(cudaEventCreate(&start));
  CK(cudaEventCreate(&stop));
  auto prepare = [&](Variant& v) {
    if (v.in_place) CK(cudaMemcpyAsync(work, input, bytes, cudaMemcpyDeviceToDevice));
    CK(cudaMemsetAsync(result, 0xFF, sizeof(T)));  // poison: an unwritten result cannot pass
  };
  std::vector<std::vector<double>> us(variants.size());  // each variant's times, µs
  std::vector<char> ok(variants.size(), 1);
  auto verify = [&](std::size_t index) {
    const Variant& v = variants[index];
    T got;
    CK(cudaMemcpy(&got, result, sizeof(T), cudaMemcpyDeviceToHost));
    if (!check(got, ref, v.chain)) {
      ok[index] = 0;
      fprintf(stderr, "tune_steps: %s %s %s n=%zu: got %.17g, reference %.17g\n", v.group, v.id, type, n, double(got), ref.sum);
    }
  };
  // Warm-up: every variant twice, the second run checked.
  for (std::size_t index = 0; index < variants.size(); ++index) {
    for (int k = 0; k < 2; ++k) {
      prepare(variants[index]);
      variants[index].run();
      CK(cudaDeviceSynchronize());
    }
    verify(index);
  }
  // Timed: each repetition runs every variant once, in turn.
  for (int rep = 0; rep < kReps; ++rep) {
    for (std::size_t index = 0; index < variants.size(); ++index) {
      prepare(variants[index]);
      dev.flush();
      CK(cudaEventRecord(start));
      variants[index].run();
      CK(cudaEventRecord(stop));
      CK(cudaEventSynchronize(stop));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, start, stop));
      us[index].push_back(ms * 1000.0);
      if (rep == kReps - 1) verify(index);
    }
  }
  bool all_ok = true;
  for (std::size_t index = 0; index < variants.size(); ++index) {
    std::vector<double>& t = us[index];
    std::sort(t.begin(), t.end());
    const double median = t.size() % 2 ? t[t.size() / 2] : (t[t.size() / 2 - 1] + t[t.size() / 2]) / 2;
    printf("%-5s %-10s %-5s %11zu %10.2f %10.2f %8.1f %s\n", variants[index].group, variants[index].id, type, n,
           median, t.front(), double(bytes) / (median * 1e3), ok[index] ? "ok" : "WRONG");
    all_ok = all_ok && ok[index];
  }
  fflush(stdout);
  CK(cudaEventDestroy(start));
  CK(cudaEventDestroy(stop));
  CK(cudaFree(input));
  CK(cudaFree(work));
  CK(cudaFree(scratch));
  CK(cudaFree(result));
  return all_ok;
}

int main() {
  int device = 0, runtime = 0, driver = 0, count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    fprintf(stderr, "tune_steps: no CUDA device\n");
    return 3;
  }
  CK(cudaGetDevice(&device));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, device));
  Device dev;
  CK(cudaDeviceGetAttribute(&dev.sms, cudaDevAttrMultiProcessorCount, device));
  CK(cudaDeviceGetAttribute(&dev.threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  CK(cudaDeviceGetAttribute(&dev.l2_bytes, cudaDevAttrL2CacheSize, device));
  CK(cudaRuntimeGetVersion(&runtime));
  CK(cudaDriverGetVersion(&driver));
  dev.flush_count = (2 * std::size_t(dev.l2_bytes) + 15) / 16;
  CK(cudaMalloc(&dev.flush_buffer, dev.flush_count * 16));
  CK(cudaMemset(dev.flush_buffer, 0, dev.flush_count * 16));
  CK(cudaMalloc(&dev.sink, sizeof(unsigned)));

  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  printf("# tune_steps (tools/tuning/steps.cu): 06 and 04, one change at a time\n");
  printf("device: %s\n", prop.name);
  printf("sms: %d\n", dev.sms);
  printf("l2_mib: %.1f\n", dev.l2_bytes / 1048576.0);
  printf("cuda: runtime %d.%d, driver %d.%d\n", runtime / 1000, runtime % 1000 / 10, driver / 1000, driver % 1000 / 10);
  printf("date: %s\n", date);
  printf("method: interleaved, each repetition runs every variant once; L2 flushed before each run; CUDA events; "
         "median and min of %d after 2 warm-up runs\n", kReps);
  fflush(stdout);

  bool ok = true;
  const int logs[] = {24, 28};
  printf("%-5s %-10s %-5s %11s %10s %10s %8s %s\n", "group", "variant", "type", "n", "median_us", "min_us", "gbps", "check");
  for (int k : logs) ok = bench<int>(dev, "int", std::size_t(1) << k, 7 + k) && ok;
  for (int k : logs) ok = bench<float>(dev, "float", std::size_t(1) << k, 7 + k) && ok;
  CK(cudaFree(dev.flush_buffer));
  CK(cudaFree(dev.sink));
  return ok ? 0 : 1;
}
