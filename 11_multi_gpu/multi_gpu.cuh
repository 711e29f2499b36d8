// 11_multi_gpu: one array split into contiguous shards over k GPUs. Each GPU reduces its
// shard with chapter 09's copy unit (single_pass.cuh + single_pass.cu, here unchanged),
// then NCCL's all-gather copies the k totals to every GPU, where one thread combines them
// with 09's operator in rank order: every GPU ends up with the same total, and a NaN in any
// shard makes max and min NaN as in NumPy. What changes since 09 is at the top of multi_gpu.cu.
//
// Use it in your code (one process, k GPUs; shard[d]: count[d] floats on GPU d):
//   #include "multi_gpu.cuh"
//   #include <vector>
//   std::vector<ncclComm_t> comms(k);
//   std::vector<multi_gpu::Part<float>> parts(k);
//   multi_gpu::Status status{cudaSuccess, ncclCommInitAll(comms.data(), k, nullptr)};  // GPUs 0..k-1
//   for (int d = 0; d < k && status.ok(); ++d) status.cuda = multi_gpu::prepare(d, k, count[d], &parts[d]);
//   if (status.ok())  // 09 on each GPU, the all-gather, then each GPU combines the k totals
//     status = multi_gpu::reduce_all<float, single_pass::Sum>(shard.data(), count.data(), parts.data(),
//                                                             comms.data(), k);
//   float sum = 0;  // every GPU holds the total: read GPU 0's (read_total waits for its stream)
//   if (status.ok()) status.cuda = multi_gpu::read_total(parts[0], &sum);
//   for (int d = 0; d < k; ++d) multi_gpu::release(&parts[d]);
//   for (int d = 0; d < k && comms[d]; ++d) ncclCommDestroy(comms[d]);
//
// Compile: nvcc -std=c++17 -c single_pass.cu multi_gpu.cu (the four files of this folder), link with -lnccl
// (int, float and double with 09's Sum, Max and Min are built in). Every call leaves the caller's current
// device as it found it. One process per GPU (MPI): ncclCommInitRank, prepare(its GPU, ranks, ...), reduce_all
// with k = 1.
// --use_fast_math: as 09 (int and double as without it; float adds and compares take subnormals as 0).
// Streams: each Part has its own stream and scratch, and serves one reduction at a time.
// Another element type, e.g. long long: add `SINGLE_PASS_INSTANTIATE(long long)` at the end of single_pass.cu and `MULTI_GPU_INSTANTIATE(long long)` at the end of multi_gpu.cu.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <string>

#include "single_pass.cuh"

namespace multi_gpu {

// Where one GPU's shard lies in the whole array: elements [begin, begin + count).
struct Shard { std::size_t begin = 0, count = 0; };
// n split into `parts` contiguous shards whose sizes differ by at most one element.
Shard shard_of(std::size_t n, int parts, int index);

// The first thing that went wrong: a CUDA error or an NCCL error (no exceptions, as in CUDA and NCCL).
struct Status {
  cudaError_t cuda = cudaSuccess;
  ncclResult_t nccl = ncclSuccess;
  bool ok() const { return cuda == cudaSuccess && nccl == ncclSuccess; }
  std::string message() const;  // "" when ok
};

// What one GPU holds besides its shard: its own non-blocking stream (every call below enqueues there; it
// does not wait for the default stream: let the shard's copy finish first), 09's launch shape and scratch
// for the shard, room for every rank's total (the all-gather's output) and the combined total.
template <typename T>
struct Part {
  int device = 0, ranks = 0;
  cudaStream_t stream = nullptr;
  int block = 0, grid = 0;
  void* scratch = nullptr;
  std::size_t scratch_bytes = 0;
  T* totals = nullptr;  // `ranks` elements: rank r's total at totals[r]
  T* total = nullptr;
};

// Sets up *part on `device`, one of `ranks` GPUs, for a shard of `count` elements: 09's default shape, or
// the block and grid given (either may be 0: its default). Returns when scratch is zeroed.
template <typename T>
cudaError_t prepare(int device, int ranks, std::size_t count, Part<T>* part, int block = 0, int grid = 0);
// read_total copies the part's total to *value (waits for the part's stream); release frees what prepare made.
template <typename T>
cudaError_t read_total(const Part<T>& part, T* value);
template <typename T>
cudaError_t release(Part<T>* part);

// The reduction over the k GPUs of one process, parts[d] with communicator comms[d], in two steps:
//   gather_all   on each GPU's stream, 09 reduces shards[d][0, counts[d]) into parts[d].total, then
//                ncclAllGather copies every rank's total into parts[d].totals (one NCCL group: one thread
//                issues k ranks' calls). A communicator of another size than parts[d].ranks is refused.
//   combine_all  on each GPU's stream, one thread combines parts[d].totals with Op in rank order.
// reduce_all does both; all return before the GPUs are done (read_total waits). With non-blocking
// communicators, wait until ncclCommGetAsyncError no longer says ncclInProgress before combine_all.
template <typename T, typename Op>
Status gather_all(const T* const* shards, const std::size_t* counts, const Part<T>* parts, const ncclComm_t* comms,
                  int k);
template <typename T, typename Op>
cudaError_t combine_all(const Part<T>* parts, int k);
template <typename T, typename Op>
Status reduce_all(const T* const* shards, const std::size_t* counts, const Part<T>* parts, const ncclComm_t* comms,
                  int k);

}  // namespace multi_gpu
