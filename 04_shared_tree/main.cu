// 04_shared_tree as a program. The kernel is the copy unit (shared_tree.cuh/.cu) and
// the pitfall is in pitfalls.cu; this file tells the common harness what it needs to
// run them: names, the launch shapes they accept, and the error bound of their
// summation order. The harness does the rest: command line, input, timing, check.
#include "harness.h"
#include "launch_rules.h"
#include "shared_tree.cuh"

namespace shared_tree_pitfalls {  // pitfalls.cu
template <typename T>
cudaError_t reduce_strided(const T* input, std::size_t n, T* result, void* scratch, int block, int grid,
                           cudaStream_t stream);
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
  tree.set_launcher(Op::Sum, [](auto* input, std::size_t n, auto* result, void* scratch, int block, int grid,
                                cudaStream_t stream) {
    return shared_tree::reduce(input, n, result, scratch, block, grid, stream);
  });

  Variant strided = tree;
  strided.name = "strided";
  strided.summary = "04 with a strided-index tree in shared memory (bank conflicts), to compare with sequential "
                    "addressing";
  strided.set_launcher(Op::Sum, [](auto* input, std::size_t n, auto* result, void* scratch, int block, int grid,
                                   cudaStream_t stream) {
    return shared_tree_pitfalls::reduce_strided(input, n, result, scratch, block, grid, stream);
  });
  return {tree.chapter, {tree, strided}};
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tour and the tests link this file without its main()
int main(int argc, char** argv) { return reduction::run_chapter(reduction::shared_tree_chapter(), argc, argv); }
#endif
