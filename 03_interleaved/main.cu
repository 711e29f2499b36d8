// 03_interleaved as a program. The kernel is the copy unit (interleaved.cuh/.cu);
// this file tells the common harness what it needs to run it: its name, the launch
// shapes it accepts, and the error bound of its summation order. The harness does the
// rest: command line, input (restored before every run, since the kernel overwrites
// it), timing, check.
#include <algorithm>
#include <string>

#include "harness.h"
#include "launch_rules.h"
#include "interleaved.cuh"

namespace reduction {

Chapter interleaved_chapter() {
  Variant halving;
  halving.chapter = "03_interleaved";
  halving.summary = "interleaved pairs: the stride starts at half the block and halves each step, thread t adds "
                    "slot t + stride into slot t, so the working threads stay the first ones of the block";
  halving.in_place = true;  // the input array is overwritten with partial sums
  halving.default_block = interleaved::kDefaultBlock;
  // block: a power of two, 32..1024. grid: derived from n (one block per B elements),
  // so any --grid is refused.
  halving.check_shape = [](int block, int grid) {
    if (grid != 0) return std::string("this chapter launches one block per B elements: --grid does not apply");
    return check_power_of_two_block(block);
  };
  halving.check_n = check_blocks_per_element;  // more than 2^31 - 1 blocks cannot be launched
  halving.default_grid = interleaved::default_grid;
  halving.scratch_bytes = interleaved::scratch_bytes;
  // A block's tree over len values takes ceil(log2(len)) steps, and each step adds at
  // most once to the sum a given value is part of; then the value travels on inside
  // its block's partial through the next pass's tree.
  halving.chain_length = [](std::size_t n, int block, int /*grid*/) {
    const std::size_t threads = block > 0 ? block : interleaved::kDefaultBlock;
    std::size_t chain = 0;
    for (std::size_t count = n;; count = ceil_div(count, threads)) {
      chain += ceil_log2(std::min(count, threads));
      if (count <= threads) break;
    }
    return chain;
  };
  halving.set_launcher(Op::Sum, [](auto* data, std::size_t n, auto* result, void* scratch, std::size_t scratch_size,
                                   int block, int grid, cudaStream_t stream) {
    return interleaved::reduce(data, n, result, scratch, scratch_size, block, grid, stream);
  });
  return {halving.chapter, {halving}};
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tour and the tests link this file without its main()
int main(int argc, char** argv) { return reduction::run_chapter(reduction::interleaved_chapter(), argc, argv); }
#endif
