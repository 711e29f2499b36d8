// 11_multi_gpu: one array split into contiguous shards over K GPUs. Each GPU reduces its
// shard with chapter 09's single-pass kernel (repeated unchanged in multi_gpu.cu), then
// NCCL's all-reduce combines the K partial results on the GPUs themselves, so every GPU
// ends up holding the total. Every wait on NCCL has a deadline: the communicators are
// non-blocking, and the host polls them (and the GPUs' streams) until the work is done,
// NCCL reports an error, or the timeout passes; a dead peer never hangs the caller.
//
// Use it in your code (one process, k GPUs; shard[d]: count[d] floats on GPU d):
//   #include "multi_gpu.cuh"
//   std::vector<ncclComm_t> comms(k);
//   std::vector<multi_gpu::Part<float>> parts(k);
//   multi_gpu::Status status = multi_gpu::init_local(comms.data(), k, 120.0);  // give up after 120 s
//   for (int d = 0; d < k && status.ok(); ++d) status = multi_gpu::prepare(d, count[d], &parts[d]);
//   if (status.ok())
//     status = multi_gpu::reduce_all<float, multi_gpu::Sum>(shard.data(), count.data(), parts.data(), comms.data(), k);
//   if (status.ok()) status = multi_gpu::wait(parts.data(), comms.data(), k, 120.0);
//   float sum = 0;  // every GPU holds the total now: read GPU 0's
//   if (status.ok()) status = multi_gpu::read_total(parts[0], &sum);
//   multi_gpu::Status released = multi_gpu::release(parts.data(), comms.data(), k, 120.0, status.ok());
//   if (status.ok()) status = released;  // on failure, status.message() says which step and why
//
// Compile: nvcc -std=c++17 -c multi_gpu.cu, link with -lnccl (int, float and double with
// Sum, Max and Min are built in). One process per GPU (MPI): init_rank and reduce below.
// Another element type T: a Vector16<T> and nccl_type<T>, then MULTI_GPU_INSTANTIATE(T) by the three in multi_gpu.cu.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <string>
#include <vector>

namespace multi_gpu {

// ---------------------------------------------------------------- one GPU: 09, unchanged

// Threads per block at large n (default_shape picks fewer at small n, and 768 where an SM holds 1536).
constexpr int kDefaultBlock = 1024;

// The operators (09's, defined in multi_gpu.cu with the NCCL operator that combines the
// GPUs' totals alike): sum; max and min, which propagate NaN as numpy does.
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
// `stream`; scratch zeroed once before the first call.
template <typename T, typename Op>
cudaError_t reduce_shard(const T* input, std::size_t n, T* result, void* scratch, int block, int grid,
                         cudaStream_t stream = 0);

// ---------------------------------------------------------------- shards

// Where one GPU's shard lies in the whole array: elements [begin, begin + count).
struct Shard {
  std::size_t begin = 0, count = 0;
};

// n split into `parts` contiguous shards whose sizes differ by at most one element.
Shard shard_of(std::size_t n, int parts, int index);

// Which GPU an MPI rank takes: its index among the ranks of its node that see the same
// GPUs. visible[r] names the GPUs node rank r sees (their PCI bus ids, joined); all of a
// node's ranks see the same list, unless the scheduler gave each its own GPUs.
struct GpuChoice {
  int index = 0;    // the CUDA device this rank uses (must be below its device count)
  int sharing = 0;  // the ranks that see the same GPUs, this one included
};
GpuChoice gpu_choice(const std::vector<std::string>& visible, int local_rank);

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
// enqueues there), 09's launch shape and scratch for the shard, and the one-element
// total that the all-reduce leaves on every GPU.
template <typename T>
struct Part {
  int device = 0;
  cudaStream_t stream = nullptr;
  int block = 0, grid = 0;
  void* scratch = nullptr;
  T* total = nullptr;
};

// Sets up *part on `device` for a shard of `count` elements: 09's default shape, or the
// block and grid given (either may be 0: its default). Returns when scratch is zeroed.
template <typename T>
Status prepare(int device, std::size_t count, Part<T>* part, int block = 0, int grid = 0);

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

// One look at the communicators: an NCCL error if one reports it; *in_progress says
// whether a call is still being issued.
Status poll(const ncclComm_t* comms, int k, bool* in_progress);

// Waits until no communicator has a call in progress (the all-reduce is enqueued on the
// streams), or an error, or timeout_s.
Status wait_enqueued(const ncclComm_t* comms, int k, double timeout_s);

// Waits until every part's stream is idle and the communicators are done, polling both:
// an NCCL kernel that waits for a dead peer ends in a timeout, not a hang.
template <typename T>
Status wait(const Part<T>* parts, const ncclComm_t* comms, int k, double timeout_s);

// Ends the communicators cleanly: ncclCommFinalize (waited for, at most timeout_s),
// then ncclCommDestroy. On failure they are aborted.
Status finish(ncclComm_t* comms, int k, double timeout_s);

// Ends the communicators at once: ncclCommAbort, which also stops an NCCL kernel still
// waiting for a peer. The way out after an error.
void abort(ncclComm_t* comms, int k);

// Ends the communicators (finish when `clean`, else abort), then frees the parts. Call
// it once, whatever happened before.
template <typename T>
Status release(Part<T>* parts, ncclComm_t* comms, int k, double timeout_s, bool clean);

// ---------------------------------------------------------------- the reduction

// One GPU's step, enqueued on part.stream: 09's kernel reduces shard[0, count) into
// part.total, then ncclAllReduce combines the totals of every rank of `comm` in place
// (Op::nccl). One process per GPU calls this; returns before the GPU is done (wait()).
template <typename T, typename Op>
Status reduce(const T* shard, std::size_t count, const Part<T>& part, ncclComm_t comm);

// The same for the k GPUs of one process, inside one ncclGroupStart/ncclGroupEnd: one
// thread issues k ranks' all-reduces, and NCCL must see them together to start them.
template <typename T, typename Op>
Status reduce_all(const T* const* shards, const std::size_t* counts, const Part<T>* parts, const ncclComm_t* comms,
                  int k);

}  // namespace multi_gpu
