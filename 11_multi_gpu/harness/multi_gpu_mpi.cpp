// multi_gpu_mpi.cpp: the program 11_multi_gpu_mpi (main_mpi.cpp), one process per GPU,
// started by MPI (see README.md). This is the form that spans
// nodes: each rank owns one GPU and one shard, rank 0 creates NCCL's unique id and MPI
// broadcasts it, and every rank joins the communicator with it.
//
//   mpirun -np 2 11_multi_gpu_mpi --n 2^30 --type float
//
// Which GPU: the rank's local rank, its index among the ranks of its own node
// (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED), so node after node, local ranks 0, 1,
// ... take GPUs 0, 1, ... Counted among the ranks of the node that see the same GPUs: where
// the scheduler gives each rank its own GPU (CUDA_VISIBLE_DEVICES), each uses its GPU 0.
// REDUCTION_NODE=N overrides what counts as a node: ranks that give the same N form one
// node, which places two ranks of one machine as if they ran on two nodes (11's README,
// "Build and run", has the command).
//
// Failures: what every rank checks alike (the command line, the environment, the GPU
// placement, the input) is agreed on collectively, and the job ends with the first
// failing rank's message and exit code. Anything later (a CUDA error, an NCCL error or
// timeout on one rank) is printed by that rank, with its rank, host and GPU, before
// MPI_Abort ends the whole job.
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <thread>

#include "cuda_check.h"
#include "harness.h"
#include "multi_gpu_harness.h"

namespace reduction::multi_gpu_harness {
namespace {

constexpr const char* kProgram = "11_multi_gpu_mpi";

// Where this rank runs.
struct Place {
  int rank = 0, ranks = 1;
  std::string host;  // MPI_Get_processor_name, plus "as node N" under REDUCTION_NODE
  int local_rank = 0, local_size = 1;
  MPI_Comm node = MPI_COMM_NULL;  // the ranks of this node
  int device = -1;   // the CUDA device it uses, once chosen
};

std::string describe(const Place& where) {
  return "rank " + std::to_string(where.rank) + " on host " + where.host + " (local rank " +
         std::to_string(where.local_rank) + " of " + std::to_string(where.local_size) +
         (where.device < 0 ? "" : ", GPU " + std::to_string(where.device)) + ")";
}

int exit_code_of(const std::exception& error) {
  if (dynamic_cast<const reduction::UsageError*>(&error) || dynamic_cast<const std::bad_alloc*>(&error)) return 2;
  return 3;
}

std::string message_of(const std::exception& error) {
  if (dynamic_cast<const std::bad_alloc*>(&error)) return "not enough host memory for this N (std::bad_alloc)";
  return error.what();
}

// A checkpoint every rank passes: when any rank failed (code != 0), the lowest failing
// rank prints its message and every rank returns that rank's exit code, so the job ends
// through MPI_Finalize with one message instead of one per rank. rank_specific: the
// message is about this rank (prefixed with where it runs), not about the command line.
int agree(const Place& where, int code, const std::string& message, bool rank_specific) {
  const int mine = code ? where.rank : where.ranks;
  int first = where.ranks;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == where.ranks) return 0;
  int agreed = code;
  MPI_Bcast(&agreed, 1, MPI_INT, first, MPI_COMM_WORLD);
  if (where.rank == first) {
    if (rank_specific) {
      std::fprintf(stderr, "%s: %s: %s\n", kProgram, describe(where).c_str(), message.c_str());
    } else {
      std::fprintf(stderr, "%s: %s\n", kProgram, message.c_str());
    }
    std::fflush(stderr);
  }
  return agreed;
}

// The PCI bus ids of the GPUs this rank can see, "0000:18:00.0,0000:2a:00.0" (empty
// when it sees none): two ranks that see the same list share those GPUs.
std::string visible_gpus() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return "";
  }
  std::string list;
  for (int d = 0; d < count; ++d) {
    char bus_id[32] = "";
    CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, d));
    list += (d ? "," : "") + std::string(bus_id);
  }
  return list;
}

