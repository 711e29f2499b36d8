// error_study: the measurements behind 12_accuracy's README. How far from the exact sum
// each way of summing floats lands, what each costs on the GPU, and which of them give
// the same bits on every run.
//
//   cmake --build --preset release --target accuracy_study
//   build/release/bin/accuracy_study --out build/gpu-results/accuracy
//       [--max-log2 28] [--reps 30] [--seed 12]
//
// Inputs: three kinds of float data, N = 2^10, 2^12, ..., 2^max-log2 (each size a prefix
// of one array per kind):
//   positive  uniform in [0, 1) (the chapters' default input)
//   cancel    uniform in (-1, 1) plus 2^-10: the values nearly cancel, and the sum is
//             about 2^-10 N while sum|x| is about N / 2
//   wide      magnitudes 10^v with v uniform in [-8, 8), one value in four negative
// Methods (the sum of the same floats, on the same data):
//   loop      the sequential float loop of 00 (cpu_baseline::loop_sum<float>)
//   pairwise  NumPy's pairwise summation on the CPU (numpy's pairwise_sum, float32:
//             blocks of up to 128 summed with 8 accumulators, halves above that)
//   09        09_single_pass, float accumulators, its default launch shape
//   12        12_accuracy, compensated, its default launch shape
//   double    float input, double accumulators: a small kernel of this file
//             (float4 loads, a double per thread, a double block tree, 12's ticket and
//             fixed-order last block), rounded to float once at the end
//   cub       10_cub: cub::DeviceReduce::Sum on floats (accumulates in float)
//   atomic    a small kernel of this file: blocks sum in float as 09 does, then each
//             adds its partial to the result with atomicAdd, in arrival order
// The reference is exact: an integer accumulator over the floats' bits (exact_sum.h),
// rounded once at the end. Every bound is the harness's: common/reference.h's
// sum_error_bound with the chain length each chapter states (0X_name/main.cu), or, for
// the loop, pairwise, double and atomic sums, the chain length derived below.
//
// Output files in --out, JSON lines (one object per line, common/json.h; a number that is
// not finite is the string "nan", "inf" or "-inf"):
//   errors.jsonl         kind, n, method, result (and its bits), the exact sum (and rounded
//                        to float), relative error, ulps, bound
//   times.jsonl          n, method, median/min/IQR ms, GB/s: the GPU methods on the
//                        positive kind, timed as every measurement is (time_in_turns,
//                        common/timer.h: interleaved repetitions, L2 flushed)
//   reproducibility.jsonl  100 runs at N = 2^24 (2^max-log2 if smaller) of 09, 12, cub,
//                        atomic: distinct bit patterns; and 09 and 12 with a second
//                        grid (half the default): the bits of each
//   device.json          the GPU, CUDA version, date, settings (one object)
// Exit codes: 0 done, 1 a GPU method returned a non-finite sum of finite data (a bug),
// 2 bad usage, 3 no CUDA device or a CUDA error.
#include <cuda/atomic>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <set>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "cpu_sums.h"
#include "device_buffer.h"
#include "device_info.h"
#include "exact_sum.h"
#include "harness.h"
#include "json.h"
#include "run_head.h"
#include "l2_flush.h"
#include "parallel.h"
#include "random.h"
#include "reference.h"
#include "timer.h"

namespace reduction {
Chapter single_pass_chapter();  // 09_single_pass/main.cu
Chapter cub_chapter();          // 10_cub/main.cu
Chapter accuracy_chapter();     // 12_accuracy/main.cu
}  // namespace reduction

