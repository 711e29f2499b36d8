// 11_multi_gpu_mpi: one process per GPU, started by MPI (see README.md). This is the
// form that spans nodes: each rank owns one GPU and one shard, rank 0 creates NCCL's
// unique id and MPI broadcasts it, and every rank joins the communicator with it.
//
//   mpirun -np 2 11_multi_gpu_mpi --n 2^30 --type float
#include <mpi.h>

#include <cstdio>

#include "cuda_check.h"
#include "harness.h"
#include "multi_gpu.cuh"
#include "single_pass.cuh"

using namespace multi_gpu;

namespace {

template <typename T>
int run(const Options& o, int rank, int ranks) {
  const std::vector<T> host = o.input.empty() ? std::vector<T>() : reduction::load_input<T>(o.input);
  const std::size_t n = o.input.empty() ? o.n : host.size();
  const std::vector<T>* host_input = o.input.empty() ? nullptr : &host;
  std::string why;
  if (!reduction::cuda_device_available(&why)) throw reduction::CudaError(why);
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  const int device = rank % count;  // ranks on one node share its GPUs round-robin
  CUDA_CHECK(cudaSetDevice(device));
  std::vector<reduction::DeviceInfo> devices(1, reduction::query_device());
  const Shard shard = shard_of(n, ranks, rank);
  if (bytes_needed(shard.count, sizeof(T), devices[0]) > devices[0].free_bytes) {
    throw reduction::UsageError("--n " + std::to_string(n) + " does not fit: rank " + std::to_string(rank) +
                                "'s shard needs more than the " + std::to_string(devices[0].free_bytes >> 20) +
                                " MiB its GPU has free (use more ranks)");
  }
  std::vector<GpuState<T>> gpus(1);
  setup(gpus[0], device, shard, n, o, host_input);

  ncclUniqueId id;
  if (rank == 0) NCCL_CHECK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  std::vector<ncclComm_t> comms(1);
  NCCL_CHECK(ncclCommInitRank(&comms[0], ranks, id, rank));

  // Each rank computes its shard's reference; every rank combines all of them.
  const Reference mine = shard_reference<T>(shard, n, o, host_input);
  const double fields[3] = {mine.value, static_cast<double>(mine.int_value), mine.sum_abs};
  std::vector<double> all(3 * ranks);
  MPI_Allgather(fields, 3, MPI_DOUBLE, all.data(), 3, MPI_DOUBLE, MPI_COMM_WORLD);
  Reference ref;
  for (int r = 0; r < ranks; ++r) {
    Reference part = mine;
    part.value = all[3 * r];
    part.int_value = static_cast<long long>(all[3 * r + 1]);
    part.sum_abs = all[3 * r + 2];
    ref = r == 0 ? part : reduction::combine(ref, part);
  }
  ref.n = n;

  MPI_Barrier(MPI_COMM_WORLD);
  run_once(gpus, comms, o.op, o.flush);
  std::string result_text;
  reduction::Verdict verdict = check_totals(gpus, ref, n, ranks, &result_text);
  run_once(gpus, comms, o.op, o.flush);
  std::vector<double> times(o.reps);
  for (int r = 0; r < o.reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);  // start together, so the slowest rank's time is the run's time
    times[r] = run_once(gpus, comms, o.op, o.flush);
  }
  const reduction::Verdict last = check_totals(gpus, ref, n, ranks, nullptr);
  if (verdict.ok && !last.ok) verdict = last;
  std::vector<double> slowest(o.reps);
  MPI_Allreduce(times.data(), slowest.data(), o.reps, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  int ok = verdict.ok ? 1 : 0, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);

  // Rank 0 reports, naming every rank's GPU.
  std::vector<reduction::DeviceInfo> everyone(ranks, devices[0]);
  ncclCommDestroy(comms[0]);
  if (rank == 0) {
    if (!all_ok && verdict.ok) {
      verdict.ok = false;
      verdict.note = "another rank's total was wrong";
    }
    print_report(o, n, ranks, "MPI, one rank per GPU", ref, verdict, result_text, reduction::median(slowest), everyone);
  }
  return all_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const reduction::CliSpec spec = cli_spec("11_multi_gpu_mpi", false);
  int code = 3;
  try {
    const Options o = reduction::parse_options(spec, argc, argv);
    if (o.help) {
      if (rank == 0) std::printf("11_multi_gpu_mpi: run under mpirun -np K\n\n%s", reduction::usage(spec).c_str());
      code = 0;
    } else {
      const std::string why_shape = SinglePass::check_shape(o.block, o.grid);
      if (!why_shape.empty()) throw reduction::UsageError(why_shape);
      switch (o.type) {
        case reduction::DType::Int: code = run<int>(o, rank, ranks); break;
        case reduction::DType::Float: code = run<float>(o, rank, ranks); break;
        case reduction::DType::Double: code = run<double>(o, rank, ranks); break;
      }
    }
  } catch (const std::exception& error) {
    // Every rank parses the same command line, so a usage error happens on all of them;
    // rank 0 reports it, and the abort ends every rank with the same exit code.
    if (rank == 0) {
      code = reduction::report_exception(spec.program, error);
    } else {
      code = dynamic_cast<const reduction::UsageError*>(&error) ? 2 : 3;
    }
    MPI_Abort(MPI_COMM_WORLD, code);
  }
  MPI_Finalize();
  return code;
}
