// 17_reproducible as a program. The kernel is the copy unit (reproducible_sum.cuh/.cu);
// this file tells the common harness what it needs to run it: names, the launch shapes
// it accepts, and its error bound. Float only (--type float is the default here).
#include "harness.h"
#include "launch_rules.h"
#include "reproducible_sum.cuh"

namespace reduction {

Chapter reproducible_chapter() {
  Variant exact;
  exact.chapter = "17_reproducible";
  exact.summary = "09's single pass with an exact integer sum of the floats, rounded once: the same bits for every "
                  "launch shape, alignment, GPU and split of the array (float only)";
  exact.default_block = reproducible_sum::kDefaultBlock;
  exact.check_shape = [](int block, int /*grid*/) { return check_block_range(block); };
  exact.default_grid = reproducible_sum::default_grid;
  exact.default_shape = reproducible_sum::default_shape;  // the block too depends on n
  exact.scratch_bytes = reproducible_sum::scratch_bytes;  // the ticket and the 32 slots: one size for every shape
  // The result is the exact sum rounded once: |result - S| <= u |S|, which is the
  // harness's bound with a chain of one addition.
  exact.chain_length = [](std::size_t, int, int) { return std::size_t(1); };
  exact.float_launchers[static_cast<int>(Op::Sum)] = [](float* input, std::size_t n, float* result, void* scratch,
                                                        std::size_t bytes, int block, int grid, cudaStream_t stream) {
    return reproducible_sum::reduce(input, n, result, scratch, bytes, block, grid, stream);
  };
  return {exact.chapter, {exact}};
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tests link this file without its main()
int main(int argc, char** argv) { return reduction::run_chapter(reduction::reproducible_chapter(), argc, argv); }
#endif