namespace {

using namespace reduction;

constexpr double kFloatU = 0x1.0p-24;   // unit roundoff of float
constexpr double kDoubleU = 0x1.0p-53;  // and of double

// ------------------------------------------------------------------------- the kernels

constexpr int kStudyBlock = 1024;
constexpr int kVectorsInFlight = 4;  // as 09 and 12

// One thread's share of input[0, n), accumulated in Acc (float or double). input comes
// from cudaMalloc, so it is 16-byte aligned and there is no head: whole float4 vectors
// grid-stride, kVectorsInFlight loads per trip before any add, then the tail elements.
template <typename Acc>
__device__ Acc thread_sum(const float* __restrict__ input, std::size_t n) {
  const std::size_t thread = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
  const float4* vectors = reinterpret_cast<const float4*>(input);
  const std::size_t vector_count = n / 4;
  Acc sum = 0;
  std::size_t v = thread;
  for (; v + (kVectorsInFlight - 1) * threads < vector_count; v += kVectorsInFlight * threads) {
    float4 loaded[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) loaded[k] = __ldg(vectors + v + k * threads);
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) {
      sum += Acc(loaded[k].x);
      sum += Acc(loaded[k].y);
      sum += Acc(loaded[k].z);
      sum += Acc(loaded[k].w);
    }
  }
#pragma unroll 1
  for (; v < vector_count; v += threads) {
    const float4 x = __ldg(vectors + v);
    sum += Acc(x.x);
    sum += Acc(x.y);
    sum += Acc(x.z);
    sum += Acc(x.w);
  }
#pragma unroll 1
  for (std::size_t i = vector_count * 4 + thread; i < n; i += threads) sum += Acc(__ldg(input + i));
  return sum;
}

// Thread 0 gets the block's sum (blocks of kStudyBlock threads, a multiple of 32).
template <typename Acc>
__device__ Acc block_sum(Acc value) {
  __shared__ Acc warp_totals[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
  if (lane == 0) warp_totals[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = lane < warps ? warp_totals[lane] : Acc(0);
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
  }
  return value;
}

// Float input, double accumulation, one launch: 12's ticket and fixed-order last block.
__global__ void __launch_bounds__(kStudyBlock)
    float_in_double_sum(const float* __restrict__ input, std::size_t n, float* result, double* partials,
                        unsigned* ticket) {
  __shared__ bool is_last_block;
  const double block_value = block_sum(thread_sum<double>(input, n));
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_value;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> ticket_ref(*ticket);
    is_last_block = ticket_ref.fetch_add(1, cuda::memory_order_acq_rel) == gridDim.x - 1;
    if (is_last_block) ticket_ref.store(0, cuda::memory_order_relaxed);
  }
  __syncthreads();
  if (is_last_block) {
    double value = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) value += partials[b];
    value = block_sum(value);
    if (threadIdx.x == 0) *result = __double2float_rn(value);  // the one rounding to float
  }
}

// Float accumulation as in 09, but each block adds its partial to *result (zeroed
// before the launch) with atomicAdd: the partials are added in the order the blocks
// finish, which changes from run to run.
__global__ void __launch_bounds__(kStudyBlock)
    atomic_partials_sum(const float* __restrict__ input, std::size_t n, float* result) {
  const float block_value = block_sum(thread_sum<float>(input, n));
  if (threadIdx.x == 0) atomicAdd(result, block_value);
}

// As many blocks as fit at once, at most one vector per thread's worth.
template <typename Kernel>
int study_grid(Kernel kernel, std::size_t n, const DeviceInfo& device) {
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kStudyBlock, 0));
  const std::size_t resident = std::size_t(std::max(per_sm, 1)) * device.sm_count;
  const std::size_t needed = (std::max<std::size_t>(n, 1) + 4 * kStudyBlock - 1) / (4 * kStudyBlock);
  return static_cast<int>(std::min(resident, needed));
}

// ------------------------------------------------------------------------- CPU sums

// NumPy's pairwise summation (numpy/_core/src/umath/loops_utils.h.src, FLOAT_pairwise_sum,
// which accumulates float32 in float): under 8 values a plain loop; up to 128, eight
// running sums over the values 8 apart, combined as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)),
// then the leftover values added one by one; above 128, the two halves (the first a
// multiple of 8 long) summed the same way and added.
float pairwise_sum(const float* a, std::size_t n) {
  if (n < 8) {
    float sum = -0.0f;  // as NumPy: -0 so that a sum of -0 values stays -0
    for (std::size_t i = 0; i < n; ++i) sum += a[i];
    return sum;
  }
  if (n <= 128) {
    float r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - n % 8; i += 8) {
      for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    }
    float sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) sum += a[i];
    return sum;
  }
  std::size_t half = n / 2;
  half -= half % 8;
  return pairwise_sum(a, half) + pairwise_sum(a + half, n - half);
}

// The chain length of pairwise_sum: the additions a value passes through, at most.
std::size_t pairwise_chain(std::size_t n) {
  if (n < 8) return n > 0 ? n - 1 : 0;  // 0 + a[0] is exact
  if (n <= 128) return (n / 8 - 1) + 3 + n % 8;
  std::size_t half = n / 2;
  half -= half % 8;
  return std::max(pairwise_chain(half), pairwise_chain(n - half)) + 1;
}