// The GPU of this rank: its index among the ranks of its node that see the same GPUs
// (all of the node's ranks, unless the scheduler gave them GPUs of their own). Every
// rank of the node calls this together; throws UsageError when there are more such
// ranks than GPUs.
int choose_device(const Place& where, const std::string& visible, int count) {
  constexpr int kChars = 2048;  // room for the bus ids of 150 GPUs
  std::vector<char> mine(kChars, '\0'), all(std::size_t(kChars) * where.local_size);
  std::snprintf(mine.data(), kChars, "%s", visible.c_str());
  MPI_Allgather(mine.data(), kChars, MPI_CHAR, all.data(), kChars, MPI_CHAR, where.node);
  std::vector<std::string> lists;
  for (int r = 0; r < where.local_size; ++r) lists.emplace_back(&all[std::size_t(r) * kChars]);
  const GpuChoice choice = gpu_choice(lists, where.local_rank);
  if (count == 0) return -1;  // the caller reports why (no CUDA device)
  if (choice.index >= count) {
    throw reduction::UsageError(std::to_string(choice.sharing) + " ranks on this node see the same " +
                                std::to_string(count) + " CUDA device(s), and each rank needs a GPU of its own: "
                                "start at most " + std::to_string(count) + " ranks per node (Open MPI: mpirun "
                                "--map-by ppr:" + std::to_string(count) + ":node), or give each rank its own GPUs "
                                "with CUDA_VISIBLE_DEVICES");
  }
  return choice.index;
}

// REDUCTION_NODE: -1 when unset, else the node number this rank claims.
int node_override() {
  const char* text = std::getenv("REDUCTION_NODE");
  if (!text || !*text) return -1;
  char* end = nullptr;
  const long node = std::strtol(text, &end, 10);
  if (*end != '\0' || node < 0 || node > 1000000) {
    throw reduction::UsageError(std::string("REDUCTION_NODE expects a node number from 0 to 1000000, not '") + text +
                                "'");
  }
  return static_cast<int>(node);
}

// The test hook REDUCTION_TEST_FAIL=RANK:STAGE makes rank RANK fail on purpose, for the
// tests of what the job does then (tests/test_multi_gpu.cpp):
//   setup      an error after its GPU is set up (printed with its rank, then MPI_Abort)
//   exit       exits without a word to MPI during setup (the launcher ends the job)
//   init       stops answering instead of joining the NCCL communicator
//   allreduce  stops answering instead of its first all-reduce
// In the last two cases the other ranks' NCCL waits time out (REDUCTION_NCCL_TIMEOUT).
struct InjectedFailure {
  int rank = -1;
  std::string stage;
  bool at(const Place& where, const char* name) const { return rank == where.rank && stage == name; }
};

InjectedFailure injected_failure() {
  InjectedFailure f;
  const char* text = std::getenv("REDUCTION_TEST_FAIL");
  if (!text || !*text) return f;
  const char* colon = std::strchr(text, ':');
  char* end = nullptr;
  const long rank = colon ? std::strtol(text, &end, 10) : -1;
  f.stage = colon ? colon + 1 : "";
  if (!colon || end != colon || rank < 0 ||
      (f.stage != "setup" && f.stage != "exit" && f.stage != "init" && f.stage != "allreduce")) {
    throw reduction::UsageError(std::string("REDUCTION_TEST_FAIL expects RANK:STAGE with STAGE one of setup, exit, "
                                            "init, allreduce, not '") + text + "'");
  }
  f.rank = static_cast<int>(rank);
  return f;
}

