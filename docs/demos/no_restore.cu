// pitfall_no_restore: chapters 01-03 reduce in place, so their input is gone after one
// run. Calling the launcher again on the same buffer (what a naive timing loop does)
// sums the leftovers of the first run, not the input.
//
//   build/release/bin/pitfall_no_restore [--n N]
#include <cstdio>
#include <vector>

#include "cli.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "harness.h"
#include "neighbored_less.cuh"
#include "reference.h"

int main(int argc, char** argv) {
  using namespace reduction;
  CliSpec spec;
  spec.program = "pitfall_no_restore";
  spec.gpu = false;
  try {
    const Options o = parse_options(spec, argc, argv);
    std::string why;
    if (!cuda_device_available(&why)) throw CudaError(why);
    const std::size_t n = o.n_given ? o.n : (std::size_t(1) << 20);
    const std::vector<int> host = generate_input<int>(n, o.seed);
    const Reference ref = cpu_reference(host.data(), n);
    const int block = neighbored_less::kDefaultBlock;
    int grid = 0;
    CUDA_CHECK(neighbored_less::default_grid(n, block, &grid));
    DeviceBuffer<int> data(n), result(1);
    DeviceBuffer<unsigned char> scratch(neighbored_less::scratch_bytes(n, block, grid));
    CUDA_CHECK(cudaMemcpy(data.get(), host.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    std::printf("n = %zu ints, reference sum %lld\n", n, ref.int_value);
    for (int run = 1; run <= 3; ++run) {
      CUDA_CHECK(neighbored_less::reduce(data.get(), n, result.get(), scratch.get(), scratch.bytes(), block, grid));
      int sum = 0;
      CUDA_CHECK(cudaMemcpy(&sum, result.get(), sizeof sum, cudaMemcpyDeviceToHost));
      std::printf("run %d without restoring the input: %d  %s\n", run, sum, sum == ref.int_value ? "ok" : "WRONG");
    }
    CUDA_CHECK(cudaMemcpy(data.get(), host.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(neighbored_less::reduce(data.get(), n, result.get(), scratch.get(), scratch.bytes(), block, grid));
    int sum = 0;
    CUDA_CHECK(cudaMemcpy(&sum, result.get(), sizeof sum, cudaMemcpyDeviceToHost));
    std::printf("after copying the input back:       %d  %s\n", sum, sum == ref.int_value ? "ok" : "WRONG");
    return 0;
  } catch (const std::exception& error) {
    return report_exception(spec.program, error);
  }
}