// ------------------------------------------------------------------------- inputs

const char* const kKinds[] = {"positive", "cancel", "wide"};

// Value i of a kind (seeded, independent of N: smaller N are prefixes).
float input_value(int kind, std::uint64_t seed, std::size_t i) {
  const std::uint64_t bits = splitmix64((seed + 0x1000 * (kind + 1)) * 0xD1B54A32D192ED03ull + i);
  const float unit = static_cast<float>(bits >> 40) * 0x1.0p-24f;  // [0, 1), 24 bits
  switch (kind) {
    case 0: return unit;
    case 1: return (2.0f * unit - 1.0f) + 0x1.0p-10f;  // exact in float: multiples of 2^-23
    default: {
      const double v = static_cast<double>(bits >> 11) * 0x1.0p-53;  // [0, 1), 53 bits
      const float magnitude = static_cast<float>(std::pow(10.0, 16.0 * v - 8.0));
      return (bits & 3) == 0 ? -magnitude : magnitude;  // the low two bits: one in four negative
    }
  }
}

struct Exact {
  accuracy::ExactSum sum;
  double sum_abs = 0;   // sum |x|, rounded once
  float rounded = 0;    // the sum rounded to float
  double value = 0;     // and to double
};

Exact exact_of(const std::vector<float>& x, std::size_t n) {
  const unsigned threads = cpu_threads();
  std::vector<accuracy::ExactSum> sums(threads), sums_abs(threads);
  parallel_chunks(n, [&](unsigned t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      sums[t].add(x[i]);
      sums_abs[t].add(std::fabs(x[i]));
    }
  }, threads);
  Exact exact;
  accuracy::ExactSum total_abs;
  for (unsigned t = 0; t < threads; ++t) {
    exact.sum.add(sums[t]);
    total_abs.add(sums_abs[t]);
  }
  exact.sum_abs = total_abs.to_double();
  exact.rounded = exact.sum.to_float();
  exact.value = exact.sum.to_double();
  return exact;
}

// |result - S| / |S| (the difference taken exactly, then rounded).
double relative_error(float result, const Exact& exact) {
  if (!std::isfinite(result)) return INFINITY;
  accuracy::ExactSum difference = exact.sum;
  difference.add(-result);
  return std::fabs(difference.to_double()) / std::fabs(exact.value);
}

// |result - R| in units of R's last place, R the correctly rounded sum.
double ulps_from_rounded(float result, const Exact& exact) {
  const float r = std::fabs(exact.rounded);
  const double ulp = static_cast<double>(std::nextafter(r, INFINITY)) - r;
  return std::fabs(static_cast<double>(result) - exact.rounded) / ulp;
}

// ------------------------------------------------------------------------- GPU methods

// A way to sum floats on the GPU: its shape, scratch and launcher, and its error bound.
struct GpuMethod {
  std::string name;
  int block = 0, grid = 0;
  DeviceBuffer<unsigned char> scratch;
  std::function<void(const float*, std::size_t, float*, cudaStream_t)> launch;  // every launch; CUDA errors throw
  double u_accumulate = kFloatU;
  std::size_t chain = 0;  // 0: no bound stated
};

