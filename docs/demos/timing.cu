// pitfall_timing: three ways to time a kernel wrongly, next to the right way, on chapter
// 04's launcher.
//   1. the host clock around a launch, without waiting for the GPU: measures the launch call
//   2. the first call only, without a warm-up: includes loading the module onto the GPU
//   3. events without flushing L2, at a size that fits in L2: measures the cache, not DRAM
//
//   build/release/bin/pitfall_timing [--n N] [--reps R]
#include <chrono>
#include <cstdio>
#include <vector>

#include "cli.h"
#include "device_buffer.h"
#include "harness.h"
#include "l2_flush.h"
#include "shared_tree.cuh"
#include "timer.h"

int main(int argc, char** argv) {
  using namespace reduction;
  CliSpec spec;
  spec.program = "pitfall_timing";
  spec.gpu = false;
  try {
    const Options o = parse_options(spec, argc, argv);
    std::string why;
    if (!cuda_device_available(&why)) throw CudaError(why);
    const DeviceInfo device = query_device();
    const std::size_t n = o.n_given ? o.n : (std::size_t(1) << 22);  // 16 MiB of ints: fits in an H100's L2
    const std::vector<int> host = generate_input<int>(n, o.seed);
    const int block = shared_tree::kDefaultBlock;
    int grid = 0;
    CUDA_CHECK(shared_tree::default_grid(n, block, &grid));
    DeviceBuffer<int> data(n), result(1);
    DeviceBuffer<unsigned char> scratch(shared_tree::scratch_bytes(n, block, grid));
    L2Flusher flusher(device.l2_bytes);
    CUDA_CHECK(cudaMemcpy(data.get(), host.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    auto launch = [&] {
      CUDA_CHECK(shared_tree::reduce(data.get(), n, result.get(), scratch.get(), scratch.bytes(), block, grid));
    };
    const double mib = n * sizeof(int) / 1048576.0;
    std::printf("%s, n = %zu ints (%.0f MiB, L2 is %.0f MiB)\n\n", device.name.c_str(), n, mib,
                device.l2_bytes / 1048576.0);

    // 1. Host clock, no synchronisation: the launch returns before the kernel runs.
    GpuTimer timer;
    auto t0 = std::chrono::steady_clock::now();
    launch();
    auto t1 = std::chrono::steady_clock::now();
    CUDA_CHECK(cudaDeviceSynchronize());
    std::printf("first call, host clock, no sync:      %9.4f ms  (the launch call, plus one-time setup)\n",
                std::chrono::duration<double, std::milli>(t1 - t0).count());
    t0 = std::chrono::steady_clock::now();
    launch();
    t1 = std::chrono::steady_clock::now();
    CUDA_CHECK(cudaDeviceSynchronize());
    std::printf("second call, host clock, no sync:     %9.4f ms  (only the time to enqueue two launches)\n",
                std::chrono::duration<double, std::milli>(t1 - t0).count());

    // 2 and 3. Events, with and without an L2 flush, median of reps.
    auto timed = [&](bool flush_l2) {
      std::vector<double> times;
      for (int r = 0; r < o.reps; ++r) {
        if (flush_l2) flusher.flush(nullptr);
        timer.start(nullptr);
        launch();
        timer.stop(nullptr);
        times.push_back(timer.elapsed_ms());
      }
      return median(times);
    };
    const double cached = timed(false), flushed = timed(true);
    std::printf("events, L2 not flushed (warm cache):  %9.4f ms  %7.1f GB/s  (input served from L2)\n", cached,
                n * sizeof(int) / (cached * 1e6));
    std::printf("events, L2 flushed before each run:   %9.4f ms  %7.1f GB/s  (input read from DRAM: the honest number)\n",
                flushed, n * sizeof(int) / (flushed * 1e6));
    std::printf("\npeak DRAM bandwidth %.1f GB/s; median of %d runs each\n", device.peak_gbps(), o.reps);
    return 0;
  } catch (const std::exception& error) {
    return report_exception(spec.program, error);
  }
}
