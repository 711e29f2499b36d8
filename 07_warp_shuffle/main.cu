// 07_warp_shuffle as a program. The kernel is the copy unit (warp_shuffle.cuh/.cu);
// this file tells the common harness what it needs to run it: names, the launch shapes
// it accepts, and the error bound of its summation order. The harness does the rest:
// command line, input, timing, check.

#include "harness.h"
#include "launch_rules.h"
#include "warp_shuffle.cuh"

namespace reduction {
Chapter warp_shuffle_chapter() {
  Variant shuffle;
  shuffle.chapter = "07_warp_shuffle";
  shuffle.summary = "grid-stride sums in registers, then each warp adds its 32 values with __shfl_down_sync; one "
                    "value per warp goes through shared memory";
  shuffle.default_block = warp_shuffle::kDefaultBlock;
  shuffle.check_shape = [](int block, int /*grid*/) { return check_block_range(block); };
  shuffle.default_grid = warp_shuffle::default_grid;
  shuffle.scratch_bytes = warp_shuffle::scratch_bytes;
  // A value passes through, in each of the two launches: its accumulator's serial loop
  // (at most ceil(values / (G*B)) additions), 2 more to combine the four accumulators,
  // and block_sum (shuffle_tree_depth, launch_rules.h). Values: n in the first launch,
  // the G partials in the second (counted even when G == 1: an upper bound).
  shuffle.chain_length = [](std::size_t n, int block, int grid) {
    return ceil_div(n, std::size_t(grid) * block) + 2 + ceil_div(grid, block) + 2 + 2 * shuffle_tree_depth(block);
  };
  shuffle.set_launcher(Op::Sum, [](auto* input, std::size_t n, auto* result, void* scratch, std::size_t scratch_size,
                                   int block, int grid, cudaStream_t stream) {
    return warp_shuffle::reduce(input, n, result, scratch, scratch_size, block, grid, stream);
  });
  return {shuffle.chapter, {shuffle}};
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tour and the tests link this file without its main()
int main(int argc, char** argv) { return reduction::run_chapter(reduction::warp_shuffle_chapter(), argc, argv); }
#endif
