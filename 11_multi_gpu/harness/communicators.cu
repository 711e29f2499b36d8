// communicators.cu: chapter 11's NCCL communicators with a deadline on every wait
// (multi_gpu_harness.h). The copy unit leaves the communicators to its caller; the programs
// make them non-blocking, so that no wait can hang on a peer that died: every call returns at
// once (ncclInProgress) and the host polls NCCL's state, and the streams, until the work is
// done, NCCL reports an error, or REDUCTION_NCCL_TIMEOUT passes.
#include <chrono>
#include <cstdio>
#include <thread>

#include "multi_gpu_harness.h"

namespace reduction::multi_gpu_harness {
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void throw_nccl(const std::string& step, ncclResult_t result, const char* detail) {
  throw NcclError(step + " failed: NCCL reports " + ncclGetErrorString(result) +
                  (detail && *detail ? std::string(" (") + detail + ")" : std::string()) +
                  (result == ncclRemoteError ? "; a peer rank failed or its connection broke" : ""));
}

void check_nccl(ncclResult_t result, const std::string& step) {
  if (result != ncclSuccess && result != ncclInProgress) throw_nccl(step, result, nullptr);
}

// Polls until done() says so, or throws once timeout_s has passed. Between two polls: spin
// (yield) for the first 20 ms, so that a wait that ends quickly (an all-gather being
// enqueued) costs microseconds, then sleep 1 ms at a time.
template <typename Done>
void wait_until(Done done, const std::string& step, double timeout_s) {
  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  while (!done()) {
    if (Clock::now() > deadline) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%g", timeout_s);
      throw NcclError(step + " did not finish within " + seconds +
                      " s (REDUCTION_NCCL_TIMEOUT): a peer rank is dead, stuck or unreachable, so this rank gives "
                      "up instead of waiting forever");
    }
    if (Clock::now() - start < std::chrono::milliseconds(20)) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
}

// One look at the communicators: true while one of them is still issuing a call; throws
// the first error one reports (with NCCL's own last message).
bool in_progress(const std::vector<ncclComm_t>& comms, const std::string& step) {
  bool busy = false;
  for (ncclComm_t comm : comms) {
    if (!comm) continue;
    ncclResult_t state = ncclSuccess;
    check_nccl(ncclCommGetAsyncError(comm, &state), step);
    if (state == ncclInProgress) {
      busy = true;
    } else if (state != ncclSuccess) {
      throw_nccl(step, state, ncclGetLastError(comm));
    }
  }
  return busy;
}

ncclConfig_t non_blocking_config() {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  return config;
}

// Puts the current device back when it goes out of scope (every call here switches GPUs).
struct KeepDevice {
  int saved = -1;
  KeepDevice() { cudaGetDevice(&saved); }
  ~KeepDevice() {
    if (saved >= 0) cudaSetDevice(saved);
  }
};

}  // namespace

void Communicators::init_local(int k) {
  KeepDevice keep;
  const std::string step = "creating the NCCL communicators (ncclCommInitRankConfig, " + std::to_string(k) + " GPUs)";
  comms_.assign(k, nullptr);
  ncclUniqueId id;
  check_nccl(ncclGetUniqueId(&id), step);
  ncclConfig_t config = non_blocking_config();
  // One thread creates k communicators of one clique: inside a group, so that NCCL starts
  // them together (one call alone would wait for the other ranks).
  check_nccl(ncclGroupStart(), step);
  ncclResult_t result = ncclSuccess;
  cudaError_t cuda = cudaSuccess;
  for (int d = 0; d < k && result == ncclSuccess && cuda == cudaSuccess; ++d) {
    cuda = cudaSetDevice(d);
    if (cuda == cudaSuccess) {
      result = ncclCommInitRankConfig(&comms_[d], k, id, d, &config);
      if (result == ncclInProgress) result = ncclSuccess;
    }
  }
  const ncclResult_t ended = ncclGroupEnd();  // always close the group
  throw_if_failed(cuda, step);
  check_nccl(result, step);
  check_nccl(ended, step);
  wait_enqueued(step);
}

void Communicators::init_rank(int ranks, const ncclUniqueId& id, int rank) {
  const std::string step = "creating the NCCL communicator (ncclCommInitRankConfig, rank " + std::to_string(rank) +
                           " of " + std::to_string(ranks) + ")";
  comms_.assign(1, nullptr);
  ncclConfig_t config = non_blocking_config();
  check_nccl(ncclCommInitRankConfig(&comms_[0], ranks, id, rank, &config), step);
  wait_enqueued(step);
}

void Communicators::wait_enqueued(const std::string& step) const {
  wait_until([&] { return !in_progress(comms_, step); }, step, timeout_s_);
}

void Communicators::wait(const std::vector<std::pair<int, cudaStream_t>>& streams, const std::string& step) const {
  KeepDevice keep;
  wait_until(
      [&] {
        bool busy = false;
        for (const auto& [device, stream] : streams) {
          throw_if_failed(cudaSetDevice(device), step);
          const cudaError_t state = cudaStreamQuery(stream);
          if (state == cudaErrorNotReady) {
            busy = true;  // "not ready" is an answer, not an error
          } else {
            throw_if_failed(state, step);
          }
        }
        return !in_progress(comms_, step) && !busy;
      },
      step, timeout_s_);
}

void Communicators::finish() {
  const std::string step = "finalizing the NCCL communicators";
  try {
    for (ncclComm_t comm : comms_) {
      if (comm) check_nccl(ncclCommFinalize(comm), step);  // non-blocking: flushes pending work
    }
    wait_enqueued(step);
  } catch (...) {
    abort();
    throw;
  }
  for (ncclComm_t& comm : comms_) {
    if (comm) ncclCommDestroy(comm);
    comm = nullptr;
  }
}

void Communicators::abort() {
  for (ncclComm_t& comm : comms_) {
    if (comm) ncclCommAbort(comm);
    comm = nullptr;
  }
}

}  // namespace reduction::multi_gpu_harness
