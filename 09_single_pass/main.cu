// 09_single_pass: the chapter as a program. Everything but the kernel lives in the
// common harness: the command line (here with --op), the input, timing, checking and
// the report.
#include "describe.cuh"
#include "harness.h"
#include "single_pass.cuh"

int main(int argc, char** argv) { return reduction::run_chapter(reduction::make_chapter<SinglePass>(), argc, argv); }
