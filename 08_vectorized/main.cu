// 08_vectorized as a program. The kernel is the copy unit (vectorized.cuh/.cu); this
// file tells the common harness what it needs to run it: names, the launch shapes it
// accepts, and the error bound of its summation order. The harness does the rest:
// command line, input, timing, check.
#include <algorithm>

#include "harness.h"
#include "launch_rules.h"
#include "vectorized.cuh"

namespace reduction {
namespace {

// The chain-length bounds below restate two constants of the copy unit (vectorized.cu):
constexpr std::size_t kVectorsInFlight = 4;  // vectorized.cu: kVectorsInFlight
constexpr std::size_t kWarpSize = 32;        // vectorized.cu: kWarpSize

// Additions an element passes through inside thread_reduce when the grid has
// `threads` threads. `partial` takes one addition per trip of the main loop, at most
// ceil(vectors / (threads * k)) trips (k = kVectorsInFlight; a vector holds at least 2
// elements, so vectors <= n / 2), then up to k - 1 leftover vectors and the head and
// tail elements (fewer than 4 each, at most ceil(3 / threads) per thread). Before it
// reaches `partial`, an element meets at most 2 additions among the lanes of its
// vector and log2(k) among the vectors of its trip.
std::size_t thread_reduce_chain(std::size_t n, std::size_t threads) {
  return ceil_div(n, 2 * threads * kVectorsInFlight) + (kVectorsInFlight - 1) + 2 * ceil_div(3, threads) + 2 +
         ceil_log2(kVectorsInFlight);
}

// Additions a value passes through in block_reduce: the shuffle tree inside a warp (5
// steps for a full warp, fewer for a smaller block), then the tree over the warps.
std::size_t block_reduce_depth(int block) {
  const std::size_t warps = ceil_div(block, kWarpSize);
  return ceil_log2(std::min<std::size_t>(block, kWarpSize)) + ceil_log2(warps);
}

}  // namespace

Chapter vectorized_chapter() {
  Variant vector_loads;
  vector_loads.chapter = "08_vectorized";
  vector_loads.summary = "16-byte vector loads (int4/float4/double2), 4 in flight per thread, unaligned head and tail "
                       "peeled; grid from the occupancy calculator";
  vector_loads.default_block = vectorized::kDefaultBlock;
  vector_loads.check_shape = [](int block, int /*grid*/) { return check_block_range(block); };
  vector_loads.default_grid = vectorized::default_grid;
  vector_loads.scratch_bytes = vectorized::scratch_bytes;
  // A value passes through: thread_reduce over n elements with G*B threads, block_reduce,
  // then in the second launch thread_reduce over the G partials with B threads and
  // block_reduce again (each term explained above).
  vector_loads.chain_length = [](std::size_t n, int block, int grid) {
    return thread_reduce_chain(n, std::size_t(grid) * block) + thread_reduce_chain(grid, block) +
           2 * block_reduce_depth(block);
  };
  vector_loads.set_launcher(Op::Sum, [](auto* input, std::size_t n, auto* result, void* scratch, int block, int grid,
                                      cudaStream_t stream) {
    return vectorized::reduce(input, n, result, scratch, block, grid, stream);
  });
  return {vector_loads.chapter, {vector_loads}};
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tour and the tests link this file without its main()
int main(int argc, char** argv) { return reduction::run_chapter(reduction::vectorized_chapter(), argc, argv); }
#endif
