// 17 on several GPUs: each GPU sums its shard into an exact State with 17's reduce_state,
// NCCL's all-gather gives every GPU every GPU's State, and each GPU rounds them once with
// round_states. States add exactly, in any order, so every GPU holds the bits 17 gives on
// one GPU for the whole array: on any number of GPUs, however the array is split (uneven
// shards and empty ones too). Built on 17's copy unit (reproducible_sum.cuh + .cu) and 11's
// (multi_gpu.cuh + .cu, for its Status and shard_of; 09's unit beside it), used as they are.
//
// Use (one process, k GPUs; shard[d]: count[d] floats on GPU d; comms: from ncclCommInitAll):
//   std::vector<reproducible_on_gpus::Part> parts(k);
//   multi_gpu::Status status;
//   for (int d = 0; d < k && status.ok(); ++d)
//     status.cuda = reproducible_on_gpus::prepare(d, k, count[d], &parts[d]);
//   if (status.ok()) status = reproducible_on_gpus::sum_all(shard.data(), count.data(), parts.data(), comms.data(), k);
//   float sum = 0;  // every GPU holds the same bits: read GPU 0's
//   if (status.ok()) status.cuda = reproducible_on_gpus::read_total(parts[0], &sum);
//   for (int d = 0; d < k; ++d) reproducible_on_gpus::release(&parts[d]);
//
// Every call leaves the caller's current device as it found it. --use_fast_math: as 17 (the same bits).
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>

#include "multi_gpu.cuh"
#include "reproducible_sum.cuh"

namespace reproducible_on_gpus {

// One GPU's: its own non-blocking stream, 17's launch shape and scratch for its shard, room for
// every rank's State (the all-gather's output; rank r's at states[r]) and the rounded total.
struct Part {
  int device = 0, ranks = 0;
  cudaStream_t stream = nullptr;
  int block = 0, grid = 0;
  void* scratch = nullptr;
  std::size_t scratch_bytes = 0;
  reproducible_sum::State* states = nullptr;
  float* total = nullptr;
};

// Sets up *part on `device`, one of `ranks` GPUs, for a shard of `count` floats (17's default
// shape, or the block and grid given); returns when the scratch is zeroed.
cudaError_t prepare(int device, int ranks, std::size_t count, Part* part, int block = 0, int grid = 0);
// read_total copies the part's total to *value (waits for its stream); release frees what prepare made.
cudaError_t read_total(const Part& part, float* value);
cudaError_t release(Part* part);

// As 11's gather_all and combine_all, for the k GPUs of one process (blocking communicators):
//   gather_all  on each GPU's stream, reduce_state writes the shard's State into states[rank],
//               then an in-place ncclAllGather fills every other rank's (one NCCL group);
//   round_all   on each GPU's stream, round_states adds the `ranks` States and rounds once.
// sum_all does both. All return before the GPUs are done (read_total waits).
multi_gpu::Status gather_all(const float* const* shards, const std::size_t* counts, const Part* parts,
                             const ncclComm_t* comms, int k);
cudaError_t round_all(const Part* parts, int k);
multi_gpu::Status sum_all(const float* const* shards, const std::size_t* counts, const Part* parts,
                          const ncclComm_t* comms, int k);

}  // namespace reproducible_on_gpus
