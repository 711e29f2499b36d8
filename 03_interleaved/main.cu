// 03_interleaved: the chapter as a program (see README.md). Everything but the kernel
// lives in the common harness: the command line, the input, timing, checking, the report.
#include "describe.cuh"
#include "harness.h"
#include "interleaved.cuh"

int main(int argc, char** argv) { return reduction::run_chapter(reduction::make_chapter<Interleaved>(), argc, argv); }