std::vector<GpuMethod> gpu_methods(std::size_t n, const DeviceInfo& device) {
  std::vector<GpuMethod> methods;
  // The chapters, through their own descriptions (main.cu): the default shape, the
  // scratch, the launcher and the chain length that the tour and the tests use.
  const std::pair<const char*, Chapter> chapters[] = {
      {"09", single_pass_chapter()}, {"12", accuracy_chapter()}, {"cub", cub_chapter()}};
  for (const auto& [name, chapter] : chapters) {
    const Variant& v = chapter.main();
    GpuMethod m;
    m.name = name;
    resolve_shape(v, n, m.block, m.grid);
    m.scratch = DeviceBuffer<unsigned char>(v.scratch_bytes(n, m.block, m.grid));
    if (m.scratch.bytes()) CUDA_CHECK(cudaMemset(m.scratch.get(), 0, m.scratch.bytes()));
    const Launcher<float> launcher = v.launcher<float>(Op::Sum);
    void* scratch = m.scratch.get();
    const std::size_t scratch_size = m.scratch.bytes();
    const int block = m.block, grid = m.grid;
    m.launch = [launcher, scratch, scratch_size, block, grid](const float* x, std::size_t count, float* result,
                                                              cudaStream_t s) {
      CUDA_CHECK(launcher(const_cast<float*>(x), count, result, scratch, scratch_size, block, grid, s));
    };
    m.chain = v.chain_length(n, m.block, m.grid);
    methods.push_back(std::move(m));
  }
  {  // float input, double accumulators
    GpuMethod m;
    m.name = "double";
    m.block = kStudyBlock;
    m.grid = study_grid(float_in_double_sum, n, device);
    m.scratch = DeviceBuffer<unsigned char>(16 + sizeof(double) * m.grid);
    CUDA_CHECK(cudaMemset(m.scratch.get(), 0, m.scratch.bytes()));
    unsigned* ticket = reinterpret_cast<unsigned*>(m.scratch.get());
    double* partials = reinterpret_cast<double*>(m.scratch.get() + 16);
    const int grid = m.grid;
    m.launch = [ticket, partials, grid](const float* x, std::size_t count, float* result, cudaStream_t s) {
      float_in_double_sum<<<grid, kStudyBlock, 0, s>>>(x, count, result, partials, ticket);
      CUDA_CHECK_LAUNCH();
    };
    // Per thread: at most ceil(n / threads) + 3 elements from whole vectors and 1 from
    // the tail, then two block trees of log2(1024) = 10 levels and the last block's loop.
    const std::size_t threads = std::size_t(m.grid) * kStudyBlock;
    m.u_accumulate = kDoubleU;
    m.chain = (n + threads - 1) / threads + 4 + 20 + (m.grid + kStudyBlock - 1) / kStudyBlock;
    methods.push_back(std::move(m));
  }
  {  // atomicAdd of float block partials
    GpuMethod m;
    m.name = "atomic";
    m.block = kStudyBlock;
    m.grid = study_grid(atomic_partials_sum, n, device);
    const int grid = m.grid;
    m.launch = [grid](const float* x, std::size_t count, float* result, cudaStream_t s) {
      CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), s));  // part of the work: timed too
      atomic_partials_sum<<<grid, kStudyBlock, 0, s>>>(x, count, result);
      CUDA_CHECK_LAUNCH();
    };
    // Per thread as above, one block tree, then at most `grid` atomic additions in a row.
    const std::size_t threads = std::size_t(m.grid) * kStudyBlock;
    m.chain = (n + threads - 1) / threads + 4 + 10 + m.grid;
    methods.push_back(std::move(m));
  }
  return methods;
}

float run_once(GpuMethod& m, const float* x, std::size_t n, float* result) {
  CUDA_CHECK(cudaMemset(result, 0xCD, sizeof(float)));  // poisoned: an unwritten result is NaN-like garbage
  m.launch(x, n, result, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  float value = 0;
  CUDA_CHECK(cudaMemcpy(&value, result, sizeof(float), cudaMemcpyDeviceToHost));
  return value;
}

std::uint32_t bits_of(float x) {
  std::uint32_t b = 0;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

std::string number(double x, const char* format = "%.6e") {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char text[64];
  std::snprintf(text, sizeof text, format, x);
  return text;
}

double bound_of(double u_accumulate, std::size_t chain, const Exact& exact) {
  return sum_error_bound(u_accumulate, kFloatU, chain, exact.sum_abs, exact.value) / std::fabs(exact.value);
}

// ------------------------------------------------------------------------- the study

struct StudyOptions {
  std::string out;
  int max_log2 = 28;
  int reps = 30;
  std::uint64_t seed = 12;
};

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "accuracy_study: %s\nusage: accuracy_study --out DIR [--max-log2 10..30] [--reps R] "
                       "[--seed S]\n", message.c_str());
  std::exit(2);
}

long long whole_number(const std::string& flag, const char* text) {
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (!*text || *end) usage_error(flag + " expects a whole number, not '" + text + "'");
  return value;
}

