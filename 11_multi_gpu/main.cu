// 11_multi_gpu: one process drives every local GPU (see README.md). The kernel and the
// NCCL calls are the copy unit (multi_gpu.cuh/.cu); the program around them (the command
// line, each GPU's input, the CPU reference, timing, the check and the report) is the
// harness's, in harness/multi_gpu_harness.cu.
//
//   11_multi_gpu --gpus 2 --n 2^30 --type float
//   11_multi_gpu --n 2^32 --op max --json
#include "multi_gpu_harness.h"

int main(int argc, char** argv) { return reduction::multi_gpu_harness::run_one_process(argc, argv); }
