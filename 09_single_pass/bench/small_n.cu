// small_n: the bench behind 09's launch-shape rule (docs/tuning.md) and its "where the time
// goes at small n" table (09_single_pass/README.md); tools/fill_small_n.py fills both.
//
// For each size n (2^10 .. 2^30) and type (int, float), on one random input, every job
// below is timed with the harness's interleaved repetitions (common/harness.h: each
// repetition runs every job once, in turn; L2 flushed before each timed run; the start
// event behind a short busy kernel; median, min and IQR):
//   09 default           09's own default shape (single_pass::default_shape)
//   09 B=<b> V=<v>       09 with b threads per block and a grid of ceil(vectors / (b * v))
//                        blocks (v 16-byte vectors per thread), at most one full wave
//   09 threadfence       the classic ticket (__threadfence + atomicInc) at 09's default shape
//   10 CUB               cub::DeviceReduce::Sum
//   floor B=<b> ...      the tour's read-only kernel (common/read_floor.cu) with b threads per
//                        block: one full wave, or 1 or 4 vectors per thread
//   floor default        the same at the tour's shape
//   empty <shape>        a kernel that does nothing, at 09's default shape and at 1 x 32:
//                        the launch alone
//   stage partials       09 cut after step 1: the read, block_reduce, the partial stored
//   stage ticket         ... and step 2: the ticket (acquire-release), no last-block combine
//   stage relaxed        ... the ticket drawn with relaxed order (no release/acquire): timed
//                        only, to show what the ordering costs (not a correct reduction)
// The stage kernels and the classic-ticket kernel (not in 09's copy unit: it lives here) are
// built from 09's own device functions: this file compiles 09's copy unit (single_pass.cu)
// into itself instead of linking it.
// Every 09 and CUB result is checked against the CPU reference (the harness's verify).
//
//   cmake --build --preset release --target tune_small_n && build/release/bin/tune_small_n
//
// Output: JSON lines: first the run head (common/run_head.h; its reps are those up to
// 2^22), then one line per job and size: {"type", "n", "job", "block", "grid", "reps",
// "median_ms", "min_ms", "iqr_ms", "check"} ("check": "ok", "WRONG", or "-" for a job
// timed only; "reps" kept: 100 up to 2^22, 30 above).
// Exit code 0 when every check passed, 1 otherwise, 3 on a CUDA error.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "chapter.h"
#include "cuda_check.h"
#include "harness.h"
#include "input.h"
#include "json.h"
#include "run_head.h"
#include "launch_rules.h"
#include "read_floor.h"
#include "single_pass.cu"  // 09's copy unit, compiled here (see above)

// 09 cut short after each step, for the breakdown (the same device functions as 09).
namespace single_pass {
namespace {

template <typename T>
__global__ void __launch_bounds__(1024) stage_partials(const T* input, std::size_t n, T* partials) {
  const Sum op{};
  const T block_value = block_reduce(thread_reduce(input, n, op), op);
  if (threadIdx.x == 0) partials[blockIdx.x] = block_value;
}

template <typename T, cuda::memory_order kOrder>
__global__ void __launch_bounds__(1024) stage_ticket(const T* input, std::size_t n, T* partials, unsigned* ticket) {
  const Sum op{};
  const T block_value = block_reduce(thread_reduce(input, n, op), op);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_value;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> ticket_ref(*ticket);
    if (ticket_ref.fetch_add(1, kOrder) == gridDim.x - 1) ticket_ref.store(0, cuda::memory_order_relaxed);
  }
}

// 09's kernel with the classic spelling of step 2 (CUDA's threadFenceReduction sample,
// and 09 before cuda::atomic_ref): __threadfence() + atomicInc. Steps 1 and 3 are 09's
// own device functions. Timed beside 09 ("09 threadfence") and checked like it.
template <typename T, typename Op>
__global__ void __launch_bounds__(1024)
    single_pass_threadfence(const T* __restrict__ input, std::size_t n, T* result, T* partials, unsigned* ticket) {
  const Op op{};
  const T block_value = block_reduce(thread_reduce(input, n, op), op);
  if (threadIdx.x >= kWarpSize) return;
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) *result = block_value;
    return;
  }
  const unsigned lanes = min(kWarpSize, blockDim.x);
  const unsigned mask = lanes == kWarpSize ? kFullMask : (1u << lanes) - 1;
  unsigned my_ticket = 0;
  // Step 2 of single_pass with __threadfence() and atomicInc(): the same ticket, older words.
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_value;
    __threadfence();  // the partial reaches every SM's view of memory before the ticket below
    // atomicInc(p, m) returns the old value and stores old + 1, or 0 once old reaches
    // m: tickets 0, 1, ..., G-1, and drawing the last one resets the counter.
    my_ticket = atomicInc(ticket, gridDim.x - 1);
    if (my_ticket == gridDim.x - 1) __threadfence();  // and our reads of the partials come after it
  }
  my_ticket = __shfl_sync(mask, my_ticket, 0);
  if (my_ticket != gridDim.x - 1) return;
  __syncwarp(mask);
  const T value = combine_partials(partials, lanes, op);
  if (threadIdx.x == 0) *result = value;
}

