// 04_shared_tree as a program. The kernel is the copy unit (shared_tree.cuh/.cu), the
// step between 03 and 04 is in steps.cu and the pitfall in pitfalls.cu; this file tells
// the common harness what it needs to run them: names, the launch shapes they accept,
// and the error bound of their summation order. The harness does the rest: command
// line, input, timing, check (and `tour --steps 04`: 03, the step and 04 side by side).
#include <string>

#include "harness.h"
#include "launch_rules.h"
#include "shared_tree.cuh"

namespace shared_tree_steps {  // steps.cu
template <typename T>
cudaError_t reduce_one_each(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size,
                            int block, int grid, cudaStream_t stream);
cudaError_t default_grid_one_each(std::size_t n, int block, int* grid);
std::size_t scratch_bytes_one_each(std::size_t n, int block, int grid);
}

namespace shared_tree_pitfalls {  // pitfalls.cu
template <typename T>
cudaError_t reduce_strided(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block,
                           int grid, cudaStream_t stream);
}

namespace reduction {

Chapter shared_tree_chapter() {
  Variant tree;
  tree.chapter = "04_shared_tree";
  tree.summary = "each thread sums a grid-stride slice in a register, then the block halves it in shared memory";
  tree.default_block = shared_tree::kDefaultBlock;
  tree.check_shape = [](int block, int /*grid*/) { return check_power_of_two_block(block); };
  tree.default_grid = shared_tree::default_grid;
  tree.scratch_bytes = shared_tree::scratch_bytes;
  // A value passes through: its thread's serial loop (at most ceil(n / (G*B))
  // additions), the block's tree (log2 B), then in the second launch the serial loop
  // over the G partials (ceil(G / B)) and the tree again.
  tree.chain_length = [](std::size_t n, int block, int grid) {
    return ceil_div(n, std::size_t(grid) * block) + ceil_div(grid, block) + 2 * ceil_log2(block);
  };
  tree.set_launcher(Op::Sum, [](auto* input, std::size_t n, auto* result, void* scratch, std::size_t scratch_size,
                                int block, int grid, cudaStream_t stream) {
    return shared_tree::reduce(input, n, result, scratch, scratch_size, block, grid, stream);
  });

  // The first of 04's two changes alone: the tree in shared memory, without the
  // grid-stride loop (one element per thread, a launch per pass, as in 03).
  Variant one_each;
  one_each.chapter = tree.chapter;
  one_each.name = "one_each";
  one_each.step = true;
  one_each.summary = "the step between 03 and 04: 04's shared-memory tree with one element per thread, one block "
                     "per B elements and a launch per pass as in 03 (no grid-stride loop); the input is only read";
  one_each.default_block = shared_tree::kDefaultBlock;
  one_each.check_shape = [](int block, int grid) {
    if (grid != 0) return std::string("--variant one_each launches one block per B elements: --grid does not apply");
    return check_power_of_two_block(block);
  };
  one_each.check_n = check_blocks_per_element;  // more than 2^31 - 1 blocks cannot be launched
  one_each.default_grid = shared_tree_steps::default_grid_one_each;
  one_each.scratch_bytes = shared_tree_steps::scratch_bytes_one_each;
  // A value passes through its block's tree (log2 B additions; the slots past n hold
  // zeros) in each pass, and there are as many passes as in 03.
  one_each.chain_length = [](std::size_t n, int block, int /*grid*/) {
    const std::size_t threads = block > 0 ? block : shared_tree::kDefaultBlock;
    std::size_t chain = 0;
    for (std::size_t count = n;; count = ceil_div(count, threads)) {
      chain += ceil_log2(threads);
      if (count <= threads) break;
    }
    return chain;
  };
  one_each.set_launcher(Op::Sum, [](auto* input, std::size_t n, auto* result, void* scratch, std::size_t scratch_size,
                                    int block, int grid, cudaStream_t stream) {
    return shared_tree_steps::reduce_one_each(input, n, result, scratch, scratch_size, block, grid, stream);
  });

  Variant strided = tree;
  strided.name = "strided";
  strided.summary = "04 with a strided-index tree in shared memory (bank conflicts), to compare with sequential "
                    "addressing";
  strided.set_launcher(Op::Sum, [](auto* input, std::size_t n, auto* result, void* scratch, std::size_t scratch_size,
                                   int block, int grid, cudaStream_t stream) {
    return shared_tree_pitfalls::reduce_strided(input, n, result, scratch, scratch_size, block, grid, stream);
  });
  return {tree.chapter, {tree, one_each, strided}};
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tour and the tests link this file without its main()
int main(int argc, char** argv) { return reduction::run_chapter(reduction::shared_tree_chapter(), argc, argv); }
#endif
