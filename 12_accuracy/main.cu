// 12_accuracy as a program. The kernel is the copy unit (compensated_sum.cuh/.cu); this
// file tells the common harness what it needs to run it: names, the launch shapes it
// accepts, and the error bound of its compensated summation, in the harness's terms. The
// harness does the rest: command line, input, timing, check.
#include <cmath>
#include <limits>
#include <type_traits>

#include "compensated_sum.cuh"
#include "harness.h"
#include "launch_rules.h"

namespace reduction {

namespace {

// The two pieces of 12's chains (see below): the elements one thread adds to its pair,
// one after the other, and the merges of pairs after that.
std::size_t elements_per_thread(std::size_t n, int block, int grid) {
  const std::size_t threads = std::size_t(grid) * block;
  return ceil_div(n, threads) + 4 + 2 * ceil_div(3, threads);
}

std::size_t merges(int block, int grid) {
  const int lanes = block < 32 ? block : 32;  // the last block's warp 0
  return shuffle_tree_depth(block) + ceil_div(grid, lanes) + ceil_log2(std::size_t(lanes));
}

}  // namespace

// How many additions an input value passes through in 12's kernel, along its two paths
// (tests/test_accuracy.cu uses these too):
//
//   sum chain:           the running sums. In thread_reduce a thread adds its m elements
//                        to one pair one after the other, so an element meets at most m
//                        TwoSums there: m <= ceil(n / threads) + 4 + 2 * ceil(3 / threads)
//                        (whole vectors: at most ceil(vectors / threads) of them per
//                        thread, 4 or 2 elements each, and vectors <= n / lanes; the head
//                        and the tail hold fewer than 4 elements each). Then M merges:
//                        the block's shuffle tree, the loop of the last block's warp 0
//                        over ceil(G / 32) partials per lane, and that warp's tree:
//                        M = shuffle_tree_depth(B) + ceil(G / 32) + 5 (fewer lanes when
//                        B < 32). So the sum chain is m + M.
//   compensation chain:  the compensations. An error born in a thread's chain enters its
//                        compensation with one addition and meets at most m - 1 more
//                        there; at each merge a compensation passes two additions
//                        ((c1 + c2) + error). So the compensation chain is m + 2M.
// (Additions of a zero, as when a lane merges with a missing one, are exact and would not
// need counting; counting them keeps the formulas simple and the bound safe.)
std::size_t compensated_sum_chain(std::size_t n, int block, int grid) {
  return elements_per_thread(n, block, grid) + merges(block, grid);
}

std::size_t compensation_chain(std::size_t n, int block, int grid) {
  return elements_per_thread(n, block, grid) + 2 * merges(block, grid);
}

namespace {

// gamma(L) = L u / (1 - L u): the bound on the relative error that L additions in a row
// can build up (Higham, "Accuracy and Stability of Numerical Algorithms", section 3.1);
// infinite when L u >= 1.
double gamma_of(std::size_t chain, double u) {
  const double lu = static_cast<double>(chain) * u;
  return lu < 1.0 ? lu / (1.0 - lu) : std::numeric_limits<double>::infinity();
}

// The compensated bound, as a chain length for the harness (common/reference.h), which
// allows  gamma(L) * sum|x| + u * |S|  for a sum S.
//
// The derivation. Every TwoSum is exact: the pair's sum s and the errors e_k of all the
// TwoSums of the run add up to S exactly, S = s + sum(e_k). Each |e_k| <= u |a_k + b_k|,
// the exact sum of the two operands that TwoSum rounded, and a value passes through at
// most Ls (the sum chain) TwoSums, so sum|e_k| <= gamma(Ls) sum|x| (the step behind
// Higham's bound for a plain sum). The compensation c is a plain float sum of those e_k
// along chains of at most Lc (the compensation chain) additions, so
// |c - sum(e_k)| <= gamma(Lc) sum|e_k|. The result is s + c rounded once:
// |result - (s + c)| <= u |s + c|. Together:
//
//     |result - S| <= u |S| + (1 + u) gamma(Lc) gamma(Ls) sum|x|
//
// (Ogita, Rump and Oishi, "Accurate Sum and Dot Product", SIAM J. Sci. Comput., 2005,
// prove this form for their Sum2). The first term is one rounding of the result; the
// second is about Lc Ls u^2 sum|x|, smaller than u sum|x| by the factor Lc Ls u. So the
// harness's L is the smallest with gamma(L) >= (1 + u) gamma(Lc) gamma(Ls): 1 for every
// launch shape with Lc Ls u < 1 (all but absurd ones such as --grid 1 --block 1 on
// millions of elements). L is computed with float's u = 2^-24; for double the same L is
// safe (double needs L >= Lc Ls 2^-53, far less). int sums are exact and use no L.
std::size_t harness_chain_length(std::size_t n, int block, int grid) {
  constexpr double u = 0x1.0p-24;
  const double g = (1 + u) * gamma_of(compensation_chain(n, block, grid), u) *
                   gamma_of(compensated_sum_chain(n, block, grid), u);
  if (!std::isfinite(g)) return std::size_t(1) << 24;  // float: L u = 1, reported as "no bound"
  // gamma(L) >= g  <=>  L u >= g / (1 + g).
  const double needed = std::ceil(g / ((1 + g) * u));
  return needed < 1 ? 1 : static_cast<std::size_t>(needed);
}

}  // namespace

Chapter accuracy_chapter() {
  Variant compensated;
  compensated.chapter = "12_accuracy";
  compensated.summary = "09's single pass with compensated (TwoSum) float and double sums: as accurate as a sum in "
                        "twice the precision (one rounding unless the terms cancel); bitwise the same on every run";
  compensated.default_block = compensated_sum::kDefaultBlock;
  compensated.check_shape = [](int block, int /*grid*/) { return check_block_range(block); };
  compensated.default_grid = compensated_sum::default_grid;
  compensated.default_shape = compensated_sum::default_shape;  // the block too depends on n
  // The ticket counter and one pair per block; the harness zeroes it once.
  compensated.scratch_bytes = compensated_sum::scratch_bytes;
  compensated.chain_length = harness_chain_length;
  compensated.set_launcher(Op::Sum, [](auto* input, std::size_t n, auto* result, void* scratch,
                                       std::size_t scratch_size, int block, int grid, cudaStream_t stream) {
    return compensated_sum::reduce<std::remove_pointer_t<decltype(result)>>(input, n, result, scratch, scratch_size,
                                                                           block, grid, stream);
  });
  return {compensated.chapter, {compensated}};
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tour and the tests link this file without its main()
int main(int argc, char** argv) { return reduction::run_chapter(reduction::accuracy_chapter(), argc, argv); }
#endif
