// 11_multi_gpu: one array split into contiguous shards over K GPUs. Each GPU reduces its
// shard with chapter 09's single-pass kernel (repeated in multi_gpu.cu), then NCCL's
// all-gather copies the K partial results to every GPU, where one thread combines them
// with the chapter's own operator in rank order: every GPU ends up with the same total, and
// a NaN in any shard makes max and min NaN as in NumPy (ncclAllReduce's ncclMax and ncclMin
// use fmaxf and fminf, which drop a NaN). Every wait on NCCL has a deadline: the
// communicators are non-blocking and the host polls them (and the streams) until the work
// is done, NCCL reports an error, or the timeout passes; a dead peer never hangs the caller.
//
// Use it in your code (one process, k GPUs; shard[d]: count[d] floats on GPU d):
//   #include "multi_gpu.cuh"
//   #include <vector>
//   std::vector<ncclComm_t> comms(k);
//   std::vector<multi_gpu::Part<float>> parts(k);
//   multi_gpu::Status status = multi_gpu::init_local(comms.data(), k, 120.0);  // give up after 120 s
//   for (int d = 0; d < k && status.ok(); ++d) status = multi_gpu::prepare(d, k, count[d], &parts[d]);
//   if (status.ok())  // 09 on each GPU, then the all-gather, then each GPU combines the k totals
//     status = multi_gpu::reduce_all<float, multi_gpu::Sum>(shard.data(), count.data(), parts.data(),
//                                                           comms.data(), k, 120.0);
//   if (status.ok()) status = multi_gpu::wait(parts.data(), comms.data(), k, 120.0);
//   float sum = 0;  // every GPU holds the total now: read GPU 0's
//   if (status.ok()) status = multi_gpu::read_total(parts[0], &sum);
//   multi_gpu::Status released = multi_gpu::release(parts.data(), comms.data(), k, 120.0, status.ok());
//   if (status.ok()) status = released;  // on failure, status.message() says which step and why
//
// Compile: nvcc -std=c++17 -c multi_gpu.cu, link with -lnccl (int, float and double with
// Sum, Max and Min are built in). One process per GPU (MPI): init_rank and reduce below.
// --use_fast_math: int and double come out as without it; float adds and compares take subnormals as 0 (-ftz).
// Streams: each Part has its own stream and scratch, and serves one reduction at a time.
// Another element type, e.g. long long: add `MULTI_GPU_ADD_TYPE(long long, longlong2)` at the end of multi_gpu.cu.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <string>

