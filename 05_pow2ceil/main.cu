// 05_pow2ceil as a program. The kernel is the copy unit (pow2ceil.cuh/.cu); this file
// tells the common harness what it needs to run it: names, the launch shapes it
// accepts, and the error bound of its summation order. The harness does the rest:
// command line, input, timing, check.
#include "harness.h"
#include "launch_rules.h"
#include "pow2ceil.cuh"

namespace reduction {

Chapter pow2ceil_chapter() {
  Variant any_size;
  any_size.chapter = "05_pow2ceil";
  any_size.summary = "04's shared-memory tree for any block size: the halving starts at the next power of two "
                     "(pow2ceil with __clz) and skips partners past the block";
  any_size.default_block = pow2ceil::kDefaultBlock;
  any_size.check_shape = [](int block, int /*grid*/) { return check_block_range(block); };
  any_size.default_grid = pow2ceil::default_grid;
  any_size.scratch_bytes = pow2ceil::scratch_bytes;
  // A value passes through: its thread's serial loop (at most ceil(n / (G*B))
  // additions), the block's tree (ceil(log2 B) levels: the padded power of two),
  // then in the second launch the serial loop over the G partials (ceil(G / B)) and
  // the tree again.
  any_size.chain_length = [](std::size_t n, int block, int grid) {
    return ceil_div(n, std::size_t(grid) * block) + ceil_div(grid, block) + 2 * ceil_log2(block);
  };
  any_size.set_launcher(Op::Sum, [](auto* input, std::size_t n, auto* result, void* scratch, std::size_t scratch_size,
                                    int block, int grid, cudaStream_t stream) {
    return pow2ceil::reduce(input, n, result, scratch, scratch_size, block, grid, stream);
  });
  return {any_size.chapter, {any_size}};
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tour and the tests link this file without its main()
int main(int argc, char** argv) { return reduction::run_chapter(reduction::pow2ceil_chapter(), argc, argv); }
#endif
