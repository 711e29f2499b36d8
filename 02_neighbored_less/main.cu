// 02_neighbored_less as a program. The kernel is the copy unit
// (neighbored_less.cuh/.cu); this file tells the common harness what it needs to run
// it: its name, the launch shapes it accepts, and the error bound of its summation
// order. The harness does the rest: command line, input (restored before every run,
// since the kernel overwrites it), timing, check.
#include <algorithm>
#include <string>

#include "harness.h"
#include "launch_rules.h"
#include "neighbored_less.cuh"

namespace reduction {

Chapter neighbored_less_chapter() {
  Variant contiguous;
  contiguous.chapter = "02_neighbored_less";
  contiguous.summary = "the same neighbouring pairs as 01, but thread t adds the pair at slot 2*stride*t, so the "
                       "working threads are the first ones of the block (whole warps idle instead of scattered "
                       "lanes)";
  contiguous.in_place = true;  // the input array is overwritten with partial sums
  contiguous.default_block = neighbored_less::kDefaultBlock;
  // block: any size from 2 to 1024 (the tree takes slices of any length; a block of 1
  // would never shrink the values). grid: derived from n (one block per B elements), so
  // any --grid is refused.
  contiguous.check_shape = [](int block, int grid) {
    if (grid != 0) return std::string("this chapter launches one block per B elements: --grid does not apply");
    if (block == 1)
      return std::string("--block 1 cannot be run: each pass must shrink the values, so a block needs 2 to 1024 "
                         "threads");
    return check_block_range(block);
  };
  contiguous.check_n = check_blocks_per_element;  // more than 2^31 - 1 blocks cannot be launched
  contiguous.default_grid = neighbored_less::default_grid;
  contiguous.scratch_bytes = neighbored_less::scratch_bytes;
  // A block's tree over len values (any len, a power of two or not: the stride doubles
  // while it is below len) takes ceil(log2(len)) steps, and each step adds at
  // most once to the sum a given value is part of; then the value travels on inside
  // its block's partial through the next pass's tree.
  contiguous.chain_length = [](std::size_t n, int block, int /*grid*/) {
    const std::size_t threads = block > 0 ? block : neighbored_less::kDefaultBlock;
    std::size_t chain = 0;
    for (std::size_t count = n;; count = ceil_div(count, threads)) {
      chain += ceil_log2(std::min(count, threads));
      if (count <= threads) break;
    }
    return chain;
  };
  contiguous.set_launcher(Op::Sum, [](auto* data, std::size_t n, auto* result, void* scratch, std::size_t scratch_size,
                                      int block, int grid, cudaStream_t stream) {
    return neighbored_less::reduce(data, n, result, scratch, scratch_size, block, grid, stream);
  });
  return {contiguous.chapter, {contiguous}};
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tour and the tests link this file without its main()
int main(int argc, char** argv) { return reduction::run_chapter(reduction::neighbored_less_chapter(), argc, argv); }
#endif