StudyOptions parse(int argc, char** argv) {
  StudyOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help") {
      std::printf("usage: accuracy_study --out DIR [--max-log2 10..30] [--reps R] [--seed S]\n"
                  "Writes errors.jsonl, times.jsonl, reproducibility.jsonl and device.json into DIR "
                  "(see the top of 12_accuracy/bench/error_study.cu).\n");
      std::exit(0);
    }
    if (i + 1 >= argc) usage_error(flag + " needs a value");
    const char* value = argv[++i];
    if (flag == "--out") options.out = value;
    else if (flag == "--max-log2") options.max_log2 = static_cast<int>(whole_number(flag, value));
    else if (flag == "--reps") options.reps = static_cast<int>(whole_number(flag, value));
    else if (flag == "--seed") options.seed = static_cast<std::uint64_t>(whole_number(flag, value));
    else usage_error("unknown option '" + flag + "'");
  }
  if (options.out.empty()) usage_error("--out DIR is required");
  if (options.max_log2 < 10 || options.max_log2 > 30) usage_error("--max-log2 must be from 10 to 30");
  if (options.reps < 1) usage_error("--reps must be at least 1");
  return options;
}

FILE* open_output(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) usage_error("cannot write " + path);
  return f;
}

void write_line(FILE* f, const JsonObject& object) { std::fprintf(f, "%s\n", object.text().c_str()); }

// A number as JSON, printed with `format` (number() above: "nan", "inf", "-inf" quoted).
std::string json_of(double x, const char* format = "%.6e") { return json_number(number(x, format)); }

