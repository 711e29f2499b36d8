// 04_shared_tree: the chapter as a program. Everything but the kernel lives in the
// common harness: the command line, the input, timing, checking and the report.
#include "describe.cuh"
#include "harness.h"
#include "shared_tree.cuh"

int main(int argc, char** argv) { return reduction::run_chapter(reduction::make_chapter<SharedTree, SharedTreeStrided>(), argc, argv); }
