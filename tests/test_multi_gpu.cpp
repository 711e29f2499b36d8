// Chapter 11 end to end: both programs on 2+ GPUs at awkward sizes, every type and
// operator, against the CPU reference (the programs check it; these tests check that
// they say ok and exit 0). Skipped, with the reason, with fewer than two GPUs.
#include <gtest/gtest.h>
#include <cuda_runtime.h>

#include <cstdlib>

#include "multi_gpu.cuh"
#include "program_runner.h"

namespace reduction::testing {
namespace {

int visible_gpus() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
  return count;
}

#define REQUIRE_TWO_GPUS()                                                                         \
  do {                                                                                             \
    if (visible_gpus() < 2) GTEST_SKIP() << "needs 2 or more CUDA devices, " << visible_gpus() << " visible"; \
  } while (0)

TEST(MultiGpu, ShardsCoverTheArrayContiguously) {
  for (std::size_t n : {0, 1, 2, 7, 1000003}) {
    for (int k : {1, 2, 3, 8}) {
      std::size_t next = 0;
      for (int i = 0; i < k; ++i) {
        const multi_gpu::Shard s = multi_gpu::shard_of(n, k, i);
        EXPECT_EQ(s.begin, next) << n << " " << k << " " << i;
        EXPECT_LE(s.count, n / k + 1);
        EXPECT_GE(s.count, n / k);
        next = s.begin + s.count;
      }
      EXPECT_EQ(next, n);
    }
  }
}

TEST(MultiGpu, OneProcessAllReduceIsRight) {
  REQUIRE_TWO_GPUS();
  for (const char* type : {"int", "float", "double"}) {
    for (const char* op : {"sum", "max", "min"}) {
      for (const char* n : {"0", "1", "3", "1000003", "2^24+1"}) {
        const ProgramRun run = run_program(
            "11_multi_gpu", std::string("--gpus 2 --reps 2 --json --type ") + type + " --op " + op + " --n " + n);
        EXPECT_EQ(run.exit_code, 0) << type << " " << op << " " << n << "\n" << run.output;
        EXPECT_NE(run.output.find("\"ok\": true"), std::string::npos) << run.output;
      }
    }
  }
}

TEST(MultiGpu, TooManyGpusIsAUsageError) {
  REQUIRE_TWO_GPUS();
  const ProgramRun run = run_program("11_multi_gpu", "--gpus 99 --n 1000");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("CUDA device(s) are visible"), std::string::npos) << run.output;
}

TEST(MultiGpu, MpiOneRankPerGpuIsRight) {
  REQUIRE_TWO_GPUS();
#ifndef REDUCTION_MPIRUN
  GTEST_SKIP() << "11_multi_gpu_mpi was not built (no MPI found at configure time)";
#else
  for (const char* type : {"int", "float"}) {
    for (const char* op : {"sum", "max"}) {
      const std::string command = std::string(REDUCTION_MPIRUN) + " --allow-run-as-root --oversubscribe -np 2 " +
                                  REDUCTION_BIN_DIR + "/11_multi_gpu_mpi --reps 2 --json --n 2^24+3 --type " + type +
                                  " --op " + op + " 2>&1";
      FILE* pipe = popen(command.c_str(), "r");
      ASSERT_NE(pipe, nullptr);
      std::string output;
      char buffer[4096];
      while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
      const int status = pclose(pipe);
      EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0) << command << "\n" << output;
      EXPECT_NE(output.find("\"ok\": true"), std::string::npos) << output;
    }
  }
#endif
}

}  // namespace
}  // namespace reduction::testing
