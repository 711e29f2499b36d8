// 07_warp_shuffle: the chapter as a program. Everything but the kernel lives in the
// common harness: the command line, the input, timing, checking and the report.
#include "describe.cuh"
#include "harness.h"
#include "warp_shuffle.cuh"

int main(int argc, char** argv) { return reduction::run_chapter(reduction::make_chapter<WarpShuffle>(), argc, argv); }
