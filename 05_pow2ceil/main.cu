// 05_pow2ceil as a program. The kernel is the copy unit (pow2ceil.cuh/.cu); this file
// tells the common harness what it needs to run it and its two steps: names, the launch
// shapes they accept, and the error bound of their summation order. The harness does the
// rest: command line, input, timing, check (and `tour --steps 05`: 04, each change and
// 05 side by side).
#include <string>

#include "harness.h"
#include "launch_rules.h"
#include "pow2ceil.cuh"
#include "shared_tree.cuh"  // 04's copy unit: its default grid, for the step tree_only

namespace reduction {

Chapter shared_tree_chapter();  // 04_shared_tree/main.cu

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

  // 05's two changes, each alone on top of 04, with no new kernel: one chapter's kernel
  // at the other's grid rule. Each is the description of the chapter whose kernel it runs
  // (its launchers, shapes, scratch and error bound hold for that kernel), with the
  // other's default grid. At the default 256 threads both kernels run the same tree.
  Variant tree_only = shape_step(any_size, any_size.chapter, "tree_only",
                                 "05's tree alone: 05's kernel (the pow2ceil tree) at 04's default grid, SMs x "
                                 "(threads per SM / B) blocks");
  tree_only.default_grid = shared_tree::default_grid;

  Variant grid_only = shape_step(shared_tree_chapter().main(), any_size.chapter, "grid_only",
                                 "05's grid alone: 04's kernel (a power-of-two block) at 05's default grid, SMs x "
                                 "the occupancy calculator's blocks per SM for 05's kernel");
  grid_only.default_grid = pow2ceil::default_grid;
  grid_only.check_shape = [](int block, int /*grid*/) {  // 04's rule, said of this variant
    if (check_power_of_two_block(block).empty()) return std::string();
    return "--block " + std::to_string(block) + " cannot be run: --variant grid_only runs 04's kernel, whose tree "
           "needs a power of two from 32 to 1024";
  };
  return {any_size.chapter, {any_size, tree_only, grid_only}};
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tour and the tests link this file without its main()
int main(int argc, char** argv) { return reduction::run_chapter(reduction::pow2ceil_chapter(), argc, argv); }
#endif
