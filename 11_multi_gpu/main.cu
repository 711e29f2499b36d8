// 11_multi_gpu: one process drives every local GPU (see README.md).
//
//   11_multi_gpu --gpus 2 --n 2^30 --type float
//   11_multi_gpu --n 2^32 --op max --json
#include <cstdio>

#include "cuda_check.h"
#include "harness.h"
#include "multi_gpu_harness.h"

using namespace multi_gpu;  // the copy unit: Shard, shard_of, gpu_choice
using namespace reduction::multi_gpu_harness;  // the programs' plumbing
using reduction::Options;
using reduction::Reference;

namespace {

// How many GPUs to use: --gpus, or every visible one.
int gpu_count(const Options& options) {
  std::string why;
  if (!reduction::cuda_device_available(&why)) throw reduction::CudaError(why);
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  if (options.gpus > count) {
    throw reduction::UsageError("--gpus " + std::to_string(options.gpus) + " but only " + std::to_string(count) +
                                " CUDA device(s) are visible");
  }
  return options.gpus ? options.gpus : count;
}

template <typename T>
int run(const Options& options, double timeout_s) {
  // The input file is read first: a bad file is a usage error, with or without GPUs.
  const std::vector<T> host = options.input.empty()
                                  ? std::vector<T>()
                                  : reduction::read_input_file<T>("11_multi_gpu", options.input, nullptr);
  const std::size_t n = options.input.empty() ? options.n : host.size();
  const std::vector<T>* host_input = options.input.empty() ? nullptr : &host;
  const int k = gpu_count(options);

  std::vector<Participant> participants;
  for (int d = 0; d < k; ++d) {
    CUDA_CHECK(cudaSetDevice(d));
    participants.push_back(describe_current_gpu(d, "", d, k));
    const reduction::DeviceInfo& device = participants.back().device;
    const Shard s = shard_of(n, k, d);
    if (bytes_needed(s.count, sizeof(T), device) > device.free_bytes) {
      throw reduction::UsageError("--n " + std::to_string(n) + " does not fit: GPU " + std::to_string(d) +
                                  " would need " + std::to_string(bytes_needed(s.count, sizeof(T), device) >> 20) +
                                  " MiB for its shard and has " + std::to_string(device.free_bytes >> 20) +
                                  " MiB free (use more GPUs)");
    }
  }
  std::vector<GpuState<T>> gpus(k);  // constructed in place: a GpuState owns device memory
  for (int d = 0; d < k; ++d) setup(gpus[d], d, shard_of(n, k, d), n, options, host_input);

  // Declared after the GPUs, so destroyed before them: on an error the communicators
  // are aborted (which stops any NCCL kernel) before the GPU memory is freed.
  Communicators comms(timeout_s);
  comms.init_local(k);

  Reference ref = shard_reference<T>(shard_of(n, k, 0), n, options, host_input);
  for (int d = 1; d < k; ++d) ref = reduction::combine(ref, shard_reference<T>(shard_of(n, k, d), n, options, host_input));

  // Verified run (and warm-up), a second warm-up, then the timed runs.
  run_once(gpus, comms, options.op, options.flush);
  std::string result_text;
  reduction::Verdict verdict = check_totals(gpus, ref, n, k, &result_text);
  run_once(gpus, comms, options.op, options.flush);
  std::vector<double> times;
  for (int r = 0; r < options.reps; ++r) times.push_back(run_once(gpus, comms, options.op, options.flush));
  const reduction::Verdict last = check_totals(gpus, ref, n, k, nullptr);
  if (verdict.ok && !last.ok) verdict = last;

  comms.finish();
  print_report(options, n, k, "one process", ref, verdict, result_text, reduction::median(times), participants);
  return verdict.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const reduction::CliSpec spec = cli_spec("11_multi_gpu", true);
  try {
    const Options options = reduction::parse_options(spec, argc, argv);
    if (options.help) {
      std::printf("11_multi_gpu: shards over GPUs, 09 on each, ncclAllReduce to combine\n\n%s"
                  "\nEnvironment:\n  REDUCTION_NCCL_TIMEOUT=S  give up on an NCCL step after S seconds "
                  "(default 120)\n",
                  reduction::usage(spec).c_str());
      return 0;
    }
    const double timeout_s = nccl_timeout_s();
    const std::string why_shape = single_pass_variant().check_shape(options.block, options.grid);
    if (!why_shape.empty()) throw reduction::UsageError(why_shape);
    switch (options.type) {
      case reduction::DType::Int: return run<int>(options, timeout_s);
      case reduction::DType::Float: return run<float>(options, timeout_s);
      case reduction::DType::Double: return run<double>(options, timeout_s);
    }
  } catch (const std::exception& error) {
    return reduction::report_exception(spec.program, error);
  }
  return 3;
}
