// 01_global_naive: the chapter as a program (see README.md). Everything but the kernels
// lives in the common harness: the command line, the input, timing, checking, the report.
#include "describe.cuh"
#include "global_naive.cuh"
#include "harness.h"

int main(int argc, char** argv) {
  return reduction::run_chapter(
      reduction::make_chapter<GlobalNaive, GlobalNaiveRace, GlobalNaiveEarlyReturn>(), argc, argv);
}
