// multi_gpu_harness.h: the plumbing of chapter 11's two programs (main.cu, one process
// for all local GPUs; main_mpi.cpp, one rank per GPU) around its copy unit
// (multi_gpu.cuh), not part of it: the command line, each GPU's input
// (generated on the GPU or copied from --input), the CPU reference of each shard, the
// NCCL communicators with a deadline on every wait (communicators.cu), the L2 flush and
// the timers, the check of every GPU's total and the report. A failed step becomes an
// exception (NcclError or CudaError, exit 3) whose message names the step and, for a
// timeout, REDUCTION_NCCL_TIMEOUT. Built only where NCCL is found (CMakeLists.txt).
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "chapter.h"
#include "cli.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "device_info.h"
#include "l2_flush.h"
#include "multi_gpu.cuh"
#include "reference.h"
#include "timer.h"

#define NCCL_CHECK(call) ::reduction::multi_gpu_harness::nccl_check((call), #call, __FILE__, __LINE__)

namespace reduction::multi_gpu_harness {

using multi_gpu::Shard;
using multi_gpu::shard_of;

// Which GPU an MPI rank takes: its index among the ranks of its node that see the same
// GPUs. visible[r] names the GPUs node rank r sees (their PCI bus ids, joined); all of a
// node's ranks see the same list, unless the scheduler gave each its own GPUs.
struct GpuChoice {
  int index = 0;    // the CUDA device this rank uses (must be below its device count)
  int sharing = 0;  // the ranks that see the same GPUs, this one included
};
GpuChoice gpu_choice(const std::vector<std::string>& visible, int local_rank);

// An NCCL call failed, a communicator reported an asynchronous error, or NCCL work
// did not finish in time. Exit code 3, like a CUDA error.
class NcclError : public CudaError {
 public:
  explicit NcclError(const std::string& what) : CudaError(what) {}
};

// Throws NcclError naming the call, file and line (ncclInProgress is not an error:
// non-blocking communicators return it from every call that has not finished yet).
void nccl_check(ncclResult_t status, const char* call, const char* file, int line);

// Throws for a failed call of the copy unit: NcclError or CudaError, its message naming `step`.
void throw_if_failed(const multi_gpu::Status& status, const std::string& step);
void throw_if_failed(cudaError_t status, const std::string& step);

// How long any NCCL step may take before the run gives up, in seconds: the
// environment variable REDUCTION_NCCL_TIMEOUT, default 120 (communicator creation
// across many nodes can take tens of seconds; one all-reduce of one value takes
// microseconds). Throws UsageError for a value that is not a positive number.
double nccl_timeout_s();

// Chapter 09 as the harness sees it (09_single_pass/main.cu): its launch-shape check
// and the chain length behind the float tolerance. 11's kernel is 09's, unchanged.
const Variant& single_pass_variant();

// Everything one GPU holds for a run: the copy unit's Part (stream, shape, scratch,
// total; every copy and kernel of this GPU goes to its stream), the shard's data, the
// L2 flusher and the timer.
template <typename T>
struct GpuState {
  Shard shard;
  multi_gpu::Part<T> part;
  DeviceBuffer<T> data;
  std::unique_ptr<L2Flusher> flush;
  std::unique_ptr<GpuTimer> timer;
  GpuState() = default;
  GpuState(const GpuState&) = delete;
  GpuState& operator=(const GpuState&) = delete;
  ~GpuState();
};

// Device memory one GPU needs for a shard of `count` elements (for the memory check).
std::size_t bytes_needed(std::size_t count, std::size_t element_bytes, const DeviceInfo& device);

// Prepares one GPU of `ranks`: multi_gpu::prepare (--block and --grid, else 09's default
// shape for this shard), then fills the shard on the GPU's stream: generated there from the
// counter-based generator (element i of the whole array is random_value(seed, i, n)),
// or copied from the host input when the reader gave --input. Returns when the shard
// is in place.
template <typename T>
void setup(GpuState<T>& gpu, int device, int ranks, Shard shard, std::size_t n, const Options& o,
           const std::vector<T>* host);

// The reference of one shard, computed on all host cores from the same generator (or
// from the host input); combine() the shards' references for the whole array.
template <typename T>
Reference shard_reference(Shard shard, std::size_t n, const Options& o, const std::vector<T>* host);

// The NCCL communicators of this process (one per local GPU), all non-blocking, so that
// every wait on them polls with a deadline (timeout_s): a dead or stuck peer ends in an
// NcclError that says so, never in a hang (communicators.cu). Destroyed cleanly by finish();
// one that is not finished (an error on the way) is aborted by abort() or the destructor,
// which also stops NCCL kernels that wait for a peer. Every call leaves the current device as
// it found it.
class Communicators {
 public:
  explicit Communicators(double timeout_s) : timeout_s_(timeout_s) {}
  ~Communicators() { abort(); }
  Communicators(const Communicators&) = delete;
  Communicators& operator=(const Communicators&) = delete;