[[noreturn]] void stop_answering(const Place& where, const std::string& before) {
  std::fprintf(stderr, "%s: %s: stops answering before %s (REDUCTION_TEST_FAIL)\n", kProgram,
               describe(where).c_str(), before.c_str());
  std::fflush(stderr);
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

// What a failing rank must not free before it has reported: its GPU buffers (an NCCL
// kernel may still read them) and its communicator (aborted before MPI_Abort).
struct KeepAlive {
  std::unique_ptr<Communicators> comms;
  std::shared_ptr<void> gpus;
};

// Any rank's error after the collective checks: printed with the rank, then the job ends.
[[noreturn]] void die(const Place& where, const std::exception& error, KeepAlive& keep) {
  const int code = exit_code_of(error);
  std::fprintf(stderr, "%s: %s: %s\n", kProgram, describe(where).c_str(), message_of(error).c_str());
  std::fflush(stderr);
  if (keep.comms) {
    // ncclCommAbort stops NCCL kernels that wait for a peer. Should even that hang,
    // SIGALRM ends this process after 30 s, and the launcher ends the job.
    alarm(30);
    keep.comms->abort();
  }
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

// One rank's GPU, sent to rank 0 for the report (plain bytes: every rank runs this
// same program on the same kind of host).
struct Record {
  int rank, local_rank, local_size, gpu, cc_major, cc_minor, sm_count, memory_clock_khz, bus_width_bits;
  unsigned long long l2_bytes, total_bytes, free_bytes;
  char host[256], name[256], bus_id[32];
};

std::vector<Participant> gather_participants(const Participant& me, int ranks) {
  Record r{};
  r.rank = me.rank;
  r.local_rank = me.local_rank;
  r.local_size = me.local_size;
  r.gpu = me.device.id;
  r.cc_major = me.device.cc_major;
  r.cc_minor = me.device.cc_minor;
  r.sm_count = me.device.sm_count;
  r.memory_clock_khz = me.device.memory_clock_khz;
  r.bus_width_bits = me.device.bus_width_bits;
  r.l2_bytes = me.device.l2_bytes;
  r.total_bytes = me.device.total_bytes;
  r.free_bytes = me.device.free_bytes;
  std::snprintf(r.host, sizeof r.host, "%s", me.host.c_str());
  std::snprintf(r.name, sizeof r.name, "%s", me.device.name.c_str());
  std::snprintf(r.bus_id, sizeof r.bus_id, "%s", me.bus_id.c_str());
  std::vector<Record> all(me.rank == 0 ? ranks : 0);
  MPI_Gather(&r, sizeof r, MPI_BYTE, all.data(), sizeof r, MPI_BYTE, 0, MPI_COMM_WORLD);
  std::vector<Participant> everyone;
  for (const Record& a : all) {
    Participant p;
    p.rank = a.rank;
    p.host = a.host;
    p.local_rank = a.local_rank;
    p.local_size = a.local_size;
    p.bus_id = a.bus_id;
    p.device.id = a.gpu;
    p.device.name = a.name;
    p.device.cc_major = a.cc_major;
    p.device.cc_minor = a.cc_minor;
    p.device.sm_count = a.sm_count;
    p.device.memory_clock_khz = a.memory_clock_khz;
    p.device.bus_width_bits = a.bus_width_bits;
    p.device.l2_bytes = a.l2_bytes;
    p.device.total_bytes = a.total_bytes;
    p.device.free_bytes = a.free_bytes;
    everyone.push_back(p);
  }
  return everyone;
}

// The whole array's reference from every rank's shard reference. The exact integer sum
// travels as MPI_INT64_T (a double would round it past 2^53).
Reference gather_reference(const Reference& mine, int ranks, std::size_t n) {
  static_assert(sizeof(mine.int_value) == sizeof(std::int64_t), "the exact sum is a 64-bit integer");
  const double fields[2] = {mine.value, mine.sum_abs};
  // The exact int sum and the counts of NaN, +inf and -inf, as 64-bit integers.
  const std::int64_t exact[4] = {mine.int_value, std::int64_t(mine.nans), std::int64_t(mine.pos_infs),
                                 std::int64_t(mine.neg_infs)};
  std::vector<double> all_fields(2 * ranks);
  std::vector<std::int64_t> all_exact(4 * ranks);
  MPI_Allgather(fields, 2, MPI_DOUBLE, all_fields.data(), 2, MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Allgather(exact, 4, MPI_INT64_T, all_exact.data(), 4, MPI_INT64_T, MPI_COMM_WORLD);
  Reference ref;
  for (int r = 0; r < ranks; ++r) {
    Reference part = mine;  // op and type are the same on every rank
    part.value = all_fields[2 * r];
    part.sum_abs = all_fields[2 * r + 1];
    part.int_value = all_exact[4 * r];
    part.nans = all_exact[4 * r + 1];
    part.pos_infs = all_exact[4 * r + 2];
    part.neg_infs = all_exact[4 * r + 3];
    ref = r == 0 ? part : reduction::combine(ref, part);
  }
  ref.n = n;
  return ref;
}

template <typename T>
int run_rank(const Options& options, Place& where, double timeout_s, const InjectedFailure& fail, KeepAlive& keep) {
  // 1. Placement and input, on every rank alike, agreed on before any GPU work.
  std::vector<T> host;
  std::size_t n = options.n;
  Participant me;
  int code = 0;
  std::string message;
  std::string visible;
  int count = 0;
  try {
    if (!options.input.empty()) {
      host = reduction::read_input_file<T>("11_multi_gpu_mpi", options.input, nullptr);
      n = host.size();
    }
    std::string why;
    if (!reduction::cuda_device_available(&why)) throw reduction::CudaError(why);
    CUDA_CHECK(cudaGetDeviceCount(&count));
    visible = visible_gpus();
  } catch (const std::exception& error) {
    code = exit_code_of(error);
    message = message_of(error);
  }
  // Every rank of the node takes part in choosing the GPUs, even one that failed above.
  int device = -1;
  try {
    device = choose_device(where, visible, count);
  } catch (const std::exception& error) {
    if (!code) {
      code = exit_code_of(error);
      message = message_of(error);
    }
  }
  if (!code) {
    try {
      where.device = device;
      CUDA_CHECK(cudaSetDevice(where.device));
      me = describe_current_gpu(where.rank, where.host, where.local_rank, where.local_size);
      const Shard shard = shard_of(n, where.ranks, where.rank);
      if (bytes_needed(shard.count, sizeof(T), me.device) > me.device.free_bytes) {
        throw reduction::UsageError("--n " + std::to_string(n) + " does not fit: this rank's shard needs " +
                                    std::to_string(bytes_needed(shard.count, sizeof(T), me.device) >> 20) +
                                    " MiB and its GPU has " + std::to_string(me.device.free_bytes >> 20) +
                                    " MiB free (use more ranks)");
      }
    } catch (const std::exception& error) {
      code = exit_code_of(error);
      message = message_of(error);
    }
  }
  if ((code = agree(where, code, message, true)) != 0) return code;
  // Every rank must reduce the same array: with --input, the same file.
  unsigned long long n_here = n, n_root = n;
  MPI_Bcast(&n_root, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  code = n_here == n_root ? 0 : 2;
  message = "--input '" + options.input + "' holds " + std::to_string(n_here) + " values here but " +
            std::to_string(n_root) + " on rank 0: every rank must read the same file";
  if ((code = agree(where, code, message, true)) != 0) return code;

  // 2. From here on, an error on one rank is printed by that rank, then MPI_Abort.
  const std::vector<T>* host_input = options.input.empty() ? nullptr : &host;
  const Shard shard = shard_of(n, where.ranks, where.rank);
  auto gpus = std::make_shared<std::vector<GpuState<T>>>(1);
  keep.gpus = gpus;
  setup((*gpus)[0], where.device, where.ranks, shard, n, options, host_input);
  if (fail.at(where, "setup")) throw reduction::CudaError("injected failure during setup (REDUCTION_TEST_FAIL)");
  if (fail.at(where, "exit")) {
    std::fprintf(stderr, "%s: %s: exits during setup without MPI_Abort (REDUCTION_TEST_FAIL)\n", kProgram,
                 describe(where).c_str());
    std::fflush(stderr);
    std::_Exit(4);
  }

  ncclUniqueId id;
  if (where.rank == 0) NCCL_CHECK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  if (fail.at(where, "init")) stop_answering(where, "joining the NCCL communicator");
  keep.comms = std::make_unique<Communicators>(timeout_s);
  Communicators& comms = *keep.comms;
  comms.init_rank(where.ranks, id, where.rank);

  // Each rank computes its shard's reference; every rank combines all of them.
  const Reference ref = gather_reference(shard_reference<T>(shard, n, options, host_input), where.ranks, n);

  MPI_Barrier(MPI_COMM_WORLD);
  if (fail.at(where, "allreduce")) stop_answering(where, "its first all-reduce");
  run_once(*gpus, comms, options.op, options.flush);
  std::string result_text;
  reduction::Verdict verdict = check_totals(*gpus, ref, n, where.ranks, &result_text);
  run_once(*gpus, comms, options.op, options.flush);
  std::vector<double> times(options.reps);
  for (int r = 0; r < options.reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);  // start together, so the slowest rank's time is the run's time
    times[r] = run_once(*gpus, comms, options.op, options.flush);
  }
  const reduction::Verdict last = check_totals(*gpus, ref, n, where.ranks, nullptr);
  if (verdict.ok && !last.ok) verdict = last;
  std::vector<double> slowest(options.reps);
  MPI_Allreduce(times.data(), slowest.data(), options.reps, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  int ok = verdict.ok ? 1 : 0, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  const std::vector<Participant> everyone = gather_participants(me, where.ranks);
  comms.finish();

  // Rank 0 reports, naming every rank's host, GPU and peak.
  if (where.rank == 0) {
    if (!all_ok && verdict.ok) {
      verdict.ok = false;
      verdict.note = "another rank's total was wrong";
    }
    print_report(options, n, where.ranks, "MPI, one rank per GPU", ref, verdict, result_text,
                 reduction::median(slowest), everyone);
  }
  return all_ok ? 0 : 1;
}

}  // namespace

int run_mpi(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Place where;
  MPI_Comm_rank(MPI_COMM_WORLD, &where.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &where.ranks);
  char name[MPI_MAX_PROCESSOR_NAME] = "";
  int name_length = 0;
  MPI_Get_processor_name(name, &name_length);
  where.host = name;
  const reduction::CliSpec spec = cli_spec(kProgram, false);

  // The command line and the environment: the same on every rank, agreed on together.
  Options options;
  double timeout_s = 0;
  int node = -1;
  InjectedFailure fail;
  int code = 0;
  std::string message;
  try {
    options = reduction::parse_options(spec, argc, argv);
    timeout_s = nccl_timeout_s();
    node = node_override();
    fail = injected_failure();
    if (!options.help) {
      const std::string why_shape = single_pass_variant().check_shape(options.block, options.grid);
      if (!why_shape.empty()) throw reduction::UsageError(why_shape);
    }
  } catch (const std::exception& error) {
    code = exit_code_of(error);
    message = message_of(error);
  }
  if ((code = agree(where, code, message, false)) != 0) {
    MPI_Finalize();
    return code;
  }
  if (options.help) {
    if (where.rank == 0) {
      std::printf("11_multi_gpu_mpi: run under mpirun -np K, one rank per GPU\n\n%s"
                  "\nEnvironment:\n"
                  "  REDUCTION_NODE=N          ranks with the same N count as one node (default: the ranks\n"
                  "                            that share a host, MPI_COMM_TYPE_SHARED)\n"
                  "  REDUCTION_NCCL_TIMEOUT=S  give up on an NCCL step after S seconds (default 120)\n",
                  reduction::usage(spec).c_str());
    }
    MPI_Finalize();
    return 0;
  }

  // The local rank: this rank's index among the ranks of its node.
  int with_override = node >= 0 ? 1 : 0, ranks_with_override = 0;
  MPI_Allreduce(&with_override, &ranks_with_override, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  const bool mixed = ranks_with_override != 0 && ranks_with_override != where.ranks;
  code = mixed && node < 0 ? 2 : 0;
  message = "REDUCTION_NODE is set on " + std::to_string(ranks_with_override) + " of " +
            std::to_string(where.ranks) + " ranks but not on this one: set it on every rank or on none";
  if ((code = agree(where, code, message, true)) != 0) {
    MPI_Finalize();
    return code;
  }
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, where.rank, MPI_INFO_NULL, &where.node);
  if (ranks_with_override) {
    MPI_Comm_free(&where.node);
    MPI_Comm_split(MPI_COMM_WORLD, node, where.rank, &where.node);
    where.host += " as node " + std::to_string(node);
  }
  MPI_Comm_rank(where.node, &where.local_rank);
  MPI_Comm_size(where.node, &where.local_size);

  KeepAlive keep;
  try {
    switch (options.type) {
      case reduction::DType::Int: code = run_rank<int>(options, where, timeout_s, fail, keep); break;
      case reduction::DType::Float: code = run_rank<float>(options, where, timeout_s, fail, keep); break;
      case reduction::DType::Double: code = run_rank<double>(options, where, timeout_s, fail, keep); break;
    }
  } catch (const std::exception& error) {
    die(where, error, keep);
  }
  keep.comms.reset();
  keep.gpus.reset();
  MPI_Comm_free(&where.node);
  MPI_Finalize();
  return code;
}

}  // namespace reduction::multi_gpu_harness
