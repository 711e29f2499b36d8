// 10_cub: the chapter as a program (see README.md).
#include "cub_reduce.cuh"
#include "describe.cuh"
#include "harness.h"

int main(int argc, char** argv) {
  return reduction::run_chapter(reduction::make_chapter<CubReduce, ThrustReduce>(), argc, argv);
}
