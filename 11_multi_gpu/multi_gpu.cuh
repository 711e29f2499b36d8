// 11_multi_gpu: one array split into contiguous shards over K GPUs. Each GPU reduces
// its shard with chapter 09's single-pass launcher; NCCL's all-reduce then combines the
// K partial results on the GPUs themselves, so every GPU ends up holding the total.
//
// Two programs share this code:
//   11_multi_gpu      one process drives all local GPUs (ncclCommInitAll)
//   11_multi_gpu_mpi  one process per GPU, started by mpirun (ncclCommInitRank after
//                     rank 0's NCCL id is broadcast with MPI): the form that spans nodes
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli.h"
#include "device_buffer.h"
#include "device_info.h"
#include "l2_flush.h"
#include "reference.h"
#include "timer.h"

#define NCCL_CHECK(call) ::multi_gpu::nccl_check((call), #call, __FILE__, __LINE__)

namespace multi_gpu {

using reduction::DeviceBuffer;
using reduction::Op;
using reduction::Options;
using reduction::Reference;

void nccl_check(ncclResult_t status, const char* call, const char* file, int line);

// Where one GPU's shard lies in the whole array: elements [begin, begin + count).
struct Shard {
  std::size_t begin = 0, count = 0;
};

// n split into `parts` contiguous shards whose sizes differ by at most one element.
Shard shard_of(std::size_t n, int parts, int index);

// Everything one GPU holds for a run.
template <typename T>
struct GpuState {
  int device = 0;
  Shard shard;
  int block = 0, grid = 0;
  DeviceBuffer<T> data, partial, total;
  DeviceBuffer<unsigned char> scratch;
  std::unique_ptr<reduction::L2Flusher> flush;
  cudaStream_t stream = nullptr;
  std::unique_ptr<reduction::GpuTimer> timer;
  ~GpuState();
};

// Device memory one GPU needs for a shard of `count` elements (for the memory check).
std::size_t bytes_needed(std::size_t count, std::size_t element_bytes, const reduction::DeviceInfo& device);

// Allocates on `device` and fills the shard: generated there from the counter-based
// generator (element i of the whole array is random_value(seed, i, n)), or copied from
// the host input when the reader gave --input.
template <typename T>
void setup(GpuState<T>& gpu, int device, Shard shard, std::size_t n, const Options& o, const std::vector<T>* host);

// The reference of one shard, computed on all host cores from the same generator (or
// from the host input); combine() the shards' references for the whole array.
template <typename T>
Reference shard_reference(Shard shard, std::size_t n, const Options& o, const std::vector<T>* host);

// One run over the local GPUs: each reduces its shard (09's launcher) and the
// all-reduce combines the partials into `total` on every GPU. Returns the time from the
// first GPU's start to the last GPU's end, in ms (CUDA events on each GPU).
template <typename T>
double run_once(std::vector<GpuState<T>>& gpus, const std::vector<ncclComm_t>& comms, Op op, bool flush);

// Reads `total` back from every local GPU and checks each against the reference.
template <typename T>
reduction::Verdict check_totals(std::vector<GpuState<T>>& gpus, const Reference& ref, std::size_t n, int k,
                                std::string* result_text);

// The additions any input value passes through: 09's chain over the largest shard,
// plus at most k - 1 additions in the all-reduce.
std::size_t chain_length(std::size_t n, int k, int block, int grid);

// The report (human or --json), printed once.
void print_report(const Options& o, std::size_t n, int k, const std::string& mode, const Reference& ref,
                  const reduction::Verdict& verdict, const std::string& result_text, double ms,
                  const std::vector<reduction::DeviceInfo>& devices);

// The command line both programs accept (--gpus only for the single-process one).
reduction::CliSpec cli_spec(const std::string& program, bool gpus_flag);

}  // namespace multi_gpu
