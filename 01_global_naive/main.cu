// 01_global_naive as a program. The kernel is the copy unit (global_naive.cuh/.cu) and
// the two pitfalls are in pitfalls.cu; this file tells the common harness what it
// needs to run them: names, the launch shapes they accept, and the error bound of
// their summation order. The harness does the rest: command line, input (restored
// before every run, since the kernels overwrite it), timing, check.
#include <algorithm>
#include <string>

#include "global_naive.cuh"
#include "harness.h"
#include "launch_rules.h"

namespace global_naive_pitfalls {  // pitfalls.cu
template <typename T>
cudaError_t reduce_race(T* data, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block, int grid,
                        cudaStream_t stream);
template <typename T>
cudaError_t reduce_early_return(T* data, std::size_t n, T* result, void* scratch, std::size_t scratch_size, int block,
                                int grid, cudaStream_t stream);
}  // namespace global_naive_pitfalls

namespace reduction {

Chapter global_naive_chapter() {
  Variant naive;
  naive.chapter = "01_global_naive";
  naive.summary = "one thread per element; each block adds neighbouring pairs in place in global memory, "
                  "threads picked with tid % (2*stride)";
  naive.in_place = true;  // the input array is overwritten with partial sums
  naive.default_block = global_naive::kDefaultBlock;
  // block: any size from 2 to 1024 (the tree takes slices of any length; a block of 1
  // would never shrink the values). grid: derived from n (one block per B elements), so
  // any --grid is refused.
  naive.check_shape = [](int block, int grid) {
    if (grid != 0) return std::string("this chapter launches one block per B elements: --grid does not apply");
    if (block == 1)
      return std::string("--block 1 cannot be run: each pass must shrink the values, so a block needs 2 to 1024 "
                         "threads");
    return check_block_range(block);
  };
  naive.check_n = check_blocks_per_element;  // more than 2^31 - 1 blocks cannot be launched
  naive.default_grid = global_naive::default_grid;
  naive.scratch_bytes = global_naive::scratch_bytes;
  // A block's tree over len values (any len, a power of two or not: the stride doubles
  // while it is below len) takes ceil(log2(len)) steps, and each step adds at
  // most once to the sum a given value is part of; then the value travels on inside
  // its block's partial through the next pass's tree.
  naive.chain_length = [](std::size_t n, int block, int /*grid*/) {
    const std::size_t threads = block > 0 ? block : global_naive::kDefaultBlock;
    std::size_t chain = 0;
    for (std::size_t count = n;; count = ceil_div(count, threads)) {
      chain += ceil_log2(std::min(count, threads));
      if (count <= threads) break;
    }
    return chain;
  };
  naive.set_launcher(Op::Sum, [](auto* data, std::size_t n, auto* result, void* scratch, std::size_t scratch_size,
                                 int block, int grid, cudaStream_t stream) {
    return global_naive::reduce(data, n, result, scratch, scratch_size, block, grid, stream);
  });

  Variant race = naive;
  race.name = "race";
  race.summary = "WRONG ON PURPOSE: the % filter removed, so threads read values other threads are overwriting "
                 "in the same step (a data race; the sum may or may not come out right)";
  race.set_launcher(Op::Sum, [](auto* data, std::size_t n, auto* result, void* scratch, std::size_t scratch_size,
                                int block, int grid, cudaStream_t stream) {
    return global_naive_pitfalls::reduce_race(data, n, result, scratch, scratch_size, block, grid, stream);
  });

  Variant early_return = naive;
  early_return.name = "early-return";
  early_return.summary = "WRONG ON PURPOSE: returns before __syncthreads() when idx >= n and reads partners past "
                         "the end (undefined behaviour unless n is a multiple of the block size; run it under "
                         "compute-sanitizer)";
  early_return.set_launcher(Op::Sum, [](auto* data, std::size_t n, auto* result, void* scratch,
                                        std::size_t scratch_size, int block, int grid, cudaStream_t stream) {
    return global_naive_pitfalls::reduce_early_return(data, n, result, scratch, scratch_size, block, grid, stream);
  });
  return {naive.chapter, {naive, race, early_return}};
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tour and the tests link this file without its main()
int main(int argc, char** argv) { return reduction::run_chapter(reduction::global_naive_chapter(), argc, argv); }
#endif
