// 11_multi_gpu_mpi: one process per GPU, started by MPI (see README.md), the form that
// spans nodes. The program (placement of ranks on GPUs, the collective checks, NCCL's
// unique id over MPI, what a failing rank does) is in harness/multi_gpu_mpi.cpp; the
// kernel and the NCCL calls are the copy unit (multi_gpu.cuh/.cu).
//
//   mpirun -np 2 11_multi_gpu_mpi --n 2^30 --type float
#include "multi_gpu_harness.h"

int main(int argc, char** argv) { return reduction::multi_gpu_harness::run_mpi(argc, argv); }
