// 06_warp_unroll: the chapter as a program (see README.md). --variant volatile runs
// the pre-Volta warp-synchronous tail, which is kept only to show why it is wrong.
#include "describe.cuh"
#include "harness.h"
#include "warp_unroll.cuh"

int main(int argc, char** argv) {
  return reduction::run_chapter(reduction::make_chapter<WarpUnroll, WarpUnrollVolatile>(), argc, argv);
}
