// 08_vectorized as a program. The kernel is the copy unit (vectorized.cuh/.cu); this
// file tells the common harness what it needs to run it: names, the launch shapes it
// accepts, and the error bound of its summation order. The harness does the rest:
// command line, input, timing, check.

#include "harness.h"
#include "launch_rules.h"
#include "vectorized.cuh"

namespace reduction {
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
  return {vector_loads.chapter, {vector_loads}};
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tour and the tests link this file without its main()
int main(int argc, char** argv) { return reduction::run_chapter(reduction::vectorized_chapter(), argc, argv); }
#endif
