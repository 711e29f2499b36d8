// 08_vectorized as a program. The kernel is the copy unit (vectorized.cuh/.cu); this
// file tells the common harness what it needs to run it and its two steps: names, the
// launch shapes they accept, and the error bound of their summation order. The harness
// does the rest: command line, input, timing, check (and `tour --steps 08`: 07, each
// change and 08 side by side).

#include "harness.h"
#include "launch_rules.h"
#include "vectorized.cuh"
#include "warp_shuffle.cuh"  // 07's copy unit: its block size and grid rule, for the steps

namespace reduction {

Chapter warp_shuffle_chapter();  // 07_warp_shuffle/main.cu

namespace {

// 16-byte loads each thread issues per trip of thread_reduce: the copy unit's
// kVectorsInFlight (vectorized.cu), restated for the chain-length bound.
constexpr std::size_t kVectorsInFlight = 4;

}  // namespace

Chapter vectorized_chapter() {
  Variant vector_loads;
  vector_loads.chapter = "08_vectorized";
  vector_loads.summary = "16-byte vector loads (int4/float4/double2), 4 in flight per thread, unaligned head and tail "
                       "peeled; grid from the occupancy calculator";
  vector_loads.default_block = vectorized::kDefaultBlock;
  vector_loads.check_shape = [](int block, int /*grid*/) { return check_block_range(block); };
  vector_loads.default_grid = vectorized::default_grid;
  vector_loads.default_shape = vectorized::default_shape;  // the block follows the SM's thread limit
  vector_loads.scratch_bytes = vectorized::scratch_bytes;
  // A value passes through: thread_reduce over n elements with G*B threads, block_reduce,
  // then in the second launch thread_reduce over the G partials with B threads and
  // block_reduce again (vector_loop_chain and shuffle_tree_depth: launch_rules.h).
  vector_loads.chain_length = [](std::size_t n, int block, int grid) {
    return vector_loop_chain(n, std::size_t(grid) * block, kVectorsInFlight) +
           vector_loop_chain(grid, block, kVectorsInFlight) + 2 * shuffle_tree_depth(block);
  };
  vector_loads.set_launcher(Op::Sum, [](auto* input, std::size_t n, auto* result, void* scratch,
                                        std::size_t scratch_size, int block, int grid, cudaStream_t stream) {
    return vectorized::reduce(input, n, result, scratch, scratch_size, block, grid, stream);
  });

  // 08's two changes, each alone on top of 07, with no new kernel: one chapter's kernel
  // at the other's block size. Each is the description of the chapter whose kernel it
  // runs (its launchers, shapes, scratch and error bound hold for that kernel).
  // The block alone: 07's kernel and 07's grid rule (one full wave), at the block 08's
  // default_shape picks on this GPU (1024; 768 where an SM holds 1536 threads). 07's
  // kernel has no __launch_bounds__(1024), but it needs far fewer registers per thread
  // than the 64 a 1024-thread block allows (nvcc -Xptxas -v), so such a block launches.
  Variant block_only = shape_step(warp_shuffle_chapter().main(), vector_loads.chapter, "block_only",
                                  "08's block alone: 07's kernel (one element per load, four in flight) and 07's "
                                  "grid rule, a full wave, at 08's default block (1024 threads, 768 where an SM "
                                  "holds 1536)");
  block_only.default_block = vectorized::kDefaultBlock;
  block_only.default_shape = [](std::size_t n, int* block, int* grid) {
    int vectorized_grid = 0;  // 08's grid is for 08's kernel: only the block is kept
    const cudaError_t status = vectorized::default_shape(n, block, &vectorized_grid);
    return status == cudaSuccess ? warp_shuffle::default_grid(n, *block, grid) : status;
  };

  // The loads alone: 08's kernel and 08's grid rule (a wave, fewer blocks at small n), at
  // 07's block of 256 threads.
  Variant loads_only = shape_step(vector_loads, vector_loads.chapter, "loads_only",
                                  "08's loads alone: 08's kernel (16-byte loads, four in flight, head and tail "
                                  "peeled) and 08's grid rule, at 07's block of 256 threads");
  loads_only.default_block = warp_shuffle::kDefaultBlock;
  loads_only.default_shape = nullptr;  // 07's fixed block, 08's default_grid for it
  return {vector_loads.chapter, {vector_loads, block_only, loads_only}};
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tour and the tests link this file without its main()
int main(int argc, char** argv) { return reduction::run_chapter(reduction::vectorized_chapter(), argc, argv); }
#endif
