// all_chapters.cpp: every GPU chapter in reading order, for the tour and the tests.
// Each function is defined in its chapter's main.cu. A new chapter adds one line here
// and its folder to REDUCTION_GPU_CHAPTERS in the top-level CMakeLists.txt.
#include "all_chapters.h"

namespace reduction {

Chapter global_naive_chapter();     // 01_global_naive/main.cu
Chapter neighbored_less_chapter();  // 02_neighbored_less/main.cu
Chapter interleaved_chapter();      // 03_interleaved/main.cu
Chapter shared_tree_chapter();      // 04_shared_tree/main.cu
Chapter pow2ceil_chapter();         // 05_pow2ceil/main.cu
Chapter warp_unroll_chapter();      // 06_warp_unroll/main.cu
Chapter warp_shuffle_chapter();     // 07_warp_shuffle/main.cu
Chapter vectorized_chapter();       // 08_vectorized/main.cu
Chapter single_pass_chapter();      // 09_single_pass/main.cu
Chapter cub_chapter();              // 10_cub/main.cu
Chapter accuracy_chapter();         // 12_accuracy/main.cu

std::vector<Chapter> all_gpu_chapters() {
  return {global_naive_chapter(), neighbored_less_chapter(), interleaved_chapter(), shared_tree_chapter(),
          pow2ceil_chapter(),     warp_unroll_chapter(),     warp_shuffle_chapter(), vectorized_chapter(),
          single_pass_chapter(),  cub_chapter(),             accuracy_chapter()};
}

}  // namespace reduction