// Its launcher: 09's arguments and scratch layout (the ticket, then the partials).
template <typename T>
cudaError_t reduce_threadfence(T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block,
                               int grid, cudaStream_t stream) {
  if (block < 1 || block > 1024 || grid < 1) return cudaErrorInvalidValue;
  if (scratch_size < scratch_bytes(n, block, grid)) return cudaErrorInvalidValue;  // too small: no launch
  unsigned char* bytes = static_cast<unsigned char*>(scratch);
  single_pass_threadfence<T, Sum><<<grid, block, 0, stream>>>(input, n, result,
                                                               reinterpret_cast<T*>(bytes + kPartialsOffset),
                                                               reinterpret_cast<unsigned*>(bytes));
  return cudaGetLastError();
}

}  // namespace
}  // namespace single_pass

namespace reduction {

Chapter cub_chapter();  // 10_cub/main.cu

namespace {

__global__ void empty_kernel() {}

Variant empty_variant() {
  Variant empty;
  empty.chapter = "empty";
  empty.summary = "launches a kernel that does nothing";
  empty.check_shape = [](int, int) { return std::string(); };
  empty.default_grid = [](std::size_t, int, int* grid) {
    *grid = 1;
    return cudaSuccess;
  };
  empty.scratch_bytes = [](std::size_t, int, int) { return std::size_t(0); };
  empty.chain_length = [](std::size_t, int, int) { return std::size_t(0); };
  empty.set_launcher(Op::Sum, [](auto*, std::size_t, auto*, void*, std::size_t, int block, int grid,
                                 cudaStream_t stream) {
    empty_kernel<<<grid, block, 0, stream>>>();
    return cudaGetLastError();
  });
  return empty;
}

// A Variant that launches `Launch` on the input with 09's scratch layout; timed only.
template <typename Launch>
Variant stage_variant(const char* name, Launch launch) {
  Variant stage = empty_variant();
  stage.chapter = name;
  stage.scratch_bytes = single_pass::scratch_bytes;
  stage.set_launcher(Op::Sum, launch);
  return stage;
}

// 09 itself (its main.cu is not linked: this file compiles the copy unit), Sum only, with
// 09_single_pass/main.cu's chain length for the check.
Variant nine_variant() {
  Variant nine;
  nine.chapter = "09_single_pass";
  nine.default_block = single_pass::kDefaultBlock;
  nine.check_shape = [](int, int) { return std::string(); };
  nine.default_grid = single_pass::default_grid;
  nine.default_shape = single_pass::default_shape;
  nine.scratch_bytes = single_pass::scratch_bytes;
  nine.chain_length = [](std::size_t n, int block, int grid) {
    const std::size_t lanes = std::min(block, 32);
    return vector_loop_chain(n, std::size_t(grid) * block, 4) + shuffle_tree_depth(block) + ceil_div(grid, lanes) +
           ceil_log2(lanes);
  };
  nine.set_launcher(Op::Sum, [](auto* in, std::size_t n, auto* out, void* scratch, std::size_t scratch_size,
                                int block, int grid, cudaStream_t stream) {
    return single_pass::reduce<std::remove_pointer_t<decltype(out)>, single_pass::Sum>(in, n, out, scratch,
                                                                                       scratch_size, block, grid,
                                                                                       stream);
  });
  return nine;
}

// 09's kernel with the classic ticket (single_pass_threadfence above); int and float only.
Variant threadfence_variant(const Variant& nine) {
  Variant classic = nine;
  classic.chapter = "09 threadfence";
  classic.int_launchers = {};
  classic.float_launchers = {};
  classic.double_launchers = {};
  classic.int_launchers[static_cast<int>(Op::Sum)] = single_pass::reduce_threadfence<int>;
  classic.float_launchers[static_cast<int>(Op::Sum)] = single_pass::reduce_threadfence<float>;
  return classic;
}

template <typename T>
bool run_size(std::size_t n, const DeviceInfo& device, int reps) {
  static const Variant nine = nine_variant();
  static const Chapter cub_chapter_ = cub_chapter();
  const Variant& cub = cub_chapter_.main();
  static const Variant floor = read_floor_variant();
  static const Variant empty = empty_variant();
  static const Variant classic = threadfence_variant(nine);

  const std::size_t vectors = (n * sizeof(T) + 15) / 16;
  std::vector<std::pair<std::string, typename Bench<T>::Job>> jobs;
  std::map<std::string, bool> seen;  // one job per distinct (what, block, grid)
  auto add = [&](const std::string& label, const Variant* v, int block, int grid, bool check) {
    const std::string key = v->chapter + " " + std::to_string(block) + " " + std::to_string(grid);
    if ((label.rfind("09 B=", 0) == 0 || label.rfind("floor B=", 0) == 0) && seen.count(key)) return;
    seen[key] = true;
    jobs.push_back({label, {v, Op::Sum, block, grid, check}});
  };

  int block09 = 0, grid09 = 0;
  resolve_shape(nine, n, block09, grid09);
  add("09 default", &nine, block09, grid09, true);
  add("09 threadfence", &classic, block09, grid09, true);
  int cub_block = 0, cub_grid = 0;
  resolve_shape(cub, n, cub_block, cub_grid);
  add("10 CUB", &cub, cub_block, cub_grid, true);
  for (int block : {256, 1024}) {
    int wave = 0;  // one full wave of 09's kernel at this block size
    CUDA_CHECK(single_pass::default_grid(std::size_t(1) << 40, block, &wave));
    for (int per_thread : {1, 2, 4, 8}) {
      const std::size_t want = (vectors + std::size_t(block) * per_thread - 1) / (std::size_t(block) * per_thread);
      const int grid = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(wave, want)));
      add("09 B=" + std::to_string(block) + " V=" + std::to_string(per_thread), &nine, block, grid, true);
    }
  }
  for (int floor_block : {256, 1024}) {
    int floor_wave = 0;
    CUDA_CHECK(read_floor_wave(floor_block, &floor_wave));
    const std::string b = "floor B=" + std::to_string(floor_block);
    add(b + " wave", &floor, floor_block, floor_wave, false);
    for (int per_thread : {1, 4}) {
      const std::size_t want =
          (vectors + std::size_t(floor_block) * per_thread - 1) / (std::size_t(floor_block) * per_thread);
      const int grid = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(floor_wave, want)));
      add(b + " V=" + std::to_string(per_thread), &floor, floor_block, grid, false);
    }
  }
  int floor_block = 0, floor_grid = 0;
  resolve_shape(floor, n, floor_block, floor_grid);
  add("floor default", &floor, floor_block, floor_grid, false);
  static const Variant partials = stage_variant(
      "stage partials", [](auto* in, std::size_t n, auto*, void* scratch, std::size_t, int block, int grid,
                           cudaStream_t stream) {
        using E = std::remove_pointer_t<decltype(in)>;
        single_pass::stage_partials<E><<<grid, block, 0, stream>>>(
            in, n, reinterpret_cast<E*>(static_cast<unsigned char*>(scratch) + single_pass::kPartialsOffset));
        return cudaGetLastError();
      });
  static const Variant ticket = stage_variant(
      "stage ticket", [](auto* in, std::size_t n, auto*, void* scratch, std::size_t, int block, int grid,
                         cudaStream_t stream) {
        using E = std::remove_pointer_t<decltype(in)>;
        single_pass::stage_ticket<E, cuda::memory_order_acq_rel><<<grid, block, 0, stream>>>(
            in, n, reinterpret_cast<E*>(static_cast<unsigned char*>(scratch) + single_pass::kPartialsOffset),
            static_cast<unsigned*>(scratch));
        return cudaGetLastError();
      });
  static const Variant relaxed = stage_variant(
      "stage relaxed", [](auto* in, std::size_t n, auto*, void* scratch, std::size_t, int block, int grid,
                          cudaStream_t stream) {
        using E = std::remove_pointer_t<decltype(in)>;
        single_pass::stage_ticket<E, cuda::memory_order_relaxed><<<grid, block, 0, stream>>>(
            in, n, reinterpret_cast<E*>(static_cast<unsigned char*>(scratch) + single_pass::kPartialsOffset),
            static_cast<unsigned*>(scratch));
        return cudaGetLastError();
      });
  add("stage partials", &partials, block09, grid09, false);
  add("stage ticket", &ticket, block09, grid09, false);
  add("stage relaxed", &relaxed, block09, grid09, false);
  add("empty 09-shape", &empty, block09, grid09, false);
  add("empty 1x32", &empty, 32, 1, false);

  const std::vector<T> host = generate_input<T>(n, 1000 + n);
  const Reference ref = cpu_reference(host.data(), n);
  std::vector<typename Bench<T>::Job> plain;
  for (const auto& j : jobs) plain.push_back(j.second);
  Bench<T> bench(host, device, false);
  const std::vector<Measurement> results = bench.run_interleaved(plain, reps, true, ref);
  bool ok = true;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Measurement& m = results[i];
    const bool checked = jobs[i].second.check;
    std::printf("%s\n", JsonObject()
                            .str("type", std::is_same_v<T, int> ? "int" : "float")
                            .num("n", n)
                            .str("job", jobs[i].first)
                            .num("block", m.block)
                            .num("grid", m.grid)
                            .num("reps", m.reps)
                            .num("median_ms", m.times.median, "%.6f")
                            .num("min_ms", m.times.min, "%.6f")
                            .num("iqr_ms", m.times.iqr, "%.6f")
                            .str("check", checked ? (m.verdict.ok ? "ok" : "WRONG") : "-")
                            .text()
                            .c_str());
    if (checked && !m.verdict.ok) ok = false;
  }
  std::fflush(stdout);
  return ok;
}

int run() {
  std::string why;
  if (!cuda_device_available(&why)) {
    std::fprintf(stderr, "tune_small_n: %s\n", why.c_str());
    return 3;
  }
  constexpr int kRepsSmall = 100, kRepsLarge = 30;  // up to 2^22, above
  const DeviceInfo device = query_device();
  std::printf("%s\n", run_head(&device, kRepsSmall, true).c_str());
  bool ok = true;
  for (int k : {10, 12, 14, 16, 17, 18, 19, 20, 21, 22, 24, 26, 28, 30}) {
    const std::size_t n = std::size_t(1) << k;
    const int reps = k <= 22 ? kRepsSmall : kRepsLarge;
    ok = run_size<int>(n, device, reps) && ok;
    ok = run_size<float>(n, device, reps) && ok;
  }
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace reduction

int main() {
  try {
    return reduction::run();
  } catch (const std::exception& e) {
    return reduction::report_exception("tune_small_n", e);
  }
}
