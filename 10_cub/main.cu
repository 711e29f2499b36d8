// 10_cub as a program. The library calls are the copy unit (cub_reduce.cuh/.cu); this
// file tells the common harness what it needs to run them: names, that CUB chooses its
// own launch shape, the operators (--op sum|max|min), and a bound on the error of CUB's
// summation order. The harness does the rest: command line, input, timing, check.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "cub_reduce.cuh"
#include "harness.h"
#include "launch_rules.h"

namespace {

// The scratch the harness allocates for n elements (Variant::scratch_bytes below): the
// largest storage CUB asks for over int, float and double and the three operators, so
// that one buffer serves every --type and --op.
std::size_t harness_scratch(std::size_t n) {
  return std::max({cub_reduce::scratch_bytes<int>(n), cub_reduce::scratch_bytes<float>(n),
                   cub_reduce::scratch_bytes<double>(n)});
}

// harness_scratch(n), remembered for the last device and n: its nine CUB queries run on
// the host in the first, untimed call only.
std::size_t remembered_scratch(std::size_t n) {
  static int last_device = -1;
  static std::size_t last_n = 0, last_bytes = 0;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return 0;  // reduce() then reports the error
  if (device != last_device || n != last_n) {
    last_bytes = harness_scratch(n);
    last_device = device;
    last_n = n;
  }
  return last_bytes;
}

// The copy unit's launchers for the operator Op, as generic lambdas without captures
// (one per operator; each converts to a Launcher of every element type). Block and
// grid do not apply. The chapter's scratch rule is harness_scratch, whatever the type:
// a scratch smaller than that is refused here (CUB itself would only refuse one smaller
// than this type needs), then CUB checks the size again.
template <typename Op>
constexpr auto cub_with = [](auto* input, std::size_t n, auto* result, void* scratch, std::size_t scratch_size,
                             int /*block*/, int /*grid*/, cudaStream_t stream) {
  using T = std::remove_pointer_t<decltype(result)>;
  if (scratch_size < remembered_scratch(n)) return cudaErrorInvalidValue;
  return cub_reduce::reduce<T, Op>(input, n, result, scratch, scratch_size, stream);
};

template <typename Op>
constexpr auto thrust_with = [](auto* input, std::size_t n, auto* result, void* /*scratch*/, std::size_t /*size*/,
                                int /*block*/, int /*grid*/, cudaStream_t stream) {
  return cub_reduce::thrust_reduce<std::remove_pointer_t<decltype(result)>, Op>(input, n, result, stream);
};

}  // namespace

namespace reduction {

Chapter cub_chapter() {
  Variant cub;
  cub.chapter = "10_cub";
  cub.summary = "cub::DeviceReduce::Sum (max, min: DeviceReduce::Reduce): temporary-storage query, then one call "
                "(CUB picks the launch shape)";
  cub.chooses_shape = true;  // the report says "launch chosen by the library"
  cub.default_block = 256;   // not used: CUB tunes its own block size per GPU
  cub.check_shape = [](int block, int grid) -> std::string {
    if (block != 0 || grid != 0) return "CUB chooses its own launch shape: --block and --grid do not apply";
    return "";
  };
  // The SM count: we assume CUB keeps at least one block per SM busy, which bounds its
  // chain length below (the harness uses this grid for nothing else).
  cub.default_grid = [](std::size_t /*n*/, int /*block*/, int* grid) {
    int device = 0;
    cudaError_t status = cudaGetDevice(&device);
    if (status == cudaSuccess) status = cudaDeviceGetAttribute(grid, cudaDevAttrMultiProcessorCount, device);
    return status;
  };
  // CUB's temporary storage for n elements, for every type and operator (above).
  cub.scratch_bytes = [](std::size_t n, int /*block*/, int /*grid*/) { return harness_scratch(n); };
  // CUB documents no summation order, so this bound rests on an assumption about CUB's
  // current implementation, not on a promise: at least `grid` (= SM count) blocks of at
  // least 128 threads each add up their slices serially, then trees of at most log2(n)
  // levels combine them; 32 more additions cover the per-thread item loop and the final
  // single-block pass. Safe enough here: the bound is generous (CUB launches many more
  // threads than that: see the grid x block of DeviceReduceKernel in the README's
  // profiler table), and the GPU tests check CUB's float sums against it at every test
  // size, so a CUB that broke the assumption would fail them rather than pass silently.
  cub.chain_length = [](std::size_t n, int /*block*/, int grid) {
    return ceil_div(n, std::size_t(grid) * 128) + 2 * ceil_log2(n + 1) + 32;
  };
  cub.set_launcher(Op::Sum, cub_with<cub_reduce::Sum>);
  cub.set_launcher(Op::Max, cub_with<cub_reduce::Max>);
  cub.set_launcher(Op::Min, cub_with<cub_reduce::Min>);

  // thrust::reduce: one line, but it allocates its temporary storage and copies the
  // result back to the host on every call (so it also synchronizes).
  Variant thrust = cub;
  thrust.name = "thrust";
  thrust.summary = "thrust::reduce: one line; allocates temporary storage and returns the value to the host on every "
                   "call";
  thrust.scratch_bytes = [](std::size_t, int, int) { return std::size_t(0); };
  thrust.set_launcher(Op::Sum, thrust_with<cub_reduce::Sum>);
  thrust.set_launcher(Op::Max, thrust_with<cub_reduce::Max>);
  thrust.set_launcher(Op::Min, thrust_with<cub_reduce::Min>);
  return {cub.chapter, {cub, thrust}};
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tour and the tests link this file without its main()
int main(int argc, char** argv) { return reduction::run_chapter(reduction::cub_chapter(), argc, argv); }
#endif