int study(const StudyOptions& options) {
  std::string why;
  if (!cuda_device_available(&why)) {
    std::fprintf(stderr, "accuracy_study: %s\n", why.c_str());
    return 3;
  }
  mkdir(options.out.c_str(), 0755);  // may exist already; open_output reports a folder we cannot write
  const DeviceInfo device = query_device();
  const std::size_t max_n = std::size_t(1) << options.max_log2;
  const std::size_t repro_n = std::min(max_n, std::size_t(1) << 24);
  int status = 0;

  {
    FILE* f = open_output(options.out + "/device.json");
    write_line(f, JsonObject()
                      .raw("head", run_head(&device, options.reps, true))
                      .str("compute_capability", std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor))
                      .num("l2_bytes", device.l2_bytes)
                      .num("seed", options.seed)
                      .num("max_n", max_n)
                      .num("repro_n", repro_n));
    std::fclose(f);
  }

  FILE* errors = open_output(options.out + "/errors.jsonl");
  FILE* times = open_output(options.out + "/times.jsonl");
  FILE* repro = open_output(options.out + "/reproducibility.jsonl");

  std::vector<float> host(max_n);
  DeviceBuffer<float> input(max_n), result(1);
  L2Flusher flusher(device.l2_bytes);

  for (int kind = 0; kind < 3; ++kind) {
    parallel_chunks(max_n, [&](unsigned, std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) host[i] = input_value(kind, options.seed, i);
    });
    CUDA_CHECK(cudaMemcpy(input.get(), host.data(), max_n * sizeof(float), cudaMemcpyHostToDevice));
    for (int k = 10; k <= options.max_log2; k += 2) {
      const std::size_t n = std::size_t(1) << k;
      const Exact exact = exact_of(host, n);
      auto row = [&](const char* method, float value, double bound) {
        write_line(errors, JsonObject()
                               .str("kind", kKinds[kind])
                               .num("n", n)
                               .str("method", method)
                               .raw("result", json_of(value, "%.9g"))
                               .str("result_bits", float_bits(value))
                               .raw("exact", json_of(exact.value, "%.17g"))
                               .raw("exact_float", json_of(exact.rounded, "%.9g"))
                               .raw("rel_error", json_of(relative_error(value, exact)))
                               .raw("ulps", json_of(ulps_from_rounded(value, exact), "%.6g"))
                               .raw("bound", json_of(bound)));
      };
      row("loop", cpu_baseline::loop_sum(host.data(), n), bound_of(kFloatU, n - 1, exact));
      row("pairwise", pairwise_sum(host.data(), n), bound_of(kFloatU, pairwise_chain(n), exact));
      std::vector<GpuMethod> methods = gpu_methods(n, device);
      for (GpuMethod& m : methods) {
        const float value = run_once(m, input.get(), n, result.get());
        if (!std::isfinite(value)) {
          std::fprintf(stderr, "accuracy_study: %s gave %g on %s data, n = %zu (finite data)\n", m.name.c_str(),
                       value, kKinds[kind], n);
          status = 1;
        }
        row(m.name.c_str(), value, m.chain ? bound_of(m.u_accumulate, m.chain, exact) : NAN);
      }
      std::fflush(errors);

      if (kind == 0) {  // time: the data does not matter, the positive kind will do
        // The values were checked above; here only the times count.
        const std::vector<std::vector<double>> ms = time_in_turns(
            methods.size(), options.reps, &flusher, [](std::size_t, unsigned char) {},
            [&](std::size_t j) { methods[j].launch(input.get(), n, result.get(), nullptr); }, [](std::size_t, bool) {});
        for (std::size_t j = 0; j < methods.size(); ++j) {
          const Spread spread = summarize(ms[j]);
          write_line(times, JsonObject()
                                .num("n", n)
                                .str("method", methods[j].name)
                                .num("block", methods[j].block)
                                .num("grid", methods[j].grid)
                                .num("median_ms", spread.median, "%.6f")
                                .num("min_ms", spread.min, "%.6f")
                                .num("iqr_ms", spread.iqr, "%.6f")
                                .num("gbps", n * sizeof(float) / (spread.median * 1e6), "%.2f"));
        }
        std::fflush(times);
      }
      std::printf("%s n = 2^%d: done\n", kKinds[kind], k);
      std::fflush(stdout);
    }

    if (kind == 0) {  // reproducibility, on the positive kind at repro_n
      const Exact exact = exact_of(host, repro_n);
      std::vector<GpuMethod> methods = gpu_methods(repro_n, device);
      for (GpuMethod& m : methods) {
        if (m.name == "double") continue;  // as 12: a fixed order, nothing new to show
        std::set<std::uint32_t> seen;
        const float first = run_once(m, input.get(), repro_n, result.get());
        seen.insert(bits_of(first));
        for (int run = 1; run < 100; ++run) seen.insert(bits_of(run_once(m, input.get(), repro_n, result.get())));
        std::vector<std::string> values;  // the first eight distinct results
        for (std::uint32_t b : seen) {
          if (values.size() == 8) break;
          float v = 0;
          std::memcpy(&v, &b, sizeof v);
          values.push_back(json_of(v, "%.9g"));
        }
        write_line(repro, JsonObject()
                              .str("case", "runs")
                              .str("method", m.name)
                              .num("n", repro_n)
                              .num("block", m.block)
                              .num("grid", m.grid)
                              .num("runs", 100)
                              .num("distinct", seen.size())
                              .raw("value", json_of(first, "%.9g"))
                              .str("bits", float_bits(first))
                              .raw("rel_error", json_of(relative_error(first, exact)))
                              .raw("values", json_list(values)));
      }
      // Another grid, same data: another order of additions, so possibly other bits.
      for (const auto& [name, chapter] :
           {std::pair<const char*, Chapter>{"09", single_pass_chapter()}, {"12", accuracy_chapter()}}) {
        const Variant& v = chapter.main();
        int block = 0, grid = 0;
        resolve_shape(v, repro_n, block, grid);
        for (int g : {grid, std::max(1, grid / 2)}) {
          DeviceBuffer<unsigned char> scratch(v.scratch_bytes(repro_n, block, g));
          if (scratch.bytes()) CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
          CUDA_CHECK(cudaMemset(result.get(), 0xCD, sizeof(float)));
          CUDA_CHECK(v.launcher<float>(Op::Sum)(input.get(), repro_n, result.get(), scratch.get(), scratch.bytes(),
                                                block, g, nullptr));
          CUDA_CHECK(cudaDeviceSynchronize());
          float value = 0;
          CUDA_CHECK(cudaMemcpy(&value, result.get(), sizeof(float), cudaMemcpyDeviceToHost));
          write_line(repro, JsonObject()
                                .str("case", "grid")
                                .str("method", name)
                                .num("n", repro_n)
                                .num("block", block)
                                .num("grid", g)
                                .num("runs", 1)
                                .num("distinct", 1)
                                .raw("value", json_of(value, "%.9g"))
                                .str("bits", float_bits(value))
                                .raw("rel_error", json_of(relative_error(value, exact)))
                                .raw("values", "[]"));
        }
      }
      std::fflush(repro);
    }
  }
  std::fclose(errors);
  std::fclose(times);
  std::fclose(repro);
  std::printf("accuracy_study: wrote errors.jsonl, times.jsonl, reproducibility.jsonl and device.json in %s\n",
              options.out.c_str());
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  const StudyOptions options = parse(argc, argv);
  try {
    return study(options);
  } catch (const std::exception& error) {
    return report_exception("accuracy_study", error);
  }
}
