// 06_warp_unroll as a program. The kernel is the copy unit (warp_unroll.cuh/.cu), each
// of its two changes alone is in steps.cu, and the pitfall (the pre-Volta volatile tail)
// is in pitfalls.cu; this file tells the common harness what it needs to run them:
// names, the launch shapes they accept, and the error bound of their summation order.
// The harness does the rest: command line, input, timing, check (and `tour --steps 06`:
// 05, each change and 06 side by side).
#include <algorithm>

#include "harness.h"
#include "launch_rules.h"
#include "warp_unroll.cuh"

namespace warp_unroll_pitfalls {  // pitfalls.cu
template <typename T>
cudaError_t reduce_volatile(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size,
                            int block, int grid, cudaStream_t stream);
}

namespace warp_unroll_steps {  // steps.cu
template <typename T>
cudaError_t reduce_tree_only(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size,
                             int block, int grid, cudaStream_t stream);
template <typename T>
cudaError_t reduce_loop_only(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size,
                             int block, int grid, cudaStream_t stream);
cudaError_t default_grid_tree_only(std::size_t n, int block, int* grid);
cudaError_t default_grid_loop_only(std::size_t n, int block, int* grid);
}

namespace reduction {
namespace {

// Shared-memory slots a block of `block` threads uses: its size padded to a power of
// two, and never fewer than 64. Mirrors tree_slots in warp_unroll.cu (the copy unit).
std::size_t tree_slots(int block) { return std::max<std::size_t>(std::size_t(1) << ceil_log2(block), 64); }

}  // namespace

Chapter warp_unroll_chapter() {
  Variant unrolled;
  unrolled.chapter = "06_warp_unroll";
  unrolled.summary = "unrolled shared-memory tree down to 64 values, then warp 0 finishes with __syncwarp(); "
                     "grid-stride loop with four loads in flight";
  unrolled.default_block = warp_unroll::kDefaultBlock;
  unrolled.check_shape = [](int block, int /*grid*/) { return check_block_range(block); };
  unrolled.default_grid = warp_unroll::default_grid;
  unrolled.scratch_bytes = warp_unroll::scratch_bytes;
  // A value passes through, in each of the two launches: its accumulator's serial
  // loop (at most ceil(values / (G*B)) additions), 2 more to combine the four
  // accumulators, and the tree over the padded block (log2 of tree_slots: at least
  // 6 levels, since warp 0 always folds 64 slots). Values: n in the first launch,
  // the G partials in the second (counted even when G == 1: an upper bound).
  unrolled.chain_length = [](std::size_t n, int block, int grid) {
    const std::size_t tree_depth = ceil_log2(tree_slots(block));
    return ceil_div(n, std::size_t(grid) * block) + 2 + tree_depth + ceil_div(grid, block) + 2 + tree_depth;
  };
  unrolled.set_launcher(Op::Sum, [](auto* input, std::size_t n, auto* result, void* scratch, std::size_t scratch_size,
                                    int block, int grid, cudaStream_t stream) {
    return warp_unroll::reduce(input, n, result, scratch, scratch_size, block, grid, stream);
  });

  // 06's two changes, each alone on top of 05 (steps.cu); both keep 06's two launches,
  // its shapes and its scratch (one partial per block).
  Variant tree_only = unrolled;
  tree_only.name = "tree_only";
  tree_only.step = true;
  tree_only.summary = "06's tree alone: written out down to 64 values, warp 0 finishing with __syncwarp(), fed by "
                      "05's grid-stride loop (one load per trip)";
  tree_only.default_grid = warp_unroll_steps::default_grid_tree_only;
  // As 06's, but 05's loop: no +2 for combining four accumulators.
  tree_only.chain_length = [](std::size_t n, int block, int grid) {
    const std::size_t tree_depth = ceil_log2(tree_slots(block));
    return ceil_div(n, std::size_t(grid) * block) + tree_depth + ceil_div(grid, block) + tree_depth;
  };
  tree_only.set_launcher(Op::Sum, [](auto* input, std::size_t n, auto* result, void* scratch, std::size_t scratch_size,
                                     int block, int grid, cudaStream_t stream) {
    return warp_unroll_steps::reduce_tree_only(input, n, result, scratch, scratch_size, block, grid, stream);
  });

  Variant loop_only = unrolled;
  loop_only.name = "loop_only";
  loop_only.step = true;
  loop_only.summary = "06's loop alone: four loads per grid-stride trip, feeding 05's tree (a loop with a "
                      "__syncthreads() per step)";
  loop_only.default_grid = warp_unroll_steps::default_grid_loop_only;
  // As 06's, but 05's tree: ceil(log2 B) levels over the block itself, not the padded 64.
  loop_only.chain_length = [](std::size_t n, int block, int grid) {
    return ceil_div(n, std::size_t(grid) * block) + 2 + ceil_log2(block) + ceil_div(grid, block) + 2 +
           ceil_log2(block);
  };
  loop_only.set_launcher(Op::Sum, [](auto* input, std::size_t n, auto* result, void* scratch, std::size_t scratch_size,
                                     int block, int grid, cudaStream_t stream) {
    return warp_unroll_steps::reduce_loop_only(input, n, result, scratch, scratch_size, block, grid, stream);
  });

  Variant legacy = unrolled;
  legacy.name = "volatile";
  legacy.summary = "WRONG since Volta, for study only: the last warp through a volatile pointer without __syncwarp() "
                   "(assumes lock-step lanes, which independent thread scheduling does not promise)";
  legacy.set_launcher(Op::Sum, [](auto* input, std::size_t n, auto* result, void* scratch, std::size_t scratch_size,
                                  int block, int grid, cudaStream_t stream) {
    return warp_unroll_pitfalls::reduce_volatile(input, n, result, scratch, scratch_size, block, grid, stream);
  });
  return {unrolled.chapter, {unrolled, tree_only, loop_only, legacy}};
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tour and the tests link this file without its main()
int main(int argc, char** argv) { return reduction::run_chapter(reduction::warp_unroll_chapter(), argc, argv); }
#endif
