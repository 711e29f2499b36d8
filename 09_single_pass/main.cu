// 09_single_pass as a program. The kernel is the copy unit (single_pass.cuh/.cu); this
// file tells the common harness what it needs to run it and its two steps: names, the
// launch shapes they accept, the operators 09 offers (--op sum|max|min), and the error
// bound of their summation order. The harness does the rest: command line, input,
// timing, check (and `tour --steps 09`: 08, each change and 09 side by side).
#include <algorithm>
#include <type_traits>

#include "harness.h"
#include "launch_rules.h"
#include "single_pass.cuh"
#include "vectorized.cuh"  // 08's copy unit: its launch shape, for the step ticket_only

namespace {

// The copy unit's launcher for the operator Op, as a generic lambda without captures
// (one per operator; each converts to a Launcher of every element type).
template <typename Op>
constexpr auto launch_with = [](auto* input, std::size_t n, auto* result, void* scratch, std::size_t scratch_size,
                                int block, int grid, cudaStream_t stream) {
  return single_pass::reduce<std::remove_pointer_t<decltype(result)>, Op>(input, n, result, scratch, scratch_size,
                                                                          block, grid, stream);
};

}  // namespace

namespace reduction {

Chapter vectorized_chapter();  // 08_vectorized/main.cu

namespace {

// 16-byte loads each thread issues per trip of thread_reduce: the copy unit's
// kVectorsInFlight (single_pass.cu), restated for the chain-length bound.
constexpr std::size_t kVectorsInFlight = 4;

}  // namespace

Chapter single_pass_chapter() {
  Variant one_launch;
  one_launch.chapter = "09_single_pass";
  one_launch.summary = "one launch: blocks reduce like 08 and take a ticket (cuda::atomic_ref, acquire-release); the "
                       "last block combines the partials in a fixed order (--op sum|max|min)";
  one_launch.default_block = single_pass::kDefaultBlock;
  one_launch.check_shape = [](int block, int /*grid*/) { return check_block_range(block); };
  one_launch.default_grid = single_pass::default_grid;
  // The ticket counter and one partial per block; the harness zeroes it once.
  one_launch.scratch_bytes = single_pass::scratch_bytes;
  one_launch.default_shape = single_pass::default_shape;  // the block too depends on n
  // A value passes through: thread_reduce over n elements with G*B threads and
  // block_reduce (as in 08), then in the last block's warp 0 a serial loop over at most
  // ceil(G / 32) partials per lane (fewer lanes when B < 32) and the warp's shuffle tree.
  one_launch.chain_length = [](std::size_t n, int block, int grid) {
    const std::size_t lanes = std::min(block, 32);
    return vector_loop_chain(n, std::size_t(grid) * block, kVectorsInFlight) + shuffle_tree_depth(block) +
           ceil_div(grid, lanes) + ceil_log2(lanes);
  };
  one_launch.set_launcher(Op::Sum, launch_with<single_pass::Sum>);
  one_launch.set_launcher(Op::Max, launch_with<single_pass::Max>);
  one_launch.set_launcher(Op::Min, launch_with<single_pass::Min>);

  // 09's two changes, each alone on top of 08, with no new kernel: one chapter's kernel
  // at the other's launch shape. Each is the description of the chapter whose kernel it
  // runs (its launchers, shapes, scratch and error bound hold for that kernel).
  // The ticket alone: 09's kernel at 08's shape (1024 or 768 threads, 08's grid: a wave,
  // fewer blocks at small n). 08's grid may hold more blocks than 09's kernel keeps
  // resident: the ticket waits for no other block, so any grid is right.
  Variant ticket_only = shape_step(one_launch, one_launch.chapter, "ticket_only",
                                   "09's ticket alone: 09's kernel (one launch, the last block combines the "
                                   "partials) at 08's default shape (08's block and grid rule)");
  ticket_only.default_block = vectorized::kDefaultBlock;
  ticket_only.default_grid = vectorized::default_grid;
  ticket_only.default_shape = vectorized::default_shape;

  // The shape alone: 08's kernel (two launches; one when the grid is one block) at 09's
  // shape per n (one block, blocks of 256, or a wave of 1024-thread blocks).
  Variant shape_only = shape_step(vectorized_chapter().main(), one_launch.chapter, "shape_only",
                                  "09's shape alone: 08's kernel (two launches, sum only) at 09's default shape "
                                  "per n (09's block and grid rule)");
  shape_only.default_block = single_pass::kDefaultBlock;
  shape_only.default_grid = single_pass::default_grid;
  shape_only.default_shape = single_pass::default_shape;
  return {one_launch.chapter, {one_launch, ticket_only, shape_only}};
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tour and the tests link this file without its main()
int main(int argc, char** argv) { return reduction::run_chapter(reduction::single_pass_chapter(), argc, argv); }
#endif