namespace multi_gpu {

// ---------------------------------------------------------------- one GPU: 09

// Threads per block at large n (default_shape picks fewer at small n, and 768 where an SM holds 1536).
constexpr int kDefaultBlock = 1024;

// The operators (09's, defined in multi_gpu.cu; they also combine the GPUs' totals): sum;
// max and min, which propagate NaN as numpy does, on one GPU and across GPUs.
struct Sum;
struct Max;
struct Min;

// 09's launch shape, grid and scratch for n elements on the current device.
cudaError_t default_shape(std::size_t n, int* block, int* grid);
// default_shape's block for n elements on sm_count SMs of threads_per_sm threads (no device needed).
int default_block(std::size_t n, int sm_count, int threads_per_sm);
cudaError_t default_grid(std::size_t n, int block, int* grid);
std::size_t scratch_bytes(std::size_t n, int block, int grid);

// 09's launcher: input[0, n) reduced with Op to *result (device memory), one launch on
// `stream`; scratch (scratch_bytes of it) zeroed once before the first call. A scratch
// smaller than scratch_bytes(n, block, grid) is refused with cudaErrorInvalidValue, before any launch.
template <typename T, typename Op>
cudaError_t reduce_shard(const T* input, std::size_t n, T* result, void* scratch, std::size_t scratch_bytes,
                         int block, int grid, cudaStream_t stream = 0);

// ---------------------------------------------------------------- shards

// Where one GPU's shard lies in the whole array: elements [begin, begin + count).
struct Shard {
  std::size_t begin = 0, count = 0;
};

// n split into `parts` contiguous shards whose sizes differ by at most one element.
Shard shard_of(std::size_t n, int parts, int index);

// ---------------------------------------------------------------- errors

// The first thing that went wrong in a step: a CUDA error, an NCCL error (with NCCL's
// own last message), or a wait that ran past its deadline. No exceptions: every
// function returns one, like CUDA's and NCCL's calls.
struct Status {
  cudaError_t cuda = cudaSuccess;
  ncclResult_t nccl = ncclSuccess;
  bool timed_out = false;
  std::string step;    // what was being done ("the all-reduce", ...)
  std::string detail;  // NCCL's last error text, if any
  double timeout_s = 0;
  bool ok() const { return cuda == cudaSuccess && nccl == ncclSuccess && !timed_out; }
  std::string message() const;
};

// ---------------------------------------------------------------- one GPU's part of a run

// What one GPU holds besides its shard: its own non-blocking stream (every call below
// enqueues there), 09's launch shape and scratch for the shard, room for every rank's
// total (the all-gather's output) and the combined total. A non-blocking stream does not wait
// for the default stream: let the shards' copies finish (cudaDeviceSynchronize) before reduce_all.
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

// Sets up *part on `device`, one of `ranks` GPUs, for a shard of `count` elements: 09's default
// shape, or the block and grid given (either may be 0: its default). Returns when scratch is zeroed.
template <typename T>
Status prepare(int device, int ranks, std::size_t count, Part<T>* part, int block = 0, int grid = 0);

// Copies the part's total to *value (waits for its stream: call it after wait()).
template <typename T>
Status read_total(const Part<T>& part, T* value);

// ---------------------------------------------------------------- communicators

// One process, GPUs 0..k-1: k non-blocking communicators of one clique, created in one
// NCCL group; waits (at most timeout_s) until they are ready.
Status init_local(ncclComm_t* comms, int k, double timeout_s);

// One rank of a job of `ranks` (one process per GPU, e.g. under MPI), on the current
// device, from the job's ncclUniqueId (made by one rank with ncclGetUniqueId and sent to
// the others); waits at most timeout_s.
Status init_rank(ncclComm_t* comm, int ranks, const ncclUniqueId& id, int rank, double timeout_s);

// One look at the communicators: an NCCL error if one reports it; *in_progress: a call is still being issued.
Status poll(const ncclComm_t* comms, int k, bool* in_progress);

// Waits until no communicator has a call in progress (its work is on the streams), an error, or timeout_s.
Status wait_enqueued(const ncclComm_t* comms, int k, double timeout_s);

// Waits until every part's stream is idle and the communicators are done, polling both:
// an NCCL kernel that waits for a dead peer ends in a timeout, not a hang.
template <typename T>
Status wait(const Part<T>* parts, const ncclComm_t* comms, int k, double timeout_s);

// Ends the communicators cleanly: ncclCommFinalize (waited for, at most timeout_s), then ncclCommDestroy; on
// failure they are aborted.
Status finish(ncclComm_t* comms, int k, double timeout_s);

// Ends the communicators at once: ncclCommAbort, which also stops an NCCL kernel still
// waiting for a peer. The way out after an error.
void abort(ncclComm_t* comms, int k);

// Ends the communicators (finish when `clean`, else abort), then frees the parts. Call
// it once, whatever happened before.
template <typename T>
Status release(Part<T>* parts, ncclComm_t* comms, int k, double timeout_s, bool clean);

// ---------------------------------------------------------------- the reduction

// One GPU's step, on part.stream: 09's kernel reduces shard[0, count) into part.total, ncclAllGather copies
// every rank's total into part.totals, and once NCCL has enqueued that (at most timeout_s) one thread combines
// them with Op in rank order into part.total. A communicator of another size than part.ranks is refused
// (ncclInvalidArgument). One process per GPU calls this; returns before the GPU is done (wait()).
template <typename T, typename Op>
Status reduce(const T* shard, std::size_t count, const Part<T>& part, ncclComm_t comm, double timeout_s);

// The same for the k GPUs of one process, the all-gathers inside one ncclGroupStart/End: one
// thread issues k ranks' calls, and NCCL must see them together to start them.
template <typename T, typename Op>
Status reduce_all(const T* const* shards, const std::size_t* counts, const Part<T>* parts, const ncclComm_t* comms,
                  int k, double timeout_s);

}  // namespace multi_gpu