  void init_local(int k);                                       // GPUs 0..k-1 of this process, one clique
  void init_rank(int ranks, const ncclUniqueId& id, int rank);  // this rank's, on the current device
  // Waits until no communicator is still enqueuing a call (its work is on the streams).
  void wait_enqueued(const std::string& step) const;
  // Waits until every stream is idle and the communicators are done, polling both: an NCCL
  // kernel that waits for a dead peer ends in a timeout.
  void wait(const std::vector<std::pair<int, cudaStream_t>>& streams, const std::string& step) const;
  void finish();  // ncclCommFinalize (waited for, with the timeout), then ncclCommDestroy
  void abort();   // ncclCommAbort on every communicator not yet finished

  const ncclComm_t* data() const { return comms_.data(); }
  std::size_t size() const { return comms_.size(); }
  double timeout_s() const { return timeout_s_; }

 private:
  std::vector<ncclComm_t> comms_;
  double timeout_s_;
};

// One run over the local GPUs: each reduces its shard and the all-reduce combines the
// totals (multi_gpu::gather_all: 09 and the all-gather; Communicators::wait_enqueued; then
// multi_gpu::combine_all: each GPU combines the totals in rank order). Returns the slowest GPU's time, in ms: on each GPU, CUDA events from before its
// shard's reduction to after its part of the all-reduce
// (events of different GPUs cannot be subtracted from each other, so this is not a
// span from the first GPU's start to the last GPU's end). Waits with Communicators::wait,
// never longer than the communicators' timeout.
template <typename T>
double run_once(std::vector<GpuState<T>>& gpus, Communicators& comms, Op op, bool flush);

// Reads `total` back from every local GPU and checks each against the reference. The
// verdict's note (an int sum that wrapped, a wrong GPU) is kept whether it is ok or not.
template <typename T>
Verdict check_totals(std::vector<GpuState<T>>& gpus, const Reference& ref, std::size_t n, int k,
                     std::string* result_text);

// The additions any input value passes through: 09's chain over the largest shard,
// plus at most k - 1 additions in the combine of the K totals.
std::size_t chain_length(std::size_t n, int k, int block, int grid);

// One GPU of the run and where it is, for the report.
struct Participant {
  int rank = 0;            // MPI rank; the GPU's index in the single-process program
  std::string host;        // "" in the single-process program
  int local_rank = 0, local_size = 1;
  std::string bus_id;      // PCI bus id: tells GPUs apart across CUDA_VISIBLE_DEVICES settings
  DeviceInfo device;
};

// This process's current GPU as a participant.
Participant describe_current_gpu(int rank, const std::string& host, int local_rank, int local_size);

// The report (human or --json), printed once: every participant's GPU, host and peak. The
// JSON line carries the same notes as the text (key "note"), the exact int sum where it
// wrapped ("true_sum") and the counts of NaN and inf ("non_finite"), as every chapter's does.
void print_report(const Options& o, std::size_t n, int k, const std::string& mode, const Reference& ref,
                  const Verdict& verdict, const std::string& result_text, double ms,
                  const std::vector<Participant>& participants);

// The command line both programs accept (--gpus only for the single-process one).
CliSpec cli_spec(const std::string& program, bool gpus_flag);

// The two programs, whole: each main() is one call. Both return the exit code (0
// verified, 1 wrong, 2 bad usage or input, 3 a CUDA or NCCL error).
//   run_one_process  11_multi_gpu: one process, every local GPU (--gpus K of them), in
//                    multi_gpu_harness.cu
//   run_mpi          11_multi_gpu_mpi: one rank per GPU, under mpirun, in
//                    multi_gpu_mpi.cpp (built only where MPI is found)
int run_one_process(int argc, char** argv);
int run_mpi(int argc, char** argv);

}  // namespace reduction::multi_gpu_harness
