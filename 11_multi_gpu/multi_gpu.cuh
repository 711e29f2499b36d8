// 11_multi_gpu: one array split into contiguous shards over K GPUs. Each GPU reduces
// its shard with chapter 09's single-pass launcher; NCCL's all-reduce then combines the
// K partial results on the GPUs themselves, so every GPU ends up holding the total.
//
// Two programs share this code:
//   11_multi_gpu      one process drives all local GPUs (one communicator per GPU,
//                     created together in one NCCL group)
//   11_multi_gpu_mpi  one process per GPU, started by mpirun (ncclCommInitRankConfig
//                     after rank 0's NCCL id is broadcast with MPI): the form that spans
//                     nodes
//
// Nothing here waits on NCCL without a deadline. The communicators are non-blocking
// (ncclConfig_t::blocking = 0): every NCCL call returns at once, and the host polls
// ncclCommGetAsyncError (and the streams) until the work is done, an error is reported,
// or REDUCTION_NCCL_TIMEOUT seconds pass. A peer that died or hangs therefore ends the
// run with a message that says so, never with a process that waits forever.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "chapter.h"
#include "cli.h"
#include "cuda_check.h"
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

// An NCCL call failed, a communicator reported an asynchronous error, or NCCL work
// did not finish in time. Exit code 3, like a CUDA error.
class NcclError : public reduction::CudaError {
 public:
  explicit NcclError(const std::string& what) : reduction::CudaError(what) {}
};

// Throws NcclError naming the call, file and line (ncclInProgress is not an error:
// non-blocking communicators return it from every call that has not finished yet).
void nccl_check(ncclResult_t status, const char* call, const char* file, int line);

// How long any NCCL step may take before the run gives up, in seconds: the
// environment variable REDUCTION_NCCL_TIMEOUT, default 120 (communicator creation
// across many nodes can take tens of seconds; one all-reduce of one value takes
// microseconds). Throws UsageError for a value that is not a positive number.
double nccl_timeout_s();

// Chapter 09 as the harness sees it (09_single_pass/main.cu): its launch-shape check
// and the chain length behind the float tolerance.
const reduction::Variant& single_pass_variant();

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

// Everything one GPU holds for a run. All of its work, the setup copies included,
// goes to `stream` (non-blocking: it never waits for the legacy default stream).
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

// Prepares one GPU: picks the launch shape (--block and --grid, else 09's default block
// and its default grid for this shard), creates the GPU's stream, allocates on
// `device`, zeroes the scratch and fills the shard on that stream: generated there from
// the counter-based generator (element i of the whole array is random_value(seed, i,
// n)), or copied from the host input when the reader gave --input. Returns when the
// shard is in place.
template <typename T>
void setup(GpuState<T>& gpu, int device, Shard shard, std::size_t n, const Options& o, const std::vector<T>* host);

// The reference of one shard, computed on all host cores from the same generator (or
// from the host input); combine() the shards' references for the whole array.
template <typename T>
Reference shard_reference(Shard shard, std::size_t n, const Options& o, const std::vector<T>* host);

// The NCCL communicators of this process (one per local GPU), non-blocking, and the
// deadline every wait on them gets. Destroyed cleanly by finish(); a communicator that
// is not finished (an error on the way) is aborted by abort() or the destructor, which
// also stops NCCL kernels that wait for a peer.
class Communicators {
 public:
  explicit Communicators(double timeout_s) : timeout_s_(timeout_s) {
    config_.blocking = 0;  // every NCCL call returns at once; wait() polls with a deadline
  }
  ~Communicators() { abort(); }
  Communicators(const Communicators&) = delete;
  Communicators& operator=(const Communicators&) = delete;

  // One process, GPUs 0..k-1: one communicator per GPU, created in one NCCL group.
  void init_local(int k);
  // One GPU of a job of `ranks` ranks (the current device), from the job's unique id.
  void init_rank(int ranks, const ncclUniqueId& id, int rank);

  // Waits until no communicator has an NCCL call in progress; throws NcclError on an
  // asynchronous error or after the timeout. `what` names the step for the message.
  void wait(const std::string& what);
  // One look at every communicator's asynchronous error state; throws NcclError on an
  // error. Returns true when a call is still in progress.
  bool poll(const std::string& what);

  void finish();  // ncclCommFinalize (waited for, with the timeout), then ncclCommDestroy
  void abort();   // ncclCommAbort on every communicator not yet finished

  ncclComm_t operator[](std::size_t i) const { return comms_[i]; }
  std::size_t size() const { return comms_.size(); }
  double timeout_s() const { return timeout_s_; }

 private:
  std::vector<ncclComm_t> comms_;
  double timeout_s_;
  ncclConfig_t config_ = NCCL_CONFIG_INITIALIZER;
};

// One run over the local GPUs: each reduces its shard (09's launcher) and the
// all-reduce combines the partials into `total` on every GPU. Returns the slowest GPU's
// time, in ms: on each GPU, CUDA events from before its shard's reduction to after its
// part of the all-reduce (events of different GPUs cannot be subtracted from each
// other, so this is not a span from the first GPU's start to the last GPU's end). Waits
// by polling the streams and the communicators, never longer than their timeout.
template <typename T>
double run_once(std::vector<GpuState<T>>& gpus, Communicators& comms, Op op, bool flush);

// Reads `total` back from every local GPU and checks each against the reference.
template <typename T>
reduction::Verdict check_totals(std::vector<GpuState<T>>& gpus, const Reference& ref, std::size_t n, int k,
                                std::string* result_text);

// The additions any input value passes through: 09's chain over the largest shard,
// plus at most k - 1 additions in the all-reduce.
std::size_t chain_length(std::size_t n, int k, int block, int grid);

// One GPU of the run and where it is, for the report.
struct Participant {
  int rank = 0;            // MPI rank; the GPU's index in the single-process program
  std::string host;        // "" in the single-process program
  int local_rank = 0, local_size = 1;
  std::string bus_id;      // PCI bus id: tells GPUs apart across CUDA_VISIBLE_DEVICES settings
  reduction::DeviceInfo device;
};

// This process's current GPU as a participant.
Participant describe_current_gpu(int rank, const std::string& host, int local_rank, int local_size);

// The report (human or --json), printed once: every participant's GPU, host and peak.
void print_report(const Options& o, std::size_t n, int k, const std::string& mode, const Reference& ref,
                  const reduction::Verdict& verdict, const std::string& result_text, double ms,
                  const std::vector<Participant>& participants);

// The command line both programs accept (--gpus only for the single-process one).
reduction::CliSpec cli_spec(const std::string& program, bool gpus_flag);

}  // namespace multi_gpu
